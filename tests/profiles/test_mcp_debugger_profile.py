"""`pairdbg --mcp --profile mcp-debugger` replays the seed's own documented calls (seed 002, the mcp-debugger tool
reference: its swap_vars.py example) over a real stdio client against debugpy, and gets the seed's names, camelCase
arguments, 1-based lines, result shapes and error formats, as mcp-debugger 0.24.2 has them where it changed them
(test_mcp_debugger_peer.py compares with the real 0.24.2)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from mcp import Client, MCPError
from support import TESTS, prog, until
from support.core import free_port, require_debugpy
from support.mcp import ROOT, stdio_params

from pairdbg.backends.dap.python import choose_python

from inspector.test_inspector_node import need_runtime


pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]

SWAP = prog("swap_vars.py")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
SEED_TOOLS = {
    "create_debug_session",
    "list_debug_sessions",
    "close_debug_session",
    "set_breakpoint",
    "start_debugging",
    "step_over",
    "step_into",
    "step_out",
    "continue_execution",
    "pause_execution",
    "get_stack_trace",
    "get_scopes",
    "get_variables",
    "get_local_variables",
    "evaluate_expression",
    "get_source_context",
    "list_supported_languages",
    "attach_to_process",
    "detach_from_process",
    "list_threads",
    # added by 0.24.2
    "list_breakpoints",
    "remove_breakpoint",
    "clear_breakpoints",
    "restart_debugging",
    "expose_session",
    "unexpose_session",
    "get_output",
    "redefine_classes",
}


def profile_client() -> Client:
    return Client(stdio_params("--profile", "mcp-debugger"), cache=None)


async def call(client: Client, tool: str, **args) -> dict:
    result = await client.call_tool(tool, args)
    payload = json.loads(result.content[0].text)
    assert not result.is_error, (tool, payload)  # 0.24.2 never sets isError: success says it
    return payload


async def test_seed_swap_vars_flow_over_stdio() -> None:
    require_debugpy()
    async with profile_client() as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == SEED_TOOLS
        for tool in tools.values():  # camelCase everywhere, as the seed names them
            assert all("_" not in name for name in tool.input_schema.get("properties", {})), tool.name
        assert tools["set_breakpoint"].input_schema["required"] == ["sessionId"]  # line, statement or function

        langs = await call(client, "list_supported_languages")
        python = next(lang for lang in langs["languages"] if lang["id"] == "python")
        assert python["installed"] is True and langs["count"] == len(langs["languages"])
        # the interpreter a program in pairdbg's working folder would run on (the MCP client passes no VIRTUAL_ENV)
        expected = choose_python(None, "", module=True, cwd=str(ROOT), env={"PATH": os.environ.get("PATH", "")})[0]
        assert python["displayName"] == "Python" and python["defaultExecutable"] == expected

        # create_debug_session: the seed's example request, a UUID, and the `created` state
        created = await call(client, "create_debug_session", language="python", name="My Debug Session")
        assert created["success"] is True and UUID.match(created["sessionId"])
        assert created["message"] == "Created python debug session: My Debug Session"
        sid = created["sessionId"]
        listed = await call(client, "list_debug_sessions")
        assert listed["count"] == 1
        (row,) = listed["sessions"]
        assert row["id"] == sid and row["state"] == "created" and row["language"] == "python"
        assert row["createdAt"].endswith("Z") and row["name"] == "My Debug Session"

        # set_breakpoint before the start: unverified, with the seed's context block (1-indexed lines)
        bp = await call(client, "set_breakpoint", sessionId=sid, file=SWAP, line=9)
        assert bp["verified"] is False and bp["line"] == 9 and bp["file"] == SWAP
        assert bp["message"] == f"Breakpoint recorded at {SWAP}:9 (set when the program starts)"
        assert bp["breakpointId"] == "BP1"  # the id the session gives it when the program starts
        assert bp["context"]["lineContent"].strip().startswith("a = b")
        assert [s["line"] for s in bp["context"]["surrounding"]] == [7, 8, 9, 10, 11]
        assert bp["context"]["surrounding"][0]["content"] == "def swap_variables(a, b):"

        # dryRunSpawn: the command, checked like a real start, nothing spawned (still `created`)
        dry = await call(client, "start_debugging", sessionId=sid, scriptPath=SWAP, args=["--x"], dryRunSpawn=True)
        assert dry["dryRun"] is True and dry["state"] == "created"
        assert dry["data"]["command"][1:] == [SWAP, "--x"] and os.path.isfile(dry["data"]["command"][0])
        assert (await call(client, "list_debug_sessions"))["sessions"][0]["state"] == "created"
        missing = await call(client, "start_debugging", sessionId=sid, scriptPath="/nonexistent/x.py", dryRunSpawn=True)
        assert missing["success"] is False and "not found" in missing["error"]

        started = await call(
            client,
            "start_debugging",
            sessionId=sid,
            scriptPath=SWAP,
            dapLaunchArgs={"stopOnEntry": False, "justMyCode": True},
        )
        assert started == {
            "success": True,
            "state": "paused",
            "message": f"Debugging started for {SWAP}. Current state: paused",
            "data": {
                "message": f"Debugging started for {SWAP}. Current state: paused",
                "reason": "breakpoint",
                "stopOnEntrySuccessful": False,
            },
        }
        assert (await call(client, "list_debug_sessions"))["sessions"][0]["state"] == "paused"
        again = await call(client, "start_debugging", sessionId=sid, scriptPath=SWAP)
        assert again["success"] is False and "not created" in again["error"]

        # stack -> scopes -> variables, innermost first, numeric ids
        stack = await call(client, "get_stack_trace", sessionId=sid)
        names = [f["name"] for f in stack["stackFrames"]]
        assert names == ["swap_variables", "main", "<module>"] and stack["count"] == 3
        top = stack["stackFrames"][0]
        assert top["line"] == 9 and top["file"] == SWAP and isinstance(top["id"], int)
        assert isinstance(top["column"], int)
        scopes = (await call(client, "get_scopes", sessionId=sid, frameId=top["id"]))["scopes"]
        assert [s["name"] for s in scopes][:2] == ["Locals", "Globals"]
        ref = scopes[0]["variablesReference"]
        assert isinstance(ref, int) and ref > 0
        variables = await call(client, "get_variables", sessionId=sid, scope=ref)
        assert variables == {
            "success": True,
            "variables": [
                {"name": "a", "value": "10", "type": "int", "variablesReference": 0, "expandable": False},
                {"name": "b", "value": "20", "type": "int", "variablesReference": 0, "expandable": False},
            ],
            "count": 2,
            "variablesReference": ref,
        }
        local = await call(client, "get_local_variables", sessionId=sid, includeSpecial=False)
        assert local["variables"] == variables["variables"] and local["count"] == 2
        assert local["frame"] == {"name": "swap_variables", "file": SWAP, "line": 9}
        assert local["scopeName"] == "Locals"

        # evaluate_expression: the seed's examples, with and without frameId
        x = await call(client, "evaluate_expression", sessionId=sid, expression="a")
        assert x == {"success": True, "result": "10", "type": "int", "variablesReference": 0}
        main_frame = stack["stackFrames"][1]["id"]
        total = await call(client, "evaluate_expression", sessionId=sid, expression="x + y", frameId=main_frame)
        assert total["result"] == "30" and total["type"] == "int"
        listed = await call(client, "evaluate_expression", sessionId=sid, expression="[i*2 for i in range(5)]")
        assert listed["result"] == "[0, 2, 4, 6, 8]" and listed["type"] == "list" and listed["variablesReference"] > 0
        items = await call(client, "get_variables", sessionId=sid, scope=listed["variablesReference"])
        assert [(v["name"], v["value"]) for v in items["variables"]][:5] == [
            ("0", "0"),
            ("1", "2"),
            ("2", "4"),
            ("3", "6"),
            ("4", "8"),
        ]
        undefined = await call(client, "evaluate_expression", sessionId=sid, expression="undefined_variable")
        assert undefined["success"] is False and "NameError" in undefined["error"]

        source = await call(client, "get_source_context", sessionId=sid, file=SWAP, line=15, linesContext=3)
        assert source["line"] == 15 and source["contextLines"] == 3 and source["lineContent"] == "    x = 10"
        assert [s["line"] for s in source["surrounding"]] == list(range(12, 19))

        threads = await call(client, "list_threads", sessionId=sid)
        assert len(threads["threads"]) >= 1 and threads["threads"][0]["name"] == "MainThread"

        stepped = await call(client, "step_over", sessionId=sid)
        assert stepped["success"] is True and stepped["state"] == "paused" and stepped["message"] == "Stepped over"
        assert stepped["location"] == {"file": SWAP, "line": 10, "column": 1}
        assert stepped["context"]["lineContent"].strip().startswith("b = a")
        assert (await call(client, "get_stack_trace", sessionId=sid))["stackFrames"][0]["line"] == 10
        assert (await call(client, "step_into", sessionId=sid))["message"] == "Stepped into"
        assert (await call(client, "step_out", sessionId=sid))["message"] == "Stepped out"
        assert (await call(client, "get_stack_trace", sessionId=sid))["stackFrames"][0]["name"] == "main"
        ended = await call(client, "continue_execution", sessionId=sid)
        assert ended == {"success": True, "message": "Continued execution"}  # at once, as 0.24.2

        async def stopped() -> bool:
            return (await call(client, "list_debug_sessions"))["sessions"][0]["state"] == "stopped"

        await until(stopped, "the program to end")

        closed = await call(client, "close_debug_session", sessionId=sid)
        assert closed == {"success": True, "message": f"Closed debug session: {sid}"}
        gone = await call(client, "close_debug_session", sessionId=sid)
        assert gone["success"] is False
        assert (await call(client, "list_debug_sessions")) == {"success": True, "sessions": [], "count": 0}


async def test_seed_error_formats_over_stdio() -> None:
    require_debugpy()
    async with profile_client() as client:
        # a missing session: 0.24.2 answers success:false (the seed's v0.19 raised -32603); -32602 for a malformed
        # call, -32601 for an unknown tool
        missing = await call(client, "continue_execution", sessionId="nope")
        assert missing["success"] is False and missing["error"].startswith("Session not found: nope")
        with pytest.raises(MCPError) as unknown:
            await client.call_tool("restart_debuging", {"sessionId": "nope"})
        assert unknown.value.code == -32601 and unknown.value.error.message.endswith("Unknown tool: restart_debuging")
        with pytest.raises(MCPError) as bad_language:
            await client.call_tool("create_debug_session", {"language": "cobol"})
        assert bad_language.value.code == -32602 and "Invalid language" in bad_language.value.error.message
        with pytest.raises(MCPError) as snake:
            await client.call_tool("create_debug_session", {"language": "python", "executable_path": "x"})
        assert snake.value.code == -32602 and "executable_path" in snake.value.error.message

        sid = (await call(client, "create_debug_session", language="python"))["sessionId"]
        with pytest.raises(MCPError) as no_line:
            await client.call_tool("set_breakpoint", {"sessionId": sid, "file": SWAP})
        assert no_line.value.code == -32602 and "line" in no_line.value.error.message
        with pytest.raises(MCPError) as typed:
            await client.call_tool("set_breakpoint", {"sessionId": sid, "file": SWAP, "line": "9"})
        assert typed.value.code == -32602
        not_started = await call(client, "get_stack_trace", sessionId=sid)
        assert not_started["success"] is False and "created" in not_started["error"]
        no_file = await call(client, "set_breakpoint", sessionId=sid, file="/nonexistent/nothing.py", line=3)
        assert no_file["success"] is False

        # application errors: the seed's "not paused" answer, and pause on a running program
        started = await call(client, "start_debugging", sessionId=sid, scriptPath=prog("sleeper.py"))
        assert started["state"] == "running" and "reason" not in started["data"]
        assert await call(client, "get_local_variables", sessionId=sid) == {
            "success": False,
            "error": "Session is not paused",
            "message": "Cannot get local variables. The session must be paused at a breakpoint.",
        }
        paused = await call(client, "pause_execution", sessionId=sid)
        assert paused == {"success": True, "state": "paused", "data": {"message": "Execution paused"}}
        assert (await call(client, "pause_execution", sessionId=sid))["data"]["message"] == "Already paused"
        assert (await call(client, "close_debug_session", sessionId=sid))["success"] is True


@pytest.fixture
def listening_program():
    """`python -m debugpy --listen 127.0.0.1:PORT --wait-for-client sleeper.py`, killed with its group afterwards."""
    require_debugpy()
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "debugpy", "--listen", f"127.0.0.1:{port}", "--wait-for-client", prog("sleeper.py")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        yield port, proc
    finally:
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:
            pass
        proc.wait(5)


async def test_attach_and_detach_leave_the_program_running(listening_program) -> None:
    port, proc = listening_program
    async with profile_client() as client:
        sid = (await call(client, "create_debug_session", language="python", name="attach"))["sessionId"]
        with pytest.raises(MCPError) as no_port:
            await client.call_tool("attach_to_process", {"sessionId": sid})
        assert no_port.value.code == -32602
        by_pid = await call(client, "attach_to_process", sessionId=sid, processId=proc.pid)
        assert by_pid["success"] is False and "port" in by_pid["error"]

        async def attached() -> bool:
            answer = await call(client, "attach_to_process", sessionId=sid, port=port)
            return answer["success"]

        await until(attached, f"debugpy listening on {port}", timeout=20)
        (row,) = (await call(client, "list_debug_sessions"))["sessions"]
        assert row["state"] == "running"
        bp = await call(client, "set_breakpoint", sessionId=sid, file=prog("sleeper.py"), line=5)
        assert bp["breakpointId"].startswith("BP")

        async def stopped() -> bool:
            return (await call(client, "list_debug_sessions"))["sessions"][0]["state"] == "paused"

        await until(stopped, "the attached program to stop at tick()")
        assert (await call(client, "get_stack_trace", sessionId=sid))["stackFrames"][0]["name"] == "tick"
        detached = await call(client, "detach_from_process", sessionId=sid)
        assert detached == {"success": True, "state": "stopped", "message": "Detached from process"}
        assert (await call(client, "list_debug_sessions"))["sessions"][0]["state"] == "stopped"
        assert proc.poll() is None, "detach ended the program"


async def test_create_with_port_attaches_inline(listening_program) -> None:
    port, proc = listening_program
    async with profile_client() as client:

        async def attached() -> bool:
            result = await client.call_tool("create_debug_session", {"language": "python", "port": port})
            return not result.is_error

        await until(attached, f"debugpy listening on {port}", timeout=20)
        (row,) = (await call(client, "list_debug_sessions"))["sessions"]
        assert UUID.match(row["id"]) and row["state"] == "running"
        assert (await call(client, "close_debug_session", sessionId=row["id"]))["success"] is True
        await until(lambda: proc.poll() is not None, "close to end the attached program")


async def test_seed_javascript_locals_example() -> None:
    """The seed's "Example - JavaScript" of get_local_variables, on Node through pairdbg's inspector backend."""
    need_runtime("node")
    flow = str(TESTS / "js" / "inspector" / "flow.js")
    add_body = next(n for n, text in enumerate(open(flow).read().splitlines(), 1) if "ADD_BODY" in text)
    async with profile_client() as client:
        sid = (await call(client, "create_debug_session", language="javascript"))["sessionId"]
        await call(client, "set_breakpoint", sessionId=sid, file=flow, line=add_body)
        assert (await call(client, "start_debugging", sessionId=sid, scriptPath=flow))["data"]["reason"] == "breakpoint"
        local = await call(client, "get_local_variables", sessionId=sid, includeSpecial=False)
        assert local["variables"] == [
            {"name": "a", "value": "0", "type": "number", "variablesReference": 0, "expandable": False},
            {"name": "b", "value": "1", "type": "number", "variablesReference": 0, "expandable": False},
            {"name": "sum", "value": "undefined", "type": "undefined", "variablesReference": 0, "expandable": False},
        ]
        assert local["frame"] == {"name": "add", "file": flow, "line": add_body} and local["count"] == 3
        special = await call(client, "get_local_variables", sessionId=sid, includeSpecial=True)
        assert special["variables"][0]["name"] == "this"
        assert (await call(client, "evaluate_expression", sessionId=sid, expression="a + b"))["result"] == "1"
        assert (await call(client, "close_debug_session", sessionId=sid))["success"] is True


async def test_records_obey_the_agent_mode_and_keep_their_ids(hub, registry) -> None:
    """What the profile answers from its own records (a `created` session, a breakpoint recorded before the start,
    a dry run, closing a record) is refused as the registry action it stands in for is, and a recorded
    breakpoint's id is the one the started session uses."""
    require_debugpy()
    from pairdbg.mcp_bridge.profiles import load
    from pairdbg.mcp_bridge.profiles.common import call_tool

    profile = load("mcp-debugger", hub)

    async def tool(name: str, **args) -> dict:
        result = await call_tool(profile, hub, registry, "agent:test", name, args)
        payload = json.loads(result.content[0].text)
        assert not result.is_error, (name, payload)
        return payload

    def refused(payload: dict, mode: str, needs: str) -> None:
        assert payload["success"] is False, payload
        assert f"agent mode is {mode}" in payload["error"] and f"needs {needs}" in payload["error"], payload

    hub.policy.set_mode("inspect", "human")
    refused(await tool("create_debug_session", language="python"), "inspect", "full")
    assert (await tool("list_debug_sessions"))["count"] == 0
    hub.policy.set_mode("full", "human")
    sid = (await tool("create_debug_session", language="python"))["sessionId"]
    first = await tool("set_breakpoint", sessionId=sid, file=SWAP, line=9)
    assert first["breakpointId"] == "BP1" and "recorded" in first["message"] and "set when" in first["message"]
    hub.policy.set_mode("control", "human")
    # No session runs the file yet: below full mode an agent reads (and breaks in) only files of an open session.
    unread = await tool("set_breakpoint", sessionId=sid, file=SWAP, line=9)
    assert unread["success"] is False and "not a file of an open debug session" in unread["error"], unread
    refused(await tool("set_breakpoint", sessionId=sid, file=SWAP, line=10, condition="a > 1"), "control", "full")
    refused(await tool("start_debugging", sessionId=sid, scriptPath=SWAP, dryRunSpawn=True), "control", "full")
    refused(await tool("close_debug_session", sessionId=sid), "control", "full")
    hub.policy.set_mode("inspect", "human")
    refused(await tool("set_breakpoint", sessionId=sid, file=SWAP, line=10), "inspect", "control")

    hub.policy.set_mode("full", "human")
    second = await tool("set_breakpoint", sessionId=sid, file=SWAP, line=19, condition="x == 10")
    assert second["breakpointId"] == "BP2"
    started = await tool("start_debugging", sessionId=sid, scriptPath=SWAP)
    assert started["state"] == "paused", started
    (session,) = hub.sessions.values()
    bps = {bp.id: (bp.file, bp.line, bp.condition) for bp in session.breakpoints.values()}
    assert bps == {"BP1": (SWAP, 9, None), "BP2": (SWAP, 19, "x == 10")}, bps
    await tool("close_debug_session", sessionId=sid)


async def test_0_24_2_breakpoint_tools_restart_and_exceptions() -> None:
    """What 0.24.2 added, by value: breakpoints by statement and function recorded before the start keep the ids
    their client was given (one removed before the start too), list/remove/clear, restart re-applies them with
    get_output starting fresh, breakOnExceptions, and 0.24.2's argument rules as -32602."""
    require_debugpy()
    crash = prog("crash.py")
    async with profile_client() as client:
        sid = (await call(client, "create_debug_session", language="python"))["sessionId"]
        first = await call(client, "set_breakpoint", sessionId=sid, file=SWAP, line=9)
        by_text = await call(client, "set_breakpoint", sessionId=sid, file=SWAP, statement="x, y = swap_variables")
        assert by_text["line"] == 19 and by_text["anchor"] == {"statement": "x, y = swap_variables"}
        logpoint = await call(client, "set_breakpoint", sessionId=sid, file=SWAP, line=18, logMessage="x={x}")
        assert logpoint["logMessage"] == "x={x}" and logpoint["message"].startswith("Logpoint recorded")
        for bad in (
            {"file": SWAP, "line": 9, "expectedContent": "b = a"},
            {"file": SWAP, "line": 9, "statement": "a = b"},
            {"file": SWAP, "line": 9, "nearLine": 3},
            {"function": "main", "file": SWAP},
            {"function": "main", "logMessage": "x"},
        ):
            with pytest.raises(MCPError) as refused:
                await client.call_tool("set_breakpoint", {"sessionId": sid, **bad})
            assert refused.value.code == -32602, bad
        removed = await call(client, "remove_breakpoint", sessionId=sid, breakpointId=first["breakpointId"])
        assert [r["id"] for r in removed["removed"]] == [first["breakpointId"]]
        listed = await call(client, "list_breakpoints", sessionId=sid)
        assert [b["id"] for b in listed["breakpoints"]] == [by_text["breakpointId"], logpoint["breakpointId"]]

        started = await call(client, "start_debugging", sessionId=sid, scriptPath=SWAP)
        assert started["state"] == "paused" and started["data"]["reason"] == "breakpoint"
        (row,) = (await call(client, "list_debug_sessions"))["sessions"]
        assert row["lastStop"]["reason"] == "breakpoint" and isinstance(row["lastStop"]["timestamp"], int)
        # the session numbered them BP1, BP2; the client still knows them by the ids it was given
        listed = await call(client, "list_breakpoints", sessionId=sid, file=SWAP)
        assert [(b["id"], b["line"], b["verified"]) for b in listed["breakpoints"]] == [
            (by_text["breakpointId"], 19, True),
            (logpoint["breakpointId"], 18, True),
        ]
        assert "functionBreakpoints" not in listed
        with pytest.raises(MCPError) as stale:  # a live session checks expectedContent on the found line too
            await client.call_tool(
                "set_breakpoint", {"sessionId": sid, "file": SWAP, "statement": "b = a", "expectedContent": "a = b"}
            )
        assert stale.value.code == -32602 and "does not match expectedContent" in stale.value.error.message
        new = await call(client, "set_breakpoint", sessionId=sid, file=SWAP, statement="b = a", expectedContent="b = a")
        assert new["line"] == 10 and new["verified"] is True and new["anchor"] == {"statement": "b = a"}
        assert new["breakpointId"] not in (by_text["breakpointId"], logpoint["breakpointId"])
        at_line = await call(client, "remove_breakpoint", sessionId=sid, file=SWAP, line=10)
        assert [r["id"] for r in at_line["removed"]] == [new["breakpointId"]]
        output = await call(client, "get_output", sessionId=sid)
        assert "".join(e["output"] for e in output["entries"]).count("Result: 30") == 1

        restarted = await call(client, "restart_debugging", sessionId=sid)
        assert restarted["state"] == "paused" and restarted["data"]["breakpointsReapplied"] == 2
        assert restarted["data"]["outputReset"] is True
        fresh = await call(client, "get_output", sessionId=sid, since=0)
        assert "".join(e["output"] for e in fresh["entries"]).count("Result: 30") == 1, fresh
        local = await call(client, "get_local_variables", sessionId=sid, names=["x", "nope"])
        assert [v["name"] for v in local["variables"]] == ["x"] and local["notFound"] == ["nope"]
        cleared = await call(client, "clear_breakpoints", sessionId=sid)
        assert cleared["cleared"] == 2 and cleared["files"] == [SWAP]
        assert (await call(client, "list_breakpoints", sessionId=sid))["count"] == 0
        assert (await call(client, "remove_breakpoint", sessionId=sid, function="main"))["success"] is False
        await call(client, "close_debug_session", sessionId=sid)

        # a function breakpoint recorded before the start stops there
        fn = (await call(client, "create_debug_session", language="python"))["sessionId"]
        await call(client, "set_breakpoint", sessionId=fn, function="divide")
        stopped = await call(client, "start_debugging", sessionId=fn, scriptPath=crash)
        assert stopped["data"]["reason"] == "function breakpoint", stopped
        top = (await call(client, "get_stack_trace", sessionId=fn))["stackFrames"][0]
        assert top["name"] == "divide"
        functions = (await call(client, "list_breakpoints", sessionId=fn))["functionBreakpoints"]
        assert [f["functionName"] for f in functions] == ["divide"]
        await call(client, "close_debug_session", sessionId=fn)

        # breakOnExceptions: the launch default stops at the crash; none lets it end
        for mode, state in (("uncaught", "paused"), ("none", "stopped")):
            ex = (await call(client, "create_debug_session", language="python"))["sessionId"]
            answer = await call(client, "start_debugging", sessionId=ex, scriptPath=crash, breakOnExceptions=mode)
            assert answer["state"] == state, (mode, answer)
            if state == "paused":
                trace = await call(client, "get_stack_trace", sessionId=ex)
                assert trace["stopReason"] == "exception"
                assert trace["lastStop"]["exceptionInfo"]["exceptionId"] == "ZeroDivisionError"
                assert trace["lastStop"]["exceptionInfo"]["description"] == "division by zero"
            else:
                assert answer["data"]["exitCode"] == 1
            await call(client, "close_debug_session", sessionId=ex)


async def test_include_internals_lists_library_frames_with_their_own_ids() -> None:
    """An exception raised inside the stdlib: the default stack hides the library frames and says how many;
    includeInternals lists them, each with its own frameId that get_scopes and evaluate_expression accept."""
    require_debugpy()
    async with profile_client() as client:
        sid = (await call(client, "create_debug_session", language="python"))["sessionId"]
        started = await call(client, "start_debugging", sessionId=sid, scriptPath=prog("lib_error.py"))
        assert started["data"]["reason"] == "exception"
        short = await call(client, "get_stack_trace", sessionId=sid)
        assert [f["name"] for f in short["stackFrames"]] == ["load", "<module>"]
        assert short["hiddenFrames"] == 3 and "includeInternals" in short["note"]
        full = await call(client, "get_stack_trace", sessionId=sid, includeInternals=True)
        ids = [f["id"] for f in full["stackFrames"]]
        assert full["count"] == 5 and len(set(ids)) == 5, full["stackFrames"]
        top = full["stackFrames"][0]
        assert top["name"] == "raw_decode" and top["file"].endswith("decoder.py")
        scopes = await call(client, "get_scopes", sessionId=sid, frameId=top["id"])
        assert scopes["scopes"][0]["name"] == "Locals"
        here = await call(
            client, "evaluate_expression", sessionId=sid, expression="type(self).__name__", frameId=top["id"]
        )
        assert here["result"] == "'JSONDecoder'", here
        await call(client, "close_debug_session", sessionId=sid)


async def test_attach_with_stop_on_entry_and_exceptions(listening_program) -> None:
    """attach_to_process's 0.24.2 arguments: stopOnEntry pauses the attached program; breakOnExceptions and the
    timeouts are accepted alongside it (the mode itself is pairdbg's set_pause_on_exceptions, tested there)."""
    port, proc = listening_program
    async with profile_client() as client:
        sid = (await call(client, "create_debug_session", language="python"))["sessionId"]

        async def attached() -> bool:
            answer = await call(
                client,
                "attach_to_process",
                sessionId=sid,
                port=port,
                stopOnEntry=True,
                breakOnExceptions="all",
                timeout=5000,
                verifyTimeout=5000,
            )
            return answer["success"]

        await until(attached, f"debugpy listening on {port}", timeout=20)
        (row,) = (await call(client, "list_debug_sessions"))["sessions"]
        assert row["state"] == "paused" and row["lastStop"]["reason"] == "pause", row
        detached = await call(client, "detach_from_process", sessionId=sid)
        assert detached["success"] is True and proc.poll() is None
