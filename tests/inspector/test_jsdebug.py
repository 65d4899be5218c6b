"""JavaScript through VS Code's js-debug DAP server: parent session, child adoption, the usual debugging."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from pairdbg.backends.dap.client import DapClient
from pairdbg.backends.errors import DebugError, ErrorCode
from support import TESTS, expect_error, missing_target, until

JS = TESTS / "js" / "jsdebug"
APP = str(JS / "app.js")


def line_of(path: str, marker: str) -> int:
    for number, text in enumerate(Path(path).read_text().splitlines(), 1):
        if f"MARK:{marker}" in text:
            return number
    raise AssertionError(marker)


def need_js_debug() -> None:
    from pairdbg.backends.runtimes import find_js_debug
    from support.targets import TargetMissing

    try:
        find_js_debug()
    except TargetMissing as exc:
        missing_target(str(exc))


@pytest.mark.asyncio
async def test_breakpoint_stack_variables_evaluate_set_step_and_exit(registry) -> None:
    need_js_debug()
    add = line_of(APP, "add")
    started = await registry.run("start_debugging", {
        "program": APP, "language": "javascript", "backend": "dap",
        "breakpoints": [{"file": APP, "line": add, "condition": "a === 1"}]}, "agent:test")
    stop = started.data["stop"]
    assert stop["reason"] == "breakpoint" and stop["location"]["line"] == add, started.text
    assert {v["name"]: v["value"] for v in stop["locals"]}["a"] == "1"
    assert [f["function"] for f in stop["stack"]][:2] == ["global.add", "<anonymous>"]  # no node internals
    value = await registry.run("evaluate_expression", {"session_id": "S1", "expression": "a + b * 10"}, "h")
    assert value.data["value"] == "21"
    for expression, kind, syntax in (("nope.x", "ReferenceError", False), ("a +* b", "SyntaxError", True)):
        args = {"session_id": "S1", "expression": expression}
        err = await expect_error(registry, "evaluate_expression", args, "EVALUATION_FAILED")
        assert err.data["exception_type"] == kind and err.data["syntax_error"] is syntax, err.data
    changed = await registry.run("set_variable_value", {"session_id": "S1", "name": "b", "value": "40"}, "h")
    assert changed.data["value"] == "40"
    stepped = await registry.run("step_over", {"session_id": "S1"}, "h")
    assert stepped.data["stop"]["location"]["line"] == add + 1
    assert {v["name"]: v["value"] for v in stepped.data["stop"]["locals"]}["sum"] == "41"
    scopes = await registry.run("get_scopes", {"session_id": "S1"}, "h")
    assert scopes.data["scopes"][0]["name"].startswith("Local")
    await registry.run("remove_breakpoint", {"session_id": "S1", "breakpoint_id": "BP1"}, "h")
    ended = await registry.run("continue_execution", {"session_id": "S1"}, "h")
    assert ended.data["state"] == "terminated", ended.text
    output = "\n".join(ended.data["output_tail"])
    assert "done 41" in output and "node ./" not in output and "Waiting for the debugger" not in output


@pytest.mark.asyncio
async def test_a_forked_child_becomes_a_session_of_its_own(registry) -> None:
    need_js_debug()
    parent = str(JS / "fork_parent.js")
    after = line_of(parent, "after")
    started = await registry.run("start_debugging", {
        "program": parent, "language": "javascript", "backend": "dap",
        "breakpoints": [{"file": parent, "line": after}]}, "agent:test")
    assert started.data["state"] == "paused" and started.data["stop"]["location"]["line"] == after
    child = registry.hub.sessions["S2"]  # the fork, adopted as its own session (it ran to its end)
    assert child.backend.language == "javascript" and child.phase.value == "terminated"
    printed = "".join(e.text for s in (child, registry.hub.sessions["S1"]) for e in s.output.read(0, 100)[0])
    assert "child says hi" in printed  # the fork really ran: it was not left waiting for a debugger
    ended = await registry.run("continue_execution", {"session_id": "S1"}, "h")
    assert ended.data["state"] == "terminated"
    assert "child exited 0 5" in "\n".join(ended.data["output_tail"])


@pytest.mark.asyncio
async def test_a_worker_and_a_fork_each_stop_step_evaluate_and_pause_in_one_session(registry) -> None:
    """js-debug offers a worker thread and a fork as targets of their own: each is one session (never a second one on
    another backend), and stops, steps, evaluates and pauses there as in the program's own session."""
    need_js_debug()
    family = str(JS / "family.js")
    in_worker, in_child = line_of(family, "worker"), line_of(family, "child")
    await registry.run("start_debugging", {
        "program": family, "language": "javascript", "backend": "dap", "wait_s": 0,
        "breakpoints": [{"file": family, "line": in_worker}, {"file": family, "line": in_child}]}, "agent:test")
    hub = registry.hub
    sessions = lambda: list(hub.sessions.values())  # noqa: E731
    await until(lambda: len(sessions()) == 3 and all(s.phase.value == "paused" for s in sessions()[1:]),
                lambda: f"a paused worker and fork: {[(s.id, s.name, s.phase.value) for s in sessions()]}")
    main = hub.sessions["S1"]
    worker = next(s for s in hub.sessions.values() if s.name.startswith("[worker"))
    child = next(s for s in hub.sessions.values() if s is not main and s is not worker)
    assert worker.parent is main and child.parent is main
    assert {s.backend.kind for s in hub.sessions.values()} == {"dap"}  # nobody else debugs the fork
    assert worker.backend.pid == main.backend.pid and child.backend.pid not in (None, main.backend.pid)
    listed = await registry.run("list_debug_sessions", {}, "h")
    assert len(listed.data["sessions"]) == 3, listed.text

    for session, line, n, caller_text in (
        (worker, in_worker, 10, "parentPort.postMessage"),
        (child, in_child, 20, "child computed"),
    ):
        sid = session.id
        stop = (await registry.run("wait_for_stop", {"session_id": sid, "timeout_s": 5}, "h")).data["stop"]
        assert stop["location"]["line"] == line and stop["process"].endswith("child of S1"), stop
        value = await registry.run("evaluate_expression", {"session_id": sid, "expression": "n * 100"}, "h")
        assert value.data["value"] == str(n * 100), value.text
        stepped = await registry.run("step_over", {"session_id": sid}, "h")
        assert stepped.data["stop"]["location"]["line"] == line + 1, stepped.text
        local = {v["name"]: v["value"] for v in stepped.data["stop"]["locals"]}
        assert local.get("doubled" if session is worker else "tripled") == str(n * (2 if session is worker else 3))
        out = await registry.run("step_out", {"session_id": sid}, "h")
        caller = next(n for n, text in enumerate(Path(family).read_text().splitlines(), 1) if caller_text in text)
        assert out.data["stop"]["location"]["line"] == caller, out.text
        returned = {v["name"]: v["value"] for v in out.data["stop"]["locals"]}
        function = "inWorker" if session is worker else "inChild"
        assert returned[f"(return) {function}"] == str(n * (2 if session is worker else 3) + 1), out.text

    ended = await registry.run("continue_execution", {"session_id": worker.id}, "h")
    assert ended.data["state"] == "terminated", ended.text
    ticking = await registry.run("continue_execution", {"session_id": child.id, "wait_s": 0.5}, "h")
    assert ticking.data["state"] == "running", ticking.text
    paused = await registry.run("pause_execution", {"session_id": child.id}, "h")
    assert paused.data["state"] == "paused" and paused.data["stop"]["reason"] == "pause", paused.text
    await registry.run("evaluate_expression", {"session_id": child.id, "expression": "keepTicking = false"}, "h")
    await registry.run("continue_execution", {"session_id": child.id}, "h")
    done = await registry.run("wait_for_stop", {"session_id": "S1", "timeout_s": 15}, "h")
    assert done.data["state"] == "terminated" and "family done" in "\n".join(done.data["output_tail"]), done.text
    assert child.phase.value == "terminated"


@pytest.mark.asyncio
async def test_a_fork_of_a_fork_is_a_session_under_its_parents(registry) -> None:
    """js-debug asks the fork's own session about the fork's fork: it becomes a session too (refusing would leave it
    waiting for a debugger), listed under the fork's."""
    need_js_debug()
    nest = str(JS / "nest.js")
    await registry.run("start_debugging", {
        "program": nest, "language": "javascript", "backend": "dap", "wait_s": 0,
        "breakpoints": [{"file": nest, "line": line_of(nest, "at"), "condition": "level === 2"}]}, "agent:test")
    hub = registry.hub
    await until(lambda: "S3" in hub.sessions and hub.sessions["S3"].phase.value == "paused",
                lambda: f"the fork's fork paused: {[(s.id, s.name, s.phase.value) for s in hub.sessions.values()]}")
    deepest = hub.sessions["S3"]
    assert deepest.parent is hub.sessions["S2"] and hub.sessions["S2"].parent is hub.sessions["S1"]
    assert deepest.last_stop.location.line == line_of(nest, "at")
    value = await registry.run("evaluate_expression", {"session_id": "S3", "expression": "level + depth"}, "h")
    assert value.data["value"] == "4", value.text
    await registry.run("continue_execution", {"session_id": "S3"}, "h")
    done = await registry.run("wait_for_stop", {"session_id": "S1", "timeout_s": 15}, "h")
    assert done.data["state"] == "terminated" and "fork of 0 done" in "\n".join(done.data["output_tail"]), done.text
    assert len(hub.sessions) == 3


@pytest.mark.asyncio
async def test_js_debug_missing_says_how_to_get_it(registry, monkeypatch) -> None:
    monkeypatch.setenv("PAIRDBG_JS_DEBUG", "/nonexistent/vsDebugServer.cjs")
    with pytest.raises(DebugError) as err:
        await registry.run("start_debugging", {"program": APP, "language": "javascript", "backend": "dap"}, "h")
    assert err.value.code == ErrorCode.CONNECTION_FAILED and "PAIRDBG_JS_DEBUG" in err.value.hint
    assert registry.hub.sessions == {}


@pytest.mark.asyncio
async def test_dap_backend_is_for_javascript_on_node_only(registry) -> None:
    with pytest.raises(DebugError) as err:
        await registry.run("start_debugging", {
            "program": APP, "language": "javascript", "runtime": "bun", "backend": "dap"}, "h")
    assert err.value.code == ErrorCode.INVALID_PARAMETERS


@pytest.mark.asyncio
async def test_an_unsupported_reverse_request_is_answered_with_an_error() -> None:
    """Pure protocol logic: an adapter asking something we do not support gets success:false, at once."""
    server_reader, client_writer = await _pipe()
    client_reader, server_writer = await _pipe()
    client = DapClient(client_reader, client_writer, on_event=lambda *_: None)
    body = json.dumps({"seq": 1, "type": "request", "command": "runInTerminal", "arguments": {}}).encode()
    server_writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    header = await asyncio.wait_for(server_reader.readuntil(b"\r\n\r\n"), 5)
    answer = json.loads(await server_reader.readexactly(int(header.split(b":")[1].split(b"\r")[0])))
    assert answer["type"] == "response" and answer["request_seq"] == 1 and answer["success"] is False
    assert "runInTerminal" in answer["message"]
    await client.close()


async def _pipe() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connected (reader, writer) pair over an OS pipe."""
    read_fd, write_fd = os.pipe()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", 0))
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, os.fdopen(write_fd, "wb", 0))
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return reader, writer


@pytest.mark.asyncio
async def test_attach_to_a_node_started_with_inspect(registry) -> None:
    need_js_debug()
    from pairdbg.backends.inspector.process import RuntimeProcess
    from support.targets import find_node

    ticker = str(JS / "ticker.js")
    node = await RuntimeProcess.spawn([find_node(), "--inspect=127.0.0.1:0", ticker], None, None)
    try:
        port = node.ws_url.split(":")[2].split("/")[0]
        attached = await registry.run("attach", {"target": f"127.0.0.1:{port}", "language": "javascript",
                                                 "backend": "dap", "wait_s": 0}, "agent:test")
        sid = attached.data["session_id"]
        await registry.run("set_breakpoint", {"session_id": sid, "file": ticker, "line": line_of(ticker, "tick")}, "h")
        stop = (await registry.run("wait_for_stop", {"session_id": sid, "timeout_s": 15}, "h")).data["stop"]
        assert stop["location"]["line"] == line_of(ticker, "tick") and stop["location"]["function"].endswith("tick")
        await registry.run("close_debug_session", {"session_id": sid, "terminate": False}, "h")
        assert node.returncode is None  # detached: the program runs on
    finally:
        await node.stop()


@pytest.mark.asyncio
async def test_stop_on_entry_through_js_debug(registry) -> None:
    need_js_debug()
    started = await registry.run("start_debugging", {
        "program": APP, "language": "javascript", "backend": "dap", "stop_on_entry": True}, "agent:test")
    stop = started.data["stop"]
    assert stop["reason"] == "entry" and stop["location"]["line"] == line_of(APP, "call") - 2  # `let acc = 0;`


@pytest.mark.asyncio
async def test_block_and_function_variables_are_one_locals_scope(registry) -> None:
    """js-debug lists a loop's block (`i`) as a scope before the function's own (`acc`, `items`): the stop report's
    locals hold both, and either can be set."""
    need_js_debug()
    flow = str(TESTS / "js" / "inspector" / "flow.js")
    call = next(n for n, t in enumerate(Path(flow).read_text().splitlines(), 1) if "CALL_ADD" in t)
    started = await registry.run("start_debugging", {
        "program": flow, "language": "javascript", "backend": "dap",
        "breakpoints": [{"file": flow, "line": call}]}, "agent:test")
    local = {v["name"]: v["value"] for v in started.data["stop"]["locals"]}
    assert local["i"] == "0" and local["acc"] == "0" and local["label"] == "'numbers'", started.text
    for name, value in (("acc", "5"), ("i", "2")):
        changed = await registry.run("set_variable_value", {"session_id": "S1", "name": name, "value": value}, "h")
        assert changed.data["value"] == value, changed.text
    shown = await registry.run("evaluate_expression", {"session_id": "S1", "expression": "acc * 10 + i"}, "h")
    assert shown.data["value"] == "52", shown.text
    await registry.run("close_debug_session", {"session_id": "S1"}, "h")


@pytest.mark.asyncio
async def test_step_out_brings_back_the_return_value(registry) -> None:
    """V8 shows a return value only at the function's return; a step out through js-debug stops there first (CDP
    breakpoints through js-debug's proxy), so the caller's stop lists `(return) add`, as on the inspector backend."""
    need_js_debug()
    flow = str(TESTS / "js" / "inspector" / "flow.js")
    lines = Path(flow).read_text().splitlines()
    body, ret = (next(n for n, t in enumerate(lines, 1) if mark in t) for mark in ("ADD_BODY", "ADD_RETURN"))
    started = await registry.run("start_debugging", {
        "program": flow, "language": "javascript", "backend": "dap",
        "breakpoints": [{"file": flow, "line": body}]}, "agent:test")
    assert started.data["stop"]["location"]["function"].endswith("add"), started.text
    await registry.run("remove_breakpoint", {"session_id": "S1", "breakpoint_id": "BP1"}, "h")
    out = await registry.run("step_out", {"session_id": "S1"}, "h")
    stop = out.data["stop"]
    assert stop["reason"] == "step" and stop["location"]["function"].endswith("sumAll"), out.text
    local = {v["name"]: v["value"] for v in stop["locals"]}
    assert local["(return) add"] == "1" and local["acc"] == "1", out.text  # add(0, 1), as the caller got it
    assert "not available" not in out.text
    over = await registry.run("step_over", {"session_id": "S1"}, "h")
    assert "(return) add" not in {v["name"] for v in over.data["stop"]["locals"]}, "only on the stop right after"

    # A breakpoint reached before sumAll returns ends its step out there, as a breakpoint stop without a value.
    await registry.run("set_breakpoint", {"session_id": "S1", "file": flow, "line": ret}, "h")
    early = await registry.run("step_out", {"session_id": "S1"}, "h")
    stop = early.data["stop"]
    assert stop["reason"] == "breakpoint" and stop["location"]["line"] == ret, early.text
    assert not any(v["name"].startswith("(return)") for v in stop["locals"]) and "not available" not in early.text
    again = await registry.run("continue_execution", {"session_id": "S1"}, "h")
    assert again.data["stop"]["hit_breakpoints"] == ["BP2"], again.text

    await registry.run("close_debug_session", {"session_id": "S1"}, "h")


@pytest.mark.asyncio
async def test_step_out_of_a_recursive_call_brings_back_that_calls_value(registry) -> None:
    need_js_debug()
    fact = str(JS / "fact.js")
    started = await registry.run("start_debugging", {
        "program": fact, "language": "javascript", "backend": "dap",
        "breakpoints": [{"file": fact, "line": line_of(fact, "base"), "condition": "n === 3"}]}, "agent:test")
    assert started.data["stop"]["location"]["line"] == line_of(fact, "base"), started.text
    await registry.run("remove_breakpoint", {"session_id": "S1", "breakpoint_id": "BP1"}, "h")
    out = await registry.run("step_out", {"session_id": "S1"}, "h")  # fact(3) calls fact(2), fact(1): passed over
    local = {v["name"]: v["value"] for v in out.data["stop"]["locals"]}
    assert local["(return) fact"] == "6" and local["n"] == "4", out.text  # back in fact(4), with fact(3)'s value
    # A step over onto fact(4)'s return stops where V8 holds the value (js-debug lists it): a step out from there
    # takes it as it is.
    over = await registry.run("step_over", {"session_id": "S1"}, "h")
    listed = {v["name"]: v["value"] for v in over.data["stop"]["locals"]}
    assert listed.get("Return value") == "24", over.text
    out = await registry.run("step_out", {"session_id": "S1"}, "h")
    local = {v["name"]: v["value"] for v in out.data["stop"]["locals"]}
    assert local["(return) fact"] == "24" and local["n"] == "5", out.text
    await registry.run("close_debug_session", {"session_id": "S1"}, "h")


@pytest.mark.asyncio
async def test_console_output_is_read_once_from_the_pipes_and_never_sent_to_the_inspector(registry) -> None:
    """Each line once, on the stream it was written to, and the exit code; Node's console does not hand the calls to
    the inspector too (a Runtime.consoleAPICalled event per call made a loud program ~30x slower)."""
    need_js_debug()
    program = str(JS / "console_once.js")
    before, after = line_of(program, "before"), line_of(program, "after")
    started = await registry.run("start_debugging", {
        "program": program, "args": ["200"], "language": "javascript", "backend": "dap",
        "breakpoints": [{"file": program, "line": before}, {"file": program, "line": after}]}, "agent:test")
    sid = started.data["session_id"]
    assert started.data["stop"]["location"]["line"] == before, started.text
    proxy = await registry.hub.get(sid).backend._cdp()  # js-debug's CDP proxy: what the inspector reports
    heard: list[str] = []
    proxy.on_event = lambda method, params: heard.append(method)
    await proxy.subscribe(["Runtime.consoleAPICalled"])
    at_end = await registry.run("continue_execution", {"session_id": sid}, "h")
    assert at_end.data["stop"]["location"]["line"] == after, at_end.text
    assert heard == [], f"console calls reached the inspector: {heard[:3]}"
    ended = await registry.run("continue_execution", {"session_id": sid}, "h")
    assert ended.data["state"] == "terminated" and registry.hub.get(sid).exit_code == 3, ended.text

    async def printed(category: str) -> str:
        reply = await registry.run("get_output", {"session_id": sid, "category": category, "limit": 1000}, "h")
        assert not reply.data["has_more"] and not reply.data["dropped"]
        return "".join(e["text"] for e in reply.data["entries"])

    out, err = await printed("stdout"), await printed("stderr")
    expected = ["first", *(f"line {i}" for i in range(200)), "written", "{ nested: { deep: [ 1, 2 ] } }"]
    assert out.splitlines() == expected, out[:500]
    assert err.splitlines() == ["to stderr", "warned"], err
    everything = await registry.run("get_output", {"session_id": sid, "limit": 1000}, "h")
    categories = {e["category"] for e in everything.data["entries"]}
    assert categories <= {"stdout", "stderr"}, categories  # no copy as console output, no debugger banner
