"""The inspector backend against the real Node 20 (CDP): the seed's Appendix B workflow end to end, exceptions, async
stacks, conditional/hit/log breakpoints, a breakpoint in a file loaded late, a target killed mid-session, and attach
to a `node --inspect` that is restarted on the same port.

The scenarios are written once for both runtimes (`scenario_*`, taking "node" or "bun"); test_inspector_bun.py runs
them on Bun. Fixtures live in tests/js/inspector/; lines are found by marker comments, never hard-coded.
"""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from support import targets
from support.targets import TargetMissing
from support import expect_error, line_of, local_values, missing_target, stop_of, until
from support import TESTS

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]

JS = TESTS / "js" / "inspector"
ME = "agent:test"


# ----- helpers shared with test_inspector_bun.py / test_inspector_errors.py -------------------------------------------


def need_runtime(runtime: str) -> str:
    """The runtime's path; missing, it fails under CI=true and skips (with the install hint) elsewhere."""
    try:
        return targets.find_bun() if runtime == "bun" else targets.find_node()
    except TargetMissing as exc:
        missing_target(str(exc))


def js(name: str) -> str:
    path = JS / name
    assert path.is_file(), f"missing fixture {path}"
    return str(path)


def line(name: str, marker: str) -> int:
    """1-based line of the (only) line of fixture `name` holding `marker`."""
    hits = [n for n, text in enumerate((JS / name).read_text().splitlines(), 1) if marker in text]
    assert len(hits) == 1, f"{marker!r} occurs {len(hits)} times in {name}"
    return hits[0]


async def run(registry, action: str, **args):
    return await registry.run(action, args, ME)


async def launch(registry, runtime: str, name: str, *bps, **kw):
    """start_debugging fixture `name` on `runtime`; bps are (file, line) or dicts; returns (sid, reply)."""
    need_runtime(runtime)
    breakpoints = [bp if isinstance(bp, dict) else {"file": js(bp[0]), "line": bp[1]} for bp in bps]
    language = "typescript" if name.endswith(".ts") else "javascript"
    reply = await run(
        registry,
        "start_debugging",
        program=js(name),
        language=language,
        runtime=runtime,
        breakpoints=breakpoints,
        wait_s=kw.pop("wait_s", 15),
        **kw,
    )
    return reply.data["session_id"], reply


def where(stop: dict) -> tuple[str, int, str]:
    loc = stop["location"]
    return os.path.basename(loc["file"] or "?"), loc["line"], loc["function"]


async def output_text(registry, sid: str, needle: str, timeout: float = 10.0) -> str:
    """All program output so far, once `needle` has arrived (output can trail the stop or the end)."""
    text = ""

    async def fetch() -> bool:
        nonlocal text
        reply = await run(registry, "get_output", session_id=sid, limit=1000)
        text = "".join(e["text"] for e in reply.data["entries"])
        return needle in text

    await until(fetch, lambda: f"{needle!r} in the output:\n{text}", timeout=timeout)
    return text


async def to_end(registry, sid: str, expect_code: int = 0) -> dict:
    reply = await run(registry, "continue_execution", session_id=sid, wait_s=15)
    assert reply.data["state"] == "terminated", reply.text
    assert reply.data.get("exit_code") == expect_code, reply.text
    return reply.data


def phase(hub, sid: str) -> str:
    return hub.sessions[sid].phase.value


# ----- scenarios (each runtime runs all of them) ----------------------------------------------------------------------

FLOW = "flow.js"


async def scenario_appendix_b(registry, runtime: str) -> None:
    """Breakpoint → stop report → steps → stack → evaluate on a frame → scopes/paging → set value → end."""
    add_body, add_return, call_add = line(FLOW, "ADD_BODY"), line(FLOW, "ADD_RETURN"), line(FLOW, "CALL_ADD")
    sid, reply = await launch(registry, runtime, FLOW, (FLOW, add_body))
    stop = stop_of(reply)
    assert where(stop) == (FLOW, add_body, "add"), reply.text
    assert stop["reason"] == "breakpoint" and stop["hit_breakpoints"] == ["BP1"], reply.text
    assert reply.data["breakpoints"][0]["verified"] is True, reply.text
    assert reply.data["breakpoints"][0]["actual_line"] == add_body
    values = local_values(stop)
    assert values["a"] == "0" and values["b"] == "1", values
    assert [f["function"] for f in stop["stack"][:2]] == ["add", "sumAll"]
    assert stop["stack"][1]["line"] == call_add
    assert f">{add_body:>5}|   const sum = a + b;" in reply.text
    assert "start 30" in await output_text(registry, sid, "start 30")  # console output before the stop

    # set_variable_value (V8: Debugger.setVariableValue; JSC: by evaluation in the frame), then step over it.
    reply = await run(registry, "set_variable_value", session_id=sid, name="b", value="100")
    assert reply.data["value"] == "100", reply.text
    reply = await run(registry, "step_over", session_id=sid)
    stop = stop_of(reply)
    assert where(stop) == (FLOW, add_return, "add") and stop["reason"] == "step", reply.text
    assert local_values(stop)["sum"] == "100", reply.text

    # Step out lands back in sumAll (on the call's line or the loop's next step, as the engine decides).
    reply = await run(registry, "step_out", session_id=sid)
    stop = stop_of(reply)
    assert stop["location"]["function"] == "sumAll", reply.text
    assert stop["location"]["line"] in (call_add, call_add - 1), reply.text
    assert local_values(stop)["acc"] == "100", "the assignment made in add must have reached the caller"

    # Step into the next call of add (from the loop header, one or two steps).
    for _ in range(4):
        reply = await run(registry, "step_into", session_id=sid)
        stop = stop_of(reply)
        if stop["location"]["function"] == "add":
            break
    assert where(stop) == (FLOW, add_body, "add"), reply.text
    assert local_values(stop)["b"] == "2", reply.text

    # Call stack with handles; evaluate in the caller's frame (Appendix B step 5).
    reply = await run(registry, "get_call_stack", session_id=sid)
    frames = reply.data["frames"]
    assert [f["function"] for f in frames[:2]] == ["add", "sumAll"], reply.text
    assert frames[0]["handle"] == "@f0" and frames[1]["line"] == call_add
    reply = await run(
        registry, "evaluate_expression", session_id=sid, expression="items.map((x) => x * 2)[4]", frame="@f1"
    )
    assert reply.data["value"] == "10", reply.text
    reply = await run(registry, "evaluate_expression", session_id=sid, expression="label + ':' + acc", frame="@f1")
    assert reply.data["value"] == '"numbers:100"', reply.text

    # Scopes of the caller, then a big object paged through get_variables.
    reply = await run(registry, "get_scopes", session_id=sid, frame="@f1")
    scopes = reply.data["scopes"]
    assert scopes[0]["name"] == "Locals" and scopes[0]["handle"], reply.text
    reply = await run(registry, "get_variables", session_id=sid, ref=scopes[0]["handle"], count=50)
    names = {v["name"]: v["value"] for v in reply.data["variables"]}
    assert names["label"] == '"numbers"' and names["acc"] == "100" and "items" in names, reply.text
    # (in the top-level frame: V8 closures only hold the names a function uses, so add cannot see `big`)
    reply = await run(registry, "evaluate_expression", session_id=sid, expression="big", frame="@f2")
    handle = reply.data["handle"]
    assert handle, reply.text
    page = await run(registry, "get_variables", session_id=sid, ref=handle, start=10, count=5)
    assert page.data["total"] == 60, page.text
    assert [(v["name"], v["value"]) for v in page.data["variables"]] == [(f"key{k}", str(k)) for k in range(10, 15)]
    last = await run(registry, "get_variables", session_id=sid, ref=handle, start=58, count=5)
    assert [v["name"] for v in last.data["variables"]] == ["key58", "key59"]

    # Done: remove the breakpoint and run to the end (exit code and output).
    await run(registry, "remove_breakpoint", session_id=sid, breakpoint_id="BP1")
    end = await to_end(registry, sid)
    text = await output_text(registry, sid, "total")
    assert "total 564" in text, text  # 465 with b=1 replaced by 100 once (+99)
    assert "Debugger" not in text and "ws://" not in text, f"inspector banner leaked into the output:\n{text}"
    assert end["exit_code"] == 0


THROWS = "throws.js"


async def scenario_exceptions(registry, runtime: str, mode: str) -> None:
    throw_line = line(THROWS, "THROW")
    sid, reply = await launch(registry, runtime, THROWS, stop_on_entry=True)
    assert stop_of(reply)["reason"] == "entry", reply.text
    await run(registry, "set_pause_on_exceptions", session_id=sid, mode=mode)
    listed = await run(registry, "list_breakpoints", session_id=sid)
    assert listed.data["exception_mode"] == mode
    reply = await run(registry, "continue_execution", session_id=sid)
    if mode == "all":  # the caught one stops too, with n == 2
        stop = stop_of(reply)
        assert stop["reason"] == "exception" and where(stop)[:2] == (THROWS, throw_line), reply.text
        assert stop["exception"]["type"] == "RangeError", reply.text
        assert local_values(stop)["n"] == "2", reply.text
        reply = await run(registry, "continue_execution", session_id=sid)
    if mode in ("all", "uncaught"):
        stop = stop_of(reply)
        assert stop["reason"] == "exception" and where(stop)[:2] == (THROWS, throw_line), reply.text
        assert local_values(stop)["n"] == "3", reply.text
        assert "too big: 3" in (stop["exception"]["message"] or ""), reply.text
        reply = await run(registry, "continue_execution", session_id=sid, wait_s=15)
    assert reply.data["state"] == "terminated", reply.text
    assert reply.data["exit_code"] == 1, reply.text
    text = await output_text(registry, sid, "too big: 3")
    assert "caught too big: 2" in text and "before uncaught" in text and "never printed" not in text, text


ASYNC = "async.js"


async def scenario_async_stack(registry, runtime: str) -> None:
    in_timer, inner, await_call = line(ASYNC, "IN_TIMER"), line(ASYNC, "INNER"), line(ASYNC, "AWAIT_CALL")
    sid, reply = await launch(registry, runtime, ASYNC, (ASYNC, in_timer), (ASYNC, inner))
    stop = stop_of(reply)  # in a timer callback scheduled inside the awaited call
    assert where(stop)[:2] == (ASYNC, in_timer), reply.text
    reply = await run(registry, "get_call_stack", session_id=sid)
    frames = reply.data["frames"]
    names = [f["function"] for f in frames]
    assert any(n.startswith("fetchValue [async") for n in names), reply.text
    assert any(n.startswith("outer [async") for n in names), reply.text
    assert not any(f["file"].startswith(("node:", "[native")) for f in frames), f"runtime internals:\n{reply.text}"

    reply = await run(registry, "continue_execution", session_id=sid)
    stop = stop_of(reply)  # after the await resumed: the awaiting caller is only in the async stack
    assert where(stop) == (ASYNC, inner, "fetchValue"), reply.text
    assert local_values(stop)["x"] == "21" and local_values(stop)["doubled"] == "42", reply.text
    reply = await run(registry, "get_call_stack", session_id=sid)
    frames = reply.data["frames"]
    assert frames[0]["function"] == "fetchValue", reply.text
    awaiting = [f for f in frames if f["function"].startswith("outer [async")]
    assert awaiting, f"the awaiting caller is missing from the async stack:\n{reply.text}"
    assert os.path.basename(awaiting[0]["file"]) == ASYNC and awaiting[0]["line"] == await_call, reply.text
    # An async frame is shown but cannot be inspected: a clear error, not a wrong frame's values.
    await expect_error(
        registry,
        "evaluate_expression",
        {"session_id": sid, "expression": "v", "frame": awaiting[0]["handle"]},
        "INVALID_PARAMETERS",
    )
    await to_end(registry, sid)
    assert "value 42" in await output_text(registry, sid, "value 42")


async def scenario_conditions_and_logpoints(registry, runtime: str) -> None:
    add_body, add_return, call_add = line(FLOW, "ADD_BODY"), line(FLOW, "ADD_RETURN"), line(FLOW, "CALL_ADD")
    f = js(FLOW)
    sid, reply = await launch(
        registry,
        runtime,
        FLOW,
        {"file": f, "line": call_add, "log_message": "i={i} acc={acc}"},
        {"file": f, "line": add_return, "hit_condition": "==3"},
        {"file": f, "line": add_body, "condition": "b === 5"},
    )
    stop = stop_of(reply)  # third hit of ADD_RETURN: add(3, 3)
    assert where(stop) == (FLOW, add_return, "add") and stop["hit_breakpoints"] == ["BP2"], reply.text
    assert local_values(stop)["b"] == "3", reply.text
    reply = await run(registry, "continue_execution", session_id=sid)
    stop = stop_of(reply)  # the condition, on the fifth call; the hit condition did not fire on hit 4
    assert where(stop) == (FLOW, add_body, "add") and stop["hit_breakpoints"] == ["BP3"], reply.text
    assert local_values(stop)["b"] == "5", reply.text
    text = await output_text(registry, sid, "i=4 acc=10")
    assert "i=0 acc=0" in text and "i=2 acc=3" in text and "i=5" not in text, text
    await to_end(registry, sid)  # the logpoint never stops; the others do not fire again
    text = await output_text(registry, sid, "total 465")
    assert "i=29 acc=435" in text, text


LAZY_MAIN, LAZY_MOD = "lazy_main.js", "lazy_mod.js"


async def scenario_lazy_file(registry, runtime: str) -> None:
    lazy_body = line(LAZY_MOD, "LAZY_BODY")
    sid, reply = await launch(registry, runtime, LAZY_MAIN, (LAZY_MOD, lazy_body), stop_on_entry=True)
    assert stop_of(reply)["reason"] == "entry", reply.text
    listed = (await run(registry, "list_breakpoints", session_id=sid)).data["breakpoints"]
    assert listed[0]["verified"] is False and "pending" in (listed[0]["message"] or ""), listed
    reply = await run(registry, "continue_execution", session_id=sid)
    stop = stop_of(reply)
    assert where(stop) == (LAZY_MOD, lazy_body, "compute"), reply.text
    assert stop["hit_breakpoints"] == ["BP1"] and local_values(stop)["n"] == "6", reply.text
    listed = (await run(registry, "list_breakpoints", session_id=sid)).data["breakpoints"]
    assert listed[0]["verified"] is True and listed[0]["actual_line"] == lazy_body, listed
    await to_end(registry, sid)
    assert "lazy says 37" in await output_text(registry, sid, "lazy says")


async def scenario_evaluate_throws(registry, runtime: str) -> None:
    """An expression that throws is the program's failure (EVALUATION_FAILED, with the error's type and message), not a
    wrong argument; one that does not parse says so, and a SyntaxError raised by code it ran (JSON.parse) does not."""
    sid, reply = await launch(registry, runtime, FLOW, (FLOW, line(FLOW, "ADD_BODY")))
    stop_of(reply)

    async def failed(expression: str) -> dict:
        args = {"session_id": sid, "expression": expression}
        err = await expect_error(registry, "evaluate_expression", args, "EVALUATION_FAILED")
        return {"message": err.message, **err.data}

    missing = await failed("nope + 1")
    assert missing["exception_type"] == "ReferenceError" and "nope" in missing["exception_message"], missing
    assert missing["syntax_error"] is False, missing
    raised = await failed("(() => { throw new TypeError('bad thing') })()")
    assert (raised["exception_type"], raised["exception_message"]) == ("TypeError", "bad thing"), raised
    assert "TypeError: bad thing" in raised["message"], raised
    syntax = await failed("a +* b")
    assert syntax["exception_type"] == "SyntaxError" and syntax["syntax_error"] is True, syntax
    assert "not a valid expression" in syntax["message"], syntax
    parsed = await failed("JSON.parse('{')")
    assert parsed["exception_type"] == "SyntaxError" and parsed["syntax_error"] is False, parsed
    # The session is unharmed: evaluation still works and the program still ends normally.
    assert (await run(registry, "evaluate_expression", session_id=sid, expression="a + b")).data["value"] == "1"
    await run(registry, "remove_breakpoint", session_id=sid, breakpoint_id="BP1")
    await to_end(registry, sid)


async def scenario_killed(hub, registry, runtime: str) -> None:
    sid, reply = await launch(registry, runtime, FLOW, (FLOW, line(FLOW, "ADD_BODY")))
    stop_of(reply)
    pid = hub.sessions[sid].backend.pid
    os.kill(pid, signal.SIGKILL)
    await until(lambda: hub.sessions[sid].phase.ended, "the session to end after its runtime was killed", timeout=10)
    # The runtime's exit is the honest report: terminated, with the signal as a negative exit code.
    assert phase(hub, sid) == "terminated" and hub.sessions[sid].exit_code == -signal.SIGKILL, hub.sessions[sid].error
    for action, args in (
        ("step_over", {}),
        ("continue_execution", {}),
        ("evaluate_expression", {"expression": "a"}),
        ("get_call_stack", {}),
        ("set_breakpoint", {"file": js(FLOW), "line": line(FLOW, "ADD_RETURN")}),
    ):
        err = await asyncio.wait_for(
            expect_error(registry, action, {"session_id": sid, **args}, "SESSION_INVALID_STATE"), 5
        )
        assert sid in err.message
    reply = await run(registry, "wait_for_stop", session_id=sid, timeout_s=5)
    assert reply.data["state"] == "terminated" and reply.data["exit_code"] == -9, reply.text
    summary = (await run(registry, "list_debug_sessions")).data["sessions"][0]
    assert summary["phase"] == "terminated" and summary["capabilities"]["can_step"] is False
    await asyncio.wait_for(run(registry, "close_debug_session", session_id=sid), 5)


# ----- Node -----------------------------------------------------------------------------------------------------------


async def test_appendix_b_workflow(registry):
    await scenario_appendix_b(registry, "node")


@pytest.mark.parametrize("mode", ["none", "uncaught", "all"])
async def test_pause_on_exceptions(registry, mode):
    await scenario_exceptions(registry, "node", mode)


async def test_async_stack(registry):
    await scenario_async_stack(registry, "node")


async def test_conditional_hit_and_logpoint(registry):
    await scenario_conditions_and_logpoints(registry, "node")


async def test_breakpoint_in_file_loaded_later(registry):
    await scenario_lazy_file(registry, "node")


async def test_evaluate_throwing(registry):
    await scenario_evaluate_throws(registry, "node")


async def test_runtime_killed_mid_session(hub, registry):
    await scenario_killed(hub, registry, "node")


# ----- attach to a node --inspect the test started, and its restart on the same port ----------------------------------


async def start_node_server(port: int):
    node = need_runtime("node")
    proc = await targets.spawn([node, f"--inspect=127.0.0.1:{port}", js("server.js")], cwd=JS)
    await targets.read_ws_url(proc.stderr, timeout=10)
    return proc


async def test_attach_and_target_restart(hub, registry):
    port = targets.free_port()
    tick = line("server.js", "TICK")
    proc = await start_node_server(port)
    try:
        reply = await run(registry, "attach", target=f"127.0.0.1:{port}", language="javascript", wait_s=0)
        sid = reply.data["session_id"]
        assert reply.data["state"] == "running", reply.text
        bp = await run(registry, "set_breakpoint", session_id=sid, file=js("server.js"), line=tick)
        assert bp.data["actual_line"] == tick, bp.text  # pending if node had not parsed server.js yet
        session = hub.sessions[sid]
        await until(lambda: session.breakpoints["BP1"].state.verified, "the breakpoint to verify", timeout=10)
        reply = await run(registry, "wait_for_stop", session_id=sid, timeout_s=10)
        stop = stop_of(reply)
        assert where(stop) == ("server.js", tick, "tick") and stop["hit_breakpoints"] == ["BP1"], reply.text
        reply = await run(registry, "continue_execution", session_id=sid)
        assert stop_of(reply)["stop_number"] == 2

        # The target dies: the session says reconnecting (not ended for good), tools say so clearly.
        await targets.stop_process_group(proc)
        await until(lambda: phase(hub, sid) == "reconnecting", "the session to go reconnecting", timeout=10)
        await expect_error(registry, "step_over", {"session_id": sid}, "SESSION_INVALID_STATE", "NOT_CONNECTED")

        # The same program comes back on the same port: reconnected, breakpoint restored, stops again.
        proc = await start_node_server(port)
        reply = await run(registry, "wait_for_stop", session_id=sid, timeout_s=20)  # waits through the reconnect
        stop = stop_of(reply)
        assert where(stop) == ("server.js", tick, "tick") and stop["hit_breakpoints"] == ["BP1"], reply.text
        assert stop["stop_number"] == 3, reply.text
        value = await run(registry, "evaluate_expression", session_id=sid, expression="typeof count")
        assert value.data["value"] == '"number"', value.text
        listed = (await run(registry, "list_breakpoints", session_id=sid)).data["breakpoints"]
        assert listed[0]["verified"] is True
        await run(registry, "close_debug_session", session_id=sid, terminate=False)
        assert proc.returncode is None, "detaching must leave an attached program running"
    finally:
        await targets.stop_process_group(proc)


async def test_forks_are_sessions_of_their_own(hub, registry):
    """A fork inherits --inspect-brk and waits for a debugger: each one (a fork's fork too) becomes a session, stops
    at its breakpoint, and runs on; none is left waiting."""
    nest = str(TESTS / "js" / "jsdebug" / "nest.js")
    at = line_of(nest, "MARK:at")
    reply = await run(
        registry,
        "start_debugging",
        program=nest,
        language="javascript",
        wait_s=0,
        breakpoints=[{"file": nest, "line": at, "condition": "level === 2"}],
    )
    await until(
        lambda: "S3" in hub.sessions and phase(hub, "S3") == "paused",
        lambda: f"the fork's fork paused: {[(s.id, s.name, s.phase.value) for s in hub.sessions.values()]}",
    )
    deepest = hub.sessions["S3"]
    assert deepest.parent is not None and isinstance(deepest.backend.pid, int), reply.text
    assert deepest.backend.pid not in (hub.sessions["S1"].backend.pid, hub.sessions["S2"].backend.pid)
    value = await run(registry, "evaluate_expression", session_id="S3", expression="level + depth")
    assert value.data["value"] == "4", value.text
    await run(registry, "continue_execution", session_id="S3")
    done = await run(registry, "wait_for_stop", session_id="S1", timeout_s=15)
    assert done.data["state"] == "terminated" and "fork of 0 done" in "\n".join(done.data["output_tail"]), done.text
    assert len(hub.sessions) == 3


async def start_node_server_url(port: int) -> tuple[asyncio.subprocess.Process, str]:
    node = need_runtime("node")
    proc = await targets.spawn([node, f"--inspect=127.0.0.1:{port}", js("server.js")], cwd=JS)
    return proc, await targets.read_ws_url(proc.stderr, timeout=10)


async def test_connected_by_websocket_url_and_target_restart_with_a_new_id(hub, registry):
    """Seed 000: connect_debugger by the inspector's ws:// URL; Node restarts on the same port under a new target id
    (its URL is not the old one): the session finds it through /json/list, reconnects, restores its breakpoint."""
    port = targets.free_port()
    tick = line("server.js", "TICK")
    proc, first_url = await start_node_server_url(port)
    try:
        reply = await run(registry, "connect_debugger", websocket_url=first_url)
        sid = reply.data["session_id"]
        await run(registry, "set_breakpoint", session_id=sid, file=js("server.js"), line=tick)
        stop = stop_of(await run(registry, "wait_for_stop", session_id=sid, timeout_s=10))
        assert where(stop) == ("server.js", tick, "tick") and stop["hit_breakpoints"] == ["BP1"]
        await run(registry, "continue_execution", session_id=sid, wait_s=0)

        await targets.stop_process_group(proc)
        await until(lambda: phase(hub, sid) == "reconnecting", "the session to go reconnecting", timeout=10)
        proc, second_url = await start_node_server_url(port)
        assert second_url != first_url  # a new target id: the old URL leads nowhere
        reply = await run(registry, "wait_for_stop", session_id=sid, timeout_s=20)  # waits through the reconnect
        stop = stop_of(reply)
        assert where(stop) == ("server.js", tick, "tick") and stop["hit_breakpoints"] == ["BP1"], reply.text
        assert (await run(registry, "list_breakpoints", session_id=sid)).data["breakpoints"][0]["verified"] is True
        await run(registry, "close_debug_session", session_id=sid, terminate=False)
        assert proc.returncode is None, "detaching must leave an attached program running"
    finally:
        await targets.stop_process_group(proc)


async def test_attach_to_a_node_waiting_under_inspect_brk_runs_it_to_its_first_line(registry):
    """node --inspect-brk waits for a debugger: attaching releases it, and the session says it is paused at the
    program's first line (not `running` while nothing runs and breakpoints never bind)."""
    node = need_runtime("node")
    target = str(TESTS / "js" / "target.js")
    port = targets.free_port()
    proc = await targets.spawn([node, f"--inspect-brk=127.0.0.1:{port}", target], cwd=JS)
    try:
        await targets.read_ws_url(proc.stderr, timeout=10)
        reply = await run(registry, "attach", target=f"127.0.0.1:{port}", language="javascript", wait_s=5)
        sid = reply.data["session_id"]
        stop = stop_of(reply)
        assert stop["reason"] == "entry" and stop["location"]["file"] == target, reply.text
        assert stop["location"]["line"] == line_of(target, "const total"), reply.text
        bp = await run(registry, "set_breakpoint", session_id=sid, file=target, line=line_of(target, "a + b"))
        assert bp.data["verified"], bp.text
        reply = await run(registry, "continue_execution", session_id=sid)
        assert stop_of(reply)["hit_breakpoints"] == ["BP1"], reply.text
        await run(registry, "close_debug_session", session_id=sid)
    finally:
        await targets.stop_process_group(proc)


@pytest.mark.parametrize("runtime", ["node", "bun"])
async def test_console_output_is_read_once_from_the_pipes_and_never_sent_to_the_inspector(registry, runtime):
    """A launched program's console lines come once, from its pipes, on the stream they were written to; the console
    does not hand each call to the inspector too (an event per call made 1M console.log lines 20x slower)."""
    program = str(TESTS / "js" / "jsdebug" / "console_once.js")
    before, after = line_of(program, "before"), line_of(program, "after")
    sid, started = await launch(
        registry, runtime, program, {"file": program, "line": before}, {"file": program, "line": after}, args=["50"]
    )
    assert stop_of(started)["location"]["line"] == before, started.text
    rpc = registry.hub.get(sid).backend.rpc
    heard: list[str] = []
    events = rpc._on_event

    def listen(method, params):
        if method in ("Runtime.consoleAPICalled", "Console.messageAdded"):
            heard.append(method)
        events(method, params)

    rpc._on_event = listen
    at_end = await run(registry, "continue_execution", session_id=sid)
    assert stop_of(at_end)["location"]["line"] == after, at_end.text
    assert heard == [], f"console calls reached the inspector: {heard[:3]}"
    ended = await run(registry, "continue_execution", session_id=sid)
    assert ended.data["state"] == "terminated" and registry.hub.get(sid).exit_code == 3, ended.text
    await output_text(registry, sid, "nested")
    printed = {}
    for category in ("stdout", "stderr"):
        reply = await run(registry, "get_output", session_id=sid, category=category, limit=1000)
        printed[category] = "".join(e["text"] for e in reply.data["entries"]).splitlines()
    assert printed["stdout"] == [
        "first",
        *(f"line {i}" for i in range(50)),
        "written",
        "{ nested: { deep: [ 1, 2 ] } }",
    ]
    assert printed["stderr"] == ["to stderr", "warned"], printed["stderr"]
