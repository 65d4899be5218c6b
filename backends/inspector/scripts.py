"""What the inspector told us about loaded scripts, and mapping locations between the user's files and the wire.

Lines here are 0-based (the wire's convention); the backend converts to the 1-based lines people see.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from ..source import is_url
from .dialect import Dialect

log = logging.getLogger(__name__)


@dataclass
class Script:
    script_id: str
    url: str
    path: str | None  # a local file, when the url names one
    map_url: str | None = None
    _map: object | None = None
    _map_loaded: bool = False

    def source_map(self):
        """The parsed source map (or None), loaded on first use; a broken map is logged and ignored."""
        if not self._map_loaded:
            self._map_loaded = True
            if self.map_url:
                from .sourcemap import SourceMap, SourceMapError, chain_file_map

                try:
                    found = SourceMap.from_url(self.map_url, self.path or self.url)
                    self._map = chain_file_map(found) if found is not None else None
                except (SourceMapError, OSError) as exc:
                    log.warning("ignoring the source map of %s: %s", self.url, exc)
                except Exception:  # a map we cannot read must never cost the session; lines stay unmapped
                    log.exception("failed to read the source map of %s", self.url)
        return self._map


@dataclass(frozen=True)
class Roots:
    """The target runs its files from another root (a container, another host): launch.json's localRoot and
    remoteRoot. Paths under `remote` on the wire are the files under `local` here."""

    local: str
    remote: str

    def to_local(self, path: str) -> str:
        return _rebase(path, self.remote, self.local)

    def to_remote(self, path: str) -> str:
        return _rebase(path, self.local, self.remote)


def _rebase(path: str, old: str, new: str) -> str:
    old = old.rstrip("/")
    if path == old or path.startswith(old + "/"):
        return new.rstrip("/") + path[len(old) :]
    return path


@dataclass
class Scripts:
    dialect: Dialect
    roots: Roots | None = None
    by_id: dict[str, Script] = field(default_factory=dict)
    by_key: dict[str, str] = field(default_factory=dict)  # url or local path -> newest scriptId
    by_original: dict[str, str] = field(default_factory=dict)  # original source path -> scriptId of its map

    def add(self, params: dict) -> Script:
        url = params.get("url") or ""
        path = self.dialect.local_path(url)
        if path and self.roots is not None:
            path = self.roots.to_local(path)
        script = Script(str(params.get("scriptId")), url, path, params.get("sourceMapURL") or None)
        self.by_id[script.script_id] = script
        if url:
            self.by_key[url] = script.script_id
        if script.path:
            self.by_key[script.path] = script.script_id
        if script.map_url:
            source_map = script.source_map()
            for source in source_map.sources_list if source_map is not None else []:
                if source and source != script.path:
                    self.by_original[source] = script.script_id
        return script

    def local_files(self) -> list[str]:
        """The local files of the loaded scripts and of their source maps' sources."""
        files = [script.path for script in self.by_id.values() if script.path]
        return files + [source for source in self.by_original if not is_url(source)]

    def clear(self) -> None:
        self.by_id.clear()
        self.by_key.clear()
        self.by_original.clear()

    def url_for(self, path: str) -> str:
        """The URL the target knows a local file by (under its own root)."""
        return self.dialect.url_for_path(self.roots.to_remote(path) if self.roots is not None else path)

    def for_file(self, path: str) -> Script | None:
        """The loaded script that holds `path` (itself, or through a source map)."""
        script_id = self.by_key.get(path) or self.by_key.get(self.url_for(path))
        script_id = script_id or self.by_original.get(path)
        return self.by_id.get(script_id) if script_id else None

    def to_wire(self, path: str, line0: int) -> tuple[Script | None, int, int | None, int]:
        """(script, generated line, generated column or None, the original line it really binds to)."""
        script = self.for_file(path)
        source_map = script.source_map() if script else None
        if script is None or source_map is None:
            return script, line0, None, line0
        position = source_map.generated_for(path, line0)
        if position is None:
            return script, line0, None, line0
        bound = getattr(position, "original_line", line0)
        return script, position.line, position.column, bound

    def from_wire(self, script_id: str, line0: int, column0: int = 0) -> tuple[str, int, int]:
        """(file or url, original line, original column) for a location in a loaded script."""
        script = self.by_id.get(str(script_id))
        if script is None:
            return f"script {script_id}", line0, column0
        source_map = script.source_map()
        if source_map is not None:
            found = source_map.statement_at(line0, column0)
            if found is not None:
                source, line, column = found
                return source or script.path or script.url, line, column
        return script.path or script.url, line0, column0
