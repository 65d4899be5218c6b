"""What a JavaScript frame shows on Node and Bun (issue 11): `this` among the locals, and a `debugger;` statement
reported as one (V8 calls it "other", which pairdbg used to report as a plain "pause")."""

from __future__ import annotations

import pytest
from support import local_values, stop_of
from test_inspector_node import launch, line, run

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]
PROGRAM = "this_debugger.js"


@pytest.mark.parametrize("runtime", ["node", "bun"])
async def test_this_is_a_local_and_debugger_statements_say_so(registry, runtime):
    sid, reply = await launch(registry, runtime, PROGRAM, (PROGRAM, line(PROGRAM, "BUMP")))
    stop = stop_of(reply)
    values = local_values(stop)
    assert "this" in values and "Counter" in values["this"], values
    handle = next(v["handle"] for v in stop["locals"] if v["name"] == "this")
    fields = await run(registry, "get_variables", session_id=sid, ref=handle)
    assert {v["name"]: v["value"] for v in fields.data["variables"]}.get("count") == "41", fields.text
    reply = await run(registry, "continue_execution", session_id=sid)
    stop = stop_of(reply)
    assert stop["location"]["line"] == line(PROGRAM, "DEBUGGER"), reply.text
    assert stop["reason"] == "debugger statement", reply.text
