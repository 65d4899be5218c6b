"""Typed Hub events and the bus that fans them out on bounded queues (a slow consumer never blocks a backend)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .models import BreakpointView, OutputEntry, Phase, StopReport


@dataclass(frozen=True)
class Event:
    session_id: str | None


@dataclass(frozen=True)
class SessionAdded(Event):
    name: str = ""


@dataclass(frozen=True)
class SessionRemoved(Event):
    pass


@dataclass(frozen=True)
class PhaseChanged(Event):
    phase: Phase = Phase.STARTING
    detail: str | None = None


@dataclass(frozen=True)
class Stopped(Event):
    report: StopReport | None = None


@dataclass(frozen=True)
class OutputAppended(Event):
    entry: OutputEntry | None = None


@dataclass(frozen=True)
class BreakpointsChanged(Event):
    breakpoints: tuple[BreakpointView, ...] = ()


@dataclass(frozen=True)
class ResourceChanged(Event):
    """An MCP resource a service owns has new content (e.g. debug://redux/state)."""

    uri: str = ""
    service: str = ""  # whose resource ("rn", "bridge"): front ends route by it, not by the URI's shape


@dataclass(frozen=True)
class ResourceListChanged(Event):
    """A service's list of resources changed (e.g. a new storage instance appeared)."""

    service: str = ""


@dataclass(frozen=True)
class ActionPerformed(Event):
    """Who did what and how it went: the activity feed both the person and the agent read."""

    actor: str = "human"
    action: str = ""
    summary: str = ""
    ok: bool = True
    outcome: str = ""
    at: float = 0.0
    params: dict[str, Any] = field(default_factory=dict)


class Subscription:
    """One consumer's bounded queue. When full, the oldest event is dropped and counted, never the producer."""

    def __init__(self, bus: EventBus, maxsize: int, predicate: Callable[[Event], bool] | None) -> None:
        self._bus = bus
        self.queue: asyncio.Queue[Event] = asyncio.Queue(maxsize)
        self.predicate = predicate
        self.dropped = 0

    def offer(self, event: Event) -> None:
        if self.predicate is not None and not self.predicate(event):
            return
        if self.queue.full():
            self.queue.get_nowait()
            self.dropped += 1
        self.queue.put_nowait(event)

    async def get(self) -> Event:
        return await self.queue.get()

    def close(self) -> None:
        self._bus.unsubscribe(self)

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Event:
        return await self.queue.get()


class EventBus:
    """Publishing is synchronous and never awaits a consumer; listeners are plain callbacks run in order."""

    def __init__(self) -> None:
        self._subs: list[Subscription] = []
        self._listeners: list[Callable[[Event], None]] = []

    def subscribe(self, maxsize: int = 1000, predicate: Callable[[Event], bool] | None = None) -> Subscription:
        sub = Subscription(self, maxsize, predicate)
        self._subs.append(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        if sub in self._subs:
            self._subs.remove(sub)

    def add_listener(self, fn: Callable[[Event], None]) -> None:
        """A callback run synchronously on publish; it must be quick (post a message, set a flag)."""
        self._listeners.append(fn)

    def remove_listener(self, fn: Callable[[Event], None]) -> None:
        if fn in self._listeners:
            self._listeners.remove(fn)

    def publish(self, event: Event) -> None:
        for sub in list(self._subs):
            sub.offer(event)
        for fn in list(self._listeners):
            fn(event)
