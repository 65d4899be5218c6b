"""Execution actions: continue, the steps, pause and wait_for_stop, each answered with an outcome reply."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from ..hub import Hub
from .common import WAIT, SessionParams, _outcome_reply
from ..policy import Level
from .registry import Action, Reply

if TYPE_CHECKING:
    from ..models import ExecOutcome
    from ..session import Session


class ControlParams(SessionParams):
    wait_s: float | None = WAIT


async def _moved(
    hub: Hub, p: ControlParams, actor: str, move: Callable[[Session, float], Awaitable[ExecOutcome]]
) -> Reply:
    """Run one way of letting the program go (`move(session, wait)`) and answer with where it ended up."""
    session = hub.get(p.session_id)
    wait = hub.limits.default_wait_s if p.wait_s is None else p.wait_s
    outcome = await move(session, wait)
    hub.focus.of(actor).saw(outcome.report)
    return _outcome_reply(session, outcome, wait, actor)


def _control(what: Literal["continue", "over", "into", "out"]):
    async def handler(hub: Hub, p: ControlParams, actor: str) -> Reply:
        return await _moved(hub, p, actor, lambda session, wait: session.control(what, actor, wait))

    return handler


class LineParams(ControlParams):
    file: str = Field(description="source file")
    line: int = Field(ge=1, description="1-based line")


async def run_to_line(hub: Hub, p: LineParams, actor: str) -> Reply:
    return await _moved(hub, p, actor, lambda session, wait: session.run_to(p.file, p.line, actor, wait))


async def goto_line(hub: Hub, p: LineParams, actor: str) -> Reply:
    return await _moved(hub, p, actor, lambda session, wait: session.goto(p.file, p.line, actor, wait))


class PauseParams(SessionParams):
    wait_s: float | None = Field(None, ge=0, le=300, description="default 5")


async def pause_execution(hub: Hub, p: PauseParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    wait = 5.0 if p.wait_s is None else p.wait_s
    outcome = await session.pause(actor, wait)
    hub.focus.of(actor).saw(outcome.report)
    return _outcome_reply(session, outcome, wait, actor)


class WaitParams(SessionParams):
    timeout_s: float = Field(30, ge=0, le=600, description="seconds")
    after_stop: int | None = Field(None, ge=0, description="default: the last stop you saw")


async def wait_for_stop(hub: Hub, p: WaitParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    # A stop the caller has not been shown yet counts at once (e.g. the person stepped while the agent was
    # thinking); otherwise wait for a newer one. A caller that never saw a stop gets the current one.
    focus = hub.focus.of(actor)
    after = p.after_stop if p.after_stop is not None else focus.seen_stop(session.id)
    outcome = await session.wait_for_stop(after, p.timeout_s)
    focus.saw(outcome.report)
    reply = _outcome_reply(session, outcome, p.timeout_s, actor)
    if outcome.report is not None:
        new = after is None or outcome.report.stop_number > after
        reply.data["new_stop"] = new
        if not new:
            reply.text = (
                f"No new stop within {p.timeout_s:g}s; still paused at stop #{outcome.report.stop_number}:\n"
                + reply.text
            )
    return reply


ACTIONS = [
    Action(
        "continue_execution",
        "Resume; returns the next stop, running with pending=true, or the end.",
        ControlParams,
        _control("continue"),
        "Continue",
        level=Level.CONTROL,
    ),
    Action(
        "step_over",
        "Step over the current line.",
        ControlParams,
        _control("over"),
        "Step over",
        level=Level.CONTROL,
    ),
    Action(
        "step_into",
        "Step into the current line's call.",
        ControlParams,
        _control("into"),
        "Step into",
        level=Level.CONTROL,
    ),
    Action(
        "step_out",
        "Run until this function returns.",
        ControlParams,
        _control("out"),
        "Step out",
        level=Level.CONTROL,
    ),
    Action(
        "run_to_line",
        "Continue to a line (a temporary breakpoint, removed at the next stop wherever it is).",
        LineParams,
        run_to_line,
        "Run to line",
        group="more",
        level=Level.CONTROL,
    ),
    Action(
        "goto_line",
        "Set the next statement: jump to a line of the stopped function without running the code between.",
        LineParams,
        goto_line,
        "Set next statement",
        group="more",
        level=Level.CONTROL,
    ),
    Action(
        "pause_execution",
        "Interrupt the running program.",
        PauseParams,
        pause_execution,
        "Pause",
        level=Level.CONTROL,
        idempotent=True,
    ),
    Action(
        "wait_for_stop",
        "Wait for a stop you have not seen (at once if the person stepped), or the end.",
        WaitParams,
        wait_for_stop,
        "Wait for stop",
        read_only=True,
    ),
]
