"""Textual messages the TUI posts to itself: hub events translated for the UI, and results of background work."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual.message import Message

from pairdbg.backends.errors import DebugError
from pairdbg.backends.events import ActionPerformed, Event
from pairdbg.backends.models import VariableView
from pairdbg.backends.queries import FrameData


class Addressed(Message):
    """A message posted to the one widget that handles it (by the hub bridge, or by a widget's own worker): it does
    not bubble on to the widget's parents, which have no use for it."""

    bubble = False


@dataclass
class HubChanged(Addressed):
    """A hub event (not output, not activity) that may change what the panes show."""

    event: Event


class OutputReady(Addressed):
    """Program output is waiting in the bridge's buffer. Posted once per burst, so floods cost one repaint."""


@dataclass
class PageChanged(Addressed):
    """Debug-bridge pages' mirrors changed (tree, state or DOM). Queued ones coalesce into one that names them all."""

    pages: set[str] = field(default_factory=set)  # Hub session ids

    def can_replace(self, message: Message) -> bool:
        if isinstance(message, PageChanged):
            message.pages |= self.pages
            return True
        return False


@dataclass
class ActivityReady(Addressed):
    event: ActionPerformed


@dataclass
class ActionFailed(Message):
    """An action the person started failed; shown as a notification and a console line, never a crash."""

    action: str
    code: str
    message: str
    hint: str | None


@dataclass
class ActionDone(Addressed):
    action: str
    text: str
    data: dict[str, Any]


@dataclass
class FrameLoaded(Addressed):
    data: FrameData


@dataclass
class FrameFailed(Addressed):
    """A stop's frames could not be read; the panes say so instead of keeping an older note."""

    session_id: str
    stop_number: int
    text: str


@dataclass
class ChildrenLoaded(Addressed):
    """Children of one variables-tree node arrived (for the stop they were asked at)."""

    node_id: int
    generation: int
    views: list[VariableView]
    total: int


@dataclass
class EvaluationDone(Addressed):
    expression: str
    text: str
    ok: bool
    hint: str | None = None


@dataclass
class StatusChanged(Message):
    """What the header shows of the debugger view (the selected session, its phase) may have changed."""


@dataclass
class HeaderChanged(Addressed):
    """A hub event only the app's header shows: agents connected, the agent mode."""

    event: Event


@dataclass
class AgentLooked(Addressed):
    """An agent's Focus changed (posted by the hub bridge for every actor but the person)."""

    actor: str


# ----- the RN app view ------------------------------------------------------------------------------------------------


class RnChanged(Addressed):
    """The RN service's resources changed. Queued ones coalesce, so a burst costs the view one re-read."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, RnChanged)


@dataclass
class RnEvents(Addressed):
    """A page of one stream's events arrived (`mode`: initial, tail or older) for the timeline it was asked for."""

    stream: str
    generation: int
    mode: str
    data: dict[str, Any]


@dataclass
class RnState(Addressed):
    stream: str
    seq: int
    value: Any
    note: str | None


@dataclass
class RnDiff(Addressed):
    stream: str
    data: dict[str, Any]


@dataclass
class RnProblem(Addressed):
    """An action failed (NOT_CONNECTED, SNAPSHOT_NOT_FOUND, …): a friendly line in the view, never a crash."""

    action: str
    error: DebugError
    where: str = "note"


# ----- the page view ------------------------------------------------------------------------------------------------


@dataclass
class PageActed(Addressed):
    """An action the person started from the page view finished (reply is None when it failed)."""

    action: str
    reply: Any
    ref: str | None = None
