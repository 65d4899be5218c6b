"""Restart as session logic, without a debugger (issue 19 §7): a ScriptedBackend plays both runs of the program.
The real debugpy and Node restarts are tested in tests/dap/test_restart.py and tests/inspector/test_restart_node.py."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from support import expect_error, stop_of
from support.fake_backend import FILE, ScriptedBackend

from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.backends.hub import Hub
from pairdbg.backends.models import Phase
from pairdbg.runtime import build_registry

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(30)]

LINE = 9  # `acc = add(acc, i)` in loop.py


@pytest_asyncio.fixture
async def hub() -> AsyncIterator[Hub]:
    h = Hub()
    try:
        yield h
    finally:
        await asyncio.wait_for(h.shutdown(), 10)


async def stopped_at(registry, fake: ScriptedBackend, sid: str) -> dict:
    fake.stop("breakpoint", LINE, [fake.breakpoint_ids[(FILE, LINE)]])
    return stop_of(await registry.run("wait_for_stop", {"session_id": sid, "timeout_s": 5}, "human"))


async def test_the_restarted_run_is_the_same_session(hub):
    first = ScriptedBackend(locals_={"acc": "1"})
    session = await hub.open(
        first, "app", [{"file": FILE, "line": LINE, "condition": "acc > 0"}, {"file": FILE, "line": 3}]
    )
    registry = build_registry(hub)
    await registry.run("update_breakpoint", {"session_id": "S1", "breakpoint_id": "BP2", "enabled": False}, "human")
    await registry.run("add_watch", {"session_id": "S1", "expression": "acc"}, "human")
    await registry.run("set_pause_on_exceptions", {"session_id": "S1", "mode": "none"}, "human")
    stop = await stopped_at(registry, first, "S1")
    scopes = await registry.run("get_scopes", {"session_id": "S1"}, "human")
    old_handle = scopes.data["scopes"][0]["handle"]

    second = ScriptedBackend(locals_={"acc": "1"})
    restarted = await hub.restart("S1", lambda: asyncio.sleep(0, second), "app")
    assert restarted is not session and hub.sessions["S1"] is restarted and list(hub.sessions) == ["S1"]
    assert first.closed and restarted.phase == Phase.RUNNING
    # The second target was given the enabled breakpoint (with its condition) and the exception mode before it ran.
    start = next(args for name, args in second.calls if name == "start")
    assert [(s.line, s.condition) for s in start[0][FILE]] == [(LINE, "acc > 0")] and start[1] == "none"
    bps = {bp.id: bp for bp in restarted.breakpoints.values()}
    assert list(bps) == ["BP1", "BP2"] and bps["BP1"].hits == 1 and not bps["BP2"].enabled
    assert bps["BP2"].state.message == "disabled"
    assert [w.id for w in restarted.watches.values()] == ["W1"]

    again = await stopped_at(registry, second, "S1")
    assert again["stop_number"] == stop["stop_number"] + 1 and again["watches"][0]["value"] == "1"
    assert restarted.breakpoints["BP1"].hits == 2
    # A handle of the first run is expired, not unknown: handle numbers go on across the restart.
    err = await expect_error(registry, "get_variables", {"session_id": "S1", "ref": old_handle}, "PATH_NOT_FOUND")
    assert "expired" in err.message, err.message
    new_bp = await registry.run("set_breakpoint", {"session_id": "S1", "file": FILE, "line": 4}, "human")
    assert new_bp.data["id"] == "BP3"


async def test_a_failed_start_leaves_the_session_in_error_under_its_id(hub):
    await hub.open(ScriptedBackend(), "app", [{"file": FILE, "line": LINE}])
    broken = ScriptedBackend()
    broken.fail("start", DebugError(ErrorCode.CONNECTION_FAILED, "the adapter could not start the program"))
    with pytest.raises(DebugError):
        await hub.restart("S1", lambda: asyncio.sleep(0, broken), "app")
    session = hub.sessions["S1"]
    assert session.phase == Phase.ERROR and "could not start" in (session.error or "")
    assert [bp.id for bp in session.breakpoints.values()] == ["BP1"]


async def test_a_child_process_session_is_restarted_through_its_parent(hub):
    parent = await hub.open(ScriptedBackend(), "app")
    await hub.open(ScriptedBackend(), "child", parent=parent)
    with pytest.raises(DebugError) as caught:
        await hub.restart("S2", lambda: asyncio.sleep(0, ScriptedBackend()), "child")
    assert caught.value.code == ErrorCode.INVALID_PARAMETERS and "S1" in (caught.value.hint or "")
    assert hub.sessions["S2"].phase == Phase.RUNNING  # untouched
