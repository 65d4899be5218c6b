"""The inspector backend against the real Bun (WebKit Inspector Protocol, JavaScriptCore).

The shared scenarios of test_inspector_node.py on Bun, plus what only Bun has: a TypeScript file whose transpiled
lines differ from the original (breakpoints and stops go through Bun's inline source map), and connect_debugger to a
`bun --inspect=127.0.0.1:<port>/fixed` the test started.
"""

from __future__ import annotations

import pytest

from support import targets
from support import local_values, stop_of, until
from test_inspector_node import (
    JS,
    js,
    launch,
    line,
    need_runtime,
    output_text,
    phase,
    run,
    scenario_appendix_b,
    scenario_async_stack,
    scenario_conditions_and_logpoints,
    scenario_evaluate_throws,
    scenario_exceptions,
    scenario_killed,
    scenario_lazy_file,
    to_end,
    where,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]
BUN = "bun"


async def test_appendix_b_workflow(registry):
    await scenario_appendix_b(registry, BUN)


@pytest.mark.parametrize("mode", ["none", "uncaught", "all"])
async def test_pause_on_exceptions(registry, mode):
    await scenario_exceptions(registry, BUN, mode)


async def test_async_stack(registry):
    await scenario_async_stack(registry, BUN)


async def test_conditional_hit_and_logpoint(registry):
    await scenario_conditions_and_logpoints(registry, BUN)


async def test_breakpoint_in_file_loaded_later(registry):
    await scenario_lazy_file(registry, BUN)


async def test_evaluate_throwing(registry):
    await scenario_evaluate_throws(registry, BUN)


async def test_runtime_killed_mid_session(hub, registry):
    await scenario_killed(hub, registry, BUN)


# ----- TypeScript: original lines in, original lines out ------------------------------------------------------------

TS = "typed.ts"


async def test_typescript_breakpoints_on_original_lines(registry):
    ts_x, ts_y, ts_return, ts_call = (line(TS, m) for m in ("TS_X", "TS_Y", "TS_RETURN", "TS_CALL"))
    # Sanity: the fixture really has comments, blank lines and types before these lines.
    assert ts_x > 12 and ts_y == ts_x + 2
    sid, reply = await launch(registry, BUN, TS, (TS, ts_x), (TS, ts_return))  # language typescript, runtime bun
    stop = stop_of(reply)
    assert where(stop) == (TS, ts_x, "scale") and stop["hit_breakpoints"] == ["BP1"], reply.text
    assert f">{ts_x:>5}|   const x: number = p.x * k;" in reply.text, "the source window shows the .ts file"
    states = {b["id"]: (b["verified"], b["actual_line"]) for b in reply.data["breakpoints"]}
    assert states == {"BP1": (True, ts_x), "BP2": (True, ts_return)}, reply.data["breakpoints"]
    assert local_values(stop)["k"] == "10", reply.text
    assert stop["stack"][1]["line"] == ts_call and stop["stack"][1]["file"] == js(TS), reply.text

    reply = await run(registry, "step_over", session_id=sid)  # over the blank line to the next statement
    stop = stop_of(reply)
    assert where(stop) == (TS, ts_y, "scale"), reply.text
    assert local_values(stop)["x"] == "30", reply.text
    reply = await run(registry, "continue_execution", session_id=sid)
    stop = stop_of(reply)
    assert where(stop) == (TS, ts_return, "scale") and stop["hit_breakpoints"] == ["BP2"], reply.text
    assert local_values(stop)["y"] == "40", reply.text

    # A breakpoint set while paused, on a line after comments and a type annotation, binds to that same line.
    added = await run(registry, "set_breakpoint", session_id=sid, file=js(TS), line=ts_call + 1)
    assert added.data["verified"] is True and added.data["actual_line"] == ts_call + 1, added.text
    reply = await run(registry, "step_out", session_id=sid)
    stop = stop_of(reply)
    assert stop["location"]["file"] == js(TS) and stop["location"]["line"] in (ts_call, ts_call + 1), reply.text
    await run(registry, "remove_breakpoint", session_id=sid, breakpoint_id="BP3")
    await to_end(registry, sid)
    assert "scaled 30 40" in await output_text(registry, sid, "scaled")


async def test_typescript_on_node_is_refused(registry):
    from support import expect_error

    await expect_error(
        registry,
        "start_debugging",
        {"program": js(TS), "language": "typescript", "runtime": "node"},
        "INVALID_PARAMETERS",
    )


# ----- connect_debugger to a Bun the test started --------------------------------------------------------------------


async def test_connect_debugger_to_running_bun(hub, registry):
    bun = need_runtime(BUN)
    port = targets.free_port()
    tick = line("server.js", "TICK")
    proc = await targets.spawn([bun, f"--inspect=127.0.0.1:{port}/fixed", js("server.js")], cwd=JS)
    try:
        url = await targets.read_ws_url(proc.stderr, timeout=10)
        assert url == f"ws://127.0.0.1:{port}/fixed"
        reply = await run(registry, "connect_debugger", websocket_url=url, session_name="bun server", wait_s=0)
        sid = reply.data["session_id"]
        assert "(jsc)" in reply.text and reply.data["state"] == "running", reply.text
        bp = await run(registry, "set_breakpoint", session_id=sid, file=js("server.js"), line=tick)
        assert bp.data["actual_line"] == tick, bp.text
        session = hub.sessions[sid]
        await until(lambda: session.breakpoints["BP1"].state.verified, "the breakpoint to verify", timeout=10)
        reply = await run(registry, "wait_for_stop", session_id=sid, timeout_s=10)
        stop = stop_of(reply)
        assert where(stop) == ("server.js", tick, "tick") and stop["hit_breakpoints"] == ["BP1"], reply.text
        value = await run(registry, "evaluate_expression", session_id=sid, expression="count + 1000")
        assert int(value.data["value"]) >= 1000, value.text
        reply = await run(registry, "step_over", session_id=sid)
        assert where(stop_of(reply))[:2] == ("server.js", tick + 1), reply.text
        await run(registry, "remove_breakpoint", session_id=sid, breakpoint_id="BP1")
        reply = await run(registry, "continue_execution", session_id=sid, wait_s=0.2)
        assert reply.data["state"] == "running", reply.text
        paused = await run(registry, "pause_execution", session_id=sid)
        assert stop_of(paused)["reason"] == "pause", paused.text
        await run(registry, "close_debug_session", session_id=sid, terminate=False)
        assert phase(hub, sid) == "terminated" if sid in hub.sessions else True
        assert proc.returncode is None, "a connected (not launched) Bun must outlive a detach"
    finally:
        await targets.stop_process_group(proc)
