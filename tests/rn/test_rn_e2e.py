"""End to end: pytest drives the Node reference adapter (a real Redux Toolkit store, a navigation ref and MMKV-style
storage) against the real RN service, and checks every tool and resource an agent uses."""

from __future__ import annotations

import asyncio
import json
import shutil

import pytest
import pytest_asyncio

from pairdbg.backends.actions.registry import Registry
from pairdbg.backends.errors import DebugError
from pairdbg.backends.hub import Hub
from pairdbg.backends.rn.config import RnConfig
from pairdbg.backends.rn.service import RnService
from support import ROOT, missing_target, until

FAKE_APP = ROOT / "tests" / "rn" / "fake-app.mjs"
TOKEN = "e2e-token-0123456789abcdef"
pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(90)]


def need_node_harness() -> None:
    missing = []
    if shutil.which("node") is None:
        missing.append("node")
    if not (ROOT / "tests" / "rn" / "node_modules" / "@reduxjs" / "toolkit").is_dir():
        missing.append("tests/rn/node_modules (scripts/setup-targets.sh installs it)")
    if missing:
        missing_target(f"missing: {', '.join(missing)}")


class App:
    """One run of the fake app: JSON commands on stdin, one JSON ack per line on stdout."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @classmethod
    async def start(cls, url: str, *extra: str) -> App:
        proc = await asyncio.create_subprocess_exec(
            "node", str(FAKE_APP), "--url", url, "--token", TOKEN, *extra,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        app = cls(proc)
        assert (await app.line()).get("ready"), "the fake app never got its welcome"
        return app

    async def line(self) -> dict:
        raw = await asyncio.wait_for(self.proc.stdout.readline(), 15)
        assert raw, "the fake app exited"
        return json.loads(raw)

    async def do(self, cmd: str, **args) -> dict:
        self.proc.stdin.write((json.dumps({"cmd": cmd, **args}) + "\n").encode())
        await self.proc.stdin.drain()
        while True:  # skip lines that are not this command's ack (e.g. a "ready" after a reconnect)
            answer = await self.line()
            if answer.get("cmd") == cmd:
                return answer

    async def kill(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()
        await self.proc.wait()


@pytest_asyncio.fixture
async def rn():
    need_node_harness()
    hub = Hub()
    config = RnConfig(WS_PORT=0, RN_DEBUG_TOKEN=TOKEN, RN_HEARTBEAT_MS=100,
                      RN_HEARTBEAT_TIMEOUT_MS=500, REQUEST_TIMEOUT_MS=1000)
    service = RnService(hub, config)
    hub.add_service(service)
    await service.start()
    registry = Registry(hub)
    for action in service.actions():
        registry.add(action)
    apps: list[App] = []

    async def launch(*extra: str) -> App:
        app = await App.start(service.server.url, *extra)
        apps.append(app)
        return app

    try:
        yield service, registry, launch
    finally:
        for app in apps:
            await app.kill()
        await hub.shutdown()


async def tool(registry: Registry, name: str, **args):
    return (await registry.run(name, args, "agent:test")).data


async def test_every_tool_and_resource_against_the_node_adapter(rn) -> None:
    service, registry, launch = rn
    app = await launch()
    await app.do("dispatch", action={"type": "auth/loginOk",
                                     "payload": {"user": {"id": 7, "name": "Ada", "role": "admin"}, "token": "jwt"}})
    await app.do("dispatch", action={"type": "auth/setPassword", "payload": "hunter2"})
    await app.do("dispatch", action={"type": "todos/add", "payload": "buy milk"})
    await app.do("navigate", name="Profile", params={"id": 7})
    await app.do("mmkv.set", key="theme", value="dark")
    await app.do("mmkv.set", instance="secure", key="pin", value="1234")
    await app.do("flush")

    async def mirrored() -> bool:
        streams = {s["name"]: s for s in (await tool(registry, "debug_list_streams"))["streams"]}
        return streams["redux"]["latestSeq"] == 3 and streams["mmkv"]["latestSeq"] >= 2
    await until(mirrored, "the app's events in the mirror")

    health = await tool(registry, "debug_health_check")
    assert health["connected"] and health["responsive"] and health["app"]["name"] == "FakeApp"
    events = (await tool(registry, "debug_query_events", stream="redux"))["events"]
    assert [e["data"]["action"]["type"] for e in events] == ["auth/loginOk", "auth/setPassword", "todos/add"]
    assert [e["seq"] for e in events] == [1, 2, 3]
    assert (await tool(registry, "debug_get_state_path", path="auth.user.role"))["value"] == "admin"
    routes = await tool(registry, "debug_query_events", stream="navigation", event_type="route_change")
    assert routes["events"][-1]["data"]["to"] == "Profile"
    snapshot = await tool(registry, "debug_get_snapshot", stream="redux", scope="auth")
    assert snapshot["data"]["user"]["name"] == "Ada"
    diff = await tool(registry, "debug_diff_snapshots", stream="redux", base_seq=1, target_seq=3)
    assert diff["changes"] == [
        {"path": "auth.password", "type": "changed", "oldValue": None, "newValue": {"$t": "redacted"}},
        {"path": "todos.items[0]", "type": "added", "newValue": "buy milk"},
    ]

    # Nothing secret reaches the agent: keys, patch paths, action names and secure storage are all covered.
    everything = json.dumps([events, snapshot, diff, routes])
    for secret in ("hunter2", '"jwt"', "1234"):
        assert secret not in everything, secret
    navigation, _ = await service.read_resource("debug://navigation/state")
    assert json.loads(navigation)["currentRoute"]["name"] == "Profile"
    default, _ = await service.read_resource("debug://mmkv/default")
    assert json.loads(default)["keys"]["theme"]["value"] == "dark"
    secure, _ = await service.read_resource("debug://mmkv/secure")
    assert "1234" not in secure
    session, _ = await service.read_resource("debug://session/current")
    assert json.loads(session)["connected"] is True


async def test_drop_and_restart_lose_nothing_and_duplicate_nothing(rn) -> None:
    service, registry, launch = rn
    app = await launch()
    for n in range(5):
        await app.do("dispatch", action={"type": "misc/bump", "payload": n})
    await app.do("drop")  # the socket dies; the adapter reconnects and resumes from the server's cursor
    for n in range(5, 8):
        await app.do("dispatch", action={"type": "misc/bump", "payload": n})
    await app.do("flush")

    async def all_eight() -> bool:
        try:  # while the adapter reconnects, list_streams answers NOT_CONNECTED (the seed's contract)
            return (await tool(registry, "debug_list_streams"))["streams"][0]["latestSeq"] == 8
        except DebugError as exc:
            assert str(exc.code) == "NOT_CONNECTED", exc.text()
            return False
    await until(all_eight, "8 redux events after the reconnect")
    events = (await tool(registry, "debug_query_events", stream="redux"))["events"]
    assert [e["seq"] for e in events] == list(range(1, 9))  # contiguous, no duplicates

    first_session = (await tool(registry, "debug_health_check"))["adapter"]["sessionId"]
    await app.kill()  # the app process dies (a crash): the mirror keeps what it had
    await until(lambda: _not_connected(registry), "the service to notice the app is gone")
    kept = await tool(registry, "debug_query_events", stream="redux")
    assert len(kept["events"]) == 8
    # Its state is not the app's now (seed 003: NOT_CONNECTED); the last one is kept under `stale`.
    for name, args, key in (
        ("debug_get_snapshot", {"stream": "redux", "scope": "misc"}, "data"),
        ("debug_get_state_path", {"path": "misc"}, "value"),
    ):
        with pytest.raises(DebugError) as gone:
            await registry.run(name, args, "agent:test")
        assert str(gone.value.code) == "NOT_CONNECTED", gone.value.text()
        stale = gone.value.data["stale"]
        assert stale["seq"] == 8 and stale["sessionId"] == first_session and stale["leftAt"], stale
        assert stale[key]["counter"] == 8, stale
    await launch()  # a new JS runtime: a new session
    health = await tool(registry, "debug_health_check")
    assert health["connected"] and health["adapter"]["sessionId"] != first_session


async def _not_connected(registry: Registry) -> bool:
    return not (await tool(registry, "debug_health_check"))["connected"]


async def test_a_frozen_js_thread_is_reported_honestly(rn) -> None:
    service, registry, launch = rn
    app = await launch()
    await app.do("freeze")

    async def unresponsive() -> bool:
        health = await tool(registry, "debug_health_check")
        return health["connected"] and not health["responsive"]
    await until(unresponsive, "responsive:false while the JS thread is stalled")
    with pytest.raises(DebugError) as err:
        await registry.run("debug_get_state_path", {"path": "auth.status"}, "agent:test")
    assert str(err.value.code) == "TIMEOUT"
    await app.do("unfreeze")

    async def responsive() -> bool:
        return (await tool(registry, "debug_health_check"))["responsive"]
    await until(responsive, "responsive again after unfreeze")


async def test_big_and_odd_values_arrive_tagged_and_truncated(rn) -> None:
    service, registry, launch = rn
    app = await launch()
    await app.do("big")
    await app.do("flush")

    async def has_misc() -> bool:
        try:
            snap = await tool(registry, "debug_get_snapshot", stream="redux", scope="misc")
        except DebugError:
            return False
        return "$trunc" in json.dumps(snap["data"]) or "$t" in json.dumps(snap["data"])
    await until(has_misc, "the big values in the redux snapshot")
    text = json.dumps((await tool(registry, "debug_get_snapshot", stream="redux", scope="misc"))["data"])
    assert '"$trunc": "string"' in text and '"$t": "date"' in text and '"$t": "bigint"' in text
