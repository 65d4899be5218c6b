"""Restart keeps the session on Node (issue 19 §7), on the inspector backend and on js-debug: the same id, every
breakpoint's id, enabled state, condition and hit count, the watches and the exception mode."""

from __future__ import annotations

import pytest
from support import stop_of
from test_inspector_node import FLOW, js, launch, line, run
from test_jsdebug import need_js_debug

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(90)]


@pytest.mark.parametrize("backend", ["inspector", "dap"])
async def test_restart_keeps_the_id_breakpoints_watches_and_exception_mode(registry, backend):
    if backend == "dap":
        need_js_debug()
    add_body, print_start = line(FLOW, "ADD_BODY"), line(FLOW, "PRINT_START")
    sid, started = await launch(
        registry,
        "node",
        FLOW,
        {"file": js(FLOW), "line": add_body, "condition": "a >= 3"},
        (FLOW, print_start),
        backend=backend,
    )
    assert stop_of(started)["hit_breakpoints"] == ["BP2"], started.text
    await run(registry, "update_breakpoint", session_id=sid, breakpoint_id="BP2", enabled=False)
    await run(registry, "add_watch", session_id=sid, expression="a * 100")
    await run(registry, "set_pause_on_exceptions", session_id=sid, mode="all")
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert stop["hit_breakpoints"] == ["BP1"] and stop["watches"][0]["value"] == "300", stop
    last = registry.hub.sessions[sid].stop_number

    again = await run(registry, "restart_debugging", session_id=sid)
    assert again.data["session_id"] == sid and list(registry.hub.sessions) == [sid], again.text
    stop = stop_of(again)  # BP2 is disabled: the first stop is BP1 again, under its condition
    assert stop["hit_breakpoints"] == ["BP1"] and stop["stop_number"] == last + 1, again.text
    assert stop["watches"][0]["value"] == "300", stop["watches"]
    listed = {bp["id"]: bp for bp in (await run(registry, "list_breakpoints", session_id=sid)).data["breakpoints"]}
    assert listed["BP1"]["condition"] == "a >= 3" and listed["BP1"]["hits"] == 2, listed["BP1"]
    assert listed["BP2"]["enabled"] is False and listed["BP2"]["hits"] == 1, listed["BP2"]
    assert registry.hub.sessions[sid].exception_mode == "all"
    assert (await run(registry, "evaluate_expression", session_id=sid, expression="a")).data["value"] == "3"
    await run(registry, "close_debug_session", session_id=sid)
