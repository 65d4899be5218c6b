"""Data breakpoints on Node under js-debug (issue 23, part 5): the inspector's helper reached through js-debug's CDP
proxy; the stop at the writing statement with the helper's frames hidden from stacks and steps, the change log fed
from its binding calls."""

from __future__ import annotations

import os

import pytest
from support import stop_of
from test_data_breakpoints_node import PROGRAM, helper_free, output_text, refused, watch
from test_inspector_node import js, line, run, where
from test_jsdebug import need_js_debug

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]


async def paused_at_ready(registry, name: str = PROGRAM) -> str:
    need_js_debug()
    reply = await run(
        registry,
        "start_debugging",
        program=js(name),
        language="javascript",
        backend="dap",
        breakpoints=[{"file": js(name), "line": line(name, "// stop here")}],
        wait_s=30,
    )
    stop = stop_of(reply)
    assert where(stop)[:2] == (name, line(name, "// stop here")), stop
    return reply.data["session_id"]


async def test_stops_at_the_writing_statement_under_js_debug(registry):
    sid = await paused_at_ready(registry)
    total = await watch(registry, sid, "cart.total")
    assert "Cart" in total["watching"], total
    minor = await watch(registry, sid, "version.minor")
    host = await watch(registry, sid, "cache.get('host')")
    assert "frozen" in await refused(registry, sid, "frozen.a")
    assert "cannot evaluate" in await refused(registry, sid, "nothing_here.x")

    writes_total = line(PROGRAM, "// writes total")
    for old, new in (("0", "7.25"), ("7.25", "10.97"), ("10.97", "-9.03")):
        stop = stop_of(await run(registry, "continue_execution", session_id=sid))
        assert stop["reason"] == "data breakpoint" and stop["hit_breakpoints"] == [total["id"]], stop
        assert stop["description"] == f"data breakpoint {total['id']}: cart.total {old} → {new}"
        assert where(stop)[:2] == (PROGRAM, writes_total), stop
        assert helper_free(stop), stop["stack"]
    price = await run(registry, "evaluate_expression", session_id=sid, expression="price")
    assert price.data["value"] == "-20", price.text
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert stop["hit_breakpoints"] == [minor["id"]] and stop["description"].endswith("version.minor 2 → 3"), stop
    assert stop["location"]["file"].endswith(os.path.join("semver", "classes", "semver.js")) and helper_free(stop)
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert stop["hit_breakpoints"] == [host["id"]] and where(stop)[1] == line(PROGRAM, "// writes host"), stop
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert stop["hit_breakpoints"] == [total["id"]] and where(stop)[1] == line(PROGRAM, "// reset from a timer"), stop
    end = await run(registry, "continue_execution", session_id=sid)
    assert end.data["state"] == "terminated", end.text
    text = await output_text(registry, sid, "done")
    assert 'done 3 1.3.0 db.internal {"total":0,"items":[]} total,items true' in text, text


async def test_condition_log_only_update_remove_and_the_change_log(registry):
    sid = await paused_at_ready(registry)
    negative = await watch(registry, sid, "cart.total", condition="value < 0")
    logged = await watch(registry, sid, "cache.get('host')", log_only=True)
    minor = await watch(registry, sid, "version.minor")
    await run(registry, "update_breakpoint", session_id=sid, breakpoint_id=minor["id"], enabled=False)
    big = await watch(registry, sid, "cart.total", condition="value > 100")
    await run(registry, "update_breakpoint", session_id=sid, breakpoint_id=big["id"], condition="value > ready + 7")
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert stop["hit_breakpoints"] == [big["id"]] and stop["description"].endswith("cart.total 7.25 → 10.97"), stop
    await run(registry, "update_breakpoint", session_id=sid, breakpoint_id=big["id"], enabled=False)
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert stop["hit_breakpoints"] == [negative["id"]] and stop["description"].endswith("cart.total 10.97 → -9.03")
    assert where(stop)[1] == line(PROGRAM, "// writes total") and helper_free(stop), stop
    await run(registry, "remove_breakpoint", session_id=sid, breakpoint_id=negative["id"])
    end = await run(registry, "continue_execution", session_id=sid)
    assert end.data["state"] == "terminated", end.text
    await output_text(registry, sid, "done")

    changes = await run(registry, "get_output", session_id=sid, category="changes")
    lines = [e["text"] for e in changes.data["entries"]]
    assert len(lines) == 3 and big["id"] in lines[0] and "(stopped)" in lines[1], lines
    writes_host = line(PROGRAM, "// writes host")
    logged_line = f"""{logged["id"]} cache.get('host') "localhost" → "db.internal"  at {PROGRAM}:{writes_host}"""
    assert logged_line in lines[2] and "(stopped)" not in lines[2], lines


async def test_steps_from_a_data_stop_stay_in_the_program_under_js_debug(registry):
    sid = await paused_at_ready(registry)
    await watch(registry, sid, "cart.total")
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert where(stop)[1] == line(PROGRAM, "// writes total")
    places = []
    for _ in range(5):  # out of add, over the other instance's write, round the loop, into add again
        stepped = stop_of(await run(registry, "step_into", session_id=sid))
        assert stepped["reason"] == "step" and helper_free(stepped), stepped
        places.append(where(stepped)[1])
    assert places == [
        line(PROGRAM, "// writes total") + 1,
        line(PROGRAM, "// another instance"),
        line(PROGRAM, "for (const price"),
        line(PROGRAM, "    add(cart, price)"),
        line(PROGRAM, "// writes total"),
    ], places
    stop = stop_of(await run(registry, "step_over", session_id=sid))
    assert stop["reason"] == "data breakpoint" and where(stop)[1] == line(PROGRAM, "// writes total"), stop
    stepped = stop_of(await run(registry, "step_over", session_id=sid))
    assert stepped["reason"] == "step" and where(stepped)[1] == line(PROGRAM, "// writes total") + 1, stepped
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert stop["reason"] == "data breakpoint", stop
    out = stop_of(await run(registry, "step_out", session_id=sid))
    assert out["reason"] == "step" and where(out)[2].endswith("main") and helper_free(out), out


async def test_a_raising_condition_is_a_note_not_a_stop_when_pausing_on_all_exceptions(registry):
    """The condition's TypeError is caught in the (blackboxed) helper: no pause for it even with pause on all
    exceptions, a change-log note instead; the next watch on the same property still stops."""
    sid = await paused_at_ready(registry, "data_kinds.js")
    await run(registry, "set_pause_on_exceptions", session_id=sid, mode="all")
    raising = await watch(registry, sid, "box.size", condition="value.nope.x")
    size = await watch(registry, sid, "box.size")
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert stop["hit_breakpoints"] == [size["id"]] and helper_free(stop), stop  # not the condition's TypeError
    assert where(stop)[:2] == ("data_kinds.js", line("data_kinds.js", "// writes size")), stop
    changes = await run(registry, "get_output", session_id=sid, category="changes")
    noted = [e["text"] for e in changes.data["entries"] if e["text"].split()[1] == raising["id"]]
    assert len(noted) == 1 and "condition raised TypeError" in noted[0], changes.data["entries"]
