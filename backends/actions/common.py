"""What the debugging actions share: the session-id and wait fields, SessionParams and the outcome reply."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..session import ExecOutcome, Session
from . import render
from .registry import Reply

SID = Field(description="e.g. S1")
WAIT = Field(None, ge=0, le=300, description="seconds (default 10)")


class SessionParams(BaseModel):
    session_id: str = SID


def _outcome_reply(session: Session, o: ExecOutcome, waited: float | None, actor: str) -> Reply:
    """Renders only; the handler records what the actor was shown (hub.focus.of(actor).saw(...))."""
    data: dict = {"session_id": session.id, "state": o.state, "pending": o.pending and o.state == "running"}
    if o.report is not None:
        data["stop"] = o.report.model_dump(mode="json", exclude_none=True)
    if o.exit_code is not None:
        data["exit_code"] = o.exit_code
    if o.detail:
        data["detail"] = o.detail
    if o.output_tail:
        data["output_tail"] = o.output_tail
    headline = render.stop_headline(o.report) if o.state == "paused" and o.report is not None else None
    return Reply(render.outcome(o, session.id, waited), data, headline)
