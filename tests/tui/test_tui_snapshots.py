"""SVG snapshots of the main debugger screen, stopped at a breakpoint with real debugpy behind it, at 80x24 and
120x40, and of the change log tab at 120x40 (pytest-textual-snapshot; `--snapshot-update` rewrites them after review).

Kept deterministic: the fixed default theme, file names shown without folders, the activity's clock fixed, and the
start's line (its pid) not on screen: the screen is taken after the agent and the person each add a watch."""

from __future__ import annotations

from typing import Any

import pytest

from pairdbg.backends.hub import Hub
from pairdbg.backends.samples import DEMO
from pairdbg.runtime import build_registry
from pairdbg.tui import changes, panes
from pairdbg.tui.app import PairDbgApp
from pairdbg.tui.changes import ChangesPane, LogTabs
from pairdbg.tui.exception_filters import ExceptionFiltersPane
from pairdbg.tui.panes import ActivityLog
from pairdbg.tui.source_view import SourceView
from pairdbg.tui.watches import WatchesPane
from support import line_of, prog, require_debugpy, until

pytestmark = pytest.mark.timeout(120)
STOP_LINE = 13
AGENT = "agent:claude"


class FixedClock:
    """The activity log's clock, fixed so a snapshot does not depend on when it was taken."""

    @staticmethod
    def localtime(_seconds: float | None = None) -> Any:
        return None

    @staticmethod
    def strftime(_format: str, _when: Any = None) -> str:
        return "12:00:00"

    @staticmethod
    def time() -> float:
        return 0.0


class SnapshotApp(PairDbgApp):
    """The app, closing its sessions before its event loop ends (no debugpy outlives the screenshot)."""

    async def on_unmount(self) -> None:
        await super().on_unmount()
        await self.hub.shutdown()


async def stopped_screen(pilot: Any) -> None:
    app: PairDbgApp = pilot.app
    registry = app.registry
    reply = await registry.run(
        "start_debugging", {"program": DEMO, "breakpoints": [{"file": DEMO, "line": STOP_LINE}]}, AGENT
    )
    sid = reply.data["session_id"]
    source = app.query_one(SourceView)
    await until(lambda: source.current_line == STOP_LINE, "the stop", pilot=pilot)
    log = app.query_one(ActivityLog)
    await until(lambda: any("start_debugging" in line for line in log.lines_text), "the start's line", pilot=pilot)
    log.clear()  # the start's line names the program's pid
    log.lines_text.clear()
    await registry.run("add_watch", {"session_id": sid, "expression": "price * qty"}, AGENT)
    await registry.run("add_watch", {"session_id": sid, "expression": "qty > 5"}, "human")
    watches = app.query_one(WatchesPane)
    await until(lambda: len(watches.views) == 2 and "10.0" in watches.views[0].value, "the watches", pilot=pilot)
    await until(lambda: len(log.lines_text) == 2, "the two watch lines in the activity", pilot=pilot)
    await until(lambda: app.query_one(ExceptionFiltersPane).filters, "the exception filters", pilot=pilot)
    await pilot.pause(0.3)  # the stack's thread read (one thread: the plain list stays)
    source.focus()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_the_stopped_debugger_screen(snap_compare, monkeypatch, size):
    require_debugpy()
    monkeypatch.setattr(panes, "time", FixedClock)
    hub = Hub()
    app = SnapshotApp(hub, build_registry(hub))
    assert snap_compare(app, terminal_size=size, run_before=stopped_screen)


CART = "cart_changes.py"


async def change_log_screen(pilot: Any) -> None:
    """Stopped after the five writes an agent's log-only data breakpoint recorded, the Changes tab shown."""
    app: PairDbgApp = pilot.app
    registry = app.registry
    program = prog(CART)
    ready, after = line_of(CART, "# stop here"), line_of(CART, "# after the writes")
    breakpoints = [{"file": program, "line": ready}, {"file": program, "line": after}]
    reply = await registry.run("start_debugging", {"program": program, "breakpoints": breakpoints}, AGENT)
    sid = reply.data["session_id"]
    source = app.query_one(SourceView)
    await until(lambda: source.current_line == ready, "the stop before the writes", pilot=pilot)
    await registry.run("set_data_breakpoint", {"session_id": sid, "expression": "cart.total", "log_only": True}, AGENT)
    await registry.run("continue_execution", {"session_id": sid}, AGENT)
    await until(lambda: source.current_line == after, "the stop after the writes", pilot=pilot)
    log = app.query_one(ChangesPane)
    await until(lambda: log.count == 5, "the five changes", pilot=pilot)
    await until(lambda: app.query_one(ExceptionFiltersPane).filters, "the exception filters", pilot=pilot)
    await pilot.pause(0.3)  # the stack's thread read (one thread: the plain list stays)
    activity = app.query_one(ActivityLog)
    activity.clear()  # the start's line names the program's pid
    activity.lines_text.clear()
    await pilot.press("f4")
    await until(lambda: app.query_one(LogTabs).current == "changes", "the changes tab", pilot=pilot)


def test_the_change_log_tab(snap_compare, monkeypatch):
    require_debugpy()
    monkeypatch.setattr(panes, "time", FixedClock)
    monkeypatch.setattr(changes, "stamp", lambda _at: "12:00:00.000")  # the writes' own clock
    hub = Hub()
    app = SnapshotApp(hub, build_registry(hub))
    assert snap_compare(app, terminal_size=(120, 40), run_before=change_log_screen)
