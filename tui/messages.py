"""Textual messages the TUI posts to itself: hub events translated for the UI, and results of background work."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual.message import Message

from pairdbg.backends.events import ActionPerformed, Event
from pairdbg.backends.models import VariableView
from pairdbg.backends.queries import FrameData


@dataclass
class HubChanged(Message):
    """A hub event (not output, not activity) that may change what the panes show."""

    event: Event


class OutputReady(Message):
    """Program output is waiting in the bridge's buffer. Posted once per burst, so floods cost one repaint."""


@dataclass
class PageChanged(Message):
    """Debug-bridge pages' mirrors changed (tree, state or DOM). Queued ones coalesce into one that names them all."""

    pages: set[str] = field(default_factory=set)  # Hub session ids

    def can_replace(self, message: Message) -> bool:
        if isinstance(message, PageChanged):
            message.pages |= self.pages
            return True
        return False


@dataclass
class ActivityReady(Message):
    event: ActionPerformed


@dataclass
class ActionFailed(Message):
    """An action the person started failed; shown as a notification and a console line, never a crash."""

    action: str
    code: str
    message: str
    hint: str | None


@dataclass
class ActionDone(Message):
    action: str
    text: str
    data: dict[str, Any]


@dataclass
class FrameLoaded(Message):
    data: FrameData


@dataclass
class FrameFailed(Message):
    """A stop's frames could not be read; the panes say so instead of keeping an older note."""

    session_id: str
    stop_number: int
    text: str


@dataclass
class ChildrenLoaded(Message):
    """Children of one variables-tree node arrived (for the stop they were asked at)."""

    node_id: int
    generation: int
    views: list[VariableView]
    total: int


@dataclass
class EvaluationDone(Message):
    expression: str
    text: str
    ok: bool
    hint: str | None = None
