"""The MCP agents connected now: connection bookkeeping owned by the MCP front end, announced on the Hub's bus."""

from __future__ import annotations

from dataclasses import dataclass

from pairdbg.backends.events import Event, EventBus

AGENT_IDLE_S = 600  # an agent silent this long no longer counts as connected
# A stateless (2026-07-28) agent with no listen stream open has nothing that would end when it leaves: it counts
# for this long after its last request.
MODERN_IDLE_S = 120


@dataclass(frozen=True)
class AgentsChanged(Event):
    """The set of connected agents changed (one joined, or one fell silent); `names` are their client names."""

    names: tuple[str, ...] = ()


class Agents:
    """Who is connected, by connection key; publishes AgentsChanged when that set changes, so a front end showing
    "N agents connected" listens instead of polling."""

    def __init__(self, bus: EventBus) -> None:
        self.bus = bus
        self.names: dict[str, str] = {}  # connection key -> client name
        self.seen_at: dict[str, float] = {}  # connection key -> time of its last request
        self.streams: dict[str, int] = {}  # connection key -> listen streams open now

    def __len__(self) -> int:
        return len(self.names)

    def forget(self, key: str) -> bool:
        """`key`'s connection ended (its session was deleted or its stream closed). True if it was counted."""
        self.seen_at.pop(key, None)
        if self.names.pop(key, None) is None:
            return False
        self.bus.publish(AgentsChanged(None, names=tuple(self.names.values())))
        return True

    def opened(self, key: str) -> None:
        self.streams[key] = self.streams.get(key, 0) + 1

    def closed(self, key: str) -> None:
        """One of `key`'s listen streams closed; with its last one, it is gone."""
        left = self.streams.get(key, 1) - 1
        if left > 0:
            self.streams[key] = left
            return
        self.streams.pop(key, None)
        self.forget(key)

    def _stale(self, now: float) -> list[str]:
        def idle_limit(key: str) -> float:
            return MODERN_IDLE_S if key.startswith("modern:") else AGENT_IDLE_S

        return [k for k, seen in self.seen_at.items() if not self.streams.get(k) and now - seen > idle_limit(k)]

    def expire(self, now: float) -> list[str]:
        """Forget the agents silent for too long (checked on a timer too, not only when another agent makes a
        request). Returns their keys."""
        stale = self._stale(now)
        for k in stale:
            self.seen_at.pop(k, None)
            self.names.pop(k, None)
        if stale:
            self.bus.publish(AgentsChanged(None, names=tuple(self.names.values())))
        return stale

    def saw(self, key: str, name: str, now: float) -> list[str]:
        """`key` made a request at `now`. Returns the keys forgotten as stale (HTTP reconnects make new keys)."""
        changed = self.names.get(key) != name
        self.names[key] = name
        self.seen_at[key] = now
        stale = self._stale(now)
        for k in stale:
            self.seen_at.pop(k, None)
            self.names.pop(k, None)
        if changed or stale:
            self.bus.publish(AgentsChanged(None, names=tuple(self.names.values())))
        return stale
