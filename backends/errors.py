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
        EVALUATION_FAILED      an expression ran in the program and raised, or does not parse (data: exception_type,
                               exception_message, syntax_error); the arguments were fine
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

import re
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
    EVALUATION_FAILED = "EVALUATION_FAILED"
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


# An exception named in an error text: Python's traceback ends with `ZeroDivisionError: division by zero`; JavaScript
# engines put it first, before the stack: `ReferenceError: x is not defined`, V8's `Uncaught ReferenceError: …`, and
# js-debug's `Uncaught ReferenceError ReferenceError: …` (class name, then the error's own text).
_RAISED = re.compile(r"^([A-Za-z_$][\w$.]*)(?::\s?(.*))?$", re.DOTALL)
_EXCEPTION_NAME = re.compile(r"(Error|Exception|Exit|Interrupt|Warning|Iteration)$")
_CLASS_THEN_TEXT = re.compile(r"^([A-Za-z_$][\w$]*) (.+)$", re.DOTALL)
# Evidence that the expression's own code ran (so a SyntaxError came from code it called, e.g. JSON.parse): a frame of
# the evaluated code in Python's traceback (`File "<string>", line 1, in <module>`) or in a JavaScript stack.
_RAN = re.compile(r'File "<string>", line \d+, in |^\s*at (?:eval \(|<anonymous>:\d)', re.MULTILINE)


def evaluation_failed(
    expression: str, error_text: str, thrown: bool = False, parses: bool | None = None
) -> DebugError | None:
    """EVALUATION_FAILED for the target's answer to an expression that raised or does not parse, with the exception's
    type and message. None when `error_text` names no exception (the request failed, not the expression), unless the
    target said the expression threw (`thrown`: JavaScript can throw any value, `throw 42`). `parses`, when the caller
    asked the target, says whether the expression compiles (else the error text's stack decides)."""
    found = _exception_in(error_text)
    if found is None:
        if not thrown:
            return None
        lines = error_text.strip().splitlines()
        found = ("a thrown value", (lines[0] if lines else "").removeprefix("Uncaught ").strip())
    exc_type, exc_message = found
    syntax = exc_type.rsplit(".", 1)[-1] in ("SyntaxError", "IndentationError", "TabError") and not (
        parses if parses is not None else _RAN.search(error_text)
    )
    shown = f"{exc_type}: {exc_message}" if exc_message else exc_type
    if syntax:
        message = f"{expression!r} is not a valid expression: {shown}"
        hint = "fix the expression's syntax (it was not run)"
    else:
        message = f"evaluating {expression!r} raised {shown}"
        hint = (
            "the expression ran and raised in the program; names are those visible in the frame (get_local_variables)"
        )
    return DebugError(
        ErrorCode.EVALUATION_FAILED,
        message,
        hint=hint,
        exception_type=exc_type,
        exception_message=exc_message,
        syntax_error=syntax,
    )


def program_exception(exc: DebugError) -> str | None:
    """The program's own exception an evaluation raised, as the program said it (`NameError: name 'x' is not
    defined`); None when the failure was not the program's (a bad handle, a lost connection)."""
    if exc.code == ErrorCode.EVALUATION_FAILED and exc.data.get("exception_type"):
        kind, text = exc.data["exception_type"], exc.data.get("exception_message") or ""
        return f"{kind}: {text}" if text else str(kind)
    raised = exc.data.get("raised")
    return raised if isinstance(raised, str) and raised else None


def _exception_in(text: str) -> tuple[str, str] | None:
    """The (type, message) an error text names: a Python traceback's last line, a JavaScript error's first."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return None
    python = any(line.startswith("Traceback (most recent call last)") for line in lines)
    line = (lines[-1] if python else lines[0]).removeprefix("Uncaught ").strip()
    match = _RAISED.match(line)
    if match is not None and _looks_like_exception(match.group(1), match.group(2)):
        return match.group(1), (match.group(2) or "").strip()
    pair = _CLASS_THEN_TEXT.match(line)  # js-debug: "ReferenceError ReferenceError: x is not defined", "Error 42"
    if pair is not None and _EXCEPTION_NAME.search(pair.group(1)):
        inner = _RAISED.match(pair.group(2))
        if inner is not None and inner.group(1) == pair.group(1):
            return inner.group(1), (inner.group(2) or "").strip()
        return pair.group(1), pair.group(2).strip()
    return None


def _looks_like_exception(name: str, message: str | None) -> bool:
    """`KeyError: 'x'`, `Error`, `SystemExit`: an exception class's name, not any "word: text" line."""
    last = name.rsplit(".", 1)[-1]
    return bool(_EXCEPTION_NAME.search(last)) or (message is None and last[:1].isupper())


def check_length(what: str, text: str | None, limit: int) -> None:
    """Refuse an expression, condition or value longer than the configured limit."""
    if text is not None and len(text) > limit:
        raise DebugError(ErrorCode.LIMIT_EXCEEDED, f"{what} is {len(text)} characters; the limit is {limit}")
