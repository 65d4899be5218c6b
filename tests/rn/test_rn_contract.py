"""MCP contract of the React Native tools: input schemas and result shapes (seed spec §3, §5) through
`build_server` and a real in-memory `mcp.Client`, with the listener on port 0 and a Python adapter connected."""

from __future__ import annotations

import json

import pytest
import pytest_asyncio
from mcp import Client

from support import until

from pairdbg.runtime import build_registry
from pairdbg.backends.hub import Hub
from pairdbg.backends.rn.config import RnConfig
from pairdbg.backends.rn.service import RnService
from support.rn_adapter import FakeAdapter
from pairdbg.mcp_bridge.server import build_server

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]
TOKEN = "contract-token-123456"
TOOLS = ["debug_health_check", "debug_list_streams", "debug_get_snapshot", "debug_query_events",
         "debug_get_state_path", "debug_diff_snapshots"]


@pytest_asyncio.fixture
async def mcp_rn():
    hub = Hub()
    svc = RnService(hub, RnConfig(WS_PORT=0, RN_DEBUG_TOKEN=TOKEN, RN_HEARTBEAT_MS=200))
    hub.add_service(svc)
    await svc.start()
    server, _ = build_server(hub, build_registry(hub), tools="rn")  # listed before an app connects, as --tools rn
    adapter = FakeAdapter(svc.server.url, TOKEN)
    try:
        yield server, svc, adapter  # the Client is opened in the test: anyio scopes must not cross tasks
    finally:
        await adapter.drop(1000)
        await hub.shutdown()


def props(tool) -> tuple[dict, set]:
    schema = tool.input_schema
    return schema.get("properties", {}), set(schema.get("required", []))


async def test_input_schemas(mcp_rn):
    server, svc, a = mcp_rn
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(TOOLS) <= set(tools)
        for name in ("debug_health_check", "debug_list_streams"):
            p, req = props(tools[name])
            assert p == {} and req == set()
        p, req = props(tools["debug_get_snapshot"])
        assert set(p) == {"stream", "scope"} and req == {"stream"}
        assert p["stream"]["enum"] == ["redux", "navigation", "mmkv"]
        p, req = props(tools["debug_query_events"])
        assert set(p) == {"stream", "limit", "since_seq", "event_type"} and req == {"stream"}
        assert p["limit"]["default"] == 50
        p, req = props(tools["debug_get_state_path"])
        assert set(p) == {"path"} and req == {"path"}
        p, req = props(tools["debug_diff_snapshots"])
        assert set(p) == {"stream", "base_seq", "target_seq"} and req == {"stream", "base_seq", "target_seq"}
        assert all(tools[n].annotations.read_only_hint for n in TOOLS)
        bad = await client.call_tool("debug_get_snapshot", {"stream": "sqlite"})
        assert bad.is_error and bad.structured_content["error"]["code"] == "INVALID_PARAMETERS"


async def test_errors_when_no_app(mcp_rn):
    server, svc, a = mcp_rn
    async with Client(server) as client:
        health = await client.call_tool("debug_health_check", {})
        assert not health.is_error
        sc = health.structured_content
        assert sc["connected"] is False and sc["adapter"] is None and sc["streams"] == []
        for name, args in [("debug_list_streams", {}), ("debug_get_snapshot", {"stream": "redux"}),
                           ("debug_get_state_path", {"path": "a.b"})]:
            r = await client.call_tool(name, args)
            assert r.is_error
            err = r.structured_content["error"]
            assert err["code"] == "NOT_CONNECTED" and err["message"] and err["hint"]
            assert r.content[0].text.startswith("NOT_CONNECTED: ") and "\nNext: " in r.content[0].text


async def test_result_shapes(mcp_rn):
    server, svc, a = mcp_rn
    async with Client(server) as client:
        await a.connect()
        for i in range(5):
            await a.dispatch("todos/add", [{"op": "add", "path": "/todos/items/-", "value": {"id": i}}])
        await a.navigate("Profile")
        await a.mmkv_set("theme", "dark")
        await until(
            lambda: svc.mirror.current and svc.mirror.current.streams["redux"].last_seq == 5, "the five redux events"
        )

        h = (await client.call_tool("debug_health_check", {})).structured_content
        assert h["connected"] is True and set(h["adapter"]) >= {"sessionId", "adapterVersion", "uptime", "connectedAt"}
        assert isinstance(h["adapter"]["uptime"], int)
        for s in h["streams"]:
            assert set(s) >= {"name", "active", "eventCount", "lastEventAt"}

        ls = (await client.call_tool("debug_list_streams", {})).structured_content
        for s in ls["streams"]:
            assert set(s) >= {"name", "active", "eventCount", "latestSeq", "oldestSeq", "hasSnapshot"}

        snap = await client.call_tool("debug_get_snapshot", {"stream": "redux", "scope": "todos"})
        assert not snap.is_error and snap.structured_content["data"] == {"items": [{"id": i} for i in range(5)]}
        assert snap.content[0].text.startswith("redux.todos @ seq 5")

        q = (await client.call_tool("debug_query_events", {"stream": "redux", "limit": 2})).structured_content
        assert set(q) >= {"events", "hasMore", "oldestSeq", "latestSeq", "nextSinceSeq"}
        assert [e["seq"] for e in q["events"]] == [1, 2] and q["hasMore"] is True
        e = q["events"][0]
        assert set(e) >= {"stream", "seq", "type", "data"}

        p = await client.call_tool("debug_get_state_path", {"path": "todos.items[4].id"})
        assert not p.is_error and p.structured_content["value"] == 4
        miss = await client.call_tool("debug_get_state_path", {"path": "todos.nope"})
        assert miss.is_error and miss.structured_content["error"]["code"] == "PATH_NOT_FOUND"

        d = (await client.call_tool("debug_diff_snapshots", {"stream": "redux", "base_seq": 1, "target_seq": 3}))
        dc = d.structured_content
        assert dc["baseSeq"] == 1 and dc["targetSeq"] == 3
        assert dc["changes"] == [{"path": "todos.items[1]", "type": "added", "newValue": {"id": 1}},
                                 {"path": "todos.items[2]", "type": "added", "newValue": {"id": 2}}]
        nf = await client.call_tool("debug_diff_snapshots", {"stream": "redux", "base_seq": 1, "target_seq": 999})
        assert nf.is_error and nf.structured_content["error"]["code"] == "SNAPSHOT_NOT_FOUND"

        resources = {r.uri for r in (await client.list_resources()).resources}
        assert {"debug://session/current", "debug://redux/state", "debug://navigation/state",
                "debug://mmkv/default"} <= resources
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        assert "debug://mmkv/{instance}" in templates
        redux = json.loads((await client.read_resource("debug://redux/state")).contents[0].text)
        assert len(redux["todos"]["items"]) == 5
        mmkv = json.loads((await client.read_resource("debug://mmkv/default")).contents[0].text)
        assert mmkv["instance"] == "default" and mmkv["keys"]["theme"]["value"] == "dark"
