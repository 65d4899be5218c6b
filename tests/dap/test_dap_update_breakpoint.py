"""update_breakpoint against the real debugpy: a disabled breakpoint does not stop, re-enabled it does, and a changed
condition takes effect."""

from __future__ import annotations

import pytest

from support import expect_error, line_of, local_values, start, stop_of

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]

LOOP = "loop.py"
ADD_BODY = line_of(LOOP, "total = a + b")
PRINT_STEP = line_of(LOOP, 'print("step"')


async def run(registry, action: str, **args):
    return await registry.run(action, args, "human")


async def go_on(registry, sid: str) -> dict:
    return stop_of(await run(registry, "continue_execution", session_id=sid))


async def test_disabled_breakpoint_is_kept_but_does_not_stop(registry):
    sid, reply = await start(registry, LOOP, ADD_BODY, PRINT_STEP)
    assert stop_of(reply)["location"]["line"] == ADD_BODY

    reply = await run(registry, "update_breakpoint", session_id=sid, breakpoint_id="BP1", enabled=False)
    assert reply.data["enabled"] is False and reply.data["verified"] is False
    assert reply.text.startswith("BP1 loop.py:") and "disabled" in reply.text
    listed = (await run(registry, "list_breakpoints", session_id=sid)).data["breakpoints"]
    assert [(b["id"], b["enabled"]) for b in listed] == [("BP1", False), ("BP2", True)]

    for i in (0, 1):  # add() runs between these stops, but BP1 is off
        stop = await go_on(registry, sid)
        assert stop["location"]["line"] == PRINT_STEP and stop["hit_breakpoints"] == ["BP2"]
        assert local_values(stop)["i"] == str(i)

    reply = await run(registry, "update_breakpoint", session_id=sid, breakpoint_id="bp1", enabled=True)
    assert reply.data["enabled"] is True and reply.data["verified"] is True
    stop = await go_on(registry, sid)
    assert stop["location"]["line"] == ADD_BODY and stop["hit_breakpoints"] == ["BP1"]
    assert local_values(stop)["b"] == "2"


async def test_a_changed_condition_takes_effect(registry):
    sid, reply = await start(registry, LOOP, ADD_BODY)
    assert local_values(stop_of(reply))["b"] == "0"
    reply = await run(registry, "update_breakpoint", session_id=sid, breakpoint_id="BP1", condition="b == 3")
    assert "[if b == 3]" in reply.text and reply.data["condition"] == "b == 3"
    stop = await go_on(registry, sid)
    assert stop["location"]["line"] == ADD_BODY and local_values(stop)["b"] == "3"

    reply = await run(registry, "update_breakpoint", session_id=sid, breakpoint_id="BP1", condition="")
    assert "condition" not in reply.data
    stop = await go_on(registry, sid)
    assert local_values(stop)["b"] == "4"  # no condition: the next call stops


async def test_bad_updates_are_clear_errors(registry):
    sid, _ = await start(registry, LOOP, ADD_BODY)
    err = await expect_error(
        registry, "update_breakpoint", {"session_id": sid, "breakpoint_id": "BP1"}, "INVALID_PARAMETERS"
    )
    assert "enabled, condition" in err.hint
    await expect_error(
        registry, "update_breakpoint", {"session_id": sid, "breakpoint_id": "BP9", "enabled": False}, "PATH_NOT_FOUND"
    )
