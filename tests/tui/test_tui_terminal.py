"""The TUI at 80x24 in a real pseudo-terminal (read through pyte, what a person would see): the MCP URL and the key
hints readable, the program's line in view, and the side panes taking turns instead of shrinking to nothing."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from pairdbg.backends.samples import DEMO
from support import line_of
from support.terminal import F2, F10, Terminal, marked_line

pytestmark = pytest.mark.timeout(90)

STOP_LINE = line_of(DEMO, "orders = {")
URL = re.compile(r"MCP http://127\.0\.0\.1:\d+/mcp\b")


@pytest.fixture
def demo_80x24(tmp_path: Path):
    env = {**os.environ, "TERM": "xterm-256color", "XDG_RUNTIME_DIR": str(tmp_path)}
    env.pop("COLUMNS", None), env.pop("LINES", None)
    term = Terminal([str(Path(sys.executable).with_name("pairdbg")), "demo"], env, 80, 24)
    try:
        term.wait_for(lambda display: marked_line(display) == STOP_LINE)
        term.settle()
        yield term
    finally:
        term.close()


def shown(term: Terminal, *words: str) -> bool:
    screen = term.text()
    return all(w in screen for w in words)


def test_80x24_keeps_the_url_the_keys_and_the_line_readable(demo_80x24: Terminal) -> None:
    term = demo_80x24
    header, footer = term.display[0], term.display[-1]
    assert URL.search(header), header  # the whole URL, not cut
    assert f"orders.py:{STOP_LINE}" in header and "agent" in header
    for hint in ("^q Quit", "f10 Over", "f11 Into", "f5 Continue", "f9 Breakpoint", "f2 Stack"):
        assert hint in footer, footer
    assert shown(term, "Source", "Variables", "Console", "Activity"), term.text()
    source_row = next(row for row in term.display if f"▶   {STOP_LINE}" in row)
    assert "orders = {" in source_row  # the code itself, not a sliver of the gutter

    # F2: the call stack, sessions and breakpoints take the variables' place, and give it back.
    term.send(F2)
    term.wait_for(lambda d: "Call stack" in "\n".join(d) and "Variables" not in "\n".join(d), 10)
    term.settle()
    assert shown(term, "@f0  main", "Sessions", "BP1 orders.py", f"▶   {STOP_LINE}"), term.text()
    term.send(F2)
    term.wait_for(lambda d: "Variables" in "\n".join(d) and "Call stack" not in "\n".join(d), 10)


def test_80x24_current_line_survives_steps_and_resizes(demo_80x24: Terminal) -> None:
    term = demo_80x24
    line = STOP_LINE
    for _ in range(3):
        term.send(F10)
        term.wait_for(lambda d, before=line: marked_line(d) not in (None, before), 15)
        line = marked_line(term.display)
        term.settle(0.2)
    term.resize(160, 45)
    term.wait_for(lambda d: "pairdbg" in d[0] and marked_line(d) == line, 10)  # wide: the long header
    assert shown(term, "Call stack", "Variables")  # every pane at once
    term.resize(80, 24)
    term.wait_for(lambda d: URL.search(d[0]) is not None and "Call stack" not in "\n".join(d), 10)
    term.settle()
    assert marked_line(term.display) == line, term.text()  # the program's line is still in view
