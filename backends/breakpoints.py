"""Breakpoints of a session: the Breakpoint record and the BreakpointBook that numbers, checks and syncs them."""

from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from .base import (
    BreakpointState,
    DataBreakpointSpec,
    ExceptionFilter,
    ExceptionMode,
    FunctionBreakpointSpec,
    LineBreakpointSpec,
)
from .errors import DebugError, ErrorCode, check_length
from .events import BreakpointsChanged
from .models import BreakpointView
from .source import is_url, lines_of, resolve_path

if TYPE_CHECKING:
    from .base import Backend
    from .events import EventBus
    from .limits import Limits
    from .models import StopReport


# A hit condition is a count, never code: debugpy eval()s any other text in the program.
HIT_CONDITION = re.compile(r"^\s*(==|>=|<=|>|<|%)?\s*(\d+)\s*$")


def parse_hit_condition(text: str) -> tuple[str, int]:
    """A hit condition's operator ("" for a plain count) and number; INVALID_PARAMETERS for anything else."""
    match = HIT_CONDITION.match(text)
    if not match:
        raise DebugError(
            ErrorCode.INVALID_PARAMETERS,
            f"hit condition {text!r} is not a hit count",
            hint="use a count: '3', '==3', '>=3', '>3', '<=3', '<3' or '%3' (every 3rd hit)",
        )
    return match.group(1) or "", int(match.group(2))


def check_request(limits: Limits, condition: str | None, hit_condition: str | None, log_message: str | None) -> None:
    for what, text in (("condition", condition), ("hit_condition", hit_condition), ("log_message", log_message)):
        check_length(what, text, limits.max_expression)
    if hit_condition:
        parse_hit_condition(hit_condition)


@dataclass
class Breakpoint:
    id: str
    kind: Literal["line", "function", "data"]
    file: str | None = None
    line: int | None = None
    function: str | None = None
    condition: str | None = None
    hit_condition: str | None = None
    log_message: str | None = None
    set_by: str = "human"
    enabled: bool = True  # a disabled breakpoint is kept and listed but not sent to the target
    temporary: bool = False  # run_to_line's: removed at the session's next stop, wherever that is
    state: BreakpointState = field(default_factory=lambda: BreakpointState(False))
    hits: int = 0  # stops at this breakpoint, in this session (kept across a restart)
    # A function breakpoint the target binds as a line breakpoint (Debugger.function_location): that line, or why
    # it cannot stop. Found again for each process (a child's, a restarted program's).
    bound_file: str | None = None
    bound_line: int | None = None
    problem: str | None = None
    awaits_load: bool = False  # the problem is a module not loaded yet: bound when the program loads it
    # A data breakpoint: what it watches (an expression, the object and key it was armed on) and what it cannot see.
    expression: str | None = None
    access: Literal["write", "read_write"] = "write"
    log_only: bool = False  # record each change in the change log instead of stopping
    watching: str | None = None
    missed: str | None = None

    def unbound(self) -> Breakpoint:
        """This breakpoint for another process (a child's session, a restarted program): same id and settings,
        nothing bound yet."""
        return dataclasses.replace(
            self, state=BreakpointState(False), bound_file=None, bound_line=None, problem=None, awaits_load=False
        )

    def passed_without_stopping(self) -> tuple[Literal["yes", "no", "unknown"], str]:
        """Whether the program is known to have passed this breakpoint's place without stopping, and why that is known
        (or not). Only a bound breakpoint with nothing that can hold it back stops on every pass."""
        if self.state.passed:
            return "yes", f"its condition raised, {self.state.passed}x or more"
        if not self.enabled:
            return "unknown", "disabled"
        if self.log_message:
            return "unknown", "a log point"
        if self.kind == "data":
            return "unknown", "a data breakpoint stops at writes, not at a place"
        if not self.state.verified:
            return "unknown", "not bound"
        if self.condition or self.hit_condition:
            return "unknown", "conditional"
        if self.kind == "function" and not self.bound_file:
            return "unknown", "the name is matched by the target"
        return "no", "bound, unconditional: every pass stops"

    def view(self) -> BreakpointView:
        file = self.bound_file or self.file
        actual = self.bound_line or self.state.line or self.line
        source = None
        if file and actual:
            with contextlib.suppress(DebugError, IndexError):
                source = lines_of(file)[actual - 1].strip()
        passed, why = self.passed_without_stopping()
        return BreakpointView(
            id=self.id,
            kind=self.kind,
            file=file,
            line=self.line,
            function=self.function,
            condition=self.condition,
            hit_condition=self.hit_condition,
            log_message=self.log_message,
            verified=self.state.verified,
            actual_line=actual,
            message=self.state.message,
            source=source,
            set_by=self.set_by,
            enabled=self.enabled,
            hits=self.hits,
            passed_without_stopping=passed,
            passed_note=why,
            temporary=self.temporary or None,
            expression=self.expression,
            access=self.access if self.kind == "data" else None,
            log_only=self.log_only or None,
            watching=self.watching,
            missed=self.missed,
        )


class IdCounter:
    """The last breakpoint number handed out, one per process family (a session and its child processes')."""

    last = 0


class BreakpointBook(Mapping[str, Breakpoint]):
    """A session's breakpoints by id: validates and numbers requests, keeps the per-session limit, sends them to the
    backend and keeps the target's answers as their state. Reads like a dict (values(), get(), len())."""

    def __init__(
        self,
        session_id: str,
        backend: Backend,
        bus: EventBus,
        limits: Limits,
        require_live: Callable[[], None],
        folders: Callable[[], list[str]] = list,
    ) -> None:
        self.session_id = session_id
        self._folders = folders  # where a relative file name is looked for first (the session's folders)
        self.backend = backend
        self.bus = bus
        self.limits = limits
        self.exception_mode: ExceptionMode = "uncaught"
        #: The debugger's own exception filters the person or an agent chose one by one (None: the mode's).
        self.exception_filters: list[str] | None = None
        self._require_live = require_live  # raises the session's "it has ended" error
        self._by_id: dict[str, Breakpoint] = {}
        self._ids = IdCounter()  # shared with the books of child processes' sessions (see inherit)

    @property
    def _seq(self) -> int:
        return self._ids.last

    @_seq.setter
    def _seq(self, value: int) -> None:
        self._ids.last = value

    # Mapping: callers list and look up breakpoints; only this book changes them.
    def __getitem__(self, bp_id: str) -> Breakpoint:
        return self._by_id[bp_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def new(
        self,
        file: str | None = None,
        line: int | None = None,
        function: str | None = None,
        condition: str | None = None,
        hit_condition: str | None = None,
        log_message: str | None = None,
        actor: str = "human",
    ) -> Breakpoint:
        """Validate a request and give it an id; nothing is sent yet."""
        self._check_room()
        check_request(self.limits, condition, hit_condition, log_message)
        if function:
            self._seq += 1
            return Breakpoint(
                f"BP{self._seq}",
                "function",
                function=function,
                condition=condition,
                hit_condition=hit_condition,
                set_by=actor,
            )
        assert file is not None and line is not None
        if is_url(file):
            # A script the target knows by URL (a page's http://…/app.js): only the target can check it.
            if not self.backend.features.remote_sources:
                raise DebugError(
                    ErrorCode.INVALID_PARAMETERS, f"{self.backend.kind} sessions take file paths, not URLs"
                )
            path, lines = file, ()
        else:
            path = resolve_path(file, self._folders())
            lines = lines_of(path)  # a missing file fails here, before an id is used up
        if lines and not 1 <= line <= max(len(lines), 1):
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                f"line {line} is outside {path}, which has {len(lines)} lines",
                hint="lines are 1-based; call get_source_context to see the file",
            )
        self._seq += 1
        return Breakpoint(
            f"BP{self._seq}",
            "line",
            file=path,
            line=line,
            condition=condition,
            hit_condition=hit_condition,
            log_message=log_message,
            set_by=actor,
        )

    def _check_room(self) -> None:
        if len(self._by_id) >= self.limits.max_breakpoints:
            raise DebugError(
                ErrorCode.LIMIT_EXCEEDED,
                f"session {self.session_id} already has {len(self._by_id)} breakpoints "
                f"(limit {self.limits.max_breakpoints})",
                hint="remove_breakpoint some first",
            )

    def new_data(
        self,
        expression: str,
        access: Literal["write", "read_write"] = "write",
        condition: str | None = None,
        log_only: bool = False,
        actor: str = "human",
    ) -> Breakpoint:
        """Validate a data breakpoint request and give it an id (DBn); nothing is armed yet."""
        self._check_room()
        check_length("expression", expression, self.limits.max_expression)
        check_request(self.limits, condition, None, None)
        self._seq += 1
        return Breakpoint(
            f"DB{self._seq}",
            "data",
            expression=expression,
            access=access,
            condition=condition,
            log_only=log_only,
            set_by=actor,
        )

    async def add_data(self, bp: Breakpoint, frame_id: int) -> Breakpoint:
        """Arm a data breakpoint in the paused program. One the target cannot arm is not kept: it never stops and
        never logs, so listing it would only mislead; the reason is the error."""
        self._require_live()
        debugger = self.backend.debugger("has no data breakpoints")
        spec = DataBreakpointSpec(bp.id, bp.expression or "", bp.access, bp.condition, bp.log_only)
        watch = await debugger.set_data_breakpoint(spec, frame_id)
        if not watch.verified:
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                f"cannot watch {bp.expression}: {watch.reason}",
                hint=watch.hint or "watch an attribute or item of an object of a class written in Python",
            )
        bp.watching, bp.missed = watch.watching, watch.missed
        bp.state = BreakpointState(True, message=f"armed (the value was {watch.value} when set)", backend_id=bp.id)
        self._by_id[bp.id] = bp
        self.publish()
        return bp

    def inherit(self, parent: BreakpointBook) -> None:
        """A child process's session starts with its parent's breakpoints, under the same ids, unbound until its
        target answers; the exception mode comes along too. Parent and child number from one counter, so a child's
        own breakpoint never shares an id with one of its family's: a shared id means inherited."""
        self._ids = parent._ids
        for bp in parent.values():
            if bp.kind != "data":  # a watch is on an object of the parent's process
                self._by_id[bp.id] = dataclasses.replace(bp.unbound(), hits=0)
        self.exception_mode = parent.exception_mode
        self.exception_filters = parent.exception_filters

    def carry(self, previous: BreakpointBook) -> None:
        """A restarted program's book: the previous run's breakpoints under the same ids, with their settings and hit
        counts, unbound until the new target answers; the same exception mode and id counter."""
        self._ids = previous._ids
        for bp in previous.values():
            if bp.kind == "data":  # its object was in the previous run's process: it is set again at a stop
                continue
            carried = self._by_id[bp.id] = bp.unbound()
            if not carried.enabled:
                carried.state = BreakpointState(False, message="disabled")
        self.exception_mode = previous.exception_mode

    def copy_of(self, bp: Breakpoint) -> Breakpoint | None:
        """A parent's new breakpoint for this (child) book, same id; None if this book has it already."""
        if bp.id in self._by_id or bp.kind == "data":
            return None
        return dataclasses.replace(bp.unbound(), hits=0)

    async def add_inherited(self, bp: Breakpoint, live: bool) -> None:
        """Keep a parent's new breakpoint (from copy_of) whatever the target says: sent now if `live`, else by the
        session's start (sync_since). A target that refuses it leaves it listed, unbound, with the reason."""
        self._by_id[bp.id] = bp
        if live:
            try:
                await self._sync_one(bp)
            except DebugError as exc:
                bp.state = BreakpointState(False, message=f"not sent to this process: {exc.message}")
        self.publish()

    async def sync_since(self, sent: dict[str, list[tuple[Breakpoint, LineBreakpointSpec]]]) -> None:
        """After the start: send what changed in the book while it ran (a parent's breakpoint added, changed or
        removed while this child's session started), and the function breakpoints, which the start does not send."""
        now = self.line_specs()
        changed = [
            f
            for f in {**sent, **now}
            if [(b.id, s) for b, s in sent.get(f, [])] != [(b.id, s) for b, s in now.get(f, [])]
        ]
        functions = any(bp.kind == "function" for bp in self._by_id.values())
        for file in changed:
            try:
                await self._sync_file(file)
            except DebugError as exc:
                self._unsent([bp for bp, _ in now.get(file, [])], exc)
        if functions and self.backend.features.function_breakpoints:
            try:
                await self._sync_functions()
            except DebugError as exc:
                self._unsent([bp for bp in self._by_id.values() if bp.kind == "function"], exc)
        if changed or functions:
            self.publish()

    @staticmethod
    def _unsent(bps: list[Breakpoint], exc: DebugError) -> None:
        for bp in bps:
            bp.state = BreakpointState(False, message=f"not sent to this process: {exc.message}")

    def keep(self, bp: Breakpoint) -> None:
        """Hold a breakpoint that the session's start sends; it counts against the limit at once."""
        self._by_id[bp.id] = bp

    def line_specs(self) -> dict[str, list[tuple[Breakpoint, LineBreakpointSpec]]]:
        """What to send, per file: one breakpoint per line (a target keeps one, debugpy then reports none as hit);
        the others on that line follow the first's state (see `_share_lines`)."""
        by_file: dict[str, list[tuple[Breakpoint, LineBreakpointSpec]]] = {}
        taken: set[tuple[str, int]] = set()
        for bp in self._by_id.values():
            place = self._line_of(bp)
            if place is None or place in taken:
                continue
            taken.add(place)
            by_file.setdefault(place[0], []).append(
                (bp, LineBreakpointSpec(place[1], bp.condition, bp.hit_condition, bp.log_message))
            )
        return by_file

    @staticmethod
    def _line_of(bp: Breakpoint) -> tuple[str, int] | None:
        """The file and line an enabled breakpoint is sent as (a function one as its bound line)."""
        if not bp.enabled:
            return None
        if bp.kind == "line" and bp.file and bp.line:
            return bp.file, bp.line
        if bp.kind == "function" and bp.bound_file and bp.bound_line:
            return bp.bound_file, bp.bound_line
        return None

    def _share_lines(self, file: str) -> None:
        """A breakpoint on a line another one was sent for: the same settings share its state (and its hits); other
        settings cannot be kept by the target, which is said."""
        sent: dict[int, Breakpoint] = {}
        for bp in self._by_id.values():
            place = self._line_of(bp)
            if place is None or place[0] != file:
                continue
            first = sent.setdefault(place[1], bp)
            if first is bp:
                continue
            settings = (bp.condition, bp.hit_condition, bp.log_message)
            if settings == (first.condition, first.hit_condition, first.log_message):
                bp.state = dataclasses.replace(first.state)
            else:
                bp.state = BreakpointState(
                    False,
                    message=f"{first.id} is on the same line with other settings, and the target keeps one "
                    f"breakpoint per line; change or remove {first.id}",
                )

    def started(
        self,
        by_file: dict[str, list[tuple[Breakpoint, LineBreakpointSpec]]],
        states: dict[str, list[BreakpointState]],
    ) -> None:
        """The backend's answers to the breakpoints its start sent (same order as `by_file`)."""
        for file, specs in by_file.items():
            for (bp, _), state in zip(specs, states.get(file, []), strict=False):
                bp.state = state
            self._share_lines(file)
        if self._by_id:
            self.publish()

    async def _sync_file(self, file: str) -> None:
        specs = self.line_specs().get(file, [])
        states = await self.backend.debugger("has no line breakpoints").set_line_breakpoints(
            file, [s for _, s in specs]
        )
        for (bp, _), state in zip(specs, states, strict=False):
            bp.state = state
        self._share_lines(file)

    async def bind_functions(self) -> set[str]:
        """Find where the target binds each enabled function breakpoint not bound yet as a line breakpoint (see
        Debugger.function_location); the files that gained one. One that cannot stop is kept, unverified, with why."""
        debugger = self.backend.debugger("has no function breakpoints")
        files: set[str] = set()
        for bp in list(self._by_id.values()):
            if bp.kind != "function" or not bp.enabled or bp.bound_file or (bp.problem and not bp.awaits_load):
                continue
            place = await debugger.function_location(bp.function or "")
            if place is None or self._by_id.get(bp.id) is not bp:  # removed while it was looked up
                continue
            bp.awaits_load = place.awaits_load
            if place.problem:
                bp.problem = place.problem + (f"; {place.hint}" if place.hint else "")
                bp.state = BreakpointState(False, message=bp.problem)
            elif place.file and place.line:
                bp.bound_file, bp.bound_line, bp.problem = place.file, place.line, None
                files.add(place.file)
        return files

    def awaits_load(self) -> bool:
        """Whether a function breakpoint waits for its module to load (see `bind_loaded`)."""
        return any(bp.awaits_load and bp.enabled for bp in self._by_id.values())

    async def bind_loaded(self) -> None:
        """The program loaded files: bind the function breakpoints whose module it has now loaded, and send them."""
        files = await self.bind_functions()
        for file in files:
            try:
                await self._sync_file(file)
            except DebugError as exc:
                self._unsent([bp for bp, _ in self.line_specs().get(file, [])], exc)
        if files:
            self.publish()

    async def _sync_functions(self) -> None:
        """Bind what binds as a line breakpoint (and send those files), the rest as the target's own."""
        for file in await self.bind_functions():
            await self._sync_file(file)
        bps = [
            bp
            for bp in self._by_id.values()
            if bp.kind == "function" and bp.enabled and not bp.bound_file and not bp.problem
        ]
        debugger = self.backend.debugger("has no function breakpoints")
        states = await debugger.set_function_breakpoints(
            [FunctionBreakpointSpec(bp.function or "", bp.condition, bp.hit_condition) for bp in bps]
        )
        for bp, state in zip(bps, states, strict=False):
            bp.state = state

    async def add(self, bp: Breakpoint) -> Breakpoint:
        self._require_live()
        debugger = self.backend.debugger(f"has no {bp.kind} breakpoints")
        if bp.kind == "function" and not debugger.features.function_breakpoints:
            raise debugger.unsupported("has no function breakpoints")
        self._by_id[bp.id] = bp
        try:
            await self._sync_one(bp)
        except DebugError:
            del self._by_id[bp.id]
            raise
        self.publish()
        return bp

    def find(self, bp_id: str) -> Breakpoint:
        bp = self._by_id.get(bp_id.strip().upper())
        if bp is None:
            known = ", ".join(self._by_id) or "none"
            raise DebugError(
                ErrorCode.PATH_NOT_FOUND,
                f"no breakpoint {bp_id} in session {self.session_id} (have: {known})",
                hint="call list_breakpoints",
            )
        return bp

    async def _sync_one(self, bp: Breakpoint) -> None:
        if bp.kind == "data":
            debugger = self.backend.debugger("has no data breakpoints")
            if bp.id not in self._by_id:
                await debugger.clear_data_breakpoint(bp.id)
            else:
                await debugger.update_data_breakpoint(bp.id, bp.enabled, bp.condition or "")
        elif bp.kind == "function" and bp.bound_file:
            await self._sync_file(bp.bound_file)
        elif bp.kind == "function":
            await self._sync_functions()
        elif bp.file:
            await self._sync_file(bp.file)

    async def remove(self, bp_id: str, live: bool) -> Breakpoint:
        """Forget a breakpoint; a live session also takes it out of the target."""
        bp = self.find(bp_id)
        del self._by_id[bp.id]
        if live:
            try:
                await self._sync_one(bp)
            except DebugError:
                if bp.kind == "data":  # still armed in the program: it stays listed
                    self._by_id[bp.id] = bp
                raise
        self.publish()
        return bp

    async def update(
        self,
        bp_id: str,
        live: bool,
        enabled: bool | None = None,
        condition: str | None = None,
        hit_condition: str | None = None,
        log_message: str | None = None,
    ) -> Breakpoint:
        """Enable, disable or change a breakpoint's condition, hit condition or log message ("" clears one); a live
        session sends its file's (or the function breakpoints') new set. If the target refuses, nothing changes."""
        bp = self.find(bp_id)
        check_request(self.limits, condition, hit_condition, log_message)
        if bp.kind == "data" and (hit_condition or log_message):
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                f"{bp.id} is a data breakpoint: it takes enabled and condition (log_only is chosen when it is set)",
                hint="remove it and set_data_breakpoint again to change what it does",
            )
        if bp.kind == "function" and log_message:
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                f"{bp.id} is a function breakpoint; log messages are for line breakpoints",
                hint="set a line breakpoint with log_message instead",
            )
        before = dataclasses.replace(bp)
        if enabled is not None:
            bp.enabled = enabled
        if condition is not None:
            bp.condition = condition or None
        if hit_condition is not None:
            bp.hit_condition = hit_condition or None
        if log_message is not None:
            bp.log_message = log_message or None
        if not bp.enabled:  # not in the target (a data breakpoint stays armed but neither stops nor logs)
            bp.state = BreakpointState(False, message="disabled", backend_id=bp.id if bp.kind == "data" else None)
        elif not before.enabled and bp.kind == "data":
            bp.state = dataclasses.replace(before.state, verified=True, message="armed")  # it stayed armed, off
        elif not before.enabled:
            bp.state = BreakpointState(False, message=bp.problem)  # the target's answer decides
        if live:
            try:
                await self._sync_one(bp)
            except DebugError:
                for name in ("enabled", "condition", "hit_condition", "log_message", "state"):
                    setattr(bp, name, getattr(before, name))
                raise
        self.publish()
        return bp

    async def set_exception_mode(self, mode: ExceptionMode) -> None:
        self._require_live()
        await self.backend.debugger("has no exception breakpoints").set_exception_mode(mode)
        self.exception_mode, self.exception_filters = mode, None

    def exception_filter_states(self) -> list[tuple[ExceptionFilter, bool]]:
        """The debugger's exception filters and whether each is on now."""
        debugger = self.backend.debugger("has no exception breakpoints")
        on = set(self.active_exception_filters())
        return [(f, f.id in on) for f in debugger.exception_filter_options()]

    def active_exception_filters(self) -> list[str]:
        if self.exception_filters is not None:
            return list(self.exception_filters)
        debugger = self.backend.debugger("has no exception breakpoints")
        return list(debugger.exception_filters.get(self.exception_mode, []))

    async def set_exception_filters(self, ids: list[str]) -> None:
        """Turn on exactly these filters (by the debugger's ids); the mode becomes the one they amount to, if any."""
        self._require_live()
        debugger = self.backend.debugger("has no exception breakpoints")
        known = [f.id for f in debugger.exception_filter_options()]
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                f"unknown exception filter {unknown[0]!r}; this debugger has: {', '.join(known) or 'none'}",
                hint="list_breakpoints shows the filters and what each means",
            )
        chosen = [i for i in known if i in ids]  # the debugger's order, no repeats
        await debugger.set_exception_filters(chosen)
        self.exception_filters = chosen
        for mode, mode_ids in debugger.exception_filters.items():
            if set(mode_ids) == set(chosen):
                self.exception_mode = mode  # type: ignore[assignment]
                break

    def ids_of(self, backend_ids: list[int | str], file: str | None = None) -> list[str]:
        """Our ids for the backend's ids of breakpoints a stop (in `file`) hit."""
        hit = self._narrowed([bp for bp in self._by_id.values() if bp.state.backend_id in backend_ids], file)
        return [bp.id for bp in hit]

    def ids_at(self, file: str, line: int) -> list[str]:
        """The enabled line and function breakpoints placed on `line` of `file` (where the target bound them)."""
        return [
            bp.id
            for bp in self._by_id.values()
            if bp.enabled
            and bp.kind != "data"
            and (bp.bound_file or bp.file) == file
            and (bp.state.line or bp.bound_line or bp.line) == line
        ]

    @staticmethod
    def _narrowed(bps: list[Breakpoint], file: str | None) -> list[Breakpoint]:
        """js-debug can give one id to breakpoints in two files (one set before its child session existed, one
        after): where an id names breakpoints in several files, those in `file` are meant."""
        if file is None or len({bp.bound_file or bp.file for bp in bps}) < 2:
            return bps
        return [bp for bp in bps if (bp.bound_file or bp.file) == file] or bps

    def changed(self, backend_id: int | str, state: BreakpointState, file: str | None = None) -> None:
        """The target moved or bound one of our breakpoints (in `file`, when it says) later (e.g. when its script
        loaded)."""
        moved = self._narrowed([bp for bp in self._by_id.values() if bp.state.backend_id == backend_id], file)
        for bp in moved:  # several when breakpoints share a line (see _share_lines)
            bp.state = dataclasses.replace(state)
        if moved:
            self.publish()

    def verify_hit(self, report: StopReport) -> None:
        """Count a stop at each breakpoint it hit; one the program stopped at is bound, even if the target's "resolved"
        event has not come in yet (Node under load sends it after the pause)."""
        for bp in self._by_id.values():
            if bp.id in report.hit_breakpoints:
                bp.hits += 1
        hit = [bp for bp in self._by_id.values() if bp.id in report.hit_breakpoints and not bp.state.verified]
        for bp in hit:
            bp.state = dataclasses.replace(
                bp.state, verified=True, line=bp.state.line or report.location.line, message=None
            )
        if report.hit_breakpoints:
            self.publish()

    def publish(self) -> None:
        views = tuple(bp.view() for bp in self._by_id.values())
        self.bus.publish(BreakpointsChanged(self.session_id, breakpoints=views))
