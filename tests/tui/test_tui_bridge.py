"""The TUI's Page view for debug-bridge sessions with real parts: BridgeService (and the RN service, for the ctrl+r
interplay) listening on port 0, FakePage (tests/support/fake_page.py) over a real WebSocket, the full registry,
and the app driven by Textual's pilot."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from support import until
from support.fake_page import FakePage

from pairdbg.runtime import build_registry
from pairdbg.backends.bridge.config import BridgeConfig
from pairdbg.backends.bridge.service import BridgeService
from pairdbg.backends.hub import Hub
from pairdbg.backends.rn.config import RnConfig
from pairdbg.backends.rn.service import RnService
from pairdbg.tui.app import PairDbgApp
from pairdbg.tui.page_view import PageView
from pairdbg.tui.page_widgets import TextPrompt, TreeRows
from pairdbg.tui.panes import ActivityLog, ConsolePane
from pairdbg.tui.rn_view import RnView

TOKEN = "tui-bridge-token-0123456789"
SIZE = (170, 48)
pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]


class Rig:
    def __init__(self, hub: Hub, svc: BridgeService) -> None:
        self.hub, self.svc = hub, svc
        self.registry = build_registry(hub)
        self.pages: list[FakePage] = []

    def page(self, **kw) -> FakePage:
        p = FakePage(self.svc.server.url, TOKEN, **kw)
        self.pages.append(p)
        return p


@pytest_asyncio.fixture
async def rig() -> AsyncIterator[Rig]:
    hub = Hub()
    svc = BridgeService(hub, BridgeConfig(port=0, token=TOKEN))
    hub.add_service(svc)
    hub.add_service(RnService(hub, RnConfig(WS_PORT=0, RN_DEBUG_TOKEN=TOKEN)))
    await hub.start_services()
    r = Rig(hub, svc)
    try:
        yield r
    finally:
        for p in r.pages:
            await p.close()
        await hub.shutdown()
        assert svc.server.port is None or svc.server._server is None


def view(app: PairDbgApp) -> PageView:
    return app.query_one(PageView)


def rows(app: PairDbgApp) -> list[str]:
    return view(app).rows_text


def row_of(app: PairDbgApp, text: str) -> int:
    return next(i for i, row in enumerate(rows(app)) if text in row)


def activity(app: PairDbgApp) -> list[str]:
    return app.query_one(ActivityLog).lines_text


def notes(app: PairDbgApp) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


async def connected(rig: Rig, app: PairDbgApp, pilot, **kw) -> tuple[FakePage, str]:
    """A FakePage connects; the app selects its session and shows its tree."""
    page = rig.page(**kw)
    assert (await page.connect())["type"] == "welcome"
    await until(  # the page view is mounted when first shown
        lambda: app.query(PageView) and view(app).display and any('button "Greet"' in r for r in rows(app)),
        "the tree",
        pilot=pilot,
    )
    sid = app.session_id
    assert sid is not None and rig.hub.sessions[sid].backend.kind == "bridge"
    return page, sid


async def highlight(app: PairDbgApp, pilot, text: str) -> None:
    tree = app.query_one(TreeRows)
    tree.focus()
    await until(lambda: app.focused is tree, "the tree to have focus", pilot=pilot)
    target = row_of(app, text)
    while tree.highlighted != target:
        await pilot.press("down" if (tree.highlighted or 0) < target else "up")


async def answer_prompt(app: PairDbgApp, pilot, text: str, clear: bool = True) -> None:
    await until(lambda: isinstance(app.screen, TextPrompt), "the prompt", pilot=pilot)
    if clear:
        await pilot.press("ctrl+a", "ctrl+k")  # the prompt may be pre-filled
    await pilot.press(*text, "enter")
    await until(lambda: not isinstance(app.screen, TextPrompt), "the prompt to close", pilot=pilot)


# ----- stories -------------------------------------------------------------------------------------------------


async def test_the_person_clicks_and_types_from_the_page_view(rig):
    app = PairDbgApp(rig.hub, rig.registry, http=None)
    async with app.run_test(size=SIZE) as pilot:
        page, sid = await connected(rig, app, pilot)
        v = view(app)
        assert app.query_one("#top").display is False and app.query_one("#left").display is True
        assert v.rows_text[:4] == [
            'heading "Fake shop" [level=1] @e1',
            'textbox "Name" @e2',
            'button "Greet" @e3',
            'button "Archive" [disabled] @e4',
        ]
        assert app.focused is app.query_one(TreeRows)  # the source pane had focus; the view takes it
        await until(lambda: "● connected" in v.header_text, "the header", pilot=pilot)
        assert sid in v.header_text and "http://127.0.0.1:8000/shop" in v.header_text and "Fake shop" in v.header_text
        assert "4 elements" in v.header_text and "console 0" in v.header_text

        # The side panel: app state, redacted.
        state = str(app.query_one("#page-state-text").render())
        assert '"user": "ada"' in state and "secret-token-value-123456" not in state

        # Enter on Greet clicks it: the page answers, its new status row appears, the activity shows the person.
        await highlight(app, pilot, 'button "Greet"')
        await pilot.press("enter")
        await until(lambda: any('status "Hello, nobody!"' in r for r in rows(app)), "the greeting row", pilot=pilot)
        await until(
            lambda: any("● human" in line and "  click" in line and "@e3" in line for line in activity(app)),
            "the click in the activity",
            pilot=pilot,
        )
        assert [m["target"] for m in page.received if m["type"] == "click"] == [{"ref": "e3"}]
        assert app.query_one(TreeRows).highlighted == row_of(app, 'button "Greet"')  # kept across the rebuild
        await until(lambda: "clicked" in v.note_text, "the effects note", pilot=pilot)
        await until(lambda: "greeted nobody" in app.query_one(ConsolePane).lines_text, "console line", pilot=pilot)
        await until(lambda: "console 1" in v.header_text, "the console count", pilot=pilot)

        # t types into the highlighted textbox.
        await highlight(app, pilot, 'textbox "Name"')
        await pilot.press("t")
        await answer_prompt(app, pilot, "Ada")
        await until(lambda: any('textbox "Name" [value="Ada"]' in r for r in rows(app)), "the value", pilot=pilot)
        assert any("● human" in line and "type_text" in line for line in activity(app))
        await highlight(app, pilot, 'button "Greet"')
        await pilot.press("enter")
        await until(lambda: any('"Hello, Ada!"' in r for r in rows(app)), "the second greeting", pilot=pilot)

        # f finds an element and highlights it.
        await pilot.press("home", "f")
        await answer_prompt(app, pilot, "Archive")
        await until(lambda: v.highlighted_ref() == "e4", "the found element highlighted", pilot=pilot)
        assert "highlighted @e4" in v.note_text


async def test_agent_actions_show_in_the_view_and_errors_are_notifications(rig):
    app = PairDbgApp(rig.hub, rig.registry, http=None)
    async with app.run_test(size=SIZE) as pilot:
        page, sid = await connected(rig, app, pilot)
        v = view(app)

        # A mouse click on a row only highlights it: acting on the page takes Enter.
        target = row_of(app, 'button "Greet"')
        assert await pilot.click(TreeRows, offset=(5, 1 + target))  # 1: the pane's top border
        await until(lambda: v.highlighted_ref() == "e3", "the clicked row highlighted", pilot=pilot)
        assert not any(m["type"] == "click" for m in page.received)

        await highlight(app, pilot, 'textbox "Name"')

        # The agent types and clicks: the tree follows by itself, the person's highlight stays, the activity shows it.
        await rig.registry.run("type_text", {"session_id": sid, "element": "@e2", "text": "Grace"}, "agent:test")
        await rig.registry.run("click", {"session_id": sid, "element": "@e3"}, "agent:test")
        await until(lambda: any('"Hello, Grace!"' in r for r in rows(app)), "the agent's effect", pilot=pilot)
        assert v.highlighted_ref() == "e2"
        await until(
            lambda: any("◆ agent:test" in line and "  click" in line for line in activity(app)),
            "the agent's click in the activity",
            pilot=pilot,
        )

        # A disabled element: NOT_ACTIONABLE as a notification, and the app keeps running.
        await highlight(app, pilot, 'button "Archive"')
        await pilot.press("enter")
        await until(lambda: any("NOT_ACTIONABLE" in n for n in notes(app)), "the error notification", pilot=pilot)
        note = next(n for n in notes(app) if "NOT_ACTIONABLE" in n)
        assert note.startswith("click: NOT_ACTIONABLE") and "disabled" in note
        assert any("● human" in line and "click" in line and "✗" in line for line in activity(app))
        assert "failed" in v.note_text and app.is_running

        # r refreshes (get_ui_tree); the page is asked for its tree.
        asked = sum(m["type"] == "request_ui_tree" for m in page.received)
        await pilot.press("r")
        await until(lambda: "tree refreshed" in v.note_text, "the refresh", pilot=pilot)
        assert sum(m["type"] == "request_ui_tree" for m in page.received) == asked + 1

        # n navigates; this FakePage does not know the command: a readable error, pre-filled URL in the prompt.
        await pilot.press("n")
        await until(lambda: isinstance(app.screen, TextPrompt), "the prompt", pilot=pilot)
        assert app.screen.query_one("#prompt-input").value == "http://127.0.0.1:8000/shop"
        await answer_prompt(app, pilot, "/cart", clear=True)
        await until(
            lambda: any(n.startswith("navigate: CAPABILITY_UNSUPPORTED") for n in notes(app)),
            "the unsupported-navigate notification",
            pilot=pilot,
        )

        # The console evaluates globally in the page; pairdbg's refusal (EVAL_DISABLED) reads as a message.
        app.query_one("#console-input").focus()
        await pilot.press(*"1+1", "enter")
        console = app.query_one(ConsolePane)
        await until(
            lambda: any(line.startswith("✗ CAPABILITY_UNSUPPORTED") for line in console.lines_text),
            "the refused evaluate",
            pilot=pilot,
        )
        text = "\n".join(console.lines_text)
        assert "evaluate is off for this page" in text and "next: evaluate needs both opt-ins" in text
        assert "NOT_PAUSED" not in text


async def test_disconnect_reconnect_and_floods(rig):
    app = PairDbgApp(rig.hub, rig.registry, http=None)
    async with app.run_test(size=SIZE) as pilot:
        page, sid = await connected(rig, app, pilot)
        v = view(app)
        await highlight(app, pilot, 'button "Greet"')
        built = v.rebuilds

        # A flood of console lines: counted in the header, shown in the console pane, the list is not rebuilt.
        n = 3000
        for i in range(n):
            await page.log(f"line {i}")
        await until(lambda: f"console {n}" in v.header_text, "the console count", pilot=pilot)
        await until(lambda: f"line {n - 1}" in app.query_one(ConsolePane).lines_text, "the last line", pilot=pilot)
        assert v.rebuilds == built

        # Errors go to the side panel.
        await page.send("error", message="boom", filename="app.js", lineno=3, colno=1)
        await until(lambda: "errors 1" in v.header_text, "the error count", pilot=pilot)
        await until(
            lambda: "Uncaught boom" in str(app.query_one("#page-errors-text").render()),
            "the page error in the errors pane",
            pilot=pilot,
        )

        # The page goes away: the header says so; the same tab coming back restores the view.
        await page.close()
        await until(lambda: "reconnecting" in v.header_text, "reconnecting in the header", pilot=pilot)
        assert v.display and rows(app)  # the last tree stays readable
        again = rig.page()
        await again.connect()
        await until(lambda: "● connected" in v.header_text, "connected again", pilot=pilot)
        await until(lambda: any('button "Greet"' in r for r in rows(app)), "the new tree", pilot=pilot)
        assert app.session_id == sid  # the same Hub session across the reconnect
        assert rows(app)[0].endswith("@e5")  # handles of the new load


async def test_ctrl_b_and_ctrl_r_toggle_the_views(rig):
    app = PairDbgApp(rig.hub, rig.registry, http=None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+b")  # nothing connected yet
        await until(
            lambda: any("no web page is connected" in n for n in notes(app)),
            "the no-page notification",
            pilot=pilot,
        )
        assert not app.query(PageView) and app.query_one("#top").display  # mounted when first shown

        await connected(rig, app, pilot)
        v = view(app)
        await pilot.press("ctrl+b")
        await until(lambda: not v.display and app.query_one("#top").display, "the debugger panes", pilot=pilot)
        await pilot.press("ctrl+b")
        await until(lambda: v.display and not app.query_one("#top").display, "the page view again", pilot=pilot)
        assert app.focused is app.query_one(TreeRows)

        # The RN view takes the whole centre; leaving it brings the page view back.
        await pilot.press("ctrl+r")
        rn = app.query_one(RnView)
        await until(
            lambda: rn.display and not v.display and not app.query_one("#left").display,
            "the RN view",
            pilot=pilot,
        )
        await pilot.press("ctrl+r")
        await until(
            lambda: not rn.display and v.display and app.query_one("#left").display,
            "the page view back",
            pilot=pilot,
        )
        assert not app.query_one("#top").display
        await pilot.press("ctrl+b", "ctrl+r", "ctrl+r")  # switched off for this session: it stays off
        await until(
            lambda: not rn.display and app.query_one("#top").display and not v.display,
            "the debugger panes",
            pilot=pilot,
        )
