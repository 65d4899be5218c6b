"""Which compiled file will run an original source (a `.ts` under `src/` compiled by tsc into `dist/`), found before
the runtime loads it, so a breakpoint on the source can be bound by the compiled file's URL ahead of time.

The compiled files of the source's project (the nearest folder up with a package.json or tsconfig.json) are looked
for by their maps (`x.js` beside `x.js.map`, node_modules left out); a map is read once per modification time.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from functools import lru_cache

from ..project import project_root as find_project_root
from .sourcemap import SourceMap, SourceMapError

log = logging.getLogger(__name__)
PROJECT_MARKERS = ("package.json", "tsconfig.json")
SKIP_DIRS = {"node_modules", ".git", ".hg", ".venv", "__pycache__"}
MAX_MAPS = 2000  # a project with more compiled files than this is only partly searched
MAX_DIRS = 5000  # nor is one with more folders (outside node_modules) than this
GENERATED = (".js", ".mjs", ".cjs")


@dataclass(frozen=True)
class Compiled:
    path: str  # the compiled file (absolute, real path)
    source_map: SourceMap


def project_root(path: str) -> str:
    """The nearest folder above `path` holding a package.json or tsconfig.json, else the file's own folder."""
    return find_project_root(path, PROJECT_MARKERS)


def compiled_files_for(source: str) -> list[Compiled]:
    """Compiled files whose maps name `source` (an absolute path), nearest first; none for a plain JS file."""
    if source.endswith(GENERATED):
        return []
    wanted = os.path.realpath(source)
    found = []
    for map_path in _map_files(project_root(source)):
        try:
            stat = os.stat(map_path)
        except OSError:
            continue
        source_map = _load(map_path, stat.st_mtime_ns, stat.st_size)
        if source_map is None:
            continue
        if any(os.path.isabs(s) and os.path.realpath(s) == wanted for s in source_map.sources_list):
            found.append(Compiled(os.path.realpath(map_path[: -len(".map")]), source_map))
    return found


def _map_files(root: str) -> list[str]:
    out: list[str] = []
    for visited, (folder, dirs, files) in enumerate(os.walk(root)):
        if visited >= MAX_DIRS:
            log.info("more than %d folders under %s; searched the first ones", MAX_DIRS, root)
            return out
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")]
        for name in files:
            compiled = os.path.join(folder, name[: -len(".map")])
            if name.endswith(".map") and compiled.endswith(GENERATED) and os.path.isfile(compiled):
                out.append(os.path.join(folder, name))
                if len(out) >= MAX_MAPS:
                    log.info("more than %d compiled files under %s; searched the first ones", MAX_MAPS, root)
                    return out
    return out


@lru_cache(maxsize=512)
def _load(map_path: str, mtime_ns: int, size: int) -> SourceMap | None:
    try:
        with open(map_path, "rb") as fh:
            return SourceMap.parse(fh.read(), map_path, map_path[: -len(".map")])
    except (OSError, SourceMapError) as exc:
        log.info("ignoring %s: %s", map_path, exc)
        return None
