"""What a JavaScript stop report shows on real Node and Bun: a CommonJS module's top-level frame lists its own names,
not the five arguments of the wrapper it runs in (those come when asked for)."""

from __future__ import annotations

import pytest

from support import stop_of
from test_inspector_node import JS, launch, line, run, to_end

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]
MODULE = "module_top.js"
WRAPPER = {"exports", "require", "module", "__filename", "__dirname"}


@pytest.mark.parametrize("runtime", ["node", "bun"])
async def test_module_wrapper_names_are_left_out_of_top_level_locals(registry, runtime):
    sid, reply = await launch(registry, runtime, MODULE, (MODULE, line(MODULE, "MODULE_END")))
    stop = stop_of(reply)
    names = {v["name"] for v in stop["locals"]}
    assert {"limit", "total", "path"} <= names and not names & WRAPPER, reply.text
    asked = await run(registry, "get_local_variables", session_id=sid, include_special=True)
    listed = {v["name"] for v in asked.data["variables"]}
    assert {"limit", "total", "path"} <= listed, asked.text
    if runtime == "node":  # (Bun keeps the wrapper's names out of the entry's first scope by itself)
        assert listed >= WRAPPER, asked.text
    await to_end(registry, sid)


@pytest.mark.parametrize("runtime", ["node", "bun"])
async def test_a_step_that_stays_on_its_line_says_the_column(registry, runtime):
    loop = line(MODULE, "MODULE_LOOP")  # `for (…) total += i;` on one line: steps go round it
    sid, reply = await launch(registry, runtime, MODULE, (MODULE, loop))
    assert stop_of(reply)["location"]["line"] == loop, reply.text
    await run(registry, "remove_breakpoint", session_id=sid, breakpoint_id="BP1")
    columns = {stop_of(reply)["location"]["column"]}
    for _ in range(3):
        reply = await run(registry, "step_over", session_id=sid)
        stop = stop_of(reply)
        if stop["location"]["line"] != loop:
            break
        assert f"still on line {loop}, now at column {stop['location']['column']}" in reply.text, reply.text
        columns.add(stop["location"]["column"])
    assert len(columns) > 1, "the steps stayed on the loop's line at different columns"
    await to_end(registry, sid)


async def test_step_out_reports_the_return_value_on_node(registry):
    flow = "flow.js"
    sid, reply = await launch(registry, "node", flow, (flow, line(flow, "ADD_BODY")))
    assert stop_of(reply)["location"]["function"] == "add", reply.text
    await run(registry, "remove_breakpoint", session_id=sid, breakpoint_id="BP1")
    reply = await run(registry, "step_out", session_id=sid)
    stop = stop_of(reply)
    assert stop["reason"] == "step" and stop["location"]["function"] == "sumAll", reply.text
    local = {v["name"]: v["value"] for v in stop["locals"]}
    assert local["(return) add"] == "1" and local["acc"] == "1", reply.text  # add(0, 1), as the caller got it
    reply = await run(registry, "step_over", session_id=sid)
    assert "(return) add" not in {v["name"] for v in stop_of(reply)["locals"]}, "only on the stop right after"
    # A breakpoint reached before the function returns ends the step out there, as a breakpoint stop, and the
    # step's temporary stops at sumAll's returns are gone: the next stop is the breakpoint again.
    ret = line(flow, "ADD_RETURN")
    await run(registry, "set_breakpoint", session_id=sid, file=str(JS / flow), line=ret)
    reply = await run(registry, "step_out", session_id=sid)
    stop = stop_of(reply)
    assert stop["reason"] == "breakpoint" and stop["location"]["line"] == ret, reply.text
    assert not any(v["name"].startswith("(return)") for v in stop["locals"]), reply.text
    reply = await run(registry, "continue_execution", session_id=sid)
    assert stop_of(reply)["reason"] == "breakpoint" and stop_of(reply)["location"]["line"] == ret, reply.text
    await run(registry, "close_debug_session", session_id=sid)


async def test_step_out_on_bun_says_the_return_value_is_not_available(registry):
    """Bun's inspector (JSC) gives no return value: the stop that ends a step out says so, and only that one."""
    flow = "flow.js"
    sid, reply = await launch(registry, "bun", flow, (flow, line(flow, "ADD_BODY")))
    assert stop_of(reply)["location"]["function"] == "add", reply.text
    reply = await run(registry, "step_out", session_id=sid)
    stop = stop_of(reply)
    assert stop["reason"] == "step" and stop["location"]["function"] == "sumAll", reply.text
    assert "(return value not available on Bun's inspector)" in reply.text.splitlines()[1], reply.text
    assert stop["description"] == "(return value not available on Bun's inspector)", stop
    assert not any(v["name"].startswith("(return)") for v in stop["locals"]), reply.text
    reply = await run(registry, "step_over", session_id=sid)
    assert "not available" not in reply.text, reply.text
    reply = await run(registry, "continue_execution", session_id=sid)  # the breakpoint in add, again
    reply = await run(registry, "step_over", session_id=sid)
    assert "not available" not in reply.text, "a step over says nothing of return values"
    await run(registry, "close_debug_session", session_id=sid)


@pytest.mark.parametrize("runtime", ["node", "bun"])
async def test_a_step_over_a_require_is_not_lost(registry, runtime):
    """A step over `require` of a file with a pending breakpoint. Node binds it by URL and the step ends on the next
    line; Bun stops the file before its first statement to bind it, and the step ends there (said so), instead of
    the program running on to the next breakpoint."""
    main, helper = "require_main.js", "require_helper.js"
    sid, reply = await launch(
        registry, runtime, main, (main, line(main, "STEP_REQUIRE")), (helper, line(helper, "TWICE"))
    )
    assert stop_of(reply)["location"]["line"] == line(main, "STEP_REQUIRE"), reply.text
    reply = await run(registry, "step_over", session_id=sid)
    stop = stop_of(reply)
    assert stop["reason"] == "step", reply.text
    if runtime == "node":
        assert (stop["location"]["file"], stop["location"]["line"]) == (str(JS / main), line(main, "NEXT_LINE"))
    else:
        assert stop["location"]["file"] == str(JS / helper), reply.text
        assert stop["location"]["line"] in (1, line(helper, "HELPER_FIRST")), reply.text  # the file's start
        assert "stopped where require_helper.js starts to load" in reply.text
    reply = await run(registry, "continue_execution", session_id=sid)
    stop = stop_of(reply)
    assert stop["location"]["line"] == line(helper, "TWICE") and stop["hit_breakpoints"] == ["BP2"], reply.text
    await to_end(registry, sid)
