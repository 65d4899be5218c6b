"""The TUI's React Native view with real parts: RnService listening on port 0, the Python wire-protocol adapter
(backends/rn/testing.py) over a real WebSocket, the full registry, and the app driven by Textual's pilot."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from support import until

from pairdbg.runtime import build_registry
from pairdbg.backends.hub import Hub
from pairdbg.backends.rn.config import RnConfig
from pairdbg.backends.rn.service import RnService
from support.rn_adapter import FakeAdapter
from pairdbg.tui.app import PairDbgApp
from pairdbg.tui.panes import ActivityLog
from pairdbg.tui.rn_tree import DiffPane, StateTree
from pairdbg.tui.keys import KeysScreen
from pairdbg.tui.page_view import PageView
from pairdbg.tui.rn_view import RnView
from pairdbg.tui.rn_widgets import Timeline
from pairdbg.tui.source_view import SourceView

TOKEN = "tui-test-token-0123456789"
SIZE = (170, 48)
pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(90)]


class Rig:
    def __init__(self, hub: Hub, svc: RnService) -> None:
        self.hub, self.svc = hub, svc
        self.registry = build_registry(hub)
        self.adapters: list[FakeAdapter] = []

    def adapter(self, **kw) -> FakeAdapter:
        a = FakeAdapter(self.svc.server.url, TOKEN, **kw)
        self.adapters.append(a)
        return a


@pytest_asyncio.fixture
async def rig() -> AsyncIterator[Rig]:
    hub = Hub()
    config = RnConfig(
        WS_PORT=0, RN_DEBUG_TOKEN=TOKEN, RN_HEARTBEAT_MS=500, RN_HEARTBEAT_TIMEOUT_MS=5000, REQUEST_TIMEOUT_MS=2000
    )
    svc = RnService(hub, config)
    hub.add_service(svc)
    await hub.start_services()
    r = Rig(hub, svc)
    try:
        yield r
    finally:
        for a in r.adapters:
            await a.drop(1000)
        await hub.shutdown()  # stops the listener: its port closes
        assert svc.server._server is None


async def login_story(a: FakeAdapter) -> None:
    await a.dispatch("auth/login", [{"op": "replace", "path": "/auth/status", "value": "loading"}])
    await a.dispatch(
        "auth/loginOk",
        [
            {"op": "replace", "path": "/auth/status", "value": "ok"},
            {"op": "replace", "path": "/auth/user", "value": {"id": 7, "name": "Ada"}},
        ],
        payload={"id": 7},
    )
    await a.dispatch("todos/add", [{"op": "add", "path": "/todos/items/0", "value": {"id": 1, "title": "milk"}}])


def header(app: PairDbgApp) -> str:
    return "\n".join(app.query_one(RnView).header_text)


def timeline(app: PairDbgApp) -> Timeline:
    return app.query_one(Timeline)


def activity(app: PairDbgApp) -> list[str]:
    return app.query_one(ActivityLog).lines_text


async def open_view(app: PairDbgApp, pilot) -> RnView:
    await pilot.press("ctrl+r")
    view = app.query_one(RnView)
    await until(lambda: view.display and app.focused is timeline(app), "the RN view to show", pilot=pilot)
    return view


async def connected_with_events(rig: Rig, app: PairDbgApp, pilot) -> FakeAdapter:
    a = rig.adapter()
    assert (await a.connect())["t"] == "welcome"
    await login_story(a)
    await until(
        lambda: rig.svc.stream_list() and rig.svc.stream_list()[0]["latestSeq"] == 3,
        "the mirror to hold the events",
        pilot=pilot,
    )
    return a


# ----- stories -------------------------------------------------------------------------------------------------


async def test_streams_timeline_follow_and_agent_activity(rig):
    app = PairDbgApp(rig.hub, rig.registry)
    async with app.run_test(size=SIZE) as pilot:
        a = await connected_with_events(rig, app, pilot)
        view = await open_view(app, pilot)
        assert app.query_one("#source", SourceView).display is True  # the widget stays; its row is hidden
        assert app.query_one("#top").display is False and app.query_one("#left").display is False

        await until(lambda: "● connected" in header(app), "the connection line", pilot=pilot)
        assert "Ecal 1.2.3" in header(app) and "ios 18.2" in header(app) and "responsive" in header(app)
        streams = app.query_one("#rn-streams")
        await until(lambda: streams.option_count == 3, "three streams", pilot=pilot)
        labels = [str(streams.get_option_at_index(i).prompt) for i in range(3)]
        assert any(label.startswith("redux") and "seq 1..3" in label for label in labels), labels
        assert any(label.startswith("navigation") for label in labels)

        tl = timeline(app)
        await until(lambda: len(tl.rows) == 3, "the redux events in the timeline", pilot=pilot)
        assert "auth/login" in tl.row_text(0) and "#1" in tl.row_text(0)
        assert "todos/add" in tl.row_text(2)
        assert any("● human" in line and "debug_query_events" in line for line in activity(app))

        # A new event arrives through ResourceChanged alone: no key press.
        await a.dispatch("todos/add", [{"op": "add", "path": "/todos/items/1", "value": {"id": 2, "title": "eggs"}}])
        await until(lambda: len(tl.rows) == 4, "the new event to appear by itself", pilot=pilot)
        assert "#4" in tl.row_text(3) and tl.at_bottom
        tails = sum("debug_query_events" in line for line in activity(app))
        assert tails == 1, "the automatic tail must not add a line per refresh"

        # The agent's query shows in the same activity pane.
        await rig.registry.run("debug_query_events", {"stream": "redux", "limit": 2}, "agent:test")
        await until(
            lambda: any(
                "◆ agent:test" in line and "debug_query_events" in line and "stream=redux" in line
                for line in activity(app)
            ),
            "the agent's query in the activity",
            pilot=pilot,
        )

        # Another stream: the timeline switches to it.
        await a.navigate("Profile", {"id": 7})
        await until(lambda: rig.svc.stream_list()[1]["latestSeq"] == 1, "the navigation event", pilot=pilot)
        streams.focus()
        await pilot.press("down")
        await until(lambda: view.stream == "navigation" and len(tl.rows) == 1, "navigation events", pilot=pilot)
        assert "Home → Profile" in tl.row_text(0)

        await pilot.press("ctrl+r")  # back to the debugger
        await until(lambda: not view.display and app.query_one("#top").display, "the debugger panes", pilot=pilot)


async def test_state_at_seq_and_diff_between_marked_events(rig):
    app = PairDbgApp(rig.hub, rig.registry)
    async with app.run_test(size=SIZE) as pilot:
        await connected_with_events(rig, app, pilot)
        await open_view(app, pilot)
        tl = timeline(app)
        await until(lambda: len(tl.rows) == 3, "the timeline", pilot=pilot)
        tree = app.query_one(StateTree)

        # seq 2 (auth/loginOk): status ok, user set, no todo yet — although the latest state has one.
        await pilot.press("up", "enter")
        assert tl.picked == 2
        await until(lambda: tree.border_title == "State at redux seq 2", "the state at seq 2", pilot=pilot)
        await until(lambda: any(label.startswith("status") for label in tree.labels()), "auth expanded", pilot=pilot)
        labels = tree.labels()
        assert 'status: "ok"' in labels and "user {2}" in labels and "items: []" in labels, labels
        assert "▸" in tl.row_text(1)

        # seq 1: still loading, no user.
        await pilot.press("up", "enter")
        await until(lambda: tree.border_title == "State at redux seq 1", "the state at seq 1", pilot=pilot)
        assert 'status: "loading"' in tree.labels() and "user: null" in tree.labels()

        # Mark seq 1 as base and seq 3 as target: the diff ops, coloured by kind.
        diff = app.query_one(DiffPane)
        await pilot.press("b", "down", "down", "t")
        await until(lambda: diff.lines_text and "1 → 3" in diff.lines_text[0], "the diff 1 → 3", pilot=pilot)
        text = "\n".join(diff.lines_text)
        assert "~ auth.status" in text and '"loading" → "ok"' in text
        assert "~ auth.user" in text or "+ auth.user" in text
        assert "+ todos.items[0]" in text
        assert "B" in tl.row_text(0)[:2] and "T" in tl.row_text(2)[:2]
        assert any(
            "● human" in line and "debug_diff_snapshots" in line and "base_seq=1" in line for line in activity(app)
        )

        # d: what one event changed.
        await pilot.press("d")
        await until(lambda: "2 → 3" in diff.lines_text[0], "the diff with the previous event", pilot=pilot)
        assert any(line.startswith("+ todos.items[0]") for line in diff.lines_text)


async def test_an_app_connecting_while_the_view_is_unshown_is_a_notice_once(rig):
    def notices() -> list[str]:
        return [str(n.message) for n in app._notifications if "ctrl+r shows the RN app view" in str(n.message)]

    app = PairDbgApp(rig.hub, rig.registry)
    async with app.run_test(size=SIZE) as pilot:
        assert not app.query(RnView)  # mounted when first shown: not part of the first frame
        await connected_with_events(rig, app, pilot)
        await until(lambda: notices(), "the connect notice", pilot=pilot)
        await open_view(app, pilot)
        await until(lambda: "● connected" in header(app), "the connection line", pilot=pilot)
        await pilot.press("ctrl+r")  # back to the debugger: the same connection is not announced again
        await pilot.pause(0.2)
        assert len(notices()) == 1, notices()


async def test_f1_lists_the_keys_of_views_not_shown_yet(rig):
    app = PairDbgApp(rig.hub, rig.registry)
    async with app.run_test(size=SIZE) as pilot:
        assert not app.query(RnView) and not app.query(PageView) and not app.query("DataTable")
        await pilot.press("f1")
        await until(lambda: isinstance(app.screen, KeysScreen), "the keys screen", pilot=pilot)
        text = app.screen.text.plain
        titles = [line for line in text.splitlines() if line and not line.startswith(" ")]
        # In the panes' order: the RN view's, the page view's, the console's, then the change log's table.
        order = ["Streams", "Events (enter: state", "PageView", "ConsoleInput", "DataTable"]
        at = [[i for i, t in enumerate(titles) if t.startswith(name)] for name in order]
        assert all(at) and at == sorted(at), titles
        assert "diff with previous" in text and "Navigate" in text
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, KeysScreen), "the keys screen to close", pilot=pilot)
        assert app.query_one("#top").display and not app.query_one(RnView).display  # nothing else changed


async def test_no_app_says_how_to_connect_then_disconnect_is_honest(rig):
    app = PairDbgApp(rig.hub, rig.registry)
    async with app.run_test(size=SIZE) as pilot:
        await open_view(app, pilot)
        await until(lambda: "not connected" in header(app), "the not-connected line", pilot=pilot)
        assert rig.svc.server.url in header(app) and TOKEN in header(app)

        a = await connected_with_events(rig, app, pilot)
        tl = timeline(app)
        await until(lambda: "● connected" in header(app) and len(tl.rows) == 3, "the app and its events", pilot=pilot)

        await a.close()
        await until(lambda: "○ not connected" in header(app), "the disconnect to show", pilot=pilot)
        assert "last session" in header(app)
        assert len(tl.rows) == 3  # the last session's events stay browsable
        await pilot.press("enter")  # the state still comes from the mirror
        await until(lambda: app.query_one(StateTree).border_title == "State at redux seq 3", "state", pilot=pilot)


async def test_errors_are_a_line_in_the_view_not_a_crash(rig):
    app = PairDbgApp(rig.hub, rig.registry)
    async with app.run_test(size=SIZE) as pilot:
        a = rig.adapter(patches=False)  # without patches the mirror cannot rebuild states between snapshots
        assert (await a.connect())["t"] == "welcome"
        await login_story(a)
        view = await open_view(app, pilot)
        tl = timeline(app)
        await until(lambda: len(tl.rows) == 3, "the timeline", pilot=pilot)
        await pilot.press("home", "b", "end", "t")
        diff = app.query_one(DiffPane)
        await until(lambda: "SNAPSHOT_NOT_FOUND" in view.note_text, "a friendly error line", pilot=pilot)
        assert "debug_diff_snapshots" in view.note_text and "next:" in view.note_text
        assert any("SNAPSHOT_NOT_FOUND" in line for line in diff.lines_text)
        assert app.is_running


async def test_no_rn_service_no_view():
    hub = Hub()
    try:
        app = PairDbgApp(hub, build_registry(hub))
        async with app.run_test(size=SIZE) as pilot:
            assert not list(app.query(RnView))
            await pilot.press("ctrl+r")
            await until(
                lambda: any("no React Native service" in str(n.message) for n in app._notifications),
                "the no-RN-service notification",
                pilot=pilot,
            )
            assert app.query_one("#top").display
    finally:
        await hub.shutdown()


async def test_timeline_pages_older_events_when_the_cursor_reaches_the_top(rig):
    app = PairDbgApp(rig.hub, rig.registry)
    async with app.run_test(size=SIZE) as pilot:
        a = rig.adapter()
        assert (await a.connect())["t"] == "welcome"
        events = [a.event("redux", "action", {"action": {"type": f"tick/{i}"}}, []) for i in range(1, 251)]
        await a.push(*events)
        await until(
            lambda: rig.svc.stream_list() and rig.svc.stream_list()[0]["latestSeq"] == 250,
            "the 250 redux events in the service",
            pilot=pilot,
        )
        await open_view(app, pilot)
        tl = timeline(app)
        await until(lambda: tl.rows and tl.last_seq == 250, "the newest page", pilot=pilot)
        assert tl.first_seq == 51 and len(tl.rows) == 200  # one page: the timeline never asks for everything
        await pilot.press("home")
        await until(lambda: tl.first_seq == 1, "the older page", pilot=pilot)
        assert len(tl.rows) == 250 and "tick/51" in tl.row_text(tl.cursor)  # the cursor stays on its event
        assert any("debug_query_events" in line and "since_seq=0" in line for line in activity(app)), activity(app)
