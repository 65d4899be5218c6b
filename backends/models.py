"""Wire-neutral data the core hands to both front ends: stop reports, frames, variables, breakpoints, output."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from pydantic import Field

from .lazymodel import LazyModel


class Phase(StrEnum):
    """A session's one state; only the session core changes it, from backend events."""

    STARTING = "starting"
    RUNNING = "running"
    PAUSED = "paused"
    RECONNECTING = "reconnecting"  # lost the target, trying to reach it again: not an end (yet)
    TERMINATED = "terminated"
    DISCONNECTED = "disconnected"
    ERROR = "error"

    @property
    def ended(self) -> bool:
        return self in (Phase.TERMINATED, Phase.DISCONNECTED, Phase.ERROR)

    @property
    def reachable(self) -> bool:
        """The target is there to ask: not ended, and not lost for the moment."""
        return not self.ended and self != Phase.RECONNECTING


class Location(LazyModel):
    file: str | None = Field(None, description="absolute path of the source file, if there is one")
    line: int | None = Field(None, description="1-based line")
    column: int | None = None
    function: str | None = None


class SourceLine(LazyModel):
    line: int
    text: str
    current: bool = False


class VariableView(LazyModel):
    handle: str | None = Field(None, description="@vN handle to expand it, when it has children")
    name: str
    type: str | None = None
    value: str
    truncated: bool = False
    length: int | None = Field(None, description="characters of the whole value text, when it was cut (evaluate)")


class FrameView(LazyModel):
    handle: str
    function: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    # Set only on frames the stack hides (None otherwise, so a stop report's frames carry nothing extra).
    library: bool | None = Field(None, description="hidden by justMyCode (library code); listed when asked for")
    unwound: bool | None = Field(None, description="left by the exception on its way here (no longer running)")


class HiddenFrames(LazyModel):
    """A run of library frames the stack leaves out (debugpy's justMyCode), between two frames it shows."""

    count: int
    packages: list[str] = Field(default_factory=list, description="what they belong to, e.g. jinja2")
    after: str | None = Field(None, description="the shown frame above them (None: above the top, where it raised)")
    before: str | None = Field(None, description="the shown frame below them (None: below the bottom)")
    handles: list[str] = Field(default_factory=list, description="their own handles, top first (@f0+1, …)")
    unwound: bool = Field(False, description="frames an exception left on its way here: where it was raised")

    def text(self) -> str:
        frames = f"frame{'s' if self.count != 1 else ''}"
        what = f"{self.count} {frames} unwound by the exception" if self.unwound else f"{self.count} library {frames}"
        what += "" if self.unwound else " hidden"
        if self.packages:
            what += f" ({', '.join(self.packages)})"
        if self.after and self.before:
            where = f"between {self.after} and {self.before}"
        elif self.after:
            where = f"below {self.after}"
        else:
            where = f"above {self.before}"
        return f"{what} {where}"


class WatchView(LazyModel):
    id: str
    expression: str
    value: str
    changed: bool = False
    error: bool = False
    added_by: str = Field("human", description="who added it: human or agent:<name>")


class DataChange(LazyModel):
    """One write a log-only data breakpoint recorded: the change log's entry, field by field (its `text` is what
    get_output's "changes" category and debug://sessions/{id}/changes say)."""

    at: float = 0.0  # seconds since the epoch, as the program's clock said
    breakpoint_id: str = ""
    expression: str = ""
    old: str = ""
    new: str = ""
    file: str | None = None
    line: int | None = None
    function: str | None = None
    thread: str | None = None
    stopped: bool = False
    note: str | None = None

    @classmethod
    def of(cls, body: dict[str, Any]) -> DataChange:
        """From a data-breakpoint helper's change event (the Python helper's, the in-page helper's, an adapter's)."""
        thread, line = body.get("thread"), body.get("line")
        return cls(
            at=float(body.get("time") or 0),
            breakpoint_id=str(body.get("id")),
            expression=str(body.get("expression")),
            old=str(body.get("old")),
            new=str(body.get("new")),
            file=str(body["file"]) if body.get("file") is not None else None,
            line=line if isinstance(line, int) else None,
            function=str(body["function"]) if body.get("function") is not None else None,
            thread=str(thread) if thread is not None else None,
            stopped=bool(body.get("stop")),
            note=str(body["note"]) if body.get("note") else None,
        )


class OutputEntry(LazyModel):
    seq: int
    category: str
    text: str
    #: A "changes" entry's fields, for a front end that lists them in columns; not part of get_output's reply.
    change: DataChange | None = Field(None, exclude=True)


class FailedTest(LazyModel):
    """The test a stop is the failure of (a test run's runner hook stopped there)."""

    runner: str = Field(description="pytest, unittest, node --test")
    test: str = Field(description="the test's id (pytest node id, unittest id, node:test name)")
    phase: str | None = Field(None, description="setup, teardown or collect; None for the test itself")
    depth: int | None = Field(None, description="frames on the stack where the exception was raised")
    repeats: int | None = Field(None, description="calls of the innermost function among them (a recursion)")


class ExceptionInfo(LazyModel):
    type: str
    message: str | None = None
    break_mode: str | None = None
    raised_at: str | None = Field(None, description="where it was raised, when that frame is hidden from the stack")
    test: FailedTest | None = Field(None, description="the failing test, when a test run stopped at its failure")


class RaiseSite(LazyModel):
    """Where an exception was raised when that frame is library code the stack hides (debugpy's justMyCode stops at
    the caller's line): its source and first locals, so the report answers without a second call."""

    handle: str = Field(description="the frame's handle (@f0-N): read more with get_local_variables(frame=...)")
    function: str
    file: str | None = None
    line: int | None = None
    package: str | None = Field(None, description="what the library frame belongs to, e.g. yaml")
    source: list[SourceLine] = Field(default_factory=list)
    locals: list[VariableView] = Field(default_factory=list)
    locals_total: int = 0


class StopReport(LazyModel):
    """Where and why the program stopped, small enough to read every time (top frame only)."""

    session_id: str
    state: Literal["paused"] = "paused"
    stop_number: int
    reason: str = Field(
        description="breakpoint, step, exception, pause, entry, function breakpoint, goto, data breakpoint"
    )
    description: str | None = None
    exception: ExceptionInfo | None = None
    thread_id: int | None = None
    thread_name: str | None = None
    hit_breakpoints: list[str] = Field(default_factory=list)
    location: Location
    source: list[SourceLine] = Field(default_factory=list)
    locals: list[VariableView] = Field(default_factory=list)
    locals_total: int = 0
    stack: list[FrameView] = Field(default_factory=list)
    stack_total: int = 0
    hidden_frames: list[HiddenFrames] = Field(default_factory=list, description="library frames the stack leaves out")
    raise_site: RaiseSite | None = Field(None, description="an exception's raise site in hidden library code")
    write_site: RaiseSite | None = Field(
        None, description="where a data breakpoint's value was written, in hidden library code"
    )
    watches: list[WatchView] = Field(default_factory=list)
    output_tail: list[str] = Field(default_factory=list)
    output_cursor: int = 0
    process: str | None = Field(None, description="which process stopped, for a child process's session")
    location_note: str | None = Field(None, description="why the stop has no source location")


class BreakpointView(LazyModel):
    id: str
    kind: Literal["line", "function", "data"] = "line"
    file: str | None = None
    line: int | None = None
    function: str | None = None
    condition: str | None = None
    hit_condition: str | None = None
    log_message: str | None = None
    verified: bool = False
    actual_line: int | None = None
    message: str | None = None
    source: str | None = Field(None, description="the text of the line it is bound to")
    set_by: str = "human"
    enabled: bool = True
    hits: int = Field(0, description="times the program stopped at it")
    passed_without_stopping: Literal["yes", "no", "unknown"] = Field(
        "unknown", description="whether the program is known to have passed it without stopping"
    )
    passed_note: str | None = Field(None, description="how that is known, or why it cannot be")
    temporary: bool | None = Field(None, description="run_to_line's: removed at the next stop")
    expression: str | None = Field(None, description="a data breakpoint's watched value")
    access: Literal["write", "read_write"] | None = None
    log_only: bool | None = Field(None, description="a data breakpoint that logs changes instead of stopping")
    watching: str | None = Field(None, description="the object and key a data breakpoint is armed on")
    missed: str | None = Field(None, description="writes a data breakpoint cannot see")


class SessionSummary(LazyModel):
    session_id: str
    name: str
    language: str
    backend: str
    phase: Phase
    program: str | None = None
    pid: int | None = None
    stop_number: int = 0
    location: Location | None = None
    reason: str | None = None
    exit_code: int | None = None
    error: str | None = None
    capabilities: dict[str, bool] = Field(default_factory=dict)
    parent_id: str | None = Field(None, description="the session of the process that started this one's")
    child_ids: list[str] | None = Field(None, description="sessions of the processes this one started")


@dataclass
class ExecOutcome:
    """What a control action led to: a stop, a still-running program, or its end. Never a guess."""

    state: Literal["paused", "running", "terminated", "disconnected", "error"]
    report: StopReport | None = None
    pending: bool = False
    exit_code: int | None = None
    detail: str | None = None
    output_tail: list[str] = field(default_factory=list)
    child_stopped: bool = False  # the wait ended early because a child process's session stopped
