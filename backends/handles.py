"""Handles an agent can pass back: @fN frames and @vN variables, valid for one stop and expired clearly after it."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from .errors import DebugError, ErrorCode


@dataclass(frozen=True)
class VarRef:
    ref: int  # the backend's reference to expand it (0 when it has no children)
    name: str
    parent_ref: int  # the container it lives in, for set_variable
    evaluate_name: str | None
    frame_id: int | None


class Handles:
    """Frame handles are positions in the current stop's stack; variable numbers never repeat within a session,
    so an old @vN can be told apart from an unknown one and named as expired, with the stop it came from."""

    def __init__(self) -> None:
        self.stop_number = 0
        self.live = False
        self._frames: dict[str, int] = {}
        self._vars: dict[str, VarRef] = {}
        self._next_var = 1
        self._epochs: deque[tuple[int, int]] = deque(maxlen=200)  # (first @v number, stop number)

    def begin(self, stop_number: int) -> None:
        """A new stop: forget the old handles and start numbering for this one."""
        self.stop_number = stop_number
        self.live = True
        self._frames.clear()
        self._vars.clear()
        self._epochs.append((self._next_var, stop_number))

    def expire(self) -> None:
        """The program resumed: every handle of the last stop is now invalid."""
        self.live = False
        self._frames.clear()
        self._vars.clear()

    def frame(self, index: int, frame_id: int) -> str:
        handle = f"@f{index}"
        self._frames[handle] = frame_id
        return handle

    def library_frame(self, shown: int, offset: int, frame_id: int) -> str:
        """A frame the stack hides (library code), named from the nearest shown frame: `@f0+2` is the second hidden
        frame below @f0, `@f0-1` the one just above it (where an exception was raised)."""
        handle = f"@f{shown}{offset:+d}"
        self._frames[handle] = frame_id
        return handle

    def thread_frame(self, thread_id: int, index: int, frame_id: int) -> str:
        """A frame of a thread other than the stopped one: `@f<thread>.<position>`, valid until the program runs."""
        handle = f"@f{thread_id}.{index}"
        self._frames[handle] = frame_id
        return handle

    def var(self, ref: VarRef) -> str:
        handle = f"@v{self._next_var}"
        self._next_var += 1
        self._vars[handle] = ref
        return handle

    def frame_id(self, handle: str | None) -> int:
        handle = _normalise(handle or "@f0", "@f")
        if handle in self._frames:
            return self._frames[handle]
        if not self.live:
            raise self._expired(handle)
        raise DebugError(
            ErrorCode.PATH_NOT_FOUND,
            f"no frame {handle} at stop #{self.stop_number}",
            hint="call get_call_stack for the frames of the current stop",
        )

    def variable(self, handle: str) -> VarRef:
        handle = _normalise(handle, "@v")
        if handle in self._vars:
            return self._vars[handle]
        try:
            number = int(handle[2:])
        except ValueError:
            raise DebugError(ErrorCode.INVALID_PARAMETERS, f"{handle!r} is not a variable handle like @v12") from None
        if number < self._next_var:
            raise self._expired(handle, self._stop_of(number))
        raise DebugError(ErrorCode.PATH_NOT_FOUND, f"no variable {handle} has been handed out")

    def _stop_of(self, number: int) -> int | None:
        owner = None
        for first, stop in self._epochs:
            if number >= first:
                owner = stop
        return owner

    def _expired(self, handle: str, stop: int | None = None) -> DebugError:
        where = f" belonged to stop #{stop};" if stop else ""
        now = f"the session is at stop #{self.stop_number}" if self.live else "the program has resumed since"
        return DebugError(
            ErrorCode.PATH_NOT_FOUND,
            f"handle {handle} has expired:{where} {now}",
            hint="take handles from the latest stop report, get_local_variables or get_call_stack",
            expired=True,
        )


def _normalise(handle: str, prefix: str) -> str:
    handle = handle.strip()
    if not handle.startswith("@"):
        handle = "@" + handle
    if not handle.startswith(prefix):
        kind = "frame" if prefix == "@f" else "variable"
        raise DebugError(ErrorCode.INVALID_PARAMETERS, f"{handle!r} is not a {kind} handle (expected {prefix}N)")
    return handle
