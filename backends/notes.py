"""Notes between the person and the agents: short texts attached to a session, a file:line or a variable.

Core state, bounded per session (count and size; the oldest note goes first and is counted), announced as
`NoteAdded`. Each actor's reader position is kept too, so a stop report can carry the notes the *other* side wrote
since this actor last saw notes (`unseen`).
"""

from __future__ import annotations

import os
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

from .events import Event, EventBus, SessionRemoved


@dataclass(frozen=True)
class Note:
    id: str  # N<number>, never repeated in one pairdbg
    number: int
    session_id: str
    author: str  # "human" or "agent:<client>"
    text: str
    file: str | None = None
    line: int | None = None
    variable: str | None = None  # a name or @vN handle
    stop: int | None = None  # the session's stop when it was written
    at: float = 0.0

    def place(self) -> str:
        """`orders.py:14`, `variable total`, or `session S1`."""
        if self.file:
            return f"{os.path.basename(self.file)}:{self.line}" if self.line else os.path.basename(self.file)
        if self.variable:
            return f"variable {self.variable}"
        return f"session {self.session_id}"

    def data(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "session_id": self.session_id, "author": self.author, "text": self.text}
        for key in ("file", "line", "variable", "stop"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        out["at"] = self.at
        return out

    def line_text(self) -> str:
        return f"{self.id} {self.author} on {self.place()}: {self.text}"


@dataclass(frozen=True)
class NoteAdded(Event):
    note: Note | None = None


class NoteBook:
    """Every session's notes, each session's bounded to `per_session` (the oldest dropped and counted)."""

    def __init__(self, bus: EventBus | None = None, per_session: int = 50, chars: int = 2000) -> None:
        self.per_session = per_session
        self.chars = chars
        self._bus = bus
        self._notes: dict[str, deque[Note]] = {}
        self.dropped: dict[str, int] = {}
        self._next = 1
        self._read: dict[tuple[str, str], int] = {}  # (actor, session) -> newest note number shown to that actor
        if bus is not None:
            bus.add_listener(self._on_event)

    def add(
        self,
        session_id: str,
        author: str,
        text: str,
        *,
        file: str | None = None,
        line: int | None = None,
        variable: str | None = None,
        stop: int | None = None,
    ) -> Note:
        """Keep a note (the caller checked `text` is within `chars`), announce it, and drop the oldest beyond
        the session's bound."""
        note = Note(f"N{self._next}", self._next, session_id, author, text, file, line, variable, stop, at=time.time())
        self._next += 1
        notes = self._notes.setdefault(session_id, deque())
        notes.append(note)
        while len(notes) > self.per_session:
            notes.popleft()
            self.dropped[session_id] = self.dropped.get(session_id, 0) + 1
        if self._bus is not None:
            self._bus.publish(NoteAdded(session_id, note=note))
        return note

    def of(self, session_id: str) -> list[Note]:
        return list(self._notes.get(session_id, ()))

    def sessions(self) -> list[str]:
        return list(self._notes)

    def unseen(self, actor: str, session_id: str) -> list[Note]:
        """Notes others wrote in this session since `actor` was last shown them."""
        after = self._read.get((actor, session_id), 0)
        return [n for n in self._notes.get(session_id, ()) if n.number > after and n.author != actor]

    def seen_by(self, actor: str, session_id: str, number: int) -> None:
        key = (actor, session_id)
        self._read[key] = max(self._read.get(key, 0), number)

    def into_stop_report(self, actor: str, data: dict[str, Any]) -> str | None:
        """A reply holding a stop report (`data["stop"]`) gets the notes others wrote in its session since `actor`
        last saw them, as data (`notes`) and as the text block returned; they count as seen then."""
        sid = data.get("session_id")
        if not isinstance(data.get("stop"), dict) or not isinstance(sid, str):
            return None
        unseen = self.unseen(actor, sid)
        if not unseen:
            return None
        self.seen_by(actor, sid, unseen[-1].number)
        data["notes"] = [n.data() for n in unseen]
        return "Notes:\n" + "\n".join(f"  {n.line_text()}" for n in unseen)

    def view(self) -> dict[str, Any]:
        """Every session's notes as data (debug://notes)."""
        return {
            sid: {"notes": [n.data() for n in notes], "dropped": self.dropped.get(sid, 0)}
            for sid, notes in self._notes.items()
        }

    def _on_event(self, event: Event) -> None:
        if isinstance(event, SessionRemoved) and event.session_id:  # a forgotten session takes its notes along
            self._notes.pop(event.session_id, None)
            self.dropped.pop(event.session_id, None)
            for key in [k for k in self._read if k[1] == event.session_id]:
                del self._read[key]
