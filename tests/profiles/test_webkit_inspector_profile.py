"""`pairdbg --mcp --profile webkit-inspector` replays seed 000's Appendix B workflow (connect, conditional breakpoint,
wait for the pause, call stack, evaluate on a frame, step, resume, disconnect) over a real stdio client against
Node's inspector, with the seed's snake_case arguments, 0-based lines, result shapes, error format and
`debug://sessions` resources."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import time
import urllib.request
import warnings
from pathlib import Path

import pytest
from mcp import Client, MCPError, types
from support import TESTS, until
from support.core import free_port
from support.mcp import stdio_params

from inspector.test_inspector_node import need_runtime

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]

SERVER = TESTS / "js" / "inspector" / "server.js"
ASYNC = Path(__file__).parent / "js" / "async_ticks.js"
SEED_TOOLS = {
    "connect_debugger",
    "disconnect_debugger",
    "set_breakpoint",
    "remove_breakpoint",
    "list_breakpoints",
    "resume_execution",
    "step_over",
    "step_into",
    "step_out",
    "pause_execution",
    "get_call_stack",
    "evaluate_expression",
    "get_scope_variables",
    "set_variable_value",
    "set_pause_on_exceptions",
}


def line0(path: Path, marker: str) -> int:
    """0-based line of the only line of `path` holding `marker` (the seed's line base)."""
    hits = [n for n, text in enumerate(path.read_text().splitlines()) if marker in text]
    assert len(hits) == 1, marker
    return hits[0]


@pytest.fixture
def node_target(request):
    """`node --inspect=127.0.0.1:PORT <script>` and its inspector WebSocket URL; killed with its group afterwards."""
    need_runtime("node")
    script = getattr(request, "param", SERVER)
    port = free_port()
    proc = subprocess.Popen(
        ["node", f"--inspect=127.0.0.1:{port}", str(script)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        url = None
        deadline = time.monotonic() + 15
        while url is None and time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=1) as answer:
                    url = json.load(answer)[0]["webSocketDebuggerUrl"]
            except OSError:
                time.sleep(0.1)
        assert url, "node never served its inspector"
        yield url, proc
    finally:
        stop(proc)


@pytest.fixture
def bun_target():
    """`bun --inspect=127.0.0.1:PORT/fixed server.js` (WebKit's JavaScriptCore, the seed's own test target)."""
    bun = need_runtime("bun")
    port = free_port()
    proc = subprocess.Popen(
        [bun, f"--inspect=127.0.0.1:{port}/fixed", str(SERVER)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not listening(port):
            time.sleep(0.1)
        assert listening(port), "bun never served its inspector"
        yield f"ws://127.0.0.1:{port}/fixed", proc
    finally:
        stop(proc)


@pytest.fixture(params=["node", "bun"])
def target(request):
    """The seed's workflow runs on V8 (Node) and on JavaScriptCore (Bun)."""
    return request.param, request.getfixturevalue(f"{request.param}_target")


def listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def stop(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, 9)
    except ProcessLookupError:
        pass
    proc.wait(5)


def profile_client(**env: str) -> Client:
    params = stdio_params("--profile", "webkit-inspector")
    if env:
        params.env = {**os.environ, **env}
    return Client(params, cache=None)


async def call(client: Client, tool: str, **args) -> dict:
    result = await client.call_tool(tool, args)
    payload = json.loads(result.content[0].text)
    assert result.is_error == ("error" in payload and isinstance(payload["error"], dict)), (tool, payload)
    return payload


async def sessions(client: Client) -> dict:
    return json.loads((await client.read_resource("debug://sessions")).contents[0].text)


async def test_seed_appendix_b_workflow(target) -> None:
    runtime, (ws, proc) = target
    tick = line0(SERVER, "// TICK")
    async with profile_client() as client:
        assert {t.name for t in (await client.list_tools()).tools} == SEED_TOOLS
        prompts = {p.name for p in (await client.list_prompts()).prompts}
        assert prompts == {"analyze_crash", "investigate_condition"}

        # Step 1: connect
        connected = await call(client, "connect_debugger", websocket_url=ws, session_name="Main app debugging")
        sid = connected["session_id"]
        assert connected["state"] == "connected"
        # the title and URL the target's /json/list gives (Node names the script); Bun lists none: null, not made up
        expected = (
            {"title": str(SERVER), "url": f"file://{SERVER}"} if runtime == "node" else {"title": None, "url": None}
        )
        assert connected["target_info"] == expected, connected["target_info"]

        # Step 2: a conditional breakpoint, 0-based line
        bp = await call(
            client, "set_breakpoint", session_id=sid, url=f"file://{SERVER}", line_number=tick, condition="count > 3"
        )
        assert bp["breakpoint_id"] and bp["locations"] == [{"line_number": tick, "column_number": 0}]
        listed = await call(client, "list_breakpoints", session_id=sid)
        assert listed == {
            "breakpoints": [
                {
                    "id": bp["breakpoint_id"],
                    "url": f"file://{SERVER}",
                    "line_number": tick,
                    "column_number": 0,
                    "condition": "count > 3",
                    "enabled": True,
                }
            ]
        }

        # Step 3: wait for the pause, as the debug://sessions resource tells it
        async def paused() -> bool:
            return (await sessions(client))["sessions"][0]["state"] == "paused"

        await until(paused, "the breakpoint to pause the target")
        (row,) = (await sessions(client))["sessions"]
        assert row == {
            "id": sid,
            "targetUrl": ws,
            "state": "paused",
            "pauseReason": "breakpoint",
            "scriptUrl": f"file://{SERVER}",
            "lineNumber": tick,
        }
        prompt = await client.get_prompt("analyze_crash", {"session_id": sid})
        text = prompt.messages[0].content.text
        assert f"Session ID: {sid}" in text and f"in tick at file://{SERVER}, line_number {tick}" in text
        assert "get_local_variables" not in text  # the prompt names this surface's tools only
        detail = json.loads((await client.read_resource(f"debug://sessions/{sid}")).contents[0].text)
        assert detail["breakpoints"][0]["lineNumber"] == tick and detail["callStack"][0]["functionName"] == "tick"

        # Step 4: the call stack, 0-based, with the scope chain
        stack = await call(client, "get_call_stack", session_id=sid, include_async=True)
        top = stack["call_frames"][0]
        assert top["function_name"] == "tick" and top["line_number"] == tick and top["column_number"] == 2
        assert top["url"] == f"file://{SERVER}" and top["call_frame_id"] == "@f0"
        assert top["scope_chain"][0]["type"] == "local"
        assert all(s["object"]["objectId"].startswith("@v") for s in top["scope_chain"])

        # Step 5: evaluate on the frame (by value by default), and an expression that throws
        count = await call(client, "evaluate_expression", session_id=sid, expression="count", call_frame_id="@f0")
        n = count["result"]["value"]
        assert count["result"]["type"] == "number" and n > 3 and count["exception_details"] is None
        doubled = await call(client, "evaluate_expression", session_id=sid, expression="count * 2", call_frame_id="@f0")
        assert doubled == {
            "result": {"type": "number", "value": n * 2, "description": str(n * 2)},
            "exception_details": None,
        }
        obj = await call(client, "evaluate_expression", session_id=sid, expression="({a: [1, 2]})", call_frame_id="@f0")
        assert obj["result"]["type"] == "object" and obj["result"]["value"] == {"a": [1, 2]}
        infinite = await call(client, "evaluate_expression", session_id=sid, expression="1/0", call_frame_id="@f0")
        assert infinite["result"] == {"type": "number", "description": "Infinity", "unserializableValue": "Infinity"}
        thrown = await call(client, "evaluate_expression", session_id=sid, expression="nope.x", call_frame_id="@f0")
        assert thrown["exception_details"]["text"].startswith("Uncaught ReferenceError")
        assert thrown["result"]["subtype"] == "error"

        # scope variables, and set_variable_value with the seed's parameters
        found = {}
        for index in range(len(top["scope_chain"])):
            scope = await call(client, "get_scope_variables", session_id=sid, call_frame_id="@f0", scope_index=index)
            for v in scope["variables"]:
                found.setdefault(v["name"], (index, v["value"]))
        assert found["this"][0] == 0 and found["this"][1]["type"] == "object"  # tick() has no locals but `this`
        if runtime == "bun":
            # JavaScriptCore's script scope (top-level let/const) lists no variables through pairdbg's
            # get_variables, so `count` cannot be reached by scope there (evaluate and set by expression can)
            assert "count" not in found
            assign = {"expression": "count = 1000", "call_frame_id": "@f0"}
            assert (await call(client, "evaluate_expression", session_id=sid, **assign))["result"]["value"] == 1000
        else:
            closure, value = found["count"]  # Node: the CommonJS module's closure
            assert closure > 0 and value == {"type": "number", "value": n, "description": str(n)}
            set_ = await call(
                client,
                "set_variable_value",
                session_id=sid,
                call_frame_id="@f0",
                scope_index=closure,
                variable_name="count",
                new_value="1000",
            )
            assert set_ == {"success": True}
        now = await call(client, "evaluate_expression", session_id=sid, expression="count", call_frame_id="@f0")
        assert now["result"]["value"] == 1000

        # Step 6: step over (the step has landed when it answers), 0-based again
        assert await call(client, "step_over", session_id=sid) == {"success": True, "state": "paused"}
        after = await call(client, "get_call_stack", session_id=sid)
        assert after["call_frames"][0]["line_number"] == tick + 1

        # Step 7: resume; the seed's answer at once, then remove the breakpoint and disconnect
        assert (await call(client, "remove_breakpoint", session_id=sid, breakpoint_id=bp["breakpoint_id"]))["success"]
        assert await call(client, "resume_execution", session_id=sid) == {"success": True, "state": "running"}
        assert await call(client, "set_pause_on_exceptions", session_id=sid, state="all") == {
            "success": True,
            "state": "all",
        }
        paused_now = await call(client, "pause_execution", session_id=sid)
        assert paused_now == {"success": True, "state": "paused"}
        assert await call(client, "resume_execution", session_id=sid) == {"success": True, "state": "running"}
        assert await call(client, "disconnect_debugger", session_id=sid) == {"success": True, "session_id": sid}
        assert (await sessions(client)) == {"sessions": []}
        assert proc.poll() is None, "disconnect ended the target"


async def test_seed_error_format(node_target) -> None:
    ws, proc = node_target
    async with profile_client() as client:
        missing = await call(client, "get_call_stack", session_id="session-123")
        assert missing["error"]["code"] == "SESSION_NOT_FOUND"
        assert missing["error"]["details"]["sessionId"] == "session-123" and missing["error"]["message"]
        bad = await call(client, "set_breakpoint", session_id="S1", url="x.js", line_number="3")
        assert bad["error"]["code"] == "INVALID_PARAMETERS" and "line_number" in bad["error"]["message"]
        snake = await call(client, "connect_debugger", websocketUrl=ws)
        assert snake["error"]["code"] == "INVALID_PARAMETERS" and "websocketUrl" in snake["error"]["message"]
        sid = (await call(client, "connect_debugger", websocket_url=ws))["session_id"]
        running = await call(client, "get_call_stack", session_id=sid)
        assert running["error"]["code"] == "SESSION_INVALID_STATE"
        assert running["error"]["details"]["pairdbgCode"] == "NOT_PAUSED"
        column = await call(
            client, "set_breakpoint", session_id=sid, url=f"file://{SERVER}", line_number=3, column_number=4
        )
        assert column["error"]["code"] == "PROTOCOL_ERROR" and "column" in column["error"]["message"]
        negative = await call(client, "set_breakpoint", session_id=sid, url=f"file://{SERVER}", line_number=-1)
        assert negative["error"]["code"] == "INVALID_PARAMETERS"
        await call(client, "disconnect_debugger", session_id=sid)


@pytest.mark.parametrize("node_target", [ASYNC], indirect=True)
async def test_async_stack_trace(node_target) -> None:
    ws, proc = node_target
    async with profile_client() as client:
        sid = (await call(client, "connect_debugger", websocket_url=ws))["session_id"]
        await call(client, "set_breakpoint", session_id=sid, url=str(ASYNC), line_number=line0(ASYNC, "AFTER_AWAIT"))

        async def paused() -> bool:
            return (await sessions(client))["sessions"][0]["state"] == "paused"

        await until(paused, "the breakpoint after the await")
        stack = await call(client, "get_call_stack", session_id=sid, include_async=True)
        assert stack["call_frames"][0]["function_name"] == "work"
        trace = stack["async_stack_trace"]
        assert trace["description"] and trace["call_frames"][0]["function_name"] == "run"
        assert trace["call_frames"][0]["line_number"] == line0(ASYNC, "CALLER")
        without = await call(client, "get_call_stack", session_id=sid, include_async=False)
        assert "async_stack_trace" not in without
        await call(client, "disconnect_debugger", session_id=sid)


async def test_the_allow_list_is_the_configured_one() -> None:
    """Remote inspector URLs are refused before connecting unless the host is in the one allow-list
    (PAIRDBG_LIMITS__ALLOWED_HOSTS); an allowed name is then really tried (here: a name that never resolves)."""
    remote = "ws://debug-target.invalid:9229/devtools/page/1"
    async with profile_client() as client:
        refused = await call(client, "connect_debugger", websocket_url=remote)
        assert refused["error"]["code"] == "INVALID_PARAMETERS" and "not allowed" in refused["error"]["message"]
    async with profile_client(PAIRDBG_LIMITS__ALLOWED_HOSTS='["debug-target.invalid"]') as client:
        tried = await call(client, "connect_debugger", websocket_url=remote)
        assert tried["error"]["code"] == "CONNECTION_FAILED", tried
        assert "not allowed" not in tried["error"]["message"]


async def test_ignore_count_skips_hits(node_target) -> None:
    ws, proc = node_target
    tick = line0(SERVER, "// TICK")
    url = f"file://{SERVER}"
    async with profile_client() as client:
        sid = (await call(client, "connect_debugger", websocket_url=ws))["session_id"]

        async def paused() -> bool:
            return (await sessions(client))["sessions"][0]["state"] == "paused"

        async def count() -> int:
            answer = await call(client, "evaluate_expression", session_id=sid, expression="count", call_frame_id="@f0")
            return answer["result"]["value"]

        first = await call(client, "set_breakpoint", session_id=sid, url=url, line_number=tick)
        await until(paused, "the first hit")
        before = await count()
        await call(client, "remove_breakpoint", session_id=sid, breakpoint_id=first["breakpoint_id"])
        await call(client, "set_breakpoint", session_id=sid, url=url, line_number=tick, ignore_count=5)
        await call(client, "resume_execution", session_id=sid)
        await until(paused, "the sixth hit")
        assert await count() == before + 6  # tick() ran 5 times past the breakpoint, then it stopped
        await call(client, "disconnect_debugger", session_id=sid)


async def test_the_pause_is_notified(node_target) -> None:
    """Appendix B step 3: "the server sends a notification when paused" (resources/updated for debug://sessions)."""
    ws, proc = node_target
    updates: list[str] = []

    async def on_message(message) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.append(str(message.params.uri))

    params = stdio_params("--profile", "webkit-inspector")
    async with Client(params, mode="legacy", cache=None, message_handler=on_message) as client:
        sid = (await call(client, "connect_debugger", websocket_url=ws))["session_id"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await client.subscribe_resource(f"debug://sessions/{sid}")
        tick = line0(SERVER, "// TICK")
        later = int(time.time() * 1000) + 1500  # the breakpoint starts to hit 1.5 s from now
        condition = f"Date.now() > {later}"
        await call(
            client, "set_breakpoint", session_id=sid, url=f"file://{SERVER}", line_number=tick, condition=condition
        )
        await asyncio.sleep(0.5)  # the breakpoint's own change notification has gone out by now
        assert (await sessions(client))["sessions"][0]["state"] == "running"
        updates.clear()
        await until(lambda: f"debug://sessions/{sid}" in updates, "a resources/updated for the pause")
        assert (await sessions(client))["sessions"][0]["state"] == "paused"
        await call(client, "disconnect_debugger", session_id=sid)


async def test_what_the_agent_reads_is_redacted_and_checked(node_target) -> None:
    """Resources and prompts get the agents' redaction like tools; target_info is what the target's /json/list
    says; integral floats are integers; the caller's own 0-based line comes back in errors; long URIs are cut."""
    ws, proc = node_target
    url = f"file://{SERVER}"
    tick = line0(SERVER, "// TICK")
    planted = 'password === "hunter2-Secret" && false'
    async with profile_client() as client:
        connected = await call(client, "connect_debugger", websocket_url=ws)
        sid = connected["session_id"]
        assert connected["target_info"]["url"] == url, connected
        assert connected["target_info"]["title"] and connected["target_info"]["title"] != sid, connected
        await call(client, "set_breakpoint", session_id=sid, url=url, line_number=tick + 1, condition=planted)
        resource = (await client.read_resource(f"debug://sessions/{sid}")).contents[0].text
        assert "hunter2" not in resource and "<redacted: 14 chars>" in resource, resource
        prompt = await client.get_prompt("investigate_condition", {"session_id": sid, "expression": planted})
        text = prompt.messages[0].content.text
        assert "hunter2" not in text and "<redacted: 14 chars>" in text, text

        first = await call(client, "set_breakpoint", session_id=sid, url=url, line_number=float(tick))
        await until(lambda: _paused(client), "the breakpoint")
        scope = await call(client, "get_scope_variables", session_id=sid, call_frame_id="@f0", scope_index=1.0)
        assert "variables" in scope, scope
        set_ = await call(
            client,
            "set_variable_value",
            session_id=sid,
            call_frame_id="@f0",
            scope_index=1.0,
            variable_name="count",
            new_value="100",
        )
        assert set_ == {"success": True}, set_
        half = await call(client, "get_scope_variables", session_id=sid, call_frame_id="@f0", scope_index=1.5)
        assert half["error"]["code"] == "INVALID_PARAMETERS" and "scope_index" in half["error"]["message"]
        await call(client, "remove_breakpoint", session_id=sid, breakpoint_id=first["breakpoint_id"])
        skip = await call(client, "set_breakpoint", session_id=sid, url=url, line_number=float(tick), ignore_count=2.0)
        assert skip["breakpoint_id"], skip

        for line in (2**40, 500):
            far = await call(client, "set_breakpoint", session_id=sid, url=url, line_number=line)
            assert far["error"]["code"] == "INVALID_PARAMETERS", far
            message = far["error"]["message"]  # the value as the agent sent it, never the 1-based wire line
            assert "line_number" in message and str(line) in message and str(line + 1) not in message, message
        with pytest.raises(MCPError) as long_uri:
            await client.read_resource("debug://sessions/" + "x" * 100_000)
        assert len(long_uri.value.error.message) < 1000
        await call(client, "disconnect_debugger", session_id=sid)


async def _paused(client: Client) -> bool:
    return (await sessions(client))["sessions"][0]["state"] == "paused"
