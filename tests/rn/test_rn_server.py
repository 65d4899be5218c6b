"""The React Native listener end to end: the real WebSocket server on port 0, a Python adapter speaking wire
protocol v1 (backends/rn/testing.py), and the six tools run through the action registry."""

from __future__ import annotations

import asyncio
import json

import pytest
import pytest_asyncio
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from support import until

from pairdbg.backends.actions.registry import Registry
from pairdbg.backends.errors import DebugError
from pairdbg.backends.events import ResourceChanged, ResourceListChanged
from pairdbg.backends.hub import Hub
from pairdbg.backends.rn.config import RnConfig
from pairdbg.backends.rn.mirror import Limits
from pairdbg.backends.rn.service import MMKV_PREFIX, NAV_URI, REDUX_URI, SESSION_URI, RnService
from support.rn_adapter import FakeAdapter

TOKEN = "test-token-0123456789"
pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]


def make_config(**over) -> RnConfig:
    base = {"WS_PORT": 0, "RN_DEBUG_TOKEN": TOKEN, "RN_HEARTBEAT_MS": 100, "RN_HEARTBEAT_TIMEOUT_MS": 400,
            "RN_HELLO_TIMEOUT_MS": 300, "REQUEST_TIMEOUT_MS": 1000, "MAX_PAYLOAD_SIZE": 65536}
    base.update(over)
    return RnConfig(**base)


class Rig:
    def __init__(self, hub: Hub, svc: RnService) -> None:
        self.hub, self.svc = hub, svc
        self.registry = Registry(hub)
        for a in svc.actions():
            self.registry.add(a)
        self.adapters: list[FakeAdapter] = []

    @property
    def url(self) -> str:
        return self.svc.server.url

    def adapter(self, **kw) -> FakeAdapter:
        a = FakeAdapter(self.url, kw.pop("token", TOKEN), **kw)
        self.adapters.append(a)
        return a

    async def run(self, name: str, **args):
        return await self.registry.run(name, args, "agent:test")

    async def fails(self, name: str, code: str, **args) -> DebugError:
        with pytest.raises(DebugError) as info:
            await self.run(name, **args)
        assert str(info.value.code) == code, info.value.text()
        assert info.value.hint, "every error carries a hint"
        return info.value


@pytest_asyncio.fixture
async def rig(request):
    over = getattr(request, "param", {})
    limits = over.pop("limits", None)
    hub = Hub()
    svc = RnService(hub, make_config(**over), limits)
    hub.add_service(svc)
    await svc.start()
    r = Rig(hub, svc)
    try:
        yield r
    finally:
        for a in r.adapters:
            await a.drop(1000)
        await hub.shutdown()
        assert svc.server._server is None


async def connected(rig: Rig, **kw) -> FakeAdapter:
    a = rig.adapter(**kw)
    welcome = await a.connect()
    assert welcome["t"] == "welcome", welcome
    await until(lambda: rig.svc.server_connected(), "connection")
    return a


async def close_code(ws) -> int | None:
    with pytest.raises(ConnectionClosed):
        for _ in range(10):
            await asyncio.wait_for(ws.recv(), 3)
    return ws.close_code


# ----- handshake ----------------------------------------------------------------------------------------------------


async def test_handshake_fields(rig):
    a = rig.adapter()
    w = await a.connect(snapshot=False)
    assert w["v"] == 1 and w["protocol"] == 1 and w["sessionId"] == a.session_id
    assert w["server"]["name"] == "pairdbg"
    assert w["resume"] == {"redux": 0, "navigation": 0, "mmkv": 0}
    assert w["heartbeat"] == {"intervalMs": 100, "timeoutMs": 400}
    assert w["limits"]["maxMessageBytes"] == 65536 and w["limits"]["maxSnapshotBytes"] < 65536
    assert isinstance(w["serverTime"], int)
    h = (await rig.run("debug_health_check")).data
    assert h["connected"] and h["responsive"]
    assert h["adapter"]["sessionId"] == a.session_id and h["adapter"]["adapterVersion"] == "0.0.1"
    assert h["adapter"]["uptime"] >= 1 and h["adapter"]["connectedAt"].endswith("Z")
    assert h["app"]["name"] == "Ecal" and h["device"]["platform"] == "ios"
    assert {s["name"] for s in h["streams"]} == {"redux", "navigation", "mmkv"}
    status = rig.svc.status()
    assert status["connected"] and status["token"] == TOKEN and status["app"]["name"] == "Ecal"


async def _raw_hello(rig: Rig, hello: dict, headers=None) -> tuple[dict | None, int | None]:
    async with connect(rig.url, additional_headers=headers) as ws:
        await ws.send(json.dumps(hello))
        try:
            first = json.loads(await asyncio.wait_for(ws.recv(), 3))
        except ConnectionClosed:
            return None, ws.close_code
        if first.get("t") == "welcome":
            return first, None
        return first, await close_code(ws)


async def test_bad_token_4001(rig):
    a = rig.adapter(token="wrong-token-xxxxxxxx")
    err, code = await _raw_hello(rig, a.hello())
    assert err["t"] == "error" and err["code"] == "UNAUTHORIZED" and code == 4001
    err, code = await _raw_hello(rig, {k: v for k, v in a.hello().items() if k != "token"})
    assert code == 4001
    assert not rig.svc.server_connected()


async def test_unsupported_version_4002(rig):
    a = rig.adapter()
    err, code = await _raw_hello(rig, a.hello(protocol={"min": 2, "max": 3}))
    assert err["code"] == "UNSUPPORTED_VERSION" and err["server"] == {"min": 1, "max": 1} and code == 4002
    # A range that includes 1 is accepted.
    ok, _ = await _raw_hello(rig, a.hello(protocol={"min": 1, "max": 4}))
    assert ok["t"] == "welcome" and ok["protocol"] == 1


async def test_no_hello_4003(rig):
    async with connect(rig.url) as ws:
        assert await close_code(ws) == 4003
    async with connect(rig.url) as ws:  # first frame is not hello
        await ws.send(json.dumps({"v": 1, "t": "events", "items": []}))
        assert await close_code(ws) == 4003
    async with connect(rig.url) as ws:  # a hello that fails validation
        await ws.send(json.dumps({"v": 1, "t": "hello", "protocol": {"min": 1, "max": 1}, "token": TOKEN}))
        assert await close_code(ws) == 4003


async def test_foreign_origin_403_and_wrong_path_404(rig):
    with pytest.raises(InvalidStatus) as info:
        async with connect(rig.url, additional_headers={"Origin": "http://evil.example"}):
            pass
    assert info.value.response.status_code == 403
    with pytest.raises(InvalidStatus) as info:
        async with connect(rig.url.replace("/adapter", "/other")):
            pass
    assert info.value.response.status_code == 404
    # Loopback origins (what RN derives from the target URL) and no Origin at all are accepted.
    a = rig.adapter(origin=f"http://127.0.0.1:{rig.svc.server.port}")
    assert (await a.connect())["t"] == "welcome"


async def test_new_connection_replaces_old_4004(rig):
    a = await connected(rig)
    b = rig.adapter(session_id=a.session_id)
    b.seq = dict(a.seq)
    w = await b.connect(snapshot=False)
    assert w["t"] == "welcome"
    await until(lambda: a.ws.close_code is not None, "old socket closed")
    assert a.ws.close_code == 4004
    assert rig.svc.server.conn.ws.remote_address is not None
    h = (await rig.run("debug_health_check")).data
    assert h["connected"] and h["adapter"]["sessionId"] == a.session_id


async def test_oversized_frame_4005(rig):
    a = await connected(rig)
    await a.send({"v": 1, "t": "snapshot", "stream": "redux", "seq": 0, "data": {"x": "y" * 70_000}})
    await until(lambda: a.ws.close_code is not None, "close")
    assert a.ws.close_code == 4005


async def test_malformed_json_then_4006_unknown_type_ignored(rig):
    a = await connected(rig)
    await a.send({"v": 1, "t": "shiny-new-thing", "x": 1})  # unknown t: ignored, no close
    await a.send("{not json")
    await a.send("[1,2]")
    await a.send({"v": 1, "t": "events", "items": [{"stream": "redux"}]})  # invalid: counted, not fatal
    await a.dispatch("a/one", [{"op": "replace", "path": "/auth/status", "value": "one"}])
    await until(lambda: rig.svc.mirror.current.streams["redux"].last_seq == 1, "event after bad frames")
    conn = rig.svc.server.conn
    assert conn.ignored == 1 and conn.malformed == 2 and conn.protocol_errors == 1
    await a.send("still not json")
    await until(lambda: a.ws.close_code is not None, "close")
    assert a.ws.close_code == 4006


# ----- events, snapshots, queries -------------------------------------------------------------------------------


async def _traffic(a: FakeAdapter, n: int) -> None:
    for i in range(1, n + 1):
        await a.dispatch("todos/add", [{"op": "add", "path": "/todos/items/-", "value": {"id": i, "title": f"t{i}"}}])
        if i % 10 == 0:
            await a.navigate(f"Screen{i}", {"i": i})


async def test_events_snapshot_and_paging(rig):
    a = await connected(rig)
    await _traffic(a, 120)
    await until(lambda: rig.svc.mirror.current.streams["redux"].last_seq == 120, "events")
    streams = {s["name"]: s for s in (await rig.run("debug_list_streams")).data["streams"]}
    assert streams["redux"]["latestSeq"] == 120 and streams["redux"]["oldestSeq"] == 1
    assert streams["redux"]["hasSnapshot"] and streams["redux"]["active"]
    assert streams["navigation"]["latestSeq"] == 12

    seen, since, pages = [], None, 0
    while True:
        args = {"stream": "redux", "limit": 50}
        if since is not None:
            args["since_seq"] = since
        r = (await rig.run("debug_query_events", **args)).data
        pages += 1
        seen += [e["seq"] for e in r["events"]]
        assert r["oldestSeq"] == 1 and r["latestSeq"] == 120
        since = r["nextSinceSeq"]
        if not r["hasMore"]:
            break
    assert seen == list(range(1, 121)) and pages == 3 and since == 120
    empty = (await rig.run("debug_query_events", stream="redux", since_seq=120)).data
    assert empty["events"] == [] and not empty["hasMore"] and empty["nextSinceSeq"] == 120

    clamped = (await rig.run("debug_query_events", stream="redux", limit=5000)).data
    assert len(clamped["events"]) == 120 and not clamped["hasMore"]
    assert len((await rig.run("debug_query_events", stream="redux", limit=0)).data["events"]) == 1

    nav = (await rig.run("debug_query_events", stream="navigation", event_type="route_change", limit=5)).data
    assert [e["data"]["to"] for e in nav["events"]] == ["Screen10", "Screen20", "Screen30", "Screen40", "Screen50"]
    assert nav["hasMore"] and nav["nextSinceSeq"] == 5
    none = (await rig.run("debug_query_events", stream="redux", event_type="nope")).data
    assert none["events"] == [] and not none["hasMore"]

    snap = (await rig.run("debug_get_snapshot", stream="redux")).data
    assert snap["source"] == "app" and not snap["stale"] and snap["seq"] == 120
    assert len(snap["data"]["todos"]["items"]) == 120
    scoped = (await rig.run("debug_get_snapshot", stream="redux", scope="todos.items[3]")).data
    assert scoped["data"] == {"id": 4, "title": "t4"}
    await rig.fails("debug_get_snapshot", "SCOPE_NOT_FOUND", stream="redux", scope="nope.x")
    await rig.fails("debug_query_events", "INVALID_PARAMETERS", stream="bogus")


async def test_get_state_path_fresh_and_mirror_fallback(rig):
    a = await connected(rig)
    await a.dispatch("auth/loginOk", [{"op": "replace", "path": "/auth/user",
                                       "value": {"id": 7, "name": "Ada", "role": "admin", "password": "hunter2"}}])
    hit = await rig.run("debug_get_state_path", path="auth.user.role")
    assert hit.data["value"] == "admin" and hit.data["source"] == "app" and not hit.data["stale"]
    assert a.requests[-1]["method"] == "state.getPath"
    await rig.fails("debug_get_state_path", "PATH_NOT_FOUND", path="auth.user.nope")
    user = (await rig.run("debug_get_state_path", path="auth.user")).data["value"]
    assert user["password"] == {"$t": "redacted"} and user["name"] == "Ada"
    assert (await rig.run("debug_get_state_path", path="auth.user.password")).data["value"] == {"$t": "redacted"}

    await until(lambda: rig.svc.mirror.current.streams["redux"].cur_seq == 1, "mirror caught up")
    await a.drop()
    await until(lambda: not rig.svc.server_connected(), "disconnect")
    # The app is gone: its last state is no answer about it now (seed 003: NOT_CONNECTED), kept under `stale`.
    gone = await rig.fails("debug_get_state_path", "NOT_CONNECTED", path="auth.user.role")
    assert gone.data["stale"]["value"] == "admin" and gone.data["stale"]["seq"] == 1
    assert gone.data["stale"]["sessionId"] == a.session_id and gone.data["stale"]["leftAt"]
    nope = await rig.fails("debug_get_state_path", "NOT_CONNECTED", path="auth.user.nope")
    assert nope.data["stale"]["exists"] is False and "value" not in nope.data["stale"]
    hidden = await rig.fails("debug_get_state_path", "NOT_CONNECTED", path="auth.user")
    assert hidden.data["stale"]["value"]["password"] == {"$t": "redacted"}
    snap = await rig.fails("debug_get_snapshot", "NOT_CONNECTED", stream="redux", scope="auth")
    assert snap.data["stale"]["data"]["user"]["role"] == "admin" and snap.data["stale"]["scope"] == "auth"
    await rig.fails("debug_get_snapshot", "INVALID_PARAMETERS", stream="redux", scope="auth[")
    with pytest.raises(DebugError) as unread:
        await rig.svc.read_resource("debug://redux/state")
    assert str(unread.value.code) == "NOT_CONNECTED"
    assert (await rig.run("debug_query_events", stream="redux")).data["events"], "history stays readable"
    h = (await rig.run("debug_health_check")).data
    assert not h["connected"] and h["adapter"] is None and h["streams"] == []
    assert h["lastSession"]["sessionId"] == a.session_id and h["lastClose"]["code"] == 4999
    await rig.fails("debug_list_streams", "NOT_CONNECTED")


async def test_no_app_comes_before_a_stream_the_app_that_left_never_had(rig):
    a = await connected(rig, states={"redux": {"auth": {"status": "idle"}}})
    await rig.fails("debug_get_snapshot", "STREAM_UNAVAILABLE", stream="navigation")  # connected: the app has none
    await a.drop()
    await until(lambda: not rig.svc.server_connected(), "disconnect")
    gone = await rig.fails("debug_get_snapshot", "NOT_CONNECTED", stream="navigation")
    assert "stale" not in gone.data  # nothing of that stream to keep
    await rig.fails("debug_get_state_path", "NOT_CONNECTED", path="auth.status")


async def test_diff_between_arbitrary_seqs(rig):
    a = await connected(rig)
    await _traffic(a, 30)
    await a.dispatch("auth/loginOk", [{"op": "replace", "path": "/auth/status", "value": "ok"},
                                      {"op": "replace", "path": "/auth/user", "value": {"id": 7, "token": "abc"}}])
    await until(lambda: rig.svc.mirror.current.streams["redux"].last_seq == 31, "events")
    d = (await rig.run("debug_diff_snapshots", stream="redux", base_seq=3, target_seq=7)).data
    assert d["baseSeq"] == 3 and d["targetSeq"] == 7 and not d["truncated"]
    assert [(c["path"], c["type"]) for c in d["changes"]] == [(f"todos.items[{i}]", "added") for i in range(3, 7)]
    assert d["changes"][0]["newValue"] == {"id": 4, "title": "t4"}
    d2 = (await rig.run("debug_diff_snapshots", stream="redux", base_seq=30, target_seq=31)).data
    kinds = {c["path"]: c for c in d2["changes"]}
    assert kinds["auth.status"]["type"] == "changed" and kinds["auth.status"]["oldValue"] == "idle"
    assert kinds["auth.user"]["newValue"] == {"id": 7, "token": {"$t": "redacted"}}
    back = (await rig.run("debug_diff_snapshots", stream="redux", base_seq=7, target_seq=3)).data
    assert {c["type"] for c in back["changes"]} == {"removed"}
    nav = (await rig.run("debug_diff_snapshots", stream="navigation", base_seq=0, target_seq=2)).data
    assert any(c["path"] == "index" for c in nav["changes"])
    err = await rig.fails("debug_diff_snapshots", "SNAPSHOT_NOT_FOUND", stream="redux", base_seq=0, target_seq=99)
    assert err.data["available"] == [[0, 31]]


@pytest.mark.parametrize("rig", [{"RN_HEARTBEAT_MS": 50, "RN_HEARTBEAT_TIMEOUT_MS": 250}], indirect=True)
async def test_frozen_adapter_is_unresponsive_and_times_out_without_close(rig):
    a = await connected(rig)
    await until(lambda: a.pings >= 1, "a ping answered")
    assert (await rig.run("debug_health_check")).data["responsive"]
    a.frozen = True
    await until(lambda: not rig.svc.server.responsive(), "unresponsive", timeout=3)
    h = (await rig.run("debug_health_check")).data
    assert h["connected"] is True and h["responsive"] is False
    t0 = asyncio.get_running_loop().time()
    await rig.fails("debug_get_state_path", "TIMEOUT", path="auth.status")
    assert asyncio.get_running_loop().time() - t0 < 0.5, "fails fast while the app is known to be stalled"
    snap = (await rig.run("debug_get_snapshot", stream="redux")).data
    assert snap["source"] == "mirror" and snap["reason"].startswith("TIMEOUT")
    assert a.ws.close_code is None, "a stalled app keeps its socket"
    a.frozen = False
    await until(lambda: rig.svc.server.responsive(), "responsive again", timeout=3)
    assert (await rig.run("debug_get_state_path", path="auth.status")).data["source"] == "app"


@pytest.mark.parametrize("rig", [{"RN_HEARTBEAT_MS": 5000, "REQUEST_TIMEOUT_MS": 200}], indirect=True)
async def test_request_timeout_when_app_stops_answering(rig):
    a = await connected(rig)
    a.frozen = True
    await rig.fails("debug_get_state_path", "TIMEOUT", path="auth.status")
    assert rig.svc.server_connected()


async def test_resume_after_reconnect_no_gaps_no_duplicates(rig):
    a = await connected(rig)
    await _traffic(a, 20)
    await until(lambda: rig.svc.mirror.current.streams["redux"].last_seq == 20, "events")
    await a.drop()
    await until(lambda: not rig.svc.server_connected(), "disconnect")
    await _traffic(a, 15)  # offline: kept in the adapter's ring
    a.seq_before = dict(a.seq)
    w = await a.connect()
    assert w["resume"]["redux"] == 20 and w["resume"]["navigation"] == 2
    await until(lambda: rig.svc.mirror.current.streams["redux"].last_seq == 35, "replay")
    # A second replay of everything is de-duplicated.
    await a.send({"v": 1, "t": "events", "replay": True, "items": a.ring["redux"]})
    r = (await rig.run("debug_query_events", stream="redux", limit=200)).data
    await until(lambda: rig.svc.mirror.current.streams["redux"].duplicates >= 35, "duplicates counted")
    r = (await rig.run("debug_query_events", stream="redux", limit=200)).data
    assert [e["seq"] for e in r["events"]] == list(range(1, 36))
    h = (await rig.run("debug_health_check")).data
    assert h["gaps"] == [] and h["duplicates"] >= 35
    assert len(rig.svc.mirror.sessions) == 1
    d = (await rig.run("debug_diff_snapshots", stream="redux", base_seq=18, target_seq=25)).data
    assert len(d["changes"]) == 7


@pytest.mark.parametrize("rig", [{"limits": Limits(max_events=50)}], indirect=True)
async def test_resume_with_evicted_ring_records_gap_and_serves_seq_evicted_hint(rig):
    a = await connected(rig, ring=10)
    await _traffic(a, 5)
    await until(lambda: rig.svc.mirror.current.streams["redux"].last_seq == 5, "events")
    await a.drop()
    await until(lambda: not rig.svc.server_connected(), "disconnect")
    await _traffic(a, 30)  # the adapter's ring (10) forgets most of these
    await a.connect()
    await until(lambda: rig.svc.mirror.current.streams["redux"].last_seq == 35, "replay")
    h = (await rig.run("debug_health_check")).data
    gap = next(g for g in h["gaps"] if g["stream"] == "redux")
    assert gap == {"stream": "redux", "from": 6, "to": 25, "reason": "evicted", "announced": True}
    d = (await rig.run("debug_diff_snapshots", stream="redux", base_seq=35, target_seq=35)).data
    assert d["changes"] == []
    err = await rig.fails("debug_diff_snapshots", "SNAPSHOT_NOT_FOUND", stream="redux", base_seq=10, target_seq=35)
    assert "35" in err.hint


async def test_new_session_ends_previous_and_keeps_it(rig):
    a = await connected(rig)
    await _traffic(a, 3)
    await until(lambda: rig.svc.mirror.current.streams["redux"].last_seq == 3, "events")
    b = rig.adapter()  # a full JS reload: new sessionId
    await b.connect()
    await until(lambda: a.ws.close_code is not None, "replaced")
    assert rig.svc.mirror.current.session_id == b.session_id
    old = rig.svc.mirror.sessions[a.session_id]
    assert old.ended_at is not None and old.streams["redux"].last_seq == 3
    assert (await rig.run("debug_health_check")).data["adapter"]["sessionId"] == b.session_id


async def test_no_adapter_is_honest(rig):
    h = await rig.run("debug_health_check")
    assert h.data["connected"] is False and h.data["adapter"] is None and h.data["streams"] == []
    assert h.data["listening"]["up"] and h.data["listening"]["port"] == rig.svc.server.port
    assert "not connected" in h.text
    err = await rig.fails("debug_list_streams", "NOT_CONNECTED")
    assert err.data["streams"] == []
    for name, args in [("debug_get_snapshot", {"stream": "redux"}), ("debug_query_events", {"stream": "redux"}),
                       ("debug_get_state_path", {"path": "a"}),
                       ("debug_diff_snapshots", {"stream": "redux", "base_seq": 0, "target_seq": 1})]:
        await rig.fails(name, "NOT_CONNECTED", **args)
    with pytest.raises(DebugError) as info:
        await rig.svc.read_resource("debug://redux/state")
    assert info.value.code == "NOT_CONNECTED"


@pytest.mark.parametrize("rig", [{"limits": Limits(max_events=500, max_event_bytes=200_000)}], indirect=True)
async def test_event_flood_is_bounded(rig):
    a = await connected(rig)
    big = "x" * 600
    batch = []
    for _ in range(5000):
        batch.append(a.event("redux", "action", {"action": {"type": "flood", "payload": big}}, []))
        if len(batch) == 64:
            await a.push(*batch)
            batch = []
    await a.push(*batch)
    await until(lambda: rig.svc.mirror.current.streams["redux"].last_seq == 5000, "flood", timeout=20)
    s = rig.svc.mirror.current.streams["redux"]
    assert len(s) <= 500 and s.bytes <= 200_000 and s.evicted >= 4500 and s.total == 5000
    r = (await rig.run("debug_query_events", stream="redux", since_seq=10, limit=200)).data
    assert r["evicted"] > 0 and r["events"][0]["seq"] == r["oldestSeq"]
    assert a.ws.close_code is None


async def test_resources_and_change_notifications(rig):
    sub = rig.hub.bus.subscribe()
    a = await connected(rig)
    await a.mmkv_set("theme", "dark")
    await a.mmkv_set("authToken", "secret-value-123")
    await a.navigate("Profile", {"id": 7})
    await until(lambda: rig.svc.mirror.current.streams["mmkv"].last_seq == 2, "mmkv events")
    uris = {r.uri for r in rig.svc.resources()}
    assert {"debug://session/current", "debug://redux/state", "debug://navigation/state",
            "debug://mmkv/default"} <= uris
    assert [t.uri for t in rig.svc.resource_templates()] == ["debug://mmkv/{instance}"]
    session = json.loads((await rig.svc.read_resource("debug://session/current"))[0])
    assert session["sessionId"] == a.session_id and session["deviceInfo"]["platform"] == "ios"
    assert session["connected"] and {s["name"] for s in session["streams"]} == {"redux", "navigation", "mmkv"}
    nav = json.loads((await rig.svc.read_resource("debug://navigation/state"))[0])
    assert nav["routes"][-1]["name"] == "Profile" and nav["index"] == 1
    mmkv = json.loads((await rig.svc.read_resource("debug://mmkv/default"))[0])
    assert mmkv["instance"] == "default" and mmkv["keys"]["theme"]["value"] == "dark"
    assert mmkv["keys"]["authToken"] == {"$t": "redacted"}
    assert await rig.svc.read_resource("debug://other/thing") is None
    events: list = []

    def flushed() -> bool:
        """Every change notification held back by the throttle (~1 s) has gone out; `events` has them all."""
        while not sub.queue.empty():
            events.append(sub.queue.get_nowait())
        return not any(rig.svc.waiting(uri) for uri in (SESSION_URI, REDUX_URI, NAV_URI, MMKV_PREFIX))

    await until(flushed, "the throttled notifications to go out")
    changed = [e.uri for e in events if isinstance(e, ResourceChanged)]
    assert {SESSION_URI, NAV_URI, MMKV_PREFIX + "default", REDUX_URI} <= set(changed)
    assert changed.count(NAV_URI) <= 3, "throttled to about one per second"
    assert any(isinstance(e, ResourceListChanged) for e in events)
    # A burst of 100 redux events produces at most a couple of notifications for the redux resource.
    events.clear()
    redux = rig.svc.mirror.current.streams["redux"]
    seq = redux.last_seq
    for _ in range(100):
        await a.dispatch("x", [{"op": "replace", "path": "/auth/status", "value": "busy"}])
    await until(lambda: redux.last_seq == seq + 100, "the burst to arrive")
    await until(flushed, "the burst's notifications to go out")
    burst = [e for e in events if isinstance(e, ResourceChanged) and e.uri == REDUX_URI]
    assert 1 <= len(burst) <= 2
    sub.close()
