"""The program's project: its root folder (nearest one up with a project marker) and the files in it, as git or a
walk that honours .gitignore's common forms would list them."""

from __future__ import annotations

import fnmatch
import os
import subprocess
from dataclasses import dataclass, field

MARKERS = ("pyproject.toml", "package.json", ".git")
# Never worth listing, ignored or not: installed packages, virtual environments, caches, version control.
SKIPPED_DIRS = frozenset(
    {
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".git",
        ".hg",
        ".svn",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
    }
)
MAX_FILES = 100_000  # a tree bigger than this is listed in part (the finder says so)
GIT_TIMEOUT_S = 5.0


def project_root(path: str, markers: tuple[str, ...] = MARKERS) -> str:
    """The nearest folder at or above `path` (a file or folder) holding one of `markers`; the file's own folder
    when there is none up to the filesystem root."""
    start = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    folder = start
    while True:
        if any(os.path.exists(os.path.join(folder, marker)) for marker in markers):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return start
        folder = parent


@dataclass
class Listing:
    root: str
    files: list[str] = field(default_factory=list)  # relative to root, '/'-separated
    how: str = "walk"  # "git" or "walk"
    truncated: bool = False


def list_files(root: str, limit: int = MAX_FILES) -> Listing:
    """The project's files: git's tracked and untracked-but-not-ignored files in a git work tree, else a walk that
    skips SKIPPED_DIRS and what the root's .gitignore ignores."""
    listed = _git_files(root, limit)
    if listed is not None:
        return listed
    return _walk(root, limit)


def _git_files(root: str, limit: int) -> Listing | None:
    try:
        proc = subprocess.run(
            ["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None  # not a git work tree (or no git): walk instead
    names = proc.stdout.decode("utf-8", "replace").split("\0")
    files = [n for n in dict.fromkeys(names) if n and not _skipped(n)]
    return Listing(root, files[:limit], "git", len(files) > limit)


def _skipped(relative: str) -> bool:
    return any(part in SKIPPED_DIRS for part in relative.split("/")[:-1])


class GitIgnore:
    """The common forms of a .gitignore: `name`, `*.ext`, `dir/`, `/anchored`, `a/b/*.c`, `**/x`, `!negation`."""

    def __init__(self, text: str) -> None:
        self.rules: list[tuple[bool, bool, bool, str]] = []  # (negated, directory only, anchored, pattern)
        for raw in text.splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            negated = line.startswith("!")
            line = line[1:] if negated else line
            directory = line.endswith("/")
            line = line.rstrip("/")
            anchored = "/" in line
            line = line.lstrip("/")
            if line.startswith("**/"):
                line, anchored = line[3:], "/" in line[3:]
            if line:
                self.rules.append((negated, directory, anchored, line))

    def ignored(self, relative: str, is_dir: bool) -> bool:
        name = relative.rsplit("/", 1)[-1]
        result = False
        for negated, directory, anchored, pattern in self.rules:
            if directory and not is_dir:
                continue
            if fnmatch.fnmatchcase(relative if anchored else name, pattern):
                result = not negated
        return result


def _walk(root: str, limit: int) -> Listing:
    try:
        with open(os.path.join(root, ".gitignore"), encoding="utf-8", errors="replace") as fh:
            ignore = GitIgnore(fh.read())
    except OSError:
        ignore = GitIgnore("")
    files: list[str] = []
    prefix = len(root.rstrip(os.sep)) + 1
    for folder, dirs, names in os.walk(root):
        rel_folder = folder[prefix:].replace(os.sep, "/") if len(folder) >= prefix else ""
        dirs[:] = sorted(
            d for d in dirs if d not in SKIPPED_DIRS and not ignore.ignored(f"{rel_folder}/{d}".lstrip("/"), True)
        )
        for name in sorted(names):
            relative = f"{rel_folder}/{name}".lstrip("/")
            if not ignore.ignored(relative, False):
                files.append(relative)
                if len(files) > limit:
                    return Listing(root, files[:limit], "walk", True)
    return Listing(root, files, "walk", False)
