"""The error tree every action raises, with stable codes an agent can branch on.

    DebugError(code, message, hint)          base: every failure a person or agent can see
      code is one of ErrorCode:
        SESSION_NOT_FOUND      no session with that id (list_debug_sessions shows the live ones)
        SESSION_INVALID_STATE  the session's phase forbids the action (e.g. it has ended)
        NOT_PAUSED             the action needs a paused program (step, evaluate, stack)
        CAPABILITY_UNSUPPORTED the backend cannot do this at all
        CONNECTION_FAILED      could not start or reach the debug target/adapter
        PROTOCOL_ERROR         the adapter answered with an error or nonsense
        TIMEOUT                no answer within the bound
        INVALID_PARAMETERS     the call's arguments are wrong
        NOT_CONNECTED          the adapter/target went away
        PATH_NOT_FOUND         a file, handle or path does not exist (or has expired)
        LIMIT_EXCEEDED         a configured limit (sessions, breakpoints, expression size) was hit
        BUSY                   another actor holds the session for a conflicting action
      React Native listener (backends/rn, PROTOCOL.md; wire and tool codes are the same strings):
        STREAM_UNAVAILABLE     the app has no such stream (redux, navigation, mmkv) or nothing mirrored for it
        SCOPE_NOT_FOUND        a snapshot scope does not exist in the state
        SNAPSHOT_NOT_FOUND     the state at a seq cannot be served (details list the seqs that can)
        SNAPSHOT_UNAVAILABLE   (wire) the adapter cannot materialise that seq
        SEQ_EVICTED            the requested seq is older than the buffer (details.oldestSeq)
        PAYLOAD_TOO_LARGE      a result above the size budget; narrow it (scope, path, limit)
        UNAUTHORIZED           (wire) the app's token is wrong (close 4001)
        UNSUPPORTED_VERSION    (wire) no common protocol version (close 4002)
        BAD_REQUEST            (wire) a message or request params failed validation
        UNKNOWN_METHOD         (wire) the adapter does not implement that request
      debug-bridge (backends/bridge, PROTOCOL.md; the page's own code is in data.page_code):
        NOT_ACTIONABLE         the element exists but cannot take the action (hidden, covered, disabled, not editable)
        NAVIGATED              the page unloaded before the command's result came back
        ...and the remaining codes DESIGN.md lists for other backends.

Messages say what happened; hints say what to do next, so an agent's next call can be right.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    SESSION_NOT_FOUND = "SESSION_NOT_FOUND"
    SESSION_INVALID_STATE = "SESSION_INVALID_STATE"
    NOT_PAUSED = "NOT_PAUSED"
    CAPABILITY_UNSUPPORTED = "CAPABILITY_UNSUPPORTED"
    CONNECTION_FAILED = "CONNECTION_FAILED"
    PROTOCOL_ERROR = "PROTOCOL_ERROR"
    TIMEOUT = "TIMEOUT"
    INVALID_PARAMETERS = "INVALID_PARAMETERS"
    NOT_CONNECTED = "NOT_CONNECTED"
    STREAM_UNAVAILABLE = "STREAM_UNAVAILABLE"
    PATH_NOT_FOUND = "PATH_NOT_FOUND"
    SCOPE_NOT_FOUND = "SCOPE_NOT_FOUND"
    SNAPSHOT_NOT_FOUND = "SNAPSHOT_NOT_FOUND"
    PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"
    LIMIT_EXCEEDED = "LIMIT_EXCEEDED"
    BUSY = "BUSY"
    SEQ_EVICTED = "SEQ_EVICTED"
    SNAPSHOT_UNAVAILABLE = "SNAPSHOT_UNAVAILABLE"
    UNAUTHORIZED = "UNAUTHORIZED"
    UNSUPPORTED_VERSION = "UNSUPPORTED_VERSION"
    BAD_REQUEST = "BAD_REQUEST"
    UNKNOWN_METHOD = "UNKNOWN_METHOD"
    NOT_ACTIONABLE = "NOT_ACTIONABLE"
    NAVIGATED = "NAVIGATED"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    INTERNAL = "INTERNAL"


class DebugError(Exception):
    """A failure with a stable code, a message saying what happened and a hint saying what to do next."""

    def __init__(self, code: ErrorCode, message: str, hint: str | None = None, **data: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint
        self.data = data

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": str(self.code), "message": self.message}
        if self.hint:
            out["hint"] = self.hint
        if self.data:
            out["data"] = self.data
        return out

    def text(self) -> str:
        """The compact form an agent reads: code, message, then the next step."""
        line = f"{self.code}: {self.message}"
        return f"{line}\nNext: {self.hint}" if self.hint else line

    def __repr__(self) -> str:
        return f"DebugError({self.code!s}, {self.message!r})"


def not_paused(session_id: str, phase: str) -> DebugError:
    return DebugError(
        ErrorCode.NOT_PAUSED,
        f"session {session_id} is {phase}, not paused",
        hint=f"call wait_for_stop(session_id='{session_id}') or pause_execution first",
        phase=phase,
    )


def check_length(what: str, text: str | None, limit: int) -> None:
    """Refuse an expression, condition or value longer than the configured limit."""
    if text is not None and len(text) > limit:
        raise DebugError(ErrorCode.LIMIT_EXCEEDED, f"{what} is {len(text)} characters; the limit is {limit}")
