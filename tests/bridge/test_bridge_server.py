"""The debug-bridge server, relay and tools over real WebSockets, with scripted apps (FakePage) and raw clients
for the bad input: wrong token, foreign Origin, malformed JSON, unknown type, oversized frame, vanished element,
navigation and disconnects mid-command. The SDK itself is tested in real Chromium (test_bridge_chromium.py)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from support import until
from support.fake_page import ORIGIN, FakePage

from pairdbg.runtime import build_registry
from pairdbg.backends.bridge.config import BridgeConfig
from pairdbg.backends.bridge.service import BridgeService
from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.backends.hub import Hub
from pairdbg.backends.limits import Limits
from pairdbg.backends.models import Phase

TOKEN = "bridge-test-token-0123456789"
pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]


class Rig:
    def __init__(self, hub: Hub, svc: BridgeService) -> None:
        self.hub, self.svc = hub, svc
        self.registry = build_registry(hub)
        self.pages: list[FakePage] = []

    @property
    def url(self) -> str:
        return self.svc.server.url

    async def page(self, session_id: str = "tab-1", **hello) -> FakePage:
        p = FakePage(self.url, TOKEN, session_id)
        self.pages.append(p)
        await p.connect(**hello)
        await until(
            lambda: self.svc.server.pages.get(session_id) and self.svc.server.pages[session_id].tree,
            "the page and its first UI tree",
        )
        return p

    async def run(self, name: str, **args):
        return await self.registry.run(name, args, "agent:test")

    async def fails(self, name: str, **args) -> DebugError:
        with pytest.raises(DebugError) as info:
            await self.run(name, **args)
        return info.value


def output(hub: Hub, sid: str) -> str:
    return "".join(e.text for e in hub.get(sid).output.read(0, 10_000, None)[0])


def make_rig_factory():
    async def make(**config) -> Rig:
        hub = Hub(Limits(max_sessions=config.pop("max_sessions", 10)))
        svc = BridgeService(hub, BridgeConfig(port=0, token=TOKEN, **config))
        hub.add_service(svc)
        await hub.start_services()
        return Rig(hub, svc)

    return make


@pytest_asyncio.fixture
async def rigs() -> AsyncIterator:
    made: list[Rig] = []
    factory = make_rig_factory()

    async def make(**config) -> Rig:
        r = await factory(**config)
        made.append(r)
        return r

    try:
        yield make
    finally:
        for r in made:
            for p in r.pages:
                await p.close()
            await r.hub.shutdown()
            assert r.svc.server._server is None


@pytest_asyncio.fixture
async def rig(rigs) -> Rig:
    return await rigs()


async def raw_app(url: str, session_id: str = "raw", origin: str | None = ORIGIN):
    return await connect(f"{url}?role=app&sessionId={session_id}", origin=origin)  # type: ignore[arg-type]


def hello(**over) -> str:
    msg = {"type": "hello", "protocolVersion": 1, "token": TOKEN, "url": "http://127.0.0.1:8000/", "title": "raw"}
    return json.dumps({**msg, **over})


# ----- the happy path -------------------------------------------------------------------------------------------


async def test_app_becomes_a_session_and_the_tools_drive_it(rig: Rig) -> None:
    page = await rig.page()
    sessions = await rig.run("list_debug_sessions")
    assert "web: fake (127.0.0.1:8000) [web/bridge] running" in sessions.text
    tree = await rig.run("get_ui_tree")
    assert 'textbox "Name" @e2' in tree.text and 'button "Archive" [disabled] @e4' in tree.text
    typed = await rig.run("type_text", element="@e2", text="Ada")
    assert "value" not in typed.text or "Ada" in typed.text
    clicked = await rig.run("click", element="@e3")
    assert 'clicked button "Greet" @e3' in clicked.text
    assert "console.log: greeted Ada" in clicked.text
    assert '+ status "Hello, Ada!" @e5' in clicked.text
    out = await rig.run("get_output", session_id="S1")
    assert "greeted Ada" in out.text
    found = await rig.run("find_element", text="hello")
    assert "@e5" in found.text and found.data["total"] == 1
    state = await rig.run("get_app_state")
    assert "secret-token-value" not in state.text and '"user": "ada"' in state.text
    assert page.welcome["refBase"] == 0


async def test_errors_from_the_page_are_structured(rig: Rig) -> None:
    page = await rig.page()
    err = await rig.fails("click", element="@e4")
    assert err.code == ErrorCode.NOT_ACTIONABLE and err.data["page_code"] == "DISABLED"
    page.items = [it for it in page.items if it["ref"] != "e3"]  # "Greet" vanished from the page
    err = await rig.fails("click", element="@e3")
    assert err.code == ErrorCode.PATH_NOT_FOUND and err.data["page_code"] == "STALE_REF"
    err = await rig.fails("click", element="e3x")
    assert err.code == ErrorCode.INVALID_PARAMETERS
    err = await rig.fails("click", element="@e3", text="Greet")
    assert err.code == ErrorCode.INVALID_PARAMETERS and "exactly one" in err.message
    err = await rig.fails("evaluate_expression", session_id="S1", expression="1+1")
    assert err.code == ErrorCode.CAPABILITY_UNSUPPORTED and "PAIRDBG_BRIDGE_EVAL" in err.message
    err = await rig.fails("set_breakpoint", session_id="S1", file=__file__, line=3)
    assert err.code == ErrorCode.CAPABILITY_UNSUPPORTED
    summary = rig.hub.get("S1").summary()
    assert summary.capabilities["can_set_breakpoints"] is False and summary.capabilities["ui_actions"] is True


async def test_no_page_connected_says_how_to_connect_one(rig: Rig) -> None:
    err = await rig.fails("get_ui_tree")
    assert err.code == ErrorCode.NOT_CONNECTED and "get_bridge_info" in (err.hint or "")
    info = await rig.run("get_bridge_info")
    assert "createDebugBridge" in info.text and TOKEN in info.text


async def test_two_pages_need_a_session_id(rig: Rig) -> None:
    await rig.page("tab-a")
    await rig.page("tab-b")
    err = await rig.fails("get_ui_tree")
    assert err.code == ErrorCode.INVALID_PARAMETERS and "S1" in err.hint and "S2" in err.hint
    assert "@e1" in (await rig.run("get_ui_tree", session_id="S2")).text


# ----- bad input at the door ------------------------------------------------------------------------------------


async def test_wrong_token_is_refused_and_others_keep_working(rig: Rig) -> None:
    ws = await raw_app(rig.url)
    await ws.send(hello(token="wrong-token-000"))
    err = json.loads(await ws.recv())
    assert err["type"] == "error" and err["code"] == "UNAUTHORIZED"
    with pytest.raises(ConnectionClosed):
        await ws.recv()
    assert ws.close_code == 4001
    await rig.page()
    assert (await rig.run("get_ui_tree")).data["elements"] == 4
    assert rig.svc.server.rejected["UNAUTHORIZED"] == 1


async def test_foreign_origin_and_missing_origin_are_refused_at_the_upgrade(rig: Rig) -> None:
    with pytest.raises(InvalidStatus) as info:
        await raw_app(rig.url, origin="http://evil.example")
    assert info.value.response.status_code == 403
    with pytest.raises(InvalidStatus) as info:
        await raw_app(rig.url, origin=None)
    assert info.value.response.status_code == 403


async def test_extra_origins_are_allowed(rigs) -> None:
    r = await rigs(origins=("https://dev.example.test",))
    ws = await raw_app(r.url, origin="https://dev.example.test")
    await ws.send(hello())
    assert json.loads(await ws.recv())["type"] == "welcome"
    await ws.close()


async def test_bad_version_and_missing_hello(rigs) -> None:
    r = await rigs(hello_timeout_s=0.2)
    ws = await raw_app(r.url)
    await ws.send(hello(protocolVersion=2))
    assert json.loads(await ws.recv())["code"] == "UNSUPPORTED_VERSION"
    with pytest.raises(ConnectionClosed):
        await ws.recv()
    assert ws.close_code == 4002
    ws = await raw_app(r.url)
    with pytest.raises(ConnectionClosed):
        while True:
            await ws.recv()
    assert ws.close_code == 4003
    ws = await raw_app(r.url)
    await ws.send("{not json")
    with pytest.raises(ConnectionClosed):
        while True:
            await ws.recv()
    assert ws.close_code == 4003


async def test_malformed_and_unknown_frames_get_errors_and_the_connection_stays(rig: Rig) -> None:
    page = await rig.page()
    await page.send_raw("{this is not json")
    await page.send_raw(json.dumps([1, 2, 3]))
    await page.send("teleport", to="mars")
    await until(
        lambda: sum(1 for m in page.received if m.get("type") == "error") == 3,
        "three error replies to the page",
    )
    codes = [m["code"] for m in page.received if m.get("type") == "error"]
    assert codes == ["MALFORMED", "MALFORMED", "UNKNOWN_TYPE"]
    await page.log("still here")
    await until(lambda: "still here" in output(rig.hub, "S1"), "the page's later console line")
    assert (await rig.run("get_ui_tree")).data["elements"] == 4


async def test_oversized_frames_are_dropped_with_an_error(rigs) -> None:
    r = await rigs(max_message=8192)
    big = await r.page("tab-big")
    other = await r.page("tab-other")
    assert big.welcome["maxMessageBytes"] == 8192  # the SDK sizes its messages to this
    await big.log("x" * 20_000)
    await until(
        lambda: any(m.get("code") == "PAYLOAD_TOO_LARGE" for m in big.received),
        "PAYLOAD_TOO_LARGE sent to the big page",
    )
    await big.log("small again")
    await until(lambda: "small again" in output(r.hub, "S1"), "the small message after the big one")
    assert "x" * 100 not in output(r.hub, "S1") and big.ws.close_code is None
    await big.log("y" * 40_000)  # beyond 4x the limit the socket itself is closed (1009)
    await until(lambda: big.ws.close_code is not None, "the big page to be closed")
    assert big.ws.close_code == 1009
    await other.log("fine")
    await until(lambda: "fine" in output(r.hub, "S2"), "the other page's console line")


async def test_session_limit_refuses_the_app(rigs) -> None:
    r = await rigs(max_sessions=1)
    await r.page("tab-1")
    ws = await raw_app(r.url, "tab-2")
    await ws.send(hello())
    assert json.loads(await ws.recv())["code"] == "LIMIT_EXCEEDED"
    with pytest.raises(ConnectionClosed):
        await ws.recv()
    assert ws.close_code == 4008


# ----- mid-command trouble --------------------------------------------------------------------------------------


async def test_app_disconnecting_while_an_agent_waits_fails_at_once(rig: Rig) -> None:
    page = await rig.page()
    page.hold.add("click")
    task = asyncio.create_task(rig.run("click", element="@e3"))
    await until(
        lambda: any(m.get("type") == "click" for m in page.received),
        "the click to reach the page",
    )
    started = time.monotonic()
    await page.close()
    with pytest.raises(DebugError) as info:
        await task
    assert info.value.code == ErrorCode.NOT_CONNECTED
    assert time.monotonic() - started < 1.0
    assert rig.hub.get("S1").phase == Phase.RECONNECTING


async def test_navigation_mid_command_is_reported_and_the_session_follows_the_new_page(rig: Rig) -> None:
    page = await rig.page()
    page.hold.add("click")
    task = asyncio.create_task(rig.run("click", element="@e3"))
    await until(
        lambda: any(m.get("type") == "click" for m in page.received),
        "the click to reach the page",
    )
    await page.send("navigation", kind="unload", url="http://127.0.0.1:8000/shop")
    await page.close(1001)
    with pytest.raises(DebugError) as info:
        await task
    assert info.value.code == ErrorCode.NAVIGATED
    # The same tab loads the next page: same sessionId, same Hub session, handles numbered past the old ones.
    page2 = await rig.page("tab-1", url="http://127.0.0.1:8000/next")
    assert page2.welcome["refBase"] == 4
    await until(lambda: rig.hub.get("S1").phase == Phase.RUNNING, "S1 to be running")
    assert len(rig.hub.sessions) == 1
    err = await rig.fails("click", element="@e3")
    assert err.code == ErrorCode.PATH_NOT_FOUND and "earlier load" in err.message
    assert "@e7" in (await rig.run("get_ui_tree")).text  # Greet in the new load


async def test_tools_wait_for_a_page_that_is_coming_back(rig: Rig) -> None:
    page = await rig.page()
    await page.close(1001)
    await until(lambda: rig.hub.get("S1").phase == Phase.RECONNECTING, "S1 to be reconnecting")
    task = asyncio.create_task(rig.run("get_ui_tree"))
    await asyncio.sleep(0.2)
    await rig.page("tab-1")
    assert "@e5" in (await task).text


async def test_a_page_that_never_returns_ends_its_session(rigs) -> None:
    r = await rigs(reconnect_grace_s=0.2)
    page = await r.page()
    await page.close(1001)
    await until(lambda: r.hub.get("S1").phase == Phase.DISCONNECTED, "S1 to end after the reconnect window")
    err = await r.fails("get_ui_tree", session_id="S1")
    assert err.code == ErrorCode.NOT_CONNECTED
    await until(
        lambda: "tab-1" not in r.svc.server.pages,
        "the page to be forgotten",
    )  # nothing kept for a session id nobody uses
    # The tab comes back later: a new session.
    await r.page()
    assert "S2" in r.hub.sessions and r.hub.get("S2").phase == Phase.RUNNING


async def test_closing_the_session_tells_the_page_not_to_reconnect(rig: Rig) -> None:
    page = await rig.page()
    await rig.run("close_debug_session", session_id="S1")
    await until(lambda: page.ws.close_code is not None, "the page to be closed")
    assert page.ws.close_code == 4000
    await until(lambda: not rig.svc.server.pages, "no page to be left")


async def test_command_timeout(rigs) -> None:
    r = await rigs(max_wait_ms=0)
    page = await r.page()
    page.hold.add("click")
    started = time.monotonic()
    err = await r.fails("click", element="@e3")
    assert err.code == ErrorCode.TIMEOUT and 4.5 < time.monotonic() - started < 7


# ----- the relay (seed §5) --------------------------------------------------------------------------------------


async def test_plain_websocket_agent_relay(rig: Rig) -> None:
    with pytest.raises(InvalidStatus) as info:
        await connect(f"{rig.url}?role=agent&sessionId=tab-1")
    assert info.value.response.status_code == 401
    agent = await connect(
        f"{rig.url}?role=agent&sessionId=tab-1", additional_headers={"Authorization": f"Bearer {TOKEN}"}
    )
    page = await rig.page()
    first = json.loads(await agent.recv())
    assert first["type"] == "hello" and "token" not in first
    await page.log("login with token=abc123456")
    while (msg := json.loads(await agent.recv()))["type"] != "console":
        pass
    assert msg["args"] == ["login with token=<redacted: 9 chars>"]
    await agent.send(json.dumps({"type": "click", "target": {"ref": "e3"}, "requestId": "a-1"}))
    while (msg := json.loads(await agent.recv()))["type"] != "command_result":
        pass
    assert msg["requestId"] == "a-1" and msg["success"] is True
    await agent.send(json.dumps({"type": "evaluate", "code": "document.cookie", "requestId": "a-2"}))
    while (msg := json.loads(await agent.recv()))["type"] != "command_result":
        pass
    assert msg["errorCode"] == "EVAL_DISABLED"
    await agent.send("not json")
    while (msg := json.loads(await agent.recv()))["type"] != "error":
        pass
    assert msg["code"] == "MALFORMED"
    await agent.close()
    actions = [m for m in page.received if m.get("type") == "click"]
    assert actions and actions[0]["origin"] == "agent"


async def test_sdk_is_served_with_cors_only_for_allowed_origins(rig: Rig) -> None:
    import aiohttp

    base = rig.svc.server.http_url
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{base}/debug-bridge.js", headers={"Origin": "http://localhost:5173"}) as resp:
            body = await resp.text()
            assert resp.status == 200 and "javascript" in resp.headers["Content-Type"]
            assert resp.headers["Access-Control-Allow-Origin"] == "http://localhost:5173"
            assert "createDebugBridge" in body
        async with http.get(f"{base}/debug-bridge.js", headers={"Origin": "http://evil.example"}) as resp:
            assert resp.status == 200 and "Access-Control-Allow-Origin" not in resp.headers
        async with http.get(f"{base}/nothing") as resp:
            assert resp.status == 404


async def test_port_in_use_does_not_stop_pairdbg(rig: Rig) -> None:
    hub = Hub()
    svc = BridgeService(hub, BridgeConfig(port=rig.svc.server.port, token=TOKEN))
    hub.add_service(svc)
    await hub.start_services()  # logs, does not raise
    assert svc.start_error and "cannot listen" in svc.start_error
    info = svc.info()
    assert info["listening"] is False and info["error"] == svc.start_error
    await hub.shutdown()


async def test_bad_configuration_names_the_variable(monkeypatch) -> None:
    from pairdbg.backends.bridge.config import ConfigError

    monkeypatch.setenv("PAIRDBG_BRIDGE_PORT", "99999")
    with pytest.raises(ConfigError) as info:
        BridgeConfig.load()
    assert "PAIRDBG_BRIDGE_PORT" in str(info.value)
    monkeypatch.setenv("PAIRDBG_BRIDGE_PORT", "0")
    monkeypatch.setenv("PAIRDBG_BRIDGE_EVAL", "1")
    monkeypatch.setenv("PAIRDBG_BRIDGE_ORIGINS", "http://a.test/, http://b.test")
    config = BridgeConfig.load()
    assert (config.port, config.allow_eval, config.origins) == (0, True, ("http://a.test", "http://b.test"))
    svc = BridgeService(None, {"port": "nope"})  # a bad value fails only the start, naming the variable
    assert "PAIRDBG_BRIDGE_PORT" in svc.info()["error"]
    with pytest.raises(ConfigError):
        await svc.start()
    assert svc.server.port is None


# ----- reconnects, duplicated tabs, replacement -----------------------------------------------------------------


async def test_a_reconnect_within_the_same_page_load_keeps_the_handles(rig: Rig) -> None:
    page = await rig.page(loadId="load-1")
    await page.close(1011)  # the network dropped; the page itself did not change
    await until(lambda: rig.hub.get("S1").phase == Phase.RECONNECTING, "S1 to be reconnecting")
    again = await rig.page(loadId="load-1")
    assert again.welcome["refBase"] == 0  # same load: the page's handles stand
    await until(lambda: rig.hub.get("S1").phase == Phase.RUNNING, "S1 to be running")
    assert "Hello, nobody!" in (await rig.run("click", element="@e3")).text
    assert "reconnected (same page load" in output(rig.hub, "S1")


async def test_a_duplicated_tab_splits_off_instead_of_taking_the_session(rig: Rig) -> None:
    original = await rig.page(loadId="load-a", sessionIdAuto=True)
    dup = FakePage(rig.url, TOKEN, "tab-1")
    reply = await dup.connect(loadId="load-b", sessionIdAuto=True)
    assert reply["type"] == "error" and reply["code"] == "DUPLICATE"
    await until(lambda: dup.ws.close_code is not None, "the duplicate page to be closed")
    assert dup.ws.close_code == 4004 and original.ws.close_code is None
    assert (await rig.run("get_ui_tree")).data["elements"] == 4
    # An id the app chose itself: the newest connection wins and the older one is told so.
    newer = await rig.page("tab-1", loadId="load-c", sessionIdAuto=False)
    await until(lambda: original.ws.close_code is not None, "the original page to be closed")
    assert original.ws.close_code == 4004 and newer.ws.close_code is None
    assert len(rig.hub.sessions) == 1


async def test_secrets_in_effects_and_results_are_redacted(rig: Rig) -> None:
    await rig.page()
    await rig.run("type_text", element="@e2", text="token=abc123456789")
    clicked = await rig.run("click", element="@e3")
    assert "abc123456789" not in clicked.text and "abc123456789" not in str(clicked.data)
    assert "greeted token=<redacted: 12 chars>" in clicked.text


async def test_a_relay_agents_scoped_tree_does_not_replace_the_pages_tree(rig: Rig) -> None:
    page = await rig.page()
    await page.send("ui_tree", items=page.items[:1], scope="e1", total=1)
    await page.log("marker")
    await until(lambda: "marker" in output(rig.hub, "S1"), "the marker line in the output")
    assert len(rig.svc.server.pages["tab-1"].tree) == 4


async def test_the_tree_header_says_when_the_page_capped_its_tree(rig: Rig) -> None:
    page = await rig.page()
    page.total = 2500  # as if the page had more elements than the SDK sends
    tree = await rig.run("get_ui_tree")
    assert "(the page sent its first 4 of 2500 elements: use scope or find)" in tree.text.splitlines()[0]
