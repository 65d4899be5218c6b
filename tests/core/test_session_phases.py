"""The session's phase machine without a debugger: a ScriptedBackend plays the target while the person and agents act
through the action registry, as they do from the TUI and over MCP."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import pytest_asyncio
from support import expect_error, stop_of, until
from support.fake_backend import FILE, ScriptedBackend

from pairdbg.backends.actions.registry import Registry
from pairdbg.runtime import build_registry
from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.backends.events import Stopped
from pairdbg.backends.hub import Hub
from pairdbg.backends.models import Phase
from pairdbg.backends.session import Session

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(30)]

PERSON = "human"
AGENT = "agent:claude"
OTHER = "agent:other"
BP_LINE = 9  # `acc = add(acc, i)` in loop.py


@dataclass
class Rig:
    hub: Hub
    registry: Registry
    backend: ScriptedBackend
    session: Session

    async def run(self, action: str, actor: str = AGENT, **args):
        return await self.registry.run(action, {"session_id": self.session.id, **args}, actor)

    async def fails(self, action: str, code: ErrorCode, actor: str = AGENT, **args) -> DebugError:
        return await expect_error(self.registry, action, {"session_id": self.session.id, **args}, code, actor=actor)

    async def stopped(self, reason: str = "breakpoint", line: int = BP_LINE, hit: list[int] | None = None) -> dict:
        """The target stops; returns the report the person is shown."""
        self.backend.stop(reason, line, hit)
        return stop_of(await self.run("wait_for_stop", actor=PERSON, timeout_s=5))


@pytest_asyncio.fixture
async def hub() -> AsyncIterator[Hub]:
    """No debugger here, so none of the shared hub's requirements (debugpy, the process-leak guard)."""
    h = Hub()
    try:
        yield h
    finally:
        await asyncio.wait_for(h.shutdown(), 10)


async def open_session(hub: Hub, breakpoints: list[dict] | None = None, **backend) -> Rig:
    fake = ScriptedBackend(**backend)
    session = await hub.open(fake, "app", breakpoints, actor=PERSON)
    return Rig(hub, build_registry(hub), fake, session)


# ----- control requests from two actors -----------------------------------------------------------------------------


async def test_a_second_actor_is_told_busy_while_a_step_is_in_flight(hub):
    rig = await open_session(hub)
    await rig.stopped()
    gate = rig.backend.hold("step")
    person = asyncio.create_task(rig.run("step_over", actor=PERSON, wait_s=5))
    await rig.backend.requested("step")

    err = await asyncio.wait_for(rig.fails("continue_execution", ErrorCode.BUSY), 5)  # at once, not queued
    assert "human step over is in progress" in err.message
    assert "wait_for_stop" in err.hint

    gate.release()
    stop = stop_of(await person)
    assert (stop["reason"], stop["location"]["line"], stop["stop_number"]) == ("step", BP_LINE + 1, 2)


async def test_an_actor_is_told_not_paused_naming_who_resumed(hub):
    rig = await open_session(hub)
    await rig.stopped()
    reply = await rig.run("continue_execution", actor=PERSON, wait_s=0)
    assert (reply.data["state"], reply.data["pending"]) == ("running", True)

    err = await rig.fails("step_over", ErrorCode.NOT_PAUSED)
    assert "is running, not paused (last resumed by human continue)" in err.message
    assert "wait_for_stop" in err.hint and "pause_execution" in err.hint
    assert rig.backend.asked("step") == 0  # nothing reached the target


async def test_a_newer_stop_overtakes_an_older_one_whose_report_is_still_being_built(hub):
    rig = await open_session(hub)
    published: list[str] = []
    hub.bus.add_listener(lambda e: published.append(e.report.reason) if isinstance(e, Stopped) else None)
    gate = rig.backend.hold("stack")
    rig.backend.stop("breakpoint", BP_LINE)  # its report waits for the stack
    await rig.backend.requested("stack")

    newer = await rig.stopped("pause", 13)  # built at once, while the older one is still waiting
    assert (newer["stop_number"], newer["reason"], newer["location"]["line"]) == (1, "pause", 13)

    gate.release()
    await until(lambda: rig.backend.in_flight == 0, "the older report's requests to be answered")
    shown = stop_of(await rig.run("wait_for_stop", actor=OTHER, timeout_s=0))
    assert (shown["stop_number"], shown["reason"], shown["location"]["line"]) == (1, "pause", 13)
    assert published == ["pause"]  # the older report was dropped, not published


async def test_a_stop_whose_report_cannot_be_built_is_still_a_stop(hub):
    rig = await open_session(hub)
    rig.backend.fail("stack", DebugError(ErrorCode.PROTOCOL_ERROR, "stackTrace failed"))
    stop = await rig.stopped()
    assert "the stop report could not be built (stackTrace failed)" in stop["description"]
    assert rig.session.phase == Phase.PAUSED


# ----- waiting and pausing ------------------------------------------------------------------------------------------


async def test_wait_for_stop_is_bounded_and_says_the_program_still_runs(hub):
    rig = await open_session(hub)
    loop = asyncio.get_running_loop()
    began = loop.time()
    reply = await rig.run("wait_for_stop", timeout_s=0.2)
    assert (reply.data["state"], reply.data["pending"]) == ("running", True)
    assert loop.time() - began < 2

    waiting = asyncio.create_task(rig.run("wait_for_stop", timeout_s=20))
    await asyncio.sleep(0)  # one turn: the agent's request runs up to its wait (it awaits nothing before that)
    assert not waiting.done()
    rig.backend.stop("breakpoint", BP_LINE)
    stop = stop_of(await asyncio.wait_for(waiting, 5))
    assert (stop["stop_number"], stop["location"]["line"]) == (1, BP_LINE)
    assert waiting.result().data["new_stop"] is True


async def test_a_stop_the_agent_has_not_seen_is_answered_at_once(hub):
    rig = await open_session(hub)
    await rig.stopped()  # the person saw it; the agent did not
    reply = await asyncio.wait_for(rig.run("wait_for_stop", timeout_s=20), 5)
    assert (reply.data["new_stop"], stop_of(reply)["stop_number"]) == (True, 1)
    reply = await rig.run("wait_for_stop", timeout_s=0)  # now it has
    assert reply.data["new_stop"] is False and reply.text.startswith("No new stop within 0s")


async def test_pause_preempts_a_continue_that_is_waiting_for_a_stop(hub):
    rig = await open_session(hub)
    await rig.stopped()
    agent = asyncio.create_task(rig.run("continue_execution", wait_s=60))
    await rig.backend.requested("resume")
    await until(lambda: rig.session.phase == Phase.RUNNING, "the program to run")

    person = await rig.run("pause_execution", actor=PERSON, wait_s=5)
    assert stop_of(person)["reason"] == "pause"
    stop = stop_of(await asyncio.wait_for(agent, 5))  # the agent's wait ends with the same stop
    assert (stop["reason"], stop["stop_number"]) == ("pause", 2)


# ----- the end of a session -----------------------------------------------------------------------------------------


async def test_an_exited_program_answers_invalid_state_with_a_hint(hub):
    rig = await open_session(hub)
    await rig.stopped()
    rig.backend.output("last words\n")
    rig.backend.exit(3)
    reply = await rig.run("wait_for_stop", timeout_s=5)
    assert (reply.data["state"], reply.data["exit_code"]) == ("terminated", 3)

    err = await rig.fails("step_over", ErrorCode.SESSION_INVALID_STATE)
    assert "has terminated (exit code 3)" in err.message
    assert "start_debugging" in err.hint and "get_output" in err.hint
    await until(lambda: rig.backend.closed, "the ended session to release its backend")
    assert "last words" in "".join(e["text"] for e in (await rig.run("get_output")).data["entries"])


async def test_a_lost_target_answers_not_connected_with_a_hint(hub):
    rig = await open_session(hub)
    rig.backend.lose("connection reset by peer")
    reply = await rig.run("wait_for_stop", timeout_s=5)
    assert (reply.data["state"], reply.data["detail"]) == ("disconnected", "connection reset by peer")

    err = await rig.fails("pause_execution", ErrorCode.NOT_CONNECTED)
    assert "is not connected to its target: connection reset by peer" in err.message
    assert "attach" in err.hint
    await until(lambda: rig.backend.closed, "the lost session to release its backend")


# ----- breakpoints --------------------------------------------------------------------------------------------------


async def breakpoint_states(rig: Rig) -> list[tuple[str, bool, int | None]]:
    reply = await rig.run("list_breakpoints", actor=PERSON)
    return [(b["id"], b["verified"], b.get("line")) for b in reply.data["breakpoints"]]


async def test_a_breakpoint_the_program_stopped_at_counts_as_verified(hub):
    rig = await open_session(hub, [{"file": FILE, "line": BP_LINE}], verify_breakpoints=False)
    assert await breakpoint_states(rig) == [("BP1", False, BP_LINE)]

    stop = await rig.stopped(hit=[rig.backend.breakpoint_ids[(FILE, BP_LINE)]])  # before any "resolved" event
    assert stop["hit_breakpoints"] == ["BP1"]
    assert await breakpoint_states(rig) == [("BP1", True, BP_LINE)]


async def test_the_targets_resolved_event_verifies_a_breakpoint(hub):
    rig = await open_session(hub, [{"file": FILE, "line": BP_LINE}], verify_breakpoints=False)
    rig.backend.resolve(FILE, BP_LINE)
    assert await breakpoint_states(rig) == [("BP1", True, BP_LINE)]
