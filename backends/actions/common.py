"""What the debugging actions share: the session-id and wait fields, SessionParams and the outcome reply."""

from __future__ import annotations

from pydantic import Field

from .. import queries
from ..focus import FramePlace, VariableLook
from ..hub import Hub
from ..lazymodel import LazyModel
from ..models import Phase
from ..policy import is_agent
from ..session import ExecOutcome, Session
from . import render
from .registry import Reply

# No per-tool description: the server instructions say once what a session id is and when it may be left out.
SID = Field()
WAIT = Field(None, ge=0, le=300, description="default 10")


class SessionParams(LazyModel):
    session_id: str = SID


async def agent_looks(
    hub: Hub,
    actor: str,
    session: Session | None,
    frame: str | None = None,
    variable: str | None = None,
    **changes: object,
) -> None:
    """An agent read a frame (its place becomes the agent's source line), a variable (`variable`: the @vN it
    expanded) or a file and line (`changes`): its Focus moves there and the person's TUI marks it. The person's reads
    move nothing here (their panes set their own Focus)."""
    if not is_agent(actor):
        return
    if session is None:
        hub.focus.agent_read(actor, None, None, **changes)
        return
    stop = session.stop_number if session.phase == Phase.PAUSED else None
    if frame is not None and frame != "global":
        place, thread = await queries.frame_place(session, frame)
        changes.update(frame="@" + frame.strip().lstrip("@"), thread_id=thread, variable=None)
        changes["frame_place"] = FramePlace(place.function, place.file, place.line) if place is not None else None
        if place is not None and place.file:
            changes.update(file=place.file, line=place.line)
    if variable is not None:
        key = queries.variable_key(session, variable)
        name = session.handles.variable(variable).name if key else variable
        changes["variable"] = VariableLook(name, "", None, variable, stop, key)
    hub.focus.agent_read(actor, session.id, stop, **changes)


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
