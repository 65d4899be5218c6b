"""The one small contract every protocol backend implements, plus the raw shapes it returns.

A backend speaks one protocol to one debug target. It never decides a session's phase: it reports what the target
said through the `BackendListener` callbacks, and the session core (session.py) turns that into state.
Lines are 1-based on both sides of this contract; a backend whose wire is 0-based converts.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Literal, Protocol

ExceptionMode = Literal["none", "uncaught", "all"]
StepKind = Literal["over", "into", "out"]


@dataclass
class LineBreakpointSpec:
    line: int
    condition: str | None = None
    hit_condition: str | None = None
    log_message: str | None = None


@dataclass
class FunctionBreakpointSpec:
    name: str
    condition: str | None = None
    hit_condition: str | None = None


@dataclass
class BreakpointState:
    """What the target made of one requested breakpoint (same order as requested)."""

    verified: bool
    line: int | None = None
    message: str | None = None
    backend_id: int | str | None = None


@dataclass
class StopInfo:
    reason: str
    thread_id: int | None = None
    description: str | None = None
    text: str | None = None
    hit_breakpoint_ids: list[int | str] = field(default_factory=list)
    all_threads_stopped: bool = True


@dataclass
class RawFrame:
    id: int
    name: str
    file: str | None
    line: int | None
    column: int | None = None
    hint: str | None = None  # "subtle"/"deemphasize" frames are library/internal ones


@dataclass
class RawScope:
    name: str
    ref: int
    expensive: bool = False
    named: int | None = None


@dataclass
class RawValue:
    name: str
    value: str
    type: str | None = None
    ref: int = 0
    evaluate_name: str | None = None
    named: int | None = None
    indexed: int | None = None


@dataclass
class ExceptionDetails:
    type: str
    message: str | None = None
    break_mode: str | None = None


class BackendListener(Protocol):
    """Callbacks a backend makes into its session core, always on the event loop."""

    def on_stopped(self, info: StopInfo) -> None: ...
    def on_continued(self, thread_id: int | None, all_threads: bool) -> None: ...
    def on_output(self, category: str, text: str) -> None: ...
    def on_exited(self, exit_code: int | None) -> None: ...
    def on_terminated(self) -> None: ...
    def on_lost(self, message: str) -> None: ...  # gone for good: the session ends as disconnected
    # Gone, and being sought again: on_reconnected follows, or on_lost/on_terminated when the backend gives up.
    def on_reconnecting(self, message: str) -> None: ...
    def on_reconnected(self) -> None: ...  # back on the same endpoint, breakpoints restored; the program runs
    def on_breakpoint_changed(self, backend_id: int | str, state: BreakpointState) -> None: ...
    def on_child(self, backend: Backend, name: str) -> None: ...  # a fork or worker: a session of its own


class Backend(ABC):
    """One debug target behind one protocol. Required methods are abstract; optional ones raise by default."""

    kind: str = "?"
    language: str = "?"
    #: What this backend can do at all; the session derives per-phase capabilities from it.
    features: frozenset[str] = frozenset()
    #: pairdbg started the program (so it cannot be detached from: its output runs through pairdbg).
    launched: bool = False
    #: False for a backend that drives an app's UI instead of its code (no breakpoints, stack or stepping).
    debugs_code: bool = True

    def __init__(self) -> None:
        self.listener: BackendListener | None = None
        self.pid: int | None = None
        self.program: str | None = None

    @abstractmethod
    async def start(
        self,
        line_breakpoints: dict[str, list[LineBreakpointSpec]],
        exception_mode: ExceptionMode,
    ) -> dict[str, list[BreakpointState]]:
        """Connect, configure breakpoints before the first line runs, and let the program go."""

    @abstractmethod
    async def set_line_breakpoints(self, file: str, specs: list[LineBreakpointSpec]) -> list[BreakpointState]:
        """Replace every line breakpoint in `file` with `specs`."""

    async def set_function_breakpoints(self, specs: list[FunctionBreakpointSpec]) -> list[BreakpointState]:
        raise NotImplementedError

    @abstractmethod
    async def set_exception_mode(self, mode: ExceptionMode) -> None: ...

    @abstractmethod
    async def resume(self, thread_id: int | None) -> None: ...

    @abstractmethod
    async def step(self, kind: StepKind, thread_id: int | None) -> None: ...

    @abstractmethod
    async def pause(self, thread_id: int | None) -> None: ...

    @abstractmethod
    async def threads(self) -> list[tuple[int, str]]: ...

    @abstractmethod
    async def stack(self, thread_id: int, start: int = 0, levels: int = 20) -> tuple[list[RawFrame], int]:
        """Frames from the top, and the total depth."""

    @abstractmethod
    async def scopes(self, frame_id: int) -> list[RawScope]: ...

    @abstractmethod
    async def variables(self, ref: int, start: int = 0, count: int = 0) -> list[RawValue]: ...

    @abstractmethod
    async def evaluate(
        self, expression: str, frame_id: int | None, context: str = "repl", by_value: bool = False
    ) -> RawValue:
        """Evaluate in a frame, or globally with frame_id None (backends with the "global_evaluate" feature).
        by_value asks for the whole value serialised (JSON) instead of a reference, where the protocol can."""

    async def set_variable(self, ref: int, name: str, value: str) -> RawValue:
        raise NotImplementedError

    async def exception_details(self, thread_id: int) -> ExceptionDetails | None:
        return None

    @abstractmethod
    async def close(self, terminate: bool = True) -> None:
        """End the connection; with terminate, end the program too. Must leave no process or port behind."""
