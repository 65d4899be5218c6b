"""Reads source files for reports and the TUI, cached by path and modification time."""

from __future__ import annotations

import difflib
import os
from functools import lru_cache

from .errors import DebugError, ErrorCode
from .models import SourceLine


# Sources with no local file (a page's http://…/app.js, a script's source-map content), by URL or path.
# Bounded: the oldest are forgotten first.
_remote: dict[str, tuple[str, ...]] = {}
MAX_REMOTE = 200


def is_url(path: str) -> bool:
    return "://" in path and not path.startswith("file://")


def register_source(path: str, text: str) -> None:
    _remote.pop(path, None)
    _remote[path] = tuple(text.splitlines())
    while len(_remote) > MAX_REMOTE:
        _remote.pop(next(iter(_remote)))


def forget_source(path: str) -> None:
    _remote.pop(path, None)


def has_source(path: str) -> bool:
    return path in _remote


@lru_cache(maxsize=64)
def _read(path: str, mtime_ns: int, size: int) -> tuple[str, ...]:
    with open(path, encoding="utf-8", errors="replace") as fh:
        return tuple(fh.read().splitlines())


def resolve_path(file: str, folders: list[str]) -> str:
    """An absolute path for `file`. A relative one is looked for under `folders` first (the session's working and
    program folders: a stop report says `orders.py:37`, and the agent passes `orders.py` back), then under
    pairdbg's own cwd; a file found nowhere keeps the first candidate, so the error names a real place."""
    file = os.path.expanduser(file)
    if os.path.isabs(file):
        return os.path.normpath(file)
    candidates = [os.path.normpath(os.path.join(folder, file)) for folder in folders if folder]
    candidates.append(os.path.abspath(file))
    return next((path for path in candidates if os.path.isfile(path)), candidates[0])


def lines_of(path: str) -> tuple[str, ...]:
    """All lines of a file (0-based tuple), or PATH_NOT_FOUND."""
    if path in _remote:
        return _remote[path]
    try:
        st = os.stat(path)
    except OSError:
        raise DebugError(
            ErrorCode.PATH_NOT_FOUND, f"file not found: {path}", hint="pass an absolute path to an existing file"
        ) from None
    if not os.path.isfile(path):
        raise DebugError(ErrorCode.PATH_NOT_FOUND, f"not a regular file: {path}")
    return _read(path, st.st_mtime_ns, st.st_size)


LINE_CHARS = 1000  # of one source line shown: a minified bundle's single line can be megabytes


def shown(text: str) -> str:
    """A source line as replies show it: as is, or its start and its length."""
    return text if len(text) <= LINE_CHARS else f"{text[:LINE_CHARS]}… ({len(text)} chars)"


def window(path: str | None, line: int | None, context: int = 3) -> list[SourceLine]:
    """Lines around `line` (1-based) with the current one marked; empty when the file cannot be read."""
    if not path or not line:
        return []
    try:
        lines = lines_of(path)
    except DebugError:
        return []
    lo = max(1, line - context)
    hi = min(len(lines), line + context)
    return [SourceLine(line=n, text=shown(lines[n - 1]), current=(n == line)) for n in range(lo, hi + 1)]


def find_statement(path: str, statement: str, near: int | None = None) -> tuple[int, list[int]]:
    """The 1-based line of `path` holding `statement` (spaces and quote styles ignored; a whole line beats a line
    that only contains it), nearest to `near` when given, else the first; and the other matching lines.
    Comment-only lines never match. INVALID_PARAMETERS naming the closest lines when nothing matches."""
    wanted = _flat(statement)
    if not wanted:
        raise DebugError(ErrorCode.INVALID_PARAMETERS, "statement is empty", hint="give the code on the line")
    lines = lines_of(path)
    whole: list[int] = []
    partial: list[int] = []
    for number, text in enumerate(lines, 1):
        flat = _flat(text)
        if not flat or flat.startswith(("#", "//")):
            continue
        if flat == wanted or flat.rstrip(";") == wanted.rstrip(";"):
            whole.append(number)
        elif wanted in flat:
            partial.append(number)
    found = whole or partial
    if not found:
        close = difflib.get_close_matches(wanted, [_flat(t) for t in lines], n=2, cutoff=0.6)
        shown = "; ".join(f"{_line_of(lines, c)}: {c[:80]}" for c in close)
        raise DebugError(
            ErrorCode.INVALID_PARAMETERS,
            f"no line of {os.path.basename(path)} holds {wanted[:120]!r}",
            hint=(f"closest: {shown}" if shown else "check the file") + "; or give line",
        )
    chosen = min(found, key=lambda n: (abs(n - near), n)) if near else found[0]
    return chosen, [n for n in found if n != chosen]


def _flat(text: str) -> str:
    return " ".join(text.replace("'", '"').split())


def _line_of(lines: tuple[str, ...], flat: str) -> int:
    return next(n for n, t in enumerate(lines, 1) if _flat(t) == flat)
