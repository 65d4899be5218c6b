"""Hub bus → Textual messages. The listener runs inside `bus.publish`, so it only buffers and posts; it never
touches a widget, and a flood of program output becomes one `OutputReady` per burst instead of one per line."""

from __future__ import annotations

from collections import deque

from textual.app import App

from pairdbg.backends.events import ActionPerformed, Event, OutputAppended, ResourceChanged, ResourceListChanged
from pairdbg.backends.focus import HUMAN, FocusChanged
from pairdbg.backends.hub import Hub
from pairdbg.backends.models import OutputEntry

from .agent_marks import AgentLooked
from .messages import ActivityReady, HubChanged, OutputReady, PageChanged
from .rn_view import RnChanged


class HubBridge:
    def __init__(self, hub: Hub, app: App, max_buffered: int = 2000) -> None:
        self.hub = hub
        self.app = app
        self._output: deque[tuple[str, OutputEntry]] = deque(maxlen=max_buffered)
        self._output_posted = False
        self._rn_posted = False  # one RnChanged per burst of service resource changes
        self.dropped = 0  # output lines lost because the UI fell more than max_buffered behind

    def attach(self) -> None:
        self.hub.bus.add_listener(self.on_event)
        self.hub.focus.attach(HUMAN)  # a person is looking now: agents may ask what at

    def detach(self) -> None:
        self.hub.focus.detach(HUMAN)
        self.hub.bus.remove_listener(self.on_event)

    def on_event(self, event: Event) -> None:
        if isinstance(event, OutputAppended):
            if event.entry is None:
                return
            if len(self._output) == self._output.maxlen:
                self.dropped += 1
            self._output.append((event.session_id or "", event.entry))
            if not self._output_posted:
                self._output_posted = True
                self.app.post_message(OutputReady())
        elif isinstance(event, FocusChanged):
            if event.actor != HUMAN:  # the person's own selection is made here; an agent's is marked
                self.app.post_message(AgentLooked(event.actor))
        elif isinstance(event, ActionPerformed):
            self.app.post_message(ActivityReady(event))
        elif isinstance(event, ResourceChanged) and event.uri.startswith("bridge://"):
            self.app.post_message(PageChanged({event.session_id or ""}))  # queued ones coalesce (can_replace)
        elif isinstance(event, (ResourceChanged, ResourceListChanged)):
            if not self._rn_posted:
                self._rn_posted = True
                self.app.post_message(RnChanged())
        else:
            self.app.post_message(HubChanged(event))

    def drain_output(self, limit: int | None = None) -> tuple[list[tuple[str, OutputEntry]], int]:
        """What was buffered since the last drain (at most `limit` entries: the rest waits for the OutputReady this
        posts again, so keys are handled between two slices of a flood), and how many were dropped meanwhile."""
        if limit is None or len(self._output) <= limit:
            items = list(self._output)
            self._output.clear()
            self._output_posted = False
        else:
            items = [self._output.popleft() for _ in range(limit)]
            self.app.post_message(OutputReady())
        dropped, self.dropped = self.dropped, 0
        return items, dropped

    def rn_seen(self) -> None:
        """The UI handled the last RnChanged: the next resource change posts a new one."""
        self._rn_posted = False
