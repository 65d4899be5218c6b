"""`Registry.run(..., announce=False)`: a view keeping itself current (the TUI's RN tail) goes through the same door
as every call (validation, unknown-argument refusal, error shaping) without an activity line, success or failure."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from pairdbg.backends.actions.registry import Action, Registry, Reply
from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.backends.events import ActionPerformed
from pairdbg.backends.hub import Hub

pytestmark = pytest.mark.asyncio


class ReadParams(BaseModel):
    outcome: str = "ok"


async def read(hub: Hub, p: ReadParams, actor: str) -> Reply:
    if p.outcome == "missing":
        raise DebugError(ErrorCode.PATH_NOT_FOUND, "nothing there", hint="read another")
    if p.outcome == "bug":
        raise KeyError("oops")
    return Reply("read it", {"outcome": p.outcome})


def rig() -> tuple[Registry, list[ActionPerformed]]:
    hub = Hub()
    registry = Registry(hub)
    registry.add(Action("read_thing", "Read a thing.", ReadParams, read, "Read", read_only=True))
    heard: list[ActionPerformed] = []
    hub.bus.add_listener(lambda e: heard.append(e) if isinstance(e, ActionPerformed) else None)
    return registry, heard


async def test_an_unannounced_run_is_checked_like_any_other_but_leaves_no_activity_line() -> None:
    registry, heard = rig()
    assert (await registry.run("read_thing", {}, "human", announce=False)).data == {"outcome": "ok"}
    with pytest.raises(DebugError) as missing:
        await registry.run("read_thing", {"outcome": "missing"}, "human", announce=False)
    assert missing.value.code == ErrorCode.PATH_NOT_FOUND
    with pytest.raises(DebugError) as unknown:
        await registry.run("read_thing", {"outcom": "ok"}, "human", announce=False)
    assert unknown.value.code == ErrorCode.INVALID_PARAMETERS and "outcome" in unknown.value.text()
    with pytest.raises(DebugError) as bug:  # a handler's bug is a clear error, not an exception in a TUI worker
        await registry.run("read_thing", {"outcome": "bug"}, "human", announce=False)
    assert bug.value.code == ErrorCode.INTERNAL
    assert heard == []


async def test_an_announced_run_leaves_one_line_per_call() -> None:
    registry, heard = rig()
    await registry.run("read_thing", {}, "human")
    with pytest.raises(DebugError):
        await registry.run("read_thing", {"outcome": "missing"}, "human")
    assert [(e.action, e.ok) for e in heard] == [("read_thing", True), ("read_thing", False)]
