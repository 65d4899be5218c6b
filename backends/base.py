"""The backend contract: a small required core, the Debugger facet, typed Capabilities and the raw shapes.

A backend speaks one protocol to one debug target. It never decides a session's phase: it reports what the target
said through the `BackendListener` callbacks, and the session core (session.py) turns that into state.
Every backend has the core (start, evaluate, close); one that debugs code is also a `Debugger` (breakpoints,
stepping, stacks, values). What it can do is its `features` (Capabilities); the session checks them before it
calls, and `Backend.unsupported` is the one CAPABILITY_UNSUPPORTED answer.
Lines are 1-based on both sides of this contract; a backend whose wire is 0-based converts.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Literal, Protocol

from .errors import DebugError, ErrorCode
from .process import Leftovers

if TYPE_CHECKING:
    import asyncio

    from .models import DataChange

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
class DataBreakpointSpec:
    """A watch on a value: `expression` ends in an attribute or an item, evaluated in a frame of the paused program."""

    id: str
    expression: str
    access: Literal["write", "read_write"] = "write"
    condition: str | None = None
    log_only: bool = False


@dataclass
class DataWatch:
    """What the target made of a data breakpoint: armed (what it watches and which writes it cannot see) or not,
    with the reason."""

    verified: bool
    watching: str | None = None
    value: str | None = None
    missed: str | None = None
    reason: str | None = None
    hint: str | None = None  # what can be watched instead, when refused


@dataclass
class BreakpointState:
    """What the target made of one requested breakpoint (same order as requested)."""

    verified: bool
    line: int | None = None
    message: str | None = None
    backend_id: int | str | None = None
    #: Times the target is known to have passed it without stopping (its condition raised); 0 when none are known.
    passed: int = 0


@dataclass
class FunctionLocation:
    """Where a function breakpoint binds as a line breakpoint (file, first body line), or why it cannot stop."""

    file: str | None = None
    line: int | None = None
    problem: str | None = None  # set: the breakpoint is unverified with this reason
    hint: str | None = None  # how to make it stop anyway
    # The module is not among the files the program has loaded yet: looked for again when it loads one.
    awaits_load: bool = False


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
    #: Left out of the target's own stack by its filter (debugpy's justMyCode); listed only when asked for.
    library: bool = False
    package: str | None = None  # what a library frame belongs to (its top-level package, or its file's name)
    unwound: bool = False  # a frame an exception left on its way to the stop (its locals are kept; it runs no more)


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
    special: bool = False  # left out of a frame's locals unless asked for (e.g. a CommonJS module's wrapper names)


@dataclass
class ExceptionFilter:
    """One of the debugger's own exception breakpoint filters (DAP `exceptionBreakpointFilters`), as it names it."""

    id: str
    label: str
    description: str = ""


@dataclass
class Completion:
    """One way to complete the text typed at a console: `text` replaces `length` characters from `start`."""

    label: str
    text: str
    start: int
    length: int
    type: str | None = None


@dataclass
class ExceptionDetails:
    type: str
    message: str | None = None
    break_mode: str | None = None
    raised_at: str | None = None  # where it was raised, when that frame is not in the stack shown (hidden)
    test: dict | None = None  # the failing test (models.FailedTest's fields), when a test run's hook stopped


@dataclass
class ProgramRuntime:
    """The interpreter a launched program runs on, and where, for resolving module names as it would."""

    kind: Literal["python", "node"]
    executable: str
    program_dir: str | None = None
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)


class BackendListener(Protocol):
    """Callbacks a backend makes into its session core, always on the event loop."""

    def on_stopped(self, info: StopInfo) -> None: ...
    def on_continued(self, thread_id: int | None, all_threads: bool) -> None: ...
    # `change`: a "changes" entry's fields (a log-only data breakpoint's write), for front ends that list them.
    def on_output(self, category: str, text: str, change: DataChange | None = None) -> None: ...
    def on_exited(self, exit_code: int | None) -> None: ...
    def on_terminated(self) -> None: ...
    def on_lost(self, message: str) -> None: ...  # gone for good: the session ends as disconnected
    # Gone, and being sought again: on_reconnected follows, or on_lost/on_terminated when the backend gives up.
    def on_reconnecting(self, message: str) -> None: ...
    def on_reconnected(self) -> None: ...  # back on the same endpoint, breakpoints restored; the program runs
    def on_breakpoint_changed(self, backend_id: int | str, state: BreakpointState, file: str | None = None) -> None: ...
    def on_child(self, backend: Backend, name: str) -> None: ...  # a fork or worker: a session of its own
    # The program loaded a source file (a script, a module); what waited for it is bound when the answer is done.
    def on_loaded(self, file: str) -> asyncio.Future[None] | None: ...


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do at all, read by attribute (a misspelt name fails); the session derives per-phase
    capabilities from it. DAP backends fill it from the adapter's `initialize` answer."""

    pause: bool = False
    threads: bool = False
    conditional_breakpoints: bool = False
    hit_conditions: bool = False
    log_points: bool = False
    function_breakpoints: bool = False
    set_variable: bool = False
    exception_info: bool = False
    async_stacks: bool = False
    remote_sources: bool = False  # scripts known by URL: breakpoints by URL, sources fetched from the target
    global_evaluate: bool = False  # evaluate with no frame, also while the program runs
    goto: bool = False  # set the next statement (DAP gotoTargets/goto)
    ui: bool = False  # drives an app's UI (debug-bridge pages)

    @classmethod
    def names(cls) -> frozenset[str]:
        return frozenset(f.name for f in fields(cls))

    def only(self, allowed: Iterable[str]) -> Capabilities:
        """These capabilities narrowed to `allowed` (names checked: a misspelt one fails)."""
        allowed = set(allowed)
        unknown = allowed - self.names()
        if unknown:
            raise ValueError(f"unknown capabilities: {', '.join(sorted(unknown))}")
        return replace(self, **{name: False for name in self.names() - allowed})


class Backend(ABC):
    """The required core of every backend: start, evaluate, close. A backend that debugs code is a Debugger."""

    kind: str = "?"
    language: str = "?"
    #: What this backend can do at all; the session derives per-phase capabilities from it.
    features: Capabilities = Capabilities()
    #: pairdbg started the program (so it cannot be detached from: its output runs through pairdbg).
    launched: bool = False
    #: Said with every CAPABILITY_UNSUPPORTED answer for this backend (where to go instead).
    unsupported_hint: str | None = None

    def __init__(self) -> None:
        self.listener: BackendListener | None = None
        self.pid: int | None = None
        self.program: str | None = None
        # What the programs pairdbg started for this backend left running when they ended: the session ends it
        # when it closes (not when the program's process exits: a child process's session lives on).
        self.leftovers = Leftovers()

    @property
    def debugs_code(self) -> bool:
        """False for a backend that drives an app's UI instead of its code (no breakpoints, stack or stepping)."""
        return isinstance(self, Debugger)

    def unsupported(self, what: str, hint: str | None = None) -> DebugError:
        """The one answer for something this backend cannot do: CAPABILITY_UNSUPPORTED, e.g. "cannot pause"."""
        return DebugError(ErrorCode.CAPABILITY_UNSUPPORTED, f"{self.kind} {what}", hint=hint or self.unsupported_hint)

    def debugger(self, what: str) -> Debugger:
        """This backend as a code debugger; CAPABILITY_UNSUPPORTED for one that is not."""
        if isinstance(self, Debugger):
            return self
        raise self.unsupported(what)

    @abstractmethod
    async def start(
        self,
        line_breakpoints: dict[str, list[LineBreakpointSpec]],
        exception_mode: ExceptionMode,
    ) -> dict[str, list[BreakpointState]]:
        """Connect, configure breakpoints before the first line runs, and let the program go."""

    @abstractmethod
    async def evaluate(
        self, expression: str, frame_id: int | None, context: str = "repl", by_value: bool = False
    ) -> RawValue:
        """Evaluate in a frame, or globally with frame_id None (backends with `global_evaluate`).
        by_value asks for the whole value serialised (JSON) instead of a reference, where the protocol can."""

    async def threads(self) -> list[tuple[int, str]]:
        """The target's threads; none for a target that has no such thing."""
        return []

    def loaded_files(self) -> list[str]:
        """Local files the debuggee has loaded, as far as the protocol tells (agents below full mode may read
        these); none where it does not say."""
        return []

    @abstractmethod
    async def close(self, terminate: bool = True) -> None:
        """End the connection; with terminate, end the program too. Must leave no process or port behind."""


class Debugger(Backend):
    """The facet of a backend that debugs code: breakpoints, stepping, stacks and values. The optional methods at
    the end are called only when `features` says the backend has them."""

    #: Said when a step into a call did not go deeper: what code this backend steps over and how to go in
    #: (debugpy's justMyCode). None: it steps into all the code it can.
    skipped_code_hint: str | None = None
    #: set_variable answers with the old value, not an error, when the new one fails (debugpy): see check_value.
    set_variable_fails_silently: bool = False
    #: The exception filter ids each of pairdbg's modes turns on (a profile or adapter gives its own names).
    exception_filters: dict[str, list[str]] = {"none": [], "uncaught": ["uncaught"], "all": ["raised", "uncaught"]}

    @abstractmethod
    async def set_line_breakpoints(self, file: str, specs: list[LineBreakpointSpec]) -> list[BreakpointState]:
        """Replace every line breakpoint in `file` with `specs`."""

    @abstractmethod
    async def set_exception_mode(self, mode: ExceptionMode) -> None: ...

    @abstractmethod
    async def resume(self, thread_id: int | None) -> None: ...

    @abstractmethod
    async def step(self, kind: StepKind, thread_id: int | None) -> None: ...

    @abstractmethod
    async def pause(self, thread_id: int | None) -> None: ...

    @abstractmethod
    async def stack(self, thread_id: int, start: int = 0, levels: int = 20) -> tuple[list[RawFrame], int]:
        """Frames from the top, and the total depth."""

    async def stack_with_library(self, thread_id: int, top_frame_id: int) -> list[RawFrame] | None:
        """The stopped thread's whole stack as the program has it, from the top frame `stack` gave: the frames the
        target's filter hides are in it with `library` set (they work as frame ids like the others). None when the
        target hides no frames, or cannot say which."""
        return None

    @abstractmethod
    async def scopes(self, frame_id: int) -> list[RawScope]: ...

    @abstractmethod
    async def variables(self, ref: int, start: int = 0, count: int = 0) -> list[RawValue]: ...

    async def set_function_breakpoints(self, specs: list[FunctionBreakpointSpec]) -> list[BreakpointState]:
        raise self.unsupported("has no function breakpoints")  # features.function_breakpoints

    async def set_data_breakpoint(self, spec: DataBreakpointSpec, frame_id: int) -> DataWatch:
        """Arm a watch in the paused program; a DataWatch that says why not when it cannot catch the writes."""
        raise self.unsupported("has no data breakpoints")

    async def clear_data_breakpoint(self, bp_id: str) -> None:
        raise self.unsupported("has no data breakpoints")

    async def update_data_breakpoint(self, bp_id: str, enabled: bool | None, condition: str | None) -> None:
        raise self.unsupported("has no data breakpoints")

    async def function_location(self, name: str) -> FunctionLocation | None:
        """Where a function breakpoint on `name` must be bound as a line breakpoint, for a target whose own function
        breakpoints would not stop there (debugpy's match bare names in traced code only); a FunctionLocation with a
        `problem` when it cannot stop at all. None: the target's own function breakpoint does what the name says
        (or the function cannot be looked up yet; it is asked again once the program runs)."""
        return None

    async def check_value(self, value: str, frame_id: int | None, run: bool = False) -> None:
        """Raise (PROTOCOL_ERROR, the program's error) when `value` does not parse, or with `run` when evaluating it
        fails; for debuggers with set_variable_fails_silently."""

    async def completions(self, text: str, cursor: int, frame_id: int | None) -> list[Completion] | None:
        """Completions of `text` at `cursor` (0-based) in a frame (or globally); None when the debugger has none."""
        return None

    def exception_filter_options(self) -> list[ExceptionFilter]:
        """The exception filters this debugger offers, with what each means; none when it has no named filters."""
        return []

    async def set_exception_filters(self, ids: list[str]) -> None:
        """Turn on exactly these of `exception_filter_options()` (ids checked by the caller)."""
        raise self.unsupported("has no exception filters to choose from", hint="use set_pause_on_exceptions mode")

    async def set_variable(self, ref: int, name: str, value: str) -> RawValue:
        raise self.unsupported("cannot set variables")  # features.set_variable

    async def exception_details(self, thread_id: int) -> ExceptionDetails | None:
        return None  # the stop's own text is all there is

    async def script_source(self, path: str) -> str | None:
        return None  # only targets with remote_sources can fetch a script they know by URL

    async def step_in_targets(self, frame_id: int) -> list[str] | None:
        """The calls still ahead in this frame that a step_into could enter, as the target names them (their source
        text where it has it); None when the target cannot tell."""
        return None

    async def call_source(self, frame_id: int, callee: str) -> str | None:
        """The file of the code a call to `callee` (a name in this frame) would run: "" for built-in code that has
        none, None when unknown."""
        return None

    async def loaded_sources(self) -> list[str]:
        """The files the target has loaded so far (local paths, or URLs for scripts it knows by URL), as far as its
        protocol tells; empty when it cannot."""
        return []

    def module_runtime(self) -> ProgramRuntime | None:
        """The interpreter the program runs on, when it runs on this machine and can resolve module names as the
        program would; None when unknown (an attached program may run elsewhere)."""
        return None

    async def goto(self, thread_id: int, file: str, line: int) -> None:
        """Make `line` of `file` the next statement of the stopped thread (features.goto); the target then reports a
        stop there."""
        raise self.unsupported("cannot set the next statement", hint="run_to_line runs to a line instead")
