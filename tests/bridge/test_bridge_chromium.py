"""The debug-bridge SDK in real headless Chromium: the vanilla test page (tests/bridge/pages/vanilla.html) and a
React 19 page with a controlled input (tests/bridge/react, bundled with esbuild here). pairdbg's BridgeService
serves the SDK and the relay; the tools run through the registry (and, for the React page, an MCP client over HTTP
while the TUI shows the same page). Under CI=true a missing Chromium or npm harness is a failure."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlencode

import pytest
import pytest_asyncio

from pairdbg.runtime import build_registry
from pairdbg.backends.bridge.config import BridgeConfig
from pairdbg.backends.bridge.service import BridgeService
from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.backends.hub import Hub
from support import targets
from pairdbg.backends.models import Phase
from support import missing_target, until

HERE = Path(__file__).resolve().parent
PAGES = HERE / "pages"
REACT = HERE / "react"
TOKEN = "chromium-bridge-token-0123456789"
pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]


def need_chromium() -> None:
    try:
        targets.find_chromium()
    except targets.TargetMissing as exc:
        missing_target(str(exc))


class Web:
    """One Hub with a BridgeService, one Chromium on one page, the registry to drive it."""

    def __init__(self, hub: Hub, svc: BridgeService) -> None:
        self.hub, self.svc = hub, svc
        self.registry = build_registry(hub)
        self.browser: asyncio.subprocess.Process | None = None
        self.url = ""

    async def run(self, name: str, **args):
        return await self.registry.run(name, args, "agent:test")

    async def fails(self, name: str, **args) -> DebugError:
        with pytest.raises(DebugError) as info:
            await self.run(name, **args)
        return info.value

    def page_url(self, base: str, page: str, **params: str) -> str:
        query = {"bridge": self.svc.server.http_url, "token": TOKEN, "sessionId": "tab-test", **params}
        return f"{base}{page}?{urlencode(query)}"

    async def open(self, url: str, sessions: int = 1) -> None:
        need_chromium()
        self.url = url
        self.browser, _ = await targets.launch_chromium(url, targets.free_port())
        await until(lambda: len(self.live()) >= sessions, "the page to connect", timeout=20)
        page = self.live()[-1].backend.page
        await until(lambda: bool(page.tree), "the first UI tree", timeout=10)

    def live(self):
        return [s for s in self.hub.sessions.values() if s.backend.kind == "bridge" and not s.phase.ended]

    async def stop_browser(self) -> None:
        if self.browser is not None:
            proc, self.browser = self.browser, None
            await targets.stop_process_group(proc)
            assert targets.group_members(proc.pid) == []


@asynccontextmanager
async def web_rig(**config) -> AsyncIterator[Web]:
    hub = Hub()
    svc = BridgeService(hub, BridgeConfig(port=0, token=TOKEN, **config))
    hub.add_service(svc)
    await hub.start_services()
    web = Web(hub, svc)
    try:
        yield web
    finally:
        await web.stop_browser()
        await hub.shutdown()


@pytest.fixture
def site():
    base, close = targets.serve_directory(PAGES)
    yield base
    close()


@pytest_asyncio.fixture
async def vanilla(site) -> AsyncIterator[Web]:
    async with web_rig(allow_eval=True) as web:
        await web.open(web.page_url(site, "vanilla.html", eval="1"))
        yield web


def handle(tree_text: str, fragment: str) -> str:
    """The @eN on the first line containing `fragment`."""
    for line in tree_text.splitlines():
        if fragment in line and "@e" in line:
            return line[line.rindex("@e") :].split()[0]
    raise AssertionError(f"{fragment!r} not in the tree:\n{tree_text}")


def output_text(web: Web) -> str:
    session = web.live()[0] if web.live() else next(iter(web.hub.sessions.values()))
    return "".join(e.text for e in session.output.read(0, 100_000, None)[0])


# ----- the vanilla page -----------------------------------------------------------------------------------------


async def test_ui_tree_of_a_real_page(vanilla: Web) -> None:
    tree = (await vanilla.run("get_ui_tree")).text
    assert tree.startswith("# ui tree of S1 url=http://127.0.0.1:")
    assert 'heading "Todo" [level=1]' in tree
    assert 'textbox "New todo"' in tree and 'button "Add"' in tree
    assert 'button "Archive" [disabled]' in tree
    assert 'checkbox "Done filter"' in tree and 'link "Help"' in tree
    assert "Ghost" not in tree  # hidden: listed only on request
    assert "Ghost" in (await vanilla.run("get_ui_tree", include_hidden=True)).text
    found = await vanilla.run("find_element", text="todo", role="textbox")
    assert found.data["total"] == 1 and "New todo" in found.text
    summary = (await vanilla.run("list_debug_sessions")).text
    assert "[web/bridge] running" in summary


async def test_type_and_click_report_their_effects(vanilla: Web) -> None:
    tree = (await vanilla.run("get_ui_tree")).text
    typed = await vanilla.run("type_text", element=handle(tree, 'textbox "New todo"'), text="milk")
    assert '"milk"' in typed.text
    clicked = await vanilla.run("click", element=handle(tree, 'button "Add"'))
    assert "console.log: added milk" in clicked.text
    assert clicked.data["effects"]["mutations"] >= 1
    dom = await vanilla.run("get_dom_snapshot", max_chars=200_000)
    assert "milk</li>" in dom.data["html"]
    assert "added milk" in output_text(vanilla)


async def test_password_values_never_leave_the_page(vanilla: Web) -> None:
    tree = (await vanilla.run("get_ui_tree")).text
    pw = handle(tree, '"Password"')
    typed = await vanilla.run("type_text", element=pw, text="hunter2-secret")
    assert "hunter2-secret" not in typed.text and "hunter2-secret" not in str(typed.data)
    tree = (await vanilla.run("get_ui_tree")).text
    assert "hunter2-secret" not in tree
    dom = await vanilla.run("get_dom_snapshot", max_chars=200_000)
    assert "hunter2-secret" not in dom.data["html"]
    state = await vanilla.run("get_app_state")
    assert "secret-token-value" not in state.text and '"user": "ada"' in state.text


async def test_actions_that_cannot_happen_say_why(vanilla: Web) -> None:
    tree = (await vanilla.run("get_ui_tree", include_hidden=True)).text
    err = await vanilla.fails("click", element=handle(tree, 'button "Archive"'))
    assert err.code == ErrorCode.NOT_ACTIONABLE and err.data["page_code"] == "DISABLED"
    err = await vanilla.fails("click", element=handle(tree, 'button "Ghost"'))
    assert err.code == ErrorCode.NOT_ACTIONABLE and err.data["page_code"] == "NOT_VISIBLE"
    err = await vanilla.fails("click", element=handle(tree, 'button "Covered"'))
    assert err.code == ErrorCode.NOT_ACTIONABLE and err.data["page_code"] == "OBSCURED"
    err = await vanilla.fails("type_text", element=handle(tree, 'button "Add"'), text="x")
    assert err.code == ErrorCode.NOT_ACTIONABLE and err.data["page_code"] == "NOT_EDITABLE"
    remove = handle(tree, 'button "Remove me"')
    await vanilla.run("click", element=remove)
    err = await vanilla.fails("click", element=remove)  # the element vanished
    assert err.code == ErrorCode.PATH_NOT_FOUND and err.data["page_code"] == "STALE_REF"
    err = await vanilla.fails("click", selector="#no-such-thing")
    assert err.code == ErrorCode.PATH_NOT_FOUND and err.data["page_code"] == "NOT_FOUND"
    assert (await vanilla.run("click", text="Help")).text.startswith('clicked text "Help"')


async def test_page_errors_arrive_as_effects_and_output(vanilla: Web) -> None:
    failed = await vanilla.run("click", text="Fail")
    assert "boom from Fail" in failed.text
    rejected = await vanilla.run("click", text="Reject")
    assert rejected.data["effects"]["errors"], rejected.text
    out = output_text(vanilla)
    assert "Uncaught" in out and "boom from Fail" in out


async def test_evaluate_when_both_sides_opted_in(vanilla: Web) -> None:
    result = await vanilla.run("evaluate_expression", session_id="S1", expression="document.title + ' ' + (6*7)")
    assert "42" in result.text
    err = await vanilla.fails("evaluate_expression", session_id="S1", expression="throw new Error('nope')")
    assert "nope" in err.message


async def test_evaluate_refused_when_the_page_did_not_opt_in(site) -> None:
    async with web_rig(allow_eval=True) as web:
        await web.open(web.page_url(site, "vanilla.html"))
        err = await web.fails("evaluate_expression", session_id="S1", expression="1+1")
        assert err.code == ErrorCode.CAPABILITY_UNSUPPORTED and "enableEval" in err.message


async def test_navigation_keeps_the_session_and_retires_old_handles(vanilla: Web) -> None:
    tree = (await vanilla.run("get_ui_tree")).text
    old_add = handle(tree, 'button "Add"')
    clicked = await vanilla.run("click", text="Go next")
    assert clicked.data["effects"].get("navigated") or "navigated" in clicked.text
    tree2 = (await vanilla.run("get_ui_tree")).text  # waits for the new page to connect
    assert "page=2" in tree2.splitlines()[0]
    assert len(vanilla.hub.sessions) == 1 and vanilla.hub.get("S1").phase == Phase.RUNNING
    err = await vanilla.fails("click", element=old_add)
    assert err.code == ErrorCode.PATH_NOT_FOUND and "earlier load" in err.message
    assert "token=<redacted: " in vanilla.hub.get("S1").backend.page.url  # the URL as agents see it
    nav = await vanilla.run("navigate", url=vanilla.url + "&page=3")
    assert "the new page connected" in nav.text and "page=3" in nav.text
    assert "page loaded" in output_text(vanilla)


async def test_browser_gone_while_an_agent_waits(site) -> None:
    async with web_rig(reconnect_grace_s=0.5, allow_eval=True) as web:
        await web.open(web.page_url(site, "vanilla.html", eval="1"))
        waiting = asyncio.create_task(
            web.run("evaluate_expression", session_id="S1", expression="new Promise(() => {})")
        )
        await asyncio.sleep(0.3)
        started = time.monotonic()
        await web.stop_browser()
        with pytest.raises(DebugError) as info:
            await waiting
        assert info.value.code in (ErrorCode.NOT_CONNECTED, ErrorCode.NAVIGATED)
        assert time.monotonic() - started < 6
        await until(lambda: not web.live(), "the session to end", timeout=5)
        err = await web.fails("get_ui_tree", session_id="S1")
        assert err.code == ErrorCode.NOT_CONNECTED


# ----- the React page, an MCP agent and the TUI on the same page -------------------------------------------------


def build_react(out: Path) -> None:
    esbuild = REACT / "node_modules" / ".bin" / "esbuild"
    if not esbuild.exists():
        msg = "tests/bridge/react/node_modules is missing: run scripts/setup-targets.sh"
        missing_target(msg)
    subprocess.run(
        [str(esbuild), "app.jsx", "--bundle", "--format=esm", "--jsx=automatic", f"--outfile={out / 'app.js'}"],
        cwd=REACT,
        check=True,
        capture_output=True,
        timeout=60,
        env={**os.environ, "NODE_ENV": "production"},
    )
    shutil.copy(REACT / "index.html", out / "index.html")


async def test_agent_over_mcp_and_person_in_tui_drive_a_react_page(tmp_path, monkeypatch) -> None:
    from pairdbg.mcp_bridge.http import HttpMcpService
    from support.mcp import http_client
    from pairdbg.tui.app import PairDbgApp
    from pairdbg.tui.panes import ActivityLog, ConsolePane

    need_chromium()
    build_react(tmp_path)
    base, close = targets.serve_directory(tmp_path)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    try:
        async with web_rig() as web:
            service = HttpMcpService(web.hub, web.registry, "127.0.0.1", 0)
            app = PairDbgApp(web.hub, web.registry, service)
            async with app.run_test(size=(170, 48)) as pilot:
                await web.open(web.page_url(base, "index.html"))
                async with http_client(service.url, service.token) as agent:
                    tree = (await agent.call_tool("get_ui_tree", {})).content[0].text
                    name = handle(tree, 'textbox "Name"')
                    typed = await agent.call_tool("type_text", {"element": name, "text": "Ada"})
                    assert not typed.is_error, typed.content[0].text
                    greet = await agent.call_tool("click", {"element": handle(tree, 'button "Greet"')})
                    text = greet.content[0].text
                    assert not greet.is_error, text
                    assert "console.log: greeted Ada" in text  # React saw the typed value
                    assert greet.structured_content["effects"]["mutations"] >= 1
                    dom = await agent.call_tool("get_dom_snapshot", {"max_chars": 500_000})
                    assert "Hello, Ada!" in dom.structured_content["html"]
                # The person's TUI shows the same page, its console line and the agent's actions.
                await until(
                    lambda: any("greeted Ada" in line for line in app.query_one(ConsolePane).lines_text),
                    "the console line in the TUI",
                    timeout=10,
                )
                acts = app.query_one(ActivityLog).lines_text
                assert any("agent:" in line and "type_text" in line for line in acts)
                assert any("agent:" in line and "click" in line for line in acts)
                await pilot.pause(0.1)
    finally:
        close()


async def test_a_small_message_limit_shrinks_what_the_page_sends(site) -> None:
    async with web_rig(allow_eval=True, max_message=8192) as web:
        await web.open(web.page_url(site, "vanilla.html", eval="1"))
        big = await web.run("evaluate_expression", session_id="S1", expression="'x'.repeat(20000)")
        assert big.data["value"].count("x") < 8192 and "…" in big.data["value"]
        tree = await web.run("get_ui_tree")
        assert tree.data["elements"] > 0
        assert web.svc.server.rejected.get("TOO_LARGE", 0) == 0  # the page sized everything to the limit
        assert web.live()[0].phase == Phase.RUNNING
