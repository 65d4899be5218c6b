"""`pairdbg --mcp --profile agent-devtools` replays seed 003's documented calls (§3 tools, §4 resources, the
tool-roundtrip integration test: connected health check, a Redux snapshot, events, a disconnected-adapter error)
over a real stdio client, with the real RN adapter (tests/rn/fake-app.mjs: Redux Toolkit, navigation, MMKV)
connected to pairdbg's listener; and MCP_TRANSPORT=http on the seed's port."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time

import pytest
from mcp import Client, MCPError
from support import ROOT, until
from support.core import free_port
from support.mcp import http_client, stdio_params

from rn.test_rn_e2e import TOKEN, App, need_node_harness

pytestmark = [pytest.mark.timeout(120)]

SEED_TOOLS = {
    "debug_health_check",
    "debug_list_streams",
    "debug_get_snapshot",
    "debug_query_events",
    "debug_get_state_path",
    "debug_diff_snapshots",
}


def rn_env(ws_port: int, **extra: str) -> dict[str, str]:
    return {**os.environ, "WS_PORT": str(ws_port), "RN_DEBUG_TOKEN": TOKEN, **extra}


def profile_client(ws_port: int) -> Client:
    params = stdio_params("--profile", "agent-devtools")
    params.env = rn_env(ws_port)
    return Client(params, cache=None)


async def call(client: Client, tool: str, **args):
    """The tool's JSON text, parsed; errors must be the seed's shape and flagged isError."""
    result = await client.call_tool(tool, args)
    payload = json.loads(result.content[0].text)
    is_seed_error = isinstance(payload, dict) and payload.get("error") is True
    assert result.is_error == is_seed_error, (tool, payload)
    if is_seed_error:
        assert set(payload) <= {"error", "code", "message", "details"} and payload["message"], payload
    return payload


@pytest.mark.asyncio
async def test_seed_tools_and_resources_against_the_rn_adapter() -> None:
    need_node_harness()
    ws_port = free_port()
    app = None
    async with profile_client(ws_port) as client:
        try:
            assert {t.name for t in (await client.list_tools()).tools} == SEED_TOOLS

            # disconnected: health check never fails; the others answer NOT_CONNECTED in the seed's error shape
            health = await call(client, "debug_health_check")
            assert health["connected"] is False and health["adapter"] is None and health["streams"] == []
            streams = await call(client, "debug_list_streams")
            assert streams["code"] == "NOT_CONNECTED" and streams["details"]["streams"] == []
            assert (await call(client, "debug_get_snapshot", stream="redux"))["code"] == "NOT_CONNECTED"
            with pytest.raises(MCPError) as unread:
                await client.read_resource("debug://session/current")
            assert json.loads(unread.value.error.message)["code"] == "NOT_CONNECTED"

            app = await App.start(f"ws://127.0.0.1:{ws_port}/adapter")
            await app.do(
                "dispatch",
                action={"type": "auth/loginOk", "payload": {"user": {"id": 7, "name": "Ada", "role": "admin"}}},
            )
            await app.do("dispatch", action={"type": "todos/add", "payload": "buy milk"})
            await app.do("navigate", name="Profile", params={"id": 7})
            await app.do("flush")

            async def mirrored() -> bool:
                listed = await client.call_tool("debug_list_streams", {})
                if listed.is_error:
                    return False
                by_name = {s["name"]: s for s in json.loads(listed.content[0].text)["streams"]}
                return by_name.get("redux", {}).get("latestSeq") == 2

            await until(mirrored, "the app's events in pairdbg's mirror")

            health = await call(client, "debug_health_check")
            assert health["connected"] is True
            assert {"sessionId", "adapterVersion", "uptime", "connectedAt"} <= set(health["adapter"])
            assert {"name", "active", "eventCount", "lastEventAt"} <= set(health["streams"][0])
            streams = (await call(client, "debug_list_streams"))["streams"]
            assert {"name", "active", "eventCount", "latestSeq", "oldestSeq", "hasSnapshot"} <= set(streams[0])

            # bare payloads: the snapshot itself, the value itself
            auth = await call(client, "debug_get_snapshot", stream="redux", scope="auth")
            assert auth["user"] == {"id": 7, "name": "Ada", "role": "admin"}
            assert "stream" not in auth and "seq" not in auth
            assert await call(client, "debug_get_state_path", path="auth.user.role") == "admin"
            assert await call(client, "debug_get_state_path", path="auth.user") == {
                "id": 7,
                "name": "Ada",
                "role": "admin",
            }

            events = await call(client, "debug_query_events", stream="redux", limit=50)
            assert [e["seq"] for e in events["events"]] == [1, 2]
            assert events["hasMore"] is False and events["latestSeq"] == 2 and "oldestSeq" in events
            later = await call(client, "debug_query_events", stream="redux", since_seq=1)
            assert [e["seq"] for e in later["events"]] == [2]
            routes = await call(client, "debug_query_events", stream="navigation", event_type="route_change")
            assert routes["events"][-1]["data"]["to"] == "Profile"

            diff = await call(client, "debug_diff_snapshots", stream="redux", base_seq=1, target_seq=2)
            assert diff["baseSeq"] == 1 and diff["targetSeq"] == 2
            assert {"path": "todos.items[0]", "type": "added", "newValue": "buy milk"} in diff["changes"]

            # the seed's error codes
            assert (await call(client, "debug_get_state_path", path="auth.nope"))["code"] == "PATH_NOT_FOUND"
            missing_scope = await call(client, "debug_get_snapshot", stream="redux", scope="nothing.here")
            assert missing_scope["code"] == "SCOPE_NOT_FOUND"
            gone = await call(client, "debug_diff_snapshots", stream="redux", base_seq=90, target_seq=99)
            assert gone["code"] == "SNAPSHOT_NOT_FOUND" and "hint" in gone["details"]
            for bad in (
                {"stream": "bogus"},
                {},
                {"stream": "redux", "scopes": "auth"},
                {"stream": "redux", "scope": 3},
            ):
                refused = await call(client, "debug_get_snapshot", **bad)
                assert refused["code"] == "INVALID_PARAMS", bad

            # resources (§4)
            uris = {str(r.uri) for r in (await client.list_resources()).resources}
            assert {"debug://session/current", "debug://redux/state", "debug://navigation/state"} <= uris
            templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
            assert "debug://mmkv/{instance}" in templates
            state = json.loads((await client.read_resource("debug://redux/state")).contents[0].text)
            assert state["auth"]["user"]["name"] == "Ada"
            session = json.loads((await client.read_resource("debug://session/current")).contents[0].text)
            assert session["sessionId"] == health["adapter"]["sessionId"]

            # the app goes away (§9: tools return NOT_CONNECTED): its last state is no longer served as its state
            await app.kill()
            app = None

            async def gone() -> bool:
                return (await call(client, "debug_health_check"))["connected"] is False

            await until(gone, "the listener to notice the app is gone")
            for tool, args in (
                ("debug_get_snapshot", {"stream": "redux", "scope": "auth"}),
                ("debug_get_state_path", {"path": "auth.user.role"}),
            ):
                payload = await call(client, tool, **args)
                assert payload["code"] == "NOT_CONNECTED" and "stale" not in payload.get("details", {}), payload
                assert "Ada" not in json.dumps(payload) and "admin" not in json.dumps(payload), payload
            for uri in ("debug://redux/state", "debug://session/current"):
                with pytest.raises(MCPError) as unread:
                    await client.read_resource(uri)
                assert json.loads(unread.value.error.message)["code"] == "NOT_CONNECTED", uri
        finally:
            if app is not None:
                await app.kill()


def endpoint_of(state: str, pid: int) -> dict | None:
    folder = os.path.join(state, "pairdbg")
    for name in os.listdir(folder) if os.path.isdir(folder) else []:
        if name.startswith(f"endpoint-{pid}-"):
            with open(os.path.join(folder, name)) as fh:
                return json.load(fh)
    return None


def port_free(port: int) -> bool:
    with contextlib.closing(socket.socket()) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.mark.asyncio
async def test_mcp_transport_http_on_the_seeds_port(tmp_path) -> None:
    seed_port_free = port_free(3100)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pairdbg", "--mcp", "--profile", "agent-devtools"],
        cwd=ROOT,
        env=rn_env(free_port(), MCP_TRANSPORT="http", XDG_RUNTIME_DIR=str(tmp_path)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        info = None
        while info is None and time.monotonic() < deadline and proc.poll() is None:
            info = endpoint_of(str(tmp_path), proc.pid)
            time.sleep(0.1)
        assert info is not None, f"no endpoint (exit code {proc.poll()})"
        if seed_port_free:  # taken by something else, pairdbg falls back to a free port and says so in the entry
            assert info["url"] == "http://127.0.0.1:3100/mcp"
        async with http_client(info["url"], info["token"]) as client:
            assert {t.name for t in (await client.list_tools()).tools} == SEED_TOOLS
            health = json.loads((await client.call_tool("debug_health_check", {})).content[0].text)
            assert health["connected"] is False
    finally:
        proc.terminate()
        proc.wait(10)


def test_an_unknown_transport_or_profile_is_refused() -> None:
    bad = subprocess.run(
        [sys.executable, "-m", "pairdbg", "--mcp", "--profile", "agent-devtools"],
        cwd=ROOT,
        env={**os.environ, "MCP_TRANSPORT": "carrier-pigeon"},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert bad.returncode == 2 and "MCP_TRANSPORT" in bad.stderr
    unknown = subprocess.run(
        [sys.executable, "-m", "pairdbg", "--mcp", "--profile", "gdb"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert unknown.returncode == 2 and "mcp-debugger, webkit-inspector, agent-devtools" in unknown.stderr
    no_endpoint = subprocess.run(
        [sys.executable, "-m", "pairdbg", "--profile", "mcp-debugger", "--no-http"],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert no_endpoint.returncode == 2 and "--no-http" in no_endpoint.stderr


@pytest.mark.asyncio
async def test_resources_get_the_agents_redaction() -> None:
    # A form field {"name": "password", "value": …} under harmless keys: the RN listener's own redactor keeps it,
    # the agents' policy (what the default server's resources get) hides it with its length; an over-long URI is
    # cut in the error.
    need_node_harness()
    ws_port = free_port()
    app = None
    async with profile_client(ws_port) as client:
        try:
            app = await App.start(f"ws://127.0.0.1:{ws_port}/adapter")
            form = {"fields": [{"name": "password", "value": "hunter2-Secret"}, {"name": "user", "value": "ada"}]}
            await app.do("dispatch", action={"type": "misc/setBig", "payload": form})
            await app.do("flush")

            async def mirrored() -> bool:
                result = await client.call_tool("debug_get_state_path", {"path": "misc.big"})
                return not result.is_error

            await until(mirrored, "the app's state in pairdbg's mirror")
            text = (await client.read_resource("debug://redux/state")).contents[0].text
            assert "hunter2" not in text and "<redacted: 14 chars>" in text, text
            assert json.loads(text)["misc"]["big"]["fields"][1] == {"name": "user", "value": "ada"}
            with pytest.raises(MCPError) as long_uri:
                await client.read_resource("debug://mmkv/" + "x" * 100_000)
            assert len(long_uri.value.error.message) < 1000, len(long_uri.value.error.message)
        finally:
            if app is not None:
                await app.kill()
