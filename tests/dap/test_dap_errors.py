"""Bad input against the real debugpy: every failure has a specific code or an honest state, and the hub keeps
working."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from support import PROGRAMS, expect_error, line_of, pid_alive, prog, start, stop_of, until

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]

LOOP = "loop.py"
ADD_BODY = line_of(LOOP, "total = a + b")
PRINT_DONE = line_of(LOOP, 'print("done"')


async def still_works(registry, sid):
    """The session answers a normal request after the failure."""
    r = await registry.run("list_debug_sessions", {}, "human")
    assert any(s["session_id"] == sid for s in r.data["sessions"])
    return r


async def test_unknown_session(registry):
    sid, _ = await start(registry, LOOP, ADD_BODY)
    for action in ("step_over", "evaluate_expression", "get_output", "close_debug_session"):
        args = {"session_id": "S99", "expression": "1"} if action == "evaluate_expression" else {"session_id": "S99"}
        err = await expect_error(registry, action, args, "SESSION_NOT_FOUND")
        assert "S1" in err.message and "list_debug_sessions" in err.hint
    stop = stop_of(await registry.run("step_over", {"session_id": sid}, "human"))
    assert stop["stop_number"] == 2


async def test_unknown_breakpoint_id(registry):
    sid, _ = await start(registry, LOOP, ADD_BODY)
    err = await expect_error(
        registry, "remove_breakpoint", {"session_id": sid, "breakpoint_id": "BP7"}, "PATH_NOT_FOUND"
    )
    assert "BP1" in err.message and "list_breakpoints" in err.hint
    listed = await registry.run("list_breakpoints", {"session_id": sid}, "human")
    assert [b["id"] for b in listed.data["breakpoints"]] == ["BP1"]


async def test_expired_variable_handle_names_its_stop(registry):
    sid, reply = await start(registry, LOOP, PRINT_DONE)
    old = {v["name"]: v.get("handle") for v in stop_of(reply)["locals"]}["big_list"]
    ok = await registry.run("get_variables", {"session_id": sid, "ref": old, "count": 2}, "human")
    assert ok.data["total"] > 2
    stop_of(await registry.run("step_over", {"session_id": sid}, "human"))
    err = await expect_error(registry, "get_variables", {"session_id": sid, "ref": old}, "PATH_NOT_FOUND")
    assert "expired" in err.message and "stop #1" in err.message and "stop #2" in err.message
    assert err.data.get("expired") is True
    err = await expect_error(registry, "get_variables", {"session_id": sid, "ref": "@v999"}, "PATH_NOT_FOUND")
    assert "expired" not in err.message
    await expect_error(registry, "get_variables", {"session_id": sid, "ref": "@f0"}, "INVALID_PARAMETERS")
    err = await expect_error(
        registry, "evaluate_expression", {"session_id": sid, "expression": "1", "frame": "@f9"}, "PATH_NOT_FOUND"
    )
    assert "get_call_stack" in err.hint


async def test_control_and_inspection_while_running(registry):
    sid, reply = await start(registry, "sleeper.py", wait_s=0)
    assert reply.data["state"] == "running"
    for action, extra in (
        ("step_over", {}),
        ("step_into", {}),
        ("continue_execution", {}),
        ("evaluate_expression", {"expression": "count"}),
        ("get_call_stack", {}),
        ("get_local_variables", {}),
        ("set_variable_value", {"name": "count", "value": "0"}),
    ):
        err = await expect_error(registry, action, {"session_id": sid, **extra}, "NOT_PAUSED")
        assert "running" in err.message and "wait_for_stop" in err.hint, action
    # breakpoints can still be set while it runs, and the program then stops there
    bp = await registry.run(
        "set_breakpoint",
        {"session_id": sid, "file": prog("sleeper.py"), "line": line_of("sleeper.py", "return n + 1")},
        "human",
    )
    assert bp.data["verified"] is True
    stop = stop_of(await registry.run("wait_for_stop", {"session_id": sid, "timeout_s": 10}, "agent:x"))
    assert stop["hit_breakpoints"] == ["BP1"]


async def test_missing_program_and_breakpoint_files(registry, hub):
    err = await expect_error(registry, "start_debugging", {"program": prog(LOOP) + ".nope"}, "PATH_NOT_FOUND")
    assert "loop.py.nope" in err.message and err.hint
    err = await expect_error(
        registry,
        "start_debugging",
        {"program": prog(LOOP), "breakpoints": [{"file": str(PROGRAMS / "nope.py"), "line": 3}]},
        "PATH_NOT_FOUND",
    )
    assert "nope.py" in err.message
    err = await expect_error(
        registry,
        "start_debugging",
        {"program": prog(LOOP), "breakpoints": [{"file": prog(LOOP), "line": 300}]},
        "INVALID_PARAMETERS",
    )
    assert "line 300" in err.message and "20 lines" in err.message
    assert hub.sessions == {}, "a refused start leaves no session behind"
    sid, reply = await start(registry, LOOP, ADD_BODY)
    assert sid == "S1" and reply.data["breakpoints"][0]["id"] == "BP1"
    await expect_error(
        registry, "set_breakpoint", {"session_id": sid, "file": str(PROGRAMS / "nope.py"), "line": 1}, "PATH_NOT_FOUND"
    )
    err = await expect_error(
        registry, "set_breakpoint", {"session_id": sid, "file": prog(LOOP), "line": 21}, "INVALID_PARAMETERS"
    )
    assert "outside" in err.message and "1-based" in err.hint
    await expect_error(registry, "set_breakpoint", {"session_id": sid, "file": prog(LOOP)}, "INVALID_PARAMETERS")
    bp = await registry.run("set_breakpoint", {"session_id": sid, "file": prog(LOOP), "line": PRINT_DONE}, "human")
    assert bp.data["id"] == "BP2", "failed requests must not use up breakpoint ids"
    assert [
        b["id"] for b in (await registry.run("list_breakpoints", {"session_id": sid}, "h")).data["breakpoints"]
    ] == ["BP1", "BP2"]


async def test_non_executable_lines_bind_to_code(registry):
    """debugpy 1.8 moves a breakpoint on a blank or comment line to a nearby line of code; pairdbg says where."""
    blank = line_of(LOOP, "return total") + 1
    comment = line_of(LOOP, "# a comment line")
    sid, reply = await start(
        registry, LOOP, breakpoints=[{"file": prog(LOOP), "line": blank}, {"file": prog(LOOP), "line": comment}]
    )
    bps = {b["id"]: b for b in reply.data["breakpoints"]}
    for bp in bps.values():
        if bp["verified"]:
            assert bp["actual_line"] != bp["line"], "a verified breakpoint on a non-code line must name its real line"
            assert f"(bound to line {bp['actual_line']})" in reply.text
            assert bp["source"].strip(), "the bound line has code"
        else:
            assert bp.get("message"), "an unverified breakpoint says why"
    # And the program stops where pairdbg said the first one is bound.
    stop = stop_of(reply)
    assert stop["hit_breakpoints"] == ["BP1"] and stop["location"]["line"] == bps["BP1"]["actual_line"]


async def test_syntax_error_in_the_program(registry):
    sid, reply = await start(registry, "syntax_error.py")
    # debugpy reports the SyntaxError as an uncaught exception before any line of the program runs.
    stop = stop_of(reply)
    assert stop["reason"] == "exception" and stop["exception"]["type"] == "SyntaxError"
    assert stop["stack"] == [] and stop["location"].get("file") is None
    assert "SyntaxError" in reply.text
    end = await registry.run("continue_execution", {"session_id": sid}, "human")
    assert end.data["state"] == "terminated" and end.data["exit_code"] == 1
    assert "SyntaxError: invalid syntax" in end.data["output_tail"]
    assert any("def broken(:" in line for line in end.data["output_tail"])
    await expect_error(registry, "step_over", {"session_id": sid}, "SESSION_INVALID_STATE")


async def test_program_exits_at_once_with_code_3(registry):
    sid, reply = await start(registry, "exit3.py")
    # debugpy treats SystemExit with a non-zero code as uncaught: the honest first answer is that stop.
    stop = stop_of(reply)
    assert stop["exception"]["type"] == "SystemExit" and stop["exception"]["message"] == "3"
    assert stop["output_tail"] in ([], ["leaving with 3"]), "output and stop travel different ways: a race"
    end = await registry.run("continue_execution", {"session_id": sid}, "human")
    assert end.data["state"] == "terminated" and end.data["exit_code"] == 3
    summary = (await registry.run("list_debug_sessions", {}, "h")).data["sessions"][0]
    assert summary["phase"] == "terminated" and summary["exit_code"] == 3
    err = await expect_error(
        registry, "evaluate_expression", {"session_id": sid, "expression": "1"}, "SESSION_INVALID_STATE"
    )
    assert "exit code 3" in err.message
    waited = await registry.run("wait_for_stop", {"session_id": sid, "timeout_s": 0}, "agent:x")
    assert waited.data["state"] == "terminated" and waited.data["exit_code"] == 3


async def test_program_exits_at_once_without_pausing_on_exceptions(registry):
    sid, reply = await start(registry, "exit3.py", stop_on_entry=True)
    assert stop_of(reply)["reason"] == "entry"
    await registry.run("set_pause_on_exceptions", {"session_id": sid, "mode": "none"}, "human")
    end = await registry.run("continue_execution", {"session_id": sid}, "human")
    assert end.data["state"] == "terminated" and end.data["exit_code"] == 3
    assert end.data["output_tail"] == ["leaving with 3"]


async def test_bad_executable_path(registry, hub, tmp_path):
    for bad in ("/nonexistent/python3", "no-such-python-here", prog(LOOP)):  # the last one exists but is no program
        err = await expect_error(
            registry, "start_debugging", {"program": prog(LOOP), "executable_path": bad}, "INVALID_PARAMETERS"
        )
        assert "executable_path" in err.hint
    assert hub.sessions == {}
    sid, _ = await start(registry, LOOP, ADD_BODY)
    assert sid == "S1"


async def test_evaluate_errors_and_expression_shapes(registry):
    sid, _ = await start(registry, LOOP, ADD_BODY)
    err = await expect_error(
        registry, "evaluate_expression", {"session_id": sid, "expression": "1 +"}, "EVALUATION_FAILED"
    )
    assert "SyntaxError" in err.message
    err = await expect_error(
        registry, "evaluate_expression", {"session_id": sid, "expression": "1/0"}, "EVALUATION_FAILED"
    )
    assert "ZeroDivisionError" in err.message
    ok = await registry.run("evaluate_expression", {"session_id": sid, "expression": "a"}, "human")
    assert ok.data["value"] == "0"


async def adapter_killed(hub, sid):
    backend = hub.sessions[sid].backend
    await until(lambda: backend.pid is not None, "debugpy's process event", timeout=10)
    adapter, program = backend.proc.pid, backend.pid
    assert adapter and program and pid_alive(adapter) and pid_alive(program)
    os.kill(adapter, signal.SIGKILL)
    session = hub.sessions[sid]
    await until(lambda: session.phase.ended, "the session to notice the lost adapter", timeout=10)
    # debugpy's launcher takes the program along when the adapter goes: the session says which happened.
    assert session.phase.value == ("disconnected" if pid_alive(program) else "terminated"), session.error
    assert "connection lost" in session.error
    return program


async def test_adapter_killed_while_paused(registry, hub):
    sid, _ = await start(registry, LOOP, ADD_BODY)
    program = await adapter_killed(hub, sid)
    for action, extra in (
        ("step_over", {}),
        ("evaluate_expression", {"expression": "a"}),
        ("set_breakpoint", {"file": prog(LOOP), "line": PRINT_DONE}),
        ("list_threads", {}),
    ):
        err = await expect_error(
            registry, action, {"session_id": sid, **extra}, "SESSION_INVALID_STATE", "NOT_CONNECTED"
        )
        assert any(w in err.message for w in ("disconnected", "not connected", "terminated")), action
    summary = (await registry.run("list_debug_sessions", {}, "h")).data["sessions"][0]
    assert summary["phase"] in ("disconnected", "terminated") and "connection lost" in summary["error"]
    assert not summary["capabilities"]["can_step"]
    await registry.run("close_debug_session", {"session_id": sid}, "human")
    await until(lambda: not pid_alive(program), "the orphaned program to end", timeout=5)
    # the hub keeps working
    sid2, reply = await start(registry, LOOP, ADD_BODY)
    assert sid2 == "S2" and stop_of(reply)["stop_number"] == 1


async def test_adapter_killed_during_a_wait_does_not_hang(registry, hub):
    sid, reply = await start(registry, "sleeper.py", wait_s=0)
    stop_of(await registry.run("pause_execution", {"session_id": sid}, "human"))
    cont = asyncio.create_task(registry.run("continue_execution", {"session_id": sid, "wait_s": 60}, "human"))
    await until(lambda: hub.sessions[sid].phase.value == "running", "the program to resume", timeout=5)
    waiter = asyncio.create_task(registry.run("wait_for_stop", {"session_id": sid, "timeout_s": 60}, "agent:x"))
    await adapter_killed(hub, sid)
    for task in (cont, waiter):
        reply = await asyncio.wait_for(task, 5)
        assert reply.data["state"] in ("disconnected", "terminated") and "connection lost" in reply.data["detail"]
        assert reply.data["pending"] is False


async def test_an_expression_that_raises_is_the_programs_failure(registry):
    """EVALUATION_FAILED with the exception's type and message (not INVALID_PARAMETERS: the arguments were fine); an
    expression that does not parse says so, and a SyntaxError raised by code the expression ran does not."""
    sid, reply = await start(registry, LOOP, ADD_BODY)
    stop_of(reply)

    async def failed(expression: str) -> dict:
        args = {"session_id": sid, "expression": expression}
        err = await expect_error(registry, "evaluate_expression", args, "EVALUATION_FAILED")
        assert err.hint, err.message
        return {"message": err.message, **err.data}

    raised = await failed("1 / 0")
    assert (raised["exception_type"], raised["exception_message"]) == ("ZeroDivisionError", "division by zero")
    assert raised["syntax_error"] is False and "raised ZeroDivisionError" in raised["message"], raised
    missing = await failed("nosuch.attr")
    assert missing["exception_type"] == "NameError" and "nosuch" in missing["exception_message"], missing
    syntax = await failed("total +* 2")
    assert syntax["exception_type"] == "SyntaxError" and syntax["syntax_error"] is True, syntax
    assert "not a valid expression" in syntax["message"], syntax
    ran = await failed("__import__('ast').literal_eval('1 +')")
    assert ran["exception_type"] == "SyntaxError" and ran["syntax_error"] is False, ran
    # A watch that raises shows the same words, and the session is unharmed.
    watch = await registry.run("add_watch", {"session_id": sid, "expression": "1 / 0"}, "agent:test")
    assert "ZeroDivisionError" in watch.text, watch.text
    fine = await registry.run("evaluate_expression", {"session_id": sid, "expression": "2 + 2"}, "h")
    assert fine.data["value"] == "4"
