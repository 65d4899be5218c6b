"""Hub bus → Textual messages, each sent to the one widget that handles its type. The listener runs inside
`bus.publish`, so it only buffers and posts; it never touches a widget, and a flood of program output becomes one
`OutputReady` per burst instead of one per line."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

from textual.message import Message
from textual.message_pump import MessagePump

from pairdbg.backends.events import ActionPerformed, Event, OutputAppended, ResourceChanged, ResourceListChanged
from pairdbg.backends.focus import HUMAN, FocusChanged
from pairdbg.backends.hub import Hub
from pairdbg.backends.models import OutputEntry
from pairdbg.backends.policy import AgentModeChanged
from pairdbg.mcp_bridge.agents import AgentsChanged

from .early import EarlyEvents
from .messages import (
    ActivityReady,
    AgentLooked,
    HeaderChanged,
    HubChanged,
    OutputReady,
    PageChanged,
    RnChanged,
)

Routes = Mapping[type[Message], MessagePump]


class HubBridge:
    def __init__(self, hub: Hub, max_buffered: int = 2000) -> None:
        self.hub = hub
        self._routes: dict[type[Message], MessagePump] = {}
        self._output: deque[tuple[str, OutputEntry]] = deque(maxlen=max_buffered)
        self._output_posted = False
        self.dropped = 0  # output lines lost because the UI fell more than max_buffered behind

    def attach(self, routes: Routes, early: EarlyEvents | None = None) -> None:
        """Start listening; `routes` names the widget (or app) each message type goes to. A type with no route
        (the RN view in a run without the RN service) is not posted. `early`: what the Hub said before (a launch
        started while the app loaded), heard first, in order, as if it came now."""
        self._routes = dict(routes)
        if early is not None:
            for event in early.take():
                self.on_event(event)
            self.dropped += early.dropped_output
        self.hub.bus.add_listener(self.on_event)
        self.hub.focus.attach(HUMAN)  # a person is looking now: agents may ask what at

    def detach(self) -> None:
        self.hub.focus.detach(HUMAN)
        self.hub.bus.remove_listener(self.on_event)
        self._routes = {}

    def post(self, message: Message) -> bool:
        target = self._routes.get(type(message))
        return target is not None and target.post_message(message)

    def on_event(self, event: Event) -> None:
        if isinstance(event, OutputAppended):
            if event.entry is None:
                return
            if len(self._output) == self._output.maxlen:
                self.dropped += 1
            self._output.append((event.session_id or "", event.entry))
            if not self._output_posted:
                self._output_posted = self.post(OutputReady())
        elif isinstance(event, FocusChanged):
            if event.actor != HUMAN:  # the person's own selection is made here; an agent's is marked
                self.post(AgentLooked(event.actor))
        elif isinstance(event, ActionPerformed):
            self.post(ActivityReady(event))
        elif isinstance(event, (AgentsChanged, AgentModeChanged)):
            self.post(HeaderChanged(event))
        elif isinstance(event, (ResourceChanged, ResourceListChanged)):
            if event.service == "bridge":
                if isinstance(event, ResourceChanged):  # queued ones coalesce (can_replace)
                    self.post(PageChanged({event.session_id or ""}))
            elif event.service == "rn":
                self.post(RnChanged())
        else:
            self.post(HubChanged(event))

    def drain_output(self, limit: int | None = None) -> tuple[list[tuple[str, OutputEntry]], int]:
        """What was buffered since the last drain (at most `limit` entries: the rest waits for the OutputReady this
        posts again, so keys are handled between two slices of a flood), and how many were dropped meanwhile."""
        if limit is None or len(self._output) <= limit:
            items = list(self._output)
            self._output.clear()
            self._output_posted = False
        else:
            items = [self._output.popleft() for _ in range(limit)]
            self.post(OutputReady())
        dropped, self.dropped = self.dropped, 0
        return items, dropped
