"""Which files an agent may read in `inspect` and `control` mode: those of a session that is open.

A debugger shows the program's code, not the machine's files. A file belongs to an open session when it is under its
program's project (the nearest folder up from the program holding pyproject.toml, package.json or .git; the
program's own folder when there is none), when the session's last stop shows it, or when the debuggee loaded it
(scripts and their source-map sources, for the inspector backends). Paths are compared after symlinks and `..` are
resolved, so neither leads out. People and agents in `full` mode read any file (they can run code anyway).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from .errors import DebugError, ErrorCode
from .policy import Level, is_agent
from .source import is_url

PROJECT_MARKERS = ("pyproject.toml", "package.json", ".git")


def bounded(hub, actor: str) -> bool:
    """Whether `actor` reads only files of open sessions (an agent below `full`)."""
    return is_agent(actor) and not hub.policy.allows(Level.FULL)


def project_root(path: str) -> str:
    """The nearest folder above `path` that holds a project marker; `path`'s own folder when none does.

    The filesystem root and the home folder never count as a project (a dotfiles repository at ~ would otherwise
    make every file of the user readable)."""
    start = os.path.dirname(os.path.realpath(path))
    never = {os.path.realpath(os.path.expanduser("~")), os.path.realpath(os.sep)}
    folder = start
    while folder not in never:
        if any(os.path.exists(os.path.join(folder, marker)) for marker in PROJECT_MARKERS):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return start


def _session_places(session) -> Iterator[tuple[str, bool]]:
    """(path, is_folder) pairs an open session makes readable."""
    program = session.backend.program
    if program and os.path.isabs(program):
        yield project_root(program), True
    stop = session.last_stop
    if stop is not None:
        for file in [stop.location.file, *(frame.file for frame in stop.stack)]:
            if file and os.path.isabs(file):
                yield file, False
    for file in session.backend.loaded_files():
        if os.path.isabs(file):
            yield file, False


def _within(path: str, places: Iterable[tuple[str, bool]]) -> bool:
    for place, is_folder in places:
        place = os.path.realpath(place)
        if path == place or (is_folder and path.startswith(place.rstrip(os.sep) + os.sep)):
            return True
    return False


def check_readable(hub, actor: str, path: str) -> None:
    """Raise PERMISSION_DENIED unless `actor` may read `path` (an absolute path or a URL the debuggee serves)."""
    if not bounded(hub, actor) or is_url(path):
        return  # a URL is only ever answered from sources the debuggee itself handed over
    real = os.path.realpath(path)
    sessions = list(hub.sessions.values())  # a closed session leaves the Hub
    if any(_within(real, _session_places(session)) for session in sessions):
        return
    mode = hub.policy.mode.value
    none_open = " (no session is open)" if not sessions else ""
    raise DebugError(
        ErrorCode.PERMISSION_DENIED,
        f"agent mode is {mode}: {path[:120]!r} is not a file of an open debug session{none_open}; agents below "
        "full mode read only a session's program project, the files its stack shows and the sources it loaded",
        hint="ask the person in the pairdbg TUI to switch the agent mode to full (ctrl+g) to read other files",
        mode=mode,
        needs=Level.FULL.value,
    )
