"""Textual messages the TUI posts to itself: hub events translated for the UI, and results of background work."""

from __future__ import annotations

from typing import Any

from textual.message import Message

from pairdbg.backends.events import ActionPerformed, Event
from pairdbg.backends.models import VariableView
from pairdbg.backends.queries import FrameData


class HubChanged(Message):
    """A hub event (not output, not activity) that may change what the panes show."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


class OutputReady(Message):
    """Program output is waiting in the bridge's buffer. Posted once per burst, so floods cost one repaint."""


class ActivityReady(Message):
    def __init__(self, event: ActionPerformed) -> None:
        super().__init__()
        self.event = event


class ActionFailed(Message):
    """An action the person started failed; shown as a notification and a console line, never a crash."""

    def __init__(self, action: str, code: str, message: str, hint: str | None) -> None:
        super().__init__()
        self.action = action
        self.code = code
        self.message = message
        self.hint = hint


class ActionDone(Message):
    def __init__(self, action: str, text: str, data: dict[str, Any]) -> None:
        super().__init__()
        self.action = action
        self.text = text
        self.data = data


class FrameLoaded(Message):
    def __init__(self, data: FrameData) -> None:
        super().__init__()
        self.data = data


class ChildrenLoaded(Message):
    """Children of one variables-tree node arrived (for the stop they were asked at)."""

    def __init__(self, node_id: int, generation: int, views: list[VariableView], total: int) -> None:
        super().__init__()
        self.node_id = node_id
        self.generation = generation
        self.views = views
        self.total = total


class EvaluationDone(Message):
    def __init__(self, expression: str, text: str, ok: bool, hint: str | None = None) -> None:
        super().__init__()
        self.expression = expression
        self.text = text
        self.ok = ok
        self.hint = hint
