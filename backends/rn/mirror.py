"""The server-side mirror of what apps sent: per session, per stream, bounded event rings (by count and bytes)
with seq de-duplication and gap records, snapshots keyed by seq (LRU by bytes), and the state at any seq it holds
(nearest snapshot or checkpoint ≤ seq, then the events' RFC 6902 patches). Sessions outlive their connection; the
last few ended ones are kept for post-mortem.

States are immutable values (see jsondoc): the current state and checkpoints share structure, so keeping one every
`checkpoint_every` events costs little more than the patches themselves.
"""

from __future__ import annotations

import bisect
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from .jsondoc import Diff, PatchError, apply_patch


@dataclass
class Limits:
    max_events: int = 5000  # per stream
    max_event_bytes: int = 16 * 1024 * 1024  # per stream, sum of the events' wire sizes
    max_snapshot_bytes: int = 64 * 1024 * 1024  # per session, LRU
    checkpoint_every: int = 100  # materialised states kept every N events (per stream)
    ended_sessions: int = 3


@dataclass
class GapRecord:
    from_seq: int
    to_seq: int
    reason: str
    announced: bool
    at: float = field(default_factory=time.time)

    def as_dict(self) -> dict[str, Any]:
        return {"from": self.from_seq, "to": self.to_seq, "reason": self.reason, "announced": self.announced}


@dataclass
class StoredSnapshot:
    seq: int
    data: Any
    bytes: int
    at: float


class Unavailable(Exception):
    """The state at a seq cannot be materialised; `available` lists the seqs that can (ranges)."""

    def __init__(self, message: str, available: list[list[int]], evicted: bool = False) -> None:
        super().__init__(message)
        self.available = available
        self.evicted = evicted


class StreamMirror:
    def __init__(self, name: str, session: SessionMirror) -> None:
        self.name = name
        self.session = session
        self.info: dict[str, Any] = {}
        self._seqs: list[int] = []  # ascending seqs of the ring (head at self._head)
        self._events: list[dict[str, Any]] = []
        self._sizes: list[int] = []
        self._head = 0
        self.bytes = 0
        self.last_seq = 0  # the highest seq received (or declared by a gap)
        self.total = 0  # events accepted over the session's life
        self.duplicates = 0
        self.evicted = 0
        self.gaps: list[GapRecord] = []
        self.last_event_at: float | None = None
        self.snapshot_seqs: list[int] = []  # ascending seqs of stored snapshots
        # The current state as patches advance it; None when unknown (no snapshot yet / a patch was missing).
        self.cur_seq: int | None = None
        self.cur_state: Any = None
        self._checkpoints: OrderedDict[int, Any] = OrderedDict()
        self._since_checkpoint = 0
        self.patch_failures = 0

    # ----- ring ---------------------------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._seqs) - self._head

    @property
    def oldest_seq(self) -> int:
        return self._seqs[self._head] if len(self) else self.last_seq + 1 if self.last_seq else 0

    @property
    def latest_seq(self) -> int:
        return self._seqs[-1] if len(self) else self.last_seq

    def add_event(self, item: dict[str, Any], size: int, now: float) -> bool:
        """Store one event; False for a duplicate (seq <= last). Records an unannounced gap."""
        seq = item["seq"]
        if seq <= self.last_seq:
            self.duplicates += 1
            return False
        if seq > self.last_seq + 1:
            self.gaps.append(GapRecord(self.last_seq + 1, seq - 1, "unannounced", announced=False))
            self._invalidate()
        self.last_seq = seq
        self._seqs.append(seq)
        self._events.append(item)
        self._sizes.append(size)
        self.bytes += size
        self.total += 1
        self.last_event_at = now
        self._advance(item)
        limits = self.session.limits
        while len(self) > limits.max_events or (self.bytes > limits.max_event_bytes and len(self) > 1):
            self._evict_one()
        return True

    def _evict_one(self) -> None:
        self.bytes -= self._sizes[self._head]
        self._events[self._head] = None  # type: ignore[call-overload]
        self._head += 1
        self.evicted += 1
        if self._head > 1024 and self._head * 2 > len(self._seqs):
            del self._seqs[: self._head], self._events[: self._head], self._sizes[: self._head]
            self._head = 0
        oldest = self.oldest_seq
        while self._checkpoints and next(iter(self._checkpoints)) < oldest - 1:
            self._checkpoints.popitem(last=False)

    def gap(self, from_seq: int, to_seq: int, reason: str) -> None:
        if to_seq <= self.last_seq:
            return
        self.gaps.append(GapRecord(max(from_seq, self.last_seq + 1), to_seq, reason, announced=True))
        self.last_seq = to_seq
        self._invalidate()

    def _index(self, seq: int) -> int:
        """Position of the first event with seq >= `seq`."""
        return bisect.bisect_left(self._seqs, seq, self._head)

    def event_at(self, seq: int) -> dict[str, Any] | None:
        i = self._index(seq)
        return self._events[i] if i < len(self._seqs) and self._seqs[i] == seq else None

    def size_of(self, ev: dict[str, Any]) -> int:
        """The stored wire size of an event of this ring (its share of the frame it came in)."""
        i = self._index(ev.get("seq", 0))
        return self._sizes[i] if i < len(self._seqs) and self._events[i] is ev else 256

    def query(self, since_seq: int | None, limit: int, event_type: str | None) -> tuple[list[dict[str, Any]], bool]:
        """Events with seq > since_seq (type-filtered), ascending, at most `limit`; and whether more match."""
        i = self._index((since_seq or 0) + 1)
        out: list[dict[str, Any]] = []
        n = len(self._seqs)
        while i < n:
            ev = self._events[i]
            i += 1
            if event_type is not None and ev.get("type") != event_type:
                continue
            if len(out) == limit:
                return out, True
            out.append(ev)
        return out, False

    # ----- state --------------------------------------------------------------------------------------------------

    def _invalidate(self) -> None:
        self.cur_state, self.cur_seq = None, None

    def _advance(self, item: dict[str, Any]) -> None:
        if self.cur_seq is None or item["seq"] != self.cur_seq + 1:
            if self.cur_seq is not None and item["seq"] > self.cur_seq + 1:
                self._invalidate()
            return
        data = item.get("data")
        patch = data.get("patch") if isinstance(data, dict) else None
        if not isinstance(patch, list):
            self._invalidate()
            return
        try:
            self.cur_state = apply_patch(self.cur_state, patch) if patch else self.cur_state
        except PatchError:
            self.patch_failures += 1
            self._invalidate()
            return
        self.cur_seq = item["seq"]
        self._since_checkpoint += 1
        if self._since_checkpoint >= self.session.limits.checkpoint_every:
            self._checkpoints[self.cur_seq] = self.cur_state
            self._since_checkpoint = 0

    def add_snapshot(self, seq: int, data: Any, size: int, now: float) -> None:
        self.session.store_snapshot(self, StoredSnapshot(seq, data, size, now))
        if seq not in self.snapshot_seqs:
            bisect.insort(self.snapshot_seqs, seq)
        if self.cur_seq is None or seq >= self.cur_seq:
            self.cur_seq, self.cur_state = seq, data
            self._since_checkpoint = 0
            # Events already received beyond the snapshot (it overtook them) advance it further.
            nxt = self.event_at(seq + 1)
            while nxt is not None and self.cur_seq is not None:
                self._advance(nxt)
                nxt = self.event_at(self.cur_seq + 1) if self.cur_seq is not None else None

    def _drop_snapshot_seq(self, seq: int) -> None:
        i = bisect.bisect_left(self.snapshot_seqs, seq)
        if i < len(self.snapshot_seqs) and self.snapshot_seqs[i] == seq:
            del self.snapshot_seqs[i]

    @property
    def latest_snapshot(self) -> StoredSnapshot | None:
        if not self.snapshot_seqs:
            return None
        return self.session.snapshots.get((self.name, self.snapshot_seqs[-1]))

    def current(self) -> tuple[int, Any, bool] | None:
        """(seq, state, exact): the state at the newest seq (exact) or, failing that, the newest snapshot."""
        if self.cur_seq is not None:
            return self.cur_seq, self.cur_state, self.cur_seq >= self.last_seq
        snap = self.latest_snapshot
        return (snap.seq, snap.data, snap.seq >= self.last_seq) if snap else None

    def _bases(self) -> list[tuple[int, Any]]:
        bases: dict[int, Any] = dict(self._checkpoints)
        for s in self.snapshot_seqs:
            snap = self.session.snapshots.get((self.name, s))
            if snap is not None:
                bases[s] = snap.data
        if self.cur_seq is not None:
            bases[self.cur_seq] = self.cur_state
        return sorted(bases.items())

    def state_at(self, seq: int) -> Any:
        """The state right after event `seq`. Raises Unavailable."""
        bases = self._bases()
        for base_seq, base in reversed(bases):
            if base_seq > seq:
                continue
            state, s = base, base_seq
            while s < seq:
                ev = self.event_at(s + 1)
                data = ev.get("data") if ev is not None else None
                patch = data.get("patch") if isinstance(data, dict) else None
                if not isinstance(patch, list):
                    break
                try:
                    state = apply_patch(state, patch) if patch else state
                except PatchError:
                    break
                s += 1
            if s == seq:
                return state
        avail = self.available()
        evicted = seq < self.oldest_seq - 1 and not any(a <= seq <= b for a, b in avail)
        raise Unavailable(f"{self.name}: the state at seq {seq} cannot be materialised", avail, evicted)

    def available(self) -> list[list[int]]:
        """Seq ranges [from, to] whose state can be materialised (snapshots/checkpoints followed by patches)."""
        ranges: list[list[int]] = []
        for base_seq, _ in self._bases():
            s = base_seq
            while True:
                ev = self.event_at(s + 1)
                data = ev.get("data") if ev is not None else None
                if not isinstance(data, dict) or not isinstance(data.get("patch"), list):
                    break
                s += 1
            if ranges and base_seq <= ranges[-1][1] + 1:
                ranges[-1][1] = max(ranges[-1][1], s)
            else:
                ranges.append([base_seq, s])
        return ranges

    def diff(self, base_seq: int, target_seq: int, max_ops: int = 200) -> Diff:
        return Diff(max_ops).run(self.state_at(base_seq), self.state_at(target_seq))

    def summary(self) -> dict[str, Any]:
        snap = self.latest_snapshot
        return {
            "name": self.name,
            "eventCount": self.total,
            "buffered": len(self),
            "latestSeq": self.latest_seq,
            "oldestSeq": self.oldest_seq,
            "hasSnapshot": snap is not None or self.cur_seq is not None,
            "snapshotSeq": snap.seq if snap else None,
            "lastEventAt": self.last_event_at,
            "duplicates": self.duplicates,
            "evicted": self.evicted,
            "gaps": len(self.gaps),
        }


class SessionMirror:
    def __init__(self, session_id: str, limits: Limits) -> None:
        self.session_id = session_id
        self.limits = limits
        self.hello: dict[str, Any] = {}
        self.streams: dict[str, StreamMirror] = {}
        self.snapshots: OrderedDict[tuple[str, int], StoredSnapshot] = OrderedDict()
        self.snapshot_bytes = 0
        self.created_at = time.time()
        self.ended_at: float | None = None

    def stream(self, name: str) -> StreamMirror:
        s = self.streams.get(name)
        if s is None:
            s = self.streams[name] = StreamMirror(name, self)
        return s

    def store_snapshot(self, stream: StreamMirror, snap: StoredSnapshot) -> None:
        key = (stream.name, snap.seq)
        old = self.snapshots.pop(key, None)
        if old is not None:
            self.snapshot_bytes -= old.bytes
        self.snapshots[key] = snap
        self.snapshot_bytes += snap.bytes
        # LRU by bytes, but never evict the newest snapshot of a stream.
        for k in list(self.snapshots):
            if self.snapshot_bytes <= self.limits.max_snapshot_bytes:
                break
            name, seq = k
            s = self.streams.get(name)
            if k == key or (s is not None and s.snapshot_seqs and s.snapshot_seqs[-1] == seq):
                continue
            self.snapshot_bytes -= self.snapshots.pop(k).bytes
            if s is not None:
                s._drop_snapshot_seq(seq)

    def touch_snapshot(self, stream: str, seq: int) -> StoredSnapshot | None:
        snap = self.snapshots.get((stream, seq))
        if snap is not None:
            self.snapshots.move_to_end((stream, seq))
        return snap


class Mirror:
    """All sessions: the live one (`current`) and the last few ended ones."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self.sessions: OrderedDict[str, SessionMirror] = OrderedDict()
        self.current: SessionMirror | None = None

    def open(self, session_id: str) -> tuple[SessionMirror, bool]:
        """The mirror for a session (new or resumed) made current; ends the previous one if it differs."""
        existing = self.sessions.get(session_id)
        if self.current is not None and self.current.session_id != session_id:
            self.end(self.current)
        if existing is not None and existing.ended_at is None:
            self.current = existing
            return existing, True
        if existing is not None:  # an ended session coming back (clock skew, same id): resume it anyway
            existing.ended_at = None
            self.current = existing
            return existing, True
        s = SessionMirror(session_id, self.limits)
        self.sessions[session_id] = s
        self.current = s
        return s, False

    def end(self, session: SessionMirror) -> None:
        session.ended_at = session.ended_at or time.time()
        if self.current is session:
            self.current = None
        ended = [s for s in self.sessions.values() if s.ended_at is not None]
        for s in ended[: max(0, len(ended) - self.limits.ended_sessions)]:
            self.sessions.pop(s.session_id, None)

    def latest(self) -> SessionMirror | None:
        """The live session, else the most recently ended one (post-mortem)."""
        if self.current is not None:
            return self.current
        ended = [s for s in self.sessions.values() if s.ended_at is not None]
        return max(ended, key=lambda s: s.ended_at or 0) if ended else None
