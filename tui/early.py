"""What the Hub says before the app can listen.

`pairdbg PROGRAM` and `pairdbg test` start their launch before Textual and the app have loaded, so the program
starts while the window is still being built. Until the app's `HubBridge` attaches, `EarlyEvents` keeps what the
Hub publishes (the session added, its phases, its stop, its output, the launch's activity line); `HubBridge.attach`
then hears it all, in order, before listening itself. This module loads no Textual: it listens before Textual
is imported."""

from __future__ import annotations

import heapq
import itertools
import logging
from collections import deque

from pairdbg.backends.events import Event, EventBus, OutputAppended

log = logging.getLogger(__name__)

#: Program output kept until the app attaches: the newest lines, as many as the bridge itself buffers.
MAX_OUTPUT = 2000
#: Every other event (sessions, phases, stops, actions): a few dozen in a normal start.
MAX_EVENTS = 10_000


class EarlyEvents:
    """A bus listener from `__init__` until `take()`. Output and other events are bounded apart, so a flood of
    output drops only the oldest output (counted in `dropped_output`), never a session's own events."""

    def __init__(self, bus: EventBus, max_output: int = MAX_OUTPUT, max_events: int = MAX_EVENTS) -> None:
        self.bus = bus
        self._order = itertools.count()
        self._output: deque[tuple[int, Event]] = deque(maxlen=max_output)
        self._events: deque[tuple[int, Event]] = deque(maxlen=max_events)
        self.dropped_output = 0
        self.dropped_events = 0
        bus.add_listener(self._heard)

    def _heard(self, event: Event) -> None:
        kept = self._output if isinstance(event, OutputAppended) else self._events
        if len(kept) == kept.maxlen:
            if kept is self._output:
                self.dropped_output += 1
            else:
                self.dropped_events += 1
        kept.append((next(self._order), event))

    def take(self) -> list[Event]:
        """Stop listening and hand over what was heard, oldest first. The caller starts its own listener before
        it next awaits, so nothing is missed or heard twice in between (both run on the loop)."""
        self.bus.remove_listener(self._heard)
        if self.dropped_events:
            log.warning("%d hub events before the TUI attached were dropped", self.dropped_events)
            self.dropped_events = 0
        heard = [event for _, event in heapq.merge(self._output, self._events, key=lambda pair: pair[0])]
        self._output.clear()
        self._events.clear()
        return heard
