"""A breakpoint whose condition raises is reported on the breakpoint, not left silently never firing."""

from __future__ import annotations

import pytest

from support import line_of, prog, start, until

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]

PROGRAM = "bad_condition.py"


async def test_a_condition_that_raises_is_reported_on_the_breakpoint(registry) -> None:
    line = line_of(PROGRAM, "# conditional breakpoint here")
    first = line_of(PROGRAM, "for i in range(3):")
    bps = [
        {"file": prog(PROGRAM), "line": first},
        {"file": prog(PROGRAM), "line": line, "condition": "n.missing > 1"},
    ]
    sid, reply = await start(registry, PROGRAM, breakpoints=bps)
    assert reply.data["state"] == "paused"
    await registry.run("continue_execution", {"session_id": sid}, "human")

    async def reported() -> bool:
        listed = await registry.run("list_breakpoints", {"session_id": sid}, "agent:x")
        bp = next(b for b in listed.data["breakpoints"] if b.get("condition"))
        return "AttributeError" in (bp.get("message") or "")

    await until(reported, "the breakpoint list to name the condition's error")
    listed = await registry.run("list_breakpoints", {"session_id": sid}, "agent:x")
    assert "its condition raised AttributeError: 'int' object has no attribute 'missing'" in listed.text
    assert "does not stop while the condition fails" in listed.text
    bp = next(b for b in listed.data["breakpoints"] if b.get("condition"))
    assert bp["passed_without_stopping"] == "yes" and bp["hits"] == 0, bp  # known: it raised, so it did not stop
    assert "its condition raised, 1x or more" in bp["passed_note"], bp
