"""The TUI always exits (issue 21 §4): its terminal closing at any moment while it quits (Ctrl+Q) leaves no pairdbg
behind, with or without the SIGHUP a terminal window sends, and no debugged program either."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from support import pid_alive
from support.terminal import CTRL_Q, Terminal, marked_line

pytestmark = pytest.mark.timeout(120)
GONE_WITHIN_S = 2.0


def program_pids(mark: str) -> list[int]:
    """The debugged demo's processes (python … orders.py) this test's pairdbg started (they inherit its
    XDG_RUNTIME_DIR, a folder of this test's own)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if any(part.endswith(b"orders.py") for part in cmd) and f"XDG_RUNTIME_DIR={mark}".encode() in environ.split(
            b"\0"
        ):
            found.append(int(entry.name))
    return found


@pytest.mark.parametrize("controlling", [False, True], ids=["no-sighup", "sighup"])
@pytest.mark.parametrize("after_s", [0.0, 0.1, 0.3, 0.4, 0.45])
def test_the_tui_exits_when_its_terminal_closes_during_quit(tmp_path, controlling, after_s) -> None:
    env = {**os.environ, "TERM": "xterm-256color", "XDG_RUNTIME_DIR": str(tmp_path)}
    argv = [str(Path(sys.executable).with_name("pairdbg")), "--no-http", "demo"]
    term = Terminal(argv, env, 100, 30, controlling=controlling)
    try:
        term.wait_for(lambda display: marked_line(display) is not None, 60)
        programs = program_pids(str(tmp_path))
        assert programs, "the demo is not running under pairdbg"
        term.send(CTRL_Q)
        quit_at = time.monotonic()
        while time.monotonic() - quit_at < after_s:
            term.pump(0.01)
        term.hang_up()
        deadline = time.monotonic() + GONE_WITHIN_S
        while term.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert term.proc.poll() is not None, f"pairdbg still runs {GONE_WITHIN_S} s after its terminal closed"
        deadline = time.monotonic() + GONE_WITHIN_S  # the Reaper may take a moment after a forced end
        while any(pid_alive(p) for p in programs) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [p for p in programs if pid_alive(p)], "the debugged program outlived pairdbg"
    finally:
        if term.proc.poll() is None:
            os.killpg(term.proc.pid, signal.SIGKILL)
        term.close()
