"""What the mcp-debugger profile remembers itself: a session as mcp-debugger knows it (`created` until a program is
started or attached, with the breakpoints set before that), the ids a client was given for them, and when each
session last stopped. Everything else is read from pairdbg's sessions."""

from __future__ import annotations

import datetime
import time
from dataclasses import dataclass, field
from typing import Any

from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.backends.events import Event, SessionRemoved, Stopped
from pairdbg.backends.hub import Hub
from pairdbg.backends.models import Phase

# A record lives in pairdbg's memory until it is closed, and every list_debug_sessions repeats them all: bounded, so
# a reply cannot grow with what agents create (60 records with 1 MB names once made a 126 MB reply).
MAX_RECORDS = 50
NAME_CHARS = 200
#: pairdbg phase -> mcp-debugger SessionState
STATES = {
    Phase.STARTING: "initializing",
    Phase.RUNNING: "running",
    Phase.RECONNECTING: "running",
    Phase.PAUSED: "paused",
    Phase.TERMINATED: "stopped",
    Phase.DISCONNECTED: "stopped",
    Phase.ERROR: "error",
}


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class Record:
    """A session as mcp-debugger knows it: `created` until a program is started or attached."""

    id: str
    name: str
    language: str
    executable_path: str | None
    created_at: str
    updated_at: str
    #: breakpoints set before the start, each with the id its client was given ("BPn")
    pending: list[dict[str, Any]] = field(default_factory=list)
    issued: int = 0  # pending ids handed out so far
    #: a client's breakpoint id -> the session's, where they differ (a recorded one removed before the start)
    aliases: dict[str, str] = field(default_factory=dict)
    session_id: str | None = None  # the pairdbg session, once started
    detached: bool = False
    output_from: int = 0  # get_output's start: the output cursor at the last restart

    def next_pending_id(self) -> str:
        self.issued += 1
        return f"BP{self.issued}"

    def client_id(self, real_id: str) -> str:
        """The id this client knows the session's breakpoint `real_id` by; a new one when the session's id already
        names another breakpoint to this client."""
        mine = next((mine for mine, real in self.aliases.items() if real == real_id), None)
        if mine is not None:
            return mine
        if real_id not in self.aliases:
            return real_id
        used = [int(i[2:]) for i in (*self.aliases, *self.aliases.values(), real_id) if i[2:].isdigit()]
        self.issued = max(self.issued, *used) + 1
        self.aliases[f"BP{self.issued}"] = real_id
        return f"BP{self.issued}"

    def forget(self, client_id: str) -> None:
        """A removed breakpoint's id means nothing any more."""
        self.aliases.pop(client_id, None)


class Sessions:
    """This profile's records, and pairdbg sessions it did not create (a person's), under their own ids."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.records: dict[str, Record] = {}
        self.stopped_at: dict[str, int] = {}  # pairdbg session id -> ms since the epoch of its newest stop
        #: pairdbg session id -> (stop number, frame handle -> frameId, frameId -> handle) of its newest stop
        self.frames: dict[str, tuple[int, dict[str, int], dict[int, str]]] = {}
        hub.bus.add_listener(self._heard)

    def _heard(self, event: Event) -> None:
        if isinstance(event, Stopped) and event.session_id:
            self.stopped_at[event.session_id] = int(time.time() * 1000)
        elif isinstance(event, SessionRemoved) and event.session_id:
            self.stopped_at.pop(event.session_id, None)
            self.frames.pop(event.session_id, None)

    def _frame_table(self, session_id: str) -> tuple[dict[str, int], dict[int, str]]:
        stop = self.hub.get(session_id).stop_number
        known = self.frames.get(session_id)
        if known is None or known[0] != stop:
            known = self.frames[session_id] = (stop, {}, {})
        return known[1], known[2]

    def frame_number(self, session_id: str, handle: str) -> int:
        """mcp-debugger's numeric frameId for a frame handle of the current stop: @fN is N; a hidden library frame
        (@f0-1) or another thread's (@f2.0) gets a number from 10000 on, valid for this stop."""
        by_handle, by_number = self._frame_table(session_id)
        if handle not in by_handle:
            plain = handle[2:]
            number = int(plain) if plain.isdigit() else 10000 + len(by_number)
            by_handle[handle], by_number[number] = number, handle
        return by_handle[handle]

    def frame_handle(self, session_id: str, number: int) -> str:
        return self._frame_table(session_id)[1].get(number, f"@f{number}")

    def find(self, sid: str) -> tuple[Record | None, str | None]:
        """(record, pairdbg session id); SESSION_NOT_FOUND when neither knows `sid`."""
        record = self.records.get(sid)
        if record is not None:
            return record, record.session_id
        if sid in self.hub.sessions:
            return None, sid
        raise DebugError(
            ErrorCode.SESSION_NOT_FOUND,
            f"Session not found: {sid}",
            hint="list_debug_sessions shows the sessions; create_debug_session makes one",
        )

    def live(self, sid: str) -> str:
        """The pairdbg session behind `sid`; refuses a session that was never started."""
        record, session_id = self.find(sid)
        if session_id is None or (record is not None and record.detached):
            raise DebugError(
                ErrorCode.SESSION_INVALID_STATE,
                f"session {sid} is {self.state(record, None)}: no program is running in it",
                hint="start_debugging(sessionId, scriptPath) or attach_to_process first",
            )
        if record is not None:
            record.updated_at = now()
        return session_id

    def state(self, record: Record | None, session_id: str | None) -> str:
        if record is not None and record.detached:
            return "stopped"
        if session_id is None:
            return "created"
        session = self.hub.sessions.get(session_id)
        return STATES[session.phase] if session is not None else "stopped"

    def last_stop(self, session_id: str | None) -> dict[str, Any] | None:
        """mcp-debugger's lastStop of a paused session: reason, thread, when, and the exception when it is one."""
        session = self.hub.sessions.get(session_id) if session_id else None
        if session is None or session.phase != Phase.PAUSED or session.last_stop is None:
            return None
        stop = session.last_stop
        out: dict[str, Any] = {"reason": stop.reason, "threadId": stop.thread_id}
        if session_id in self.stopped_at:
            out["timestamp"] = self.stopped_at[session_id]
        if stop.exception is not None:
            exc = stop.exception
            out["description"] = exc.message or stop.description or exc.type
            out["text"] = exc.type
            info: dict[str, Any] = {"exceptionId": exc.type, "description": exc.message or ""}
            if exc.break_mode:
                info["breakMode"] = exc.break_mode
            details: dict[str, Any] = {"message": exc.message or "", "typeName": exc.type}
            if exc.raised_at:
                details["raisedAt"] = exc.raised_at
            info["details"] = details
            out["exceptionInfo"] = info
        elif stop.description:
            out["description"] = stop.description
        return out
