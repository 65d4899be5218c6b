"""The change log beside the console: a log-only data breakpoint set with Shift+B on a real debugpy program, its
writes listed in the Changes tab as they arrive (time, thread, file:line, function, old → new), bounded, and kept out
of the console."""

from __future__ import annotations


import pytest

from pairdbg.backends.models import Phase
from pairdbg.tui import changes
from pairdbg.tui.app import PairDbgApp
from pairdbg.tui.changes import ChangesPane, LogTabs
from pairdbg.tui.panes import ConsolePane
from pairdbg.tui.source_view import SourceView
from pairdbg.tui.variables import VariablesTree
from support import line_of, prog, until
from test_tui_panes import select_variable

pytestmark = [pytest.mark.timeout(120), pytest.mark.asyncio]

PROGRAM = "cart_changes.py"
WRITES = [(0, 3), (3, 7), (7, 12), (12, 18), (18, 25)]


async def test_shift_b_logs_each_write_in_the_changes_tab(core, monkeypatch):
    hub, registry = core
    monkeypatch.setattr(changes, "MAX_ROWS", 3)  # five writes: the pane keeps the newest three
    program = prog(PROGRAM)
    ready, after = line_of(PROGRAM, "# stop here"), line_of(PROGRAM, "# after the writes")
    launch = {"program": program, "breakpoints": [{"file": program, "line": ready}, {"file": program, "line": after}]}
    app = PairDbgApp(hub, registry, launch=launch)
    async with app.run_test(size=(160, 45)) as pilot:
        source = app.query_one(SourceView)
        await until(lambda: source.current_line == ready, "the stop before the writes", pilot=pilot)
        tabs, log = app.query_one(LogTabs), app.query_one(ChangesPane)
        assert tabs.title_text == "Console" and tabs.current == "console"  # no log yet: the console alone

        tree = app.query_one(VariablesTree)
        tree.focus()
        await until(lambda: select_variable(tree, "cart"), "cart", pilot=pilot)
        await pilot.press("enter")
        await until(lambda: select_variable(tree, "total"), "cart.total", pilot=pilot)
        await pilot.press("B")
        await until(lambda: "logs its changes" in tree.said, lambda: f"the log-only breakpoint, not {tree.said!r}")
        bp_id = tree.said.split()[0]

        await pilot.press("f5")  # five writes, logged without stopping, then the stop after them
        session = hub.sessions[app.session_id]
        await until(lambda: session.phase == Phase.PAUSED and source.current_line == after, "the stop", pilot=pilot)
        await until(lambda: log.count == len(WRITES), lambda: f"the changes, not {log.rows_text}", pilot=pilot)

        assert tabs.title_text == f"Console │ Changes {len(WRITES)}"
        where = f"{PROGRAM}:{line_of(PROGRAM, '# writes total')}"
        assert len(log.rows_text) == 3 and log.query_one("DataTable").row_count == 3
        for row, (old, new) in zip(log.rows_text, WRITES[-3:], strict=True):
            time, change, place, function, thread = row.split("  ", 4)
            assert len(time) == len("12:00:00.000") and time[2] == ":" and time[8] == ".", row
            assert (thread, place, function) == ("MainThread", where, "add"), row
            assert change == f"{bp_id} cart.total: {old} → {new}", row
        console = app.query_one(ConsolePane)
        assert "ready" in console.lines_text  # the program's output stays in the console
        assert not any("→" in line for line in console.lines_text)  # its changes do not

        # The agent's read is the same log, whole, and its entries carry only their text.
        reply = await registry.run("get_output", {"session_id": session.id, "category": "changes"}, "agent:test")
        entries = reply.data["entries"]
        assert [set(e) for e in entries] == [{"seq", "category", "text"}] * len(WRITES)
        assert f"{bp_id} cart.total 18 → 25  at {where} in add [MainThread]" in entries[-1]["text"]

        await pilot.press("f4")
        await until(lambda: tabs.current == "changes", "the changes tab", pilot=pilot)
        assert log.display and not console.display and app.focused is log.query_one("DataTable")
        assert tabs.title_text == f"Console │ Changes {len(WRITES)}"
        await pilot.press("ctrl+e")  # the console's key brings the console back
        await until(lambda: tabs.current == "console", "the console again", pilot=pilot)
        assert console.display and app.focused is console.query_one("#console-input")
        await pilot.click(LogTabs, offset=(4, 0))  # the title row switches too
        await until(lambda: tabs.current == "changes", "a click on the title", pilot=pilot)
