"""One debug session's core: the phase machine, breakpoints, watches, output, handles and stop reports.

Invariants: the phase changes only here, from backend callbacks or from the outcome of a control request this
session itself sent; front ends read it and call the methods below. Control requests are serialised by a lock that
is held only while a request is sent (never while waiting for a stop), so a second actor gets an honest answer at
once (BUSY, or NOT_PAUSED because the first actor already resumed the program) instead of queueing behind it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from dataclasses import dataclass, field
from typing import Literal

from .base import (
    Backend,
    BreakpointState,
    ExceptionMode,
    FunctionBreakpointSpec,
    LineBreakpointSpec,
    RawValue,
    StopInfo,
)
from .errors import DebugError, ErrorCode, not_paused
from .events import BreakpointsChanged, EventBus, OutputAppended, PhaseChanged, Stopped
from .handles import Handles, VarRef
from .limits import Limits
from .models import (
    BreakpointView,
    ExceptionInfo,
    FrameView,
    Location,
    Phase,
    SessionSummary,
    StopReport,
    VariableView,
    WatchView,
)
from .output import OutputRing
from .source import has_source, is_url, lines_of, register_source, window

log = logging.getLogger(__name__)
WATCH_TIMEOUT_S = 1.0  # per watch, when a stop report is built
WATCH_BUDGET_S = 2.0  # for all watches of one stop report
TEXT_CAP = 300  # characters of an exception message, description or output line in a stop report


@dataclass
class Breakpoint:
    id: str
    kind: Literal["line", "function"]
    file: str | None = None
    line: int | None = None
    function: str | None = None
    condition: str | None = None
    hit_condition: str | None = None
    log_message: str | None = None
    set_by: str = "human"
    state: BreakpointState = field(default_factory=lambda: BreakpointState(False))

    def view(self) -> BreakpointView:
        actual = self.state.line or self.line
        source = None
        if self.file and actual:
            with contextlib.suppress(DebugError, IndexError):
                source = lines_of(self.file)[actual - 1].strip()
        return BreakpointView(
            id=self.id,
            kind=self.kind,
            file=self.file,
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
        )


@dataclass
class Watch:
    id: str
    expression: str
    last: str | None = None


@dataclass
class ExecOutcome:
    """What a control action led to: a stop, a still-running program, or its end. Never a guess."""

    state: Literal["paused", "running", "terminated", "disconnected", "error"]
    report: StopReport | None = None
    pending: bool = False
    exit_code: int | None = None
    detail: str | None = None
    output_tail: list[str] = field(default_factory=list)


class Session:
    def __init__(
        self, session_id: str, name: str, backend: Backend, bus: EventBus, limits: Limits, language: str
    ) -> None:
        self.id = session_id
        self.name = name
        self.backend = backend
        self.language = language
        self.bus = bus
        self.limits = limits
        self.phase = Phase.STARTING
        self.stop_number = 0
        self.last_stop: StopReport | None = None
        self.exit_code: int | None = None
        self.error: str | None = None
        self.exception_mode: ExceptionMode = "uncaught"
        self.breakpoints: dict[str, Breakpoint] = {}
        self.watches: dict[str, Watch] = {}
        self.output = OutputRing(limits.output_capacity)
        self.handles = Handles()
        self.created = time.time()
        self.launch_args: dict | None = None
        # Set by the Hub: opens a session for a further process of this program (js-debug forks and workers).
        self.open_child = None  # set by start_debugging; restart_debugging starts these again
        self.seen_stop: dict[str, int] = {}  # actor -> newest stop number a reply has shown them
        self.last_control: str | None = None  # "agent:x step_over", for honest BUSY / NOT_PAUSED answers
        self._lock = asyncio.Lock()
        self._changed = asyncio.Event()
        self._bp_seq = 0
        self._watch_seq = 0
        self._stop_gen = 0
        self._output_mark = 1
        self._stop_tasks: set[asyncio.Task[None]] = set()
        self._current_thread: int | None = None
        self._release_task: asyncio.Future[None] | None = None
        self._close_task: asyncio.Future[None] | None = None
        backend.listener = self

    # ----- phase machine ---------------------------------------------------------------------------------------

    def _set_phase(self, phase: Phase, detail: str | None = None) -> None:
        if self.phase == phase or self.phase.ended:
            return
        self.phase = phase
        if phase != Phase.PAUSED:
            self.handles.expire()
        self.bus.publish(PhaseChanged(self.id, phase=phase, detail=detail))
        self._notify()
        if phase.ended and not (phase == Phase.DISCONNECTED and getattr(self.backend, "reconnecting", False)):
            # The program is gone: release the adapter/connection now, not when someone closes the session.
            # The session record (output, last stop) stays for reading.
            self._release_task = self._release_task or asyncio.ensure_future(self._release())

    async def _release(self) -> None:
        for task in list(self._stop_tasks):
            task.cancel()
        with contextlib.suppress(Exception):
            await self.backend.close(True)

    def on_reconnected(self) -> None:
        """The backend found its target again (same endpoint): breakpoints are restored, the program runs."""
        if self.phase == Phase.DISCONNECTED:
            self.phase = Phase.RUNNING
            self.error = None
            self.bus.publish(PhaseChanged(self.id, phase=Phase.RUNNING, detail="reconnected"))
            self._notify()

    def _notify(self) -> None:
        event, self._changed = self._changed, asyncio.Event()
        event.set()

    async def _wait_until(self, done: callable, timeout: float) -> bool:  # type: ignore[valid-type]
        deadline = asyncio.get_running_loop().time() + timeout
        while not done():
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                return False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)
        return True

    @property
    def capabilities(self) -> dict[str, bool]:
        """Derived from the phase and what the backend can do; never stored."""
        f = self.backend.features
        paused = self.phase == Phase.PAUSED
        live = not self.phase.ended
        return {
            "can_continue": paused,
            "can_step": paused,
            "can_pause": self.phase == Phase.RUNNING and "pause" in f,
            "can_evaluate": paused,
            "can_inspect": paused,
            "can_set_breakpoints": live,
            "can_set_variables": paused and "set_variable" in f,
            "conditional_breakpoints": "conditional_breakpoints" in f,
            "hit_conditions": "hit_conditions" in f,
            "log_points": "log_points" in f,
            "function_breakpoints": "function_breakpoints" in f,
        }

    # ----- backend callbacks (BackendListener) -------------------------------------------------------------------

    def on_stopped(self, info: StopInfo) -> None:
        if self.phase == Phase.DISCONNECTED and getattr(self.backend, "reconnecting", False):
            # The target is back: a breakpoint restored during the re-handshake can stop it before the backend
            # reports the reconnect, and a stop recorded while "disconnected" would be dropped as after the end.
            self.on_reconnected()
        self._stop_gen += 1
        task = asyncio.create_task(self._record_stop(info, self._stop_gen))
        self._stop_tasks.add(task)
        task.add_done_callback(self._stop_tasks.discard)

    def on_continued(self, thread_id: int | None, all_threads: bool) -> None:
        if self.phase == Phase.PAUSED:
            self._set_phase(Phase.RUNNING)

    def on_output(self, category: str, text: str) -> None:
        entry = self.output.append(category, text)
        self.bus.publish(OutputAppended(self.id, entry=entry))

    def on_exited(self, exit_code: int | None) -> None:
        self.exit_code = exit_code

    def on_terminated(self) -> None:
        if self.phase == Phase.DISCONNECTED:
            # A backend that was reconnecting gave up: the session stays disconnected (it is already an end), but
            # its connection is released now and waiters stop waiting for a reconnect.
            self._release_task = self._release_task or asyncio.ensure_future(self._release())
            self._notify()
            return
        detail = f"exit code {self.exit_code}" if self.exit_code is not None else None
        self._set_phase(Phase.TERMINATED, detail)

    def on_lost(self, message: str) -> None:
        if not self.phase.ended:
            self.error = message
            self._set_phase(Phase.DISCONNECTED, message)

    def on_breakpoint_changed(self, backend_id: int | str, state: BreakpointState) -> None:
        for bp in self.breakpoints.values():
            if bp.state.backend_id == backend_id:
                bp.state = state
                self._publish_breakpoints()
                return

    # ----- stop reports ------------------------------------------------------------------------------------------

    async def _record_stop(self, info: StopInfo, gen: int) -> None:
        try:
            report = await self._build_report(info, self.stop_number + 1)
        except DebugError as exc:
            if self.phase.ended or gen != self._stop_gen:
                return
            log.warning("could not build a stop report: %s", exc)
            report = StopReport(
                session_id=self.id,
                stop_number=self.stop_number + 1,
                reason=info.reason,
                description=f"stopped, but the stop report could not be built ({exc.message}); "
                "call get_call_stack to look again",
                location=Location(),
                thread_id=info.thread_id,
            )
        if gen != self._stop_gen or self.phase.ended:
            return  # a newer stop (or the end) overtook this one
        self.stop_number = report.stop_number
        self.last_stop = report
        self._output_mark = self.output.cursor
        if self.phase == Phase.PAUSED:  # stopped again without a resume we saw (e.g. another thread)
            self.bus.publish(PhaseChanged(self.id, phase=Phase.PAUSED, detail=report.reason))
            self._notify()
        else:
            self._set_phase(Phase.PAUSED, report.reason)
        self.bus.publish(Stopped(self.id, report=report))

    async def _build_report(self, info: StopInfo, stop_number: int) -> StopReport:
        backend = self.backend
        thread_id = info.thread_id
        if thread_id is None:
            threads = await backend.threads()
            thread_id = threads[0][0] if threads else 0
        self._current_thread = thread_id
        frames, total = await backend.stack(thread_id, 0, max(self.limits.report_frames, 1))
        handles = self.handles
        handles.begin(stop_number)
        stack = [
            FrameView(handle=handles.frame(i, f.id), function=f.name, file=f.file, line=f.line, column=f.column)
            for i, f in enumerate(frames)
        ]
        top = frames[0] if frames else None
        location = Location(file=top.file, line=top.line, column=top.column, function=top.name) if top else Location()
        locals_, locals_total = ([], 0)
        if top is not None:
            locals_, locals_total = await self.frame_locals(top.id, limit=self.limits.report_locals)
        watches = await self._evaluate_watches(top.id if top else None)
        exception = None
        if info.reason == "exception":
            details = await backend.exception_details(thread_id)
            if details is not None:
                exception = ExceptionInfo(
                    type=_cap(details.type, 120), message=_cap(details.message), break_mode=details.break_mode
                )
            elif info.text or info.description:
                exception = ExceptionInfo(type=_cap(info.text or "Exception", 120), message=_cap(info.description))
        thread_name = None
        with contextlib.suppress(DebugError):
            thread_name = dict(await backend.threads()).get(thread_id)
        return StopReport(
            session_id=self.id,
            stop_number=stop_number,
            reason=info.reason,
            description=_cap(info.description),
            exception=exception,
            thread_id=thread_id,
            thread_name=thread_name,
            hit_breakpoints=[
                bp.id for bp in self.breakpoints.values() if bp.state.backend_id in info.hit_breakpoint_ids
            ],
            location=location,
            source=await self._source_window(location),
            locals=locals_,
            locals_total=locals_total,
            stack=stack,
            stack_total=total,
            watches=watches,
            output_tail=self.output.tail_text(self._output_mark, self.limits.report_output_lines),
            output_cursor=self.output.cursor,
        )

    async def _source_window(self, location: Location) -> list:
        """Source lines around the stop; a script with no local file is fetched from the target once."""
        if location.file and not os.path.isfile(location.file) and not has_source(location.file):
            fetch = getattr(self.backend, "script_source", None)
            if fetch is not None:
                with contextlib.suppress(DebugError):
                    text = await fetch(location.file)
                    if text is not None:
                        register_source(location.file, text)
        return window(location.file, location.line, self.limits.report_context)

    def value_view(self, raw: RawValue, parent_ref: int, frame_id: int | None, cap: int | None = None) -> VariableView:
        cap = cap or self.limits.value_chars
        value = raw.value
        truncated = len(value) > cap
        if truncated:
            value = value[: cap - 1] + "…"
        handle = None
        if raw.ref:
            handle = self.handles.var(VarRef(raw.ref, raw.name, parent_ref, raw.evaluate_name, frame_id))
        return VariableView(handle=handle, name=raw.name, type=raw.type, value=value, truncated=truncated)

    async def frame_locals(
        self, frame_id: int, limit: int, include_special: bool = False
    ) -> tuple[list[VariableView], int]:
        scopes = await self.backend.scopes(frame_id)
        if not scopes:
            return [], 0
        scope = scopes[0]
        raws = await self.backend.variables(scope.ref)
        raws = [r for r in raws if include_special or not _is_special(r.name)]
        return [self.value_view(r, scope.ref, frame_id) for r in raws[:limit]], len(raws)

    async def _evaluate_watches(self, frame_id: int | None) -> list[WatchView]:
        """Watches for a stop report, within a time budget: a slow watch must not hold the stop back."""
        views = []
        deadline = asyncio.get_running_loop().time() + WATCH_BUDGET_S
        for watch in self.watches.values():
            left = deadline - asyncio.get_running_loop().time()
            views.append(await self._evaluate_watch(watch, frame_id, max(0.05, min(WATCH_TIMEOUT_S, left))))
        return views

    async def _evaluate_watch(self, watch: Watch, frame_id: int | None, timeout: float = 10.0) -> WatchView:
        error = False
        try:
            raw = await asyncio.wait_for(self.backend.evaluate(watch.expression, frame_id, context="watch"), timeout)
            value = raw.value
        except TimeoutError:
            value, error = f"(not evaluated: took over {timeout:.1f}s)", True
        except DebugError as exc:
            value, error = _first_line(exc.message), True
        if len(value) > self.limits.value_chars:
            value = value[: self.limits.value_chars - 1] + "…"
        changed = watch.last is not None and value != watch.last
        watch.last = value
        return WatchView(id=watch.id, expression=_cap(watch.expression, 120), value=value, changed=changed, error=error)

    # ----- lifecycle ----------------------------------------------------------------------------------------------

    async def start(self, breakpoints: list[Breakpoint]) -> None:
        for bp in breakpoints:
            self._add_breakpoint(bp)
        by_file = self._line_specs()
        try:
            states = await self.backend.start(
                {f: [s for _, s in specs] for f, specs in by_file.items()}, self.exception_mode
            )
        except DebugError as exc:
            self.error = exc.message
            self._set_phase(Phase.ERROR, exc.message)
            raise
        for file, specs in by_file.items():
            for (bp, _), state in zip(specs, states.get(file, []), strict=False):
                bp.state = state
        if self.breakpoints:
            self._publish_breakpoints()
        if self.phase == Phase.STARTING:
            self._set_phase(Phase.RUNNING)

    async def close(self, terminate: bool = True) -> None:
        """End the session (once: a second caller waits for the first close)."""
        if not terminate and getattr(self.backend, "launched", False) and not self.phase.ended:
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                f"session {self.id} launched its program, which cannot outlive it (its output goes through pairdbg)",
                hint="close with terminate=true, or start the program yourself under a debug server and attach",
            )
        if self._close_task is None:
            self._close_task = asyncio.ensure_future(self._close(terminate))
        await asyncio.shield(self._close_task)

    async def _close(self, terminate: bool) -> None:
        for task in list(self._stop_tasks):
            task.cancel()
        if self._release_task is not None:
            with contextlib.suppress(Exception):
                await self._release_task
        with contextlib.suppress(Exception):
            await self.backend.close(terminate)
        self._set_phase(Phase.TERMINATED, "closed")

    # ----- execution control --------------------------------------------------------------------------------------

    def _require_paused(self) -> None:
        if self.phase != Phase.PAUSED:
            if self.phase.ended:
                raise self._ended_error()
            err = not_paused(self.id, self.phase.value)
            if self.last_control and self.phase == Phase.RUNNING:
                err.message += f" (last resumed by {self.last_control})"
            raise err

    def _ended_error(self) -> DebugError:
        detail = f" (exit code {self.exit_code})" if self.exit_code is not None else ""
        if self.error:
            detail += f": {self.error}"
        if self.phase == Phase.DISCONNECTED:
            retrying = getattr(self.backend, "reconnecting", False)
            return DebugError(
                ErrorCode.NOT_CONNECTED,
                f"session {self.id} is not connected to its target{detail}",
                hint=f"pairdbg is reconnecting; call wait_for_stop(session_id='{self.id}') to wait for it"
                if retrying
                else "start the target again and attach, or start a new session",
                phase=self.phase.value,
            )
        return DebugError(
            ErrorCode.SESSION_INVALID_STATE,
            f"session {self.id} has {self.phase.value}{detail}",
            hint="start a new session with start_debugging; get_output still shows what it printed",
            phase=self.phase.value,
        )

    async def control(self, what: Literal["continue", "over", "into", "out"], actor: str, wait_s: float) -> ExecOutcome:
        """Resume or step, then wait up to wait_s for the next stop and say truthfully where things are."""
        if self._lock.locked():
            raise DebugError(
                ErrorCode.BUSY,
                f"session {self.id} is busy: {self.last_control or 'another action'} is in progress",
                hint="retry in a moment, or call wait_for_stop",
            )
        async with self._lock:
            self._require_paused()
            before, gen = self.stop_number, self._stop_gen
            thread = self.last_stop.thread_id if self.last_stop else None
            # Named before the request goes out, so a concurrent actor's BUSY says who holds the session.
            self.last_control = f"{actor} {'continue' if what == 'continue' else 'step ' + what}"
            if what == "continue":
                await self.backend.resume(thread)
            else:
                await self.backend.step(what, thread)  # type: ignore[arg-type]
            if self._stop_gen == gen:  # no stop has arrived yet (it may beat the response)
                self._set_phase(Phase.RUNNING)
        return await self.wait_for_stop(before, wait_s)

    async def pause(self, actor: str, wait_s: float) -> ExecOutcome:
        """Interrupt a running program. Deliberately takes no lock: it must preempt a pending wait."""
        if self.phase.ended:
            raise self._ended_error()
        if self.phase == Phase.PAUSED and self.last_stop is not None:
            return ExecOutcome("paused", self.last_stop, detail="already paused")
        if "pause" not in self.backend.features:
            raise DebugError(ErrorCode.CAPABILITY_UNSUPPORTED, f"{self.backend.kind} cannot pause a running program")
        before = self.stop_number
        if self._stop_tasks:  # the program already stopped; its report is being built
            return await self.wait_for_stop(before, wait_s)
        await self.backend.pause(self._current_thread or 0)
        self.last_control = f"{actor} pause"
        return await self.wait_for_stop(before, wait_s)

    async def wait_for_stop(self, after: int | None, timeout: float) -> ExecOutcome:
        """Wait for a stop newer than `after` (None: the current one counts), or the end of the program."""
        after = self.stop_number if after is None and self.phase != Phase.PAUSED else after
        if after is None:
            after = self.stop_number - 1

        def settled() -> bool:
            if self.phase == Phase.DISCONNECTED and getattr(self.backend, "reconnecting", False):
                return False  # the target may come back (attach, restarted on its port) and stop again
            return self.phase.ended or (self.stop_number > after and self.phase == Phase.PAUSED)

        await self._wait_until(settled, max(0.0, timeout))
        return self.outcome(pending=True)

    def outcome(self, pending: bool = False) -> ExecOutcome:
        if self.phase == Phase.PAUSED and self.last_stop is not None:
            return ExecOutcome("paused", self.last_stop)
        if self.phase.ended:
            return ExecOutcome(
                self.phase.value,  # type: ignore[arg-type]
                exit_code=self.exit_code,
                detail=self.error,
                output_tail=self.output.tail_text(self._output_mark, self.limits.report_output_lines),
            )
        return ExecOutcome("running", pending=pending)

    # ----- breakpoints ------------------------------------------------------------------------------------------

    def _check_text(self, what: str, text: str | None) -> None:
        if text is not None and len(text) > self.limits.max_expression:
            raise DebugError(
                ErrorCode.LIMIT_EXCEEDED,
                f"{what} is {len(text)} characters; the limit is {self.limits.max_expression}",
            )

    def new_breakpoint(
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
        if len(self.breakpoints) >= self.limits.max_breakpoints:
            raise DebugError(
                ErrorCode.LIMIT_EXCEEDED,
                f"session {self.id} already has {len(self.breakpoints)} breakpoints "
                f"(limit {self.limits.max_breakpoints})",
                hint="remove_breakpoint some first",
            )
        for what, text in (("condition", condition), ("hit_condition", hit_condition), ("log_message", log_message)):
            self._check_text(what, text)
        if function:
            self._bp_seq += 1
            return Breakpoint(
                f"BP{self._bp_seq}",
                "function",
                function=function,
                condition=condition,
                hit_condition=hit_condition,
                set_by=actor,
            )
        assert file is not None and line is not None
        if is_url(file):
            # A script the target knows by URL (a page's http://…/app.js): only the target can check it.
            if "remote_sources" not in self.backend.features:
                raise DebugError(
                    ErrorCode.INVALID_PARAMETERS, f"{self.backend.kind} sessions take file paths, not URLs"
                )
            path, lines = file, ()
        else:
            path = os.path.abspath(os.path.expanduser(file))
            lines = lines_of(path)  # a missing file fails here, before an id is used up
        if lines and not 1 <= line <= max(len(lines), 1):
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                f"line {line} is outside {path}, which has {len(lines)} lines",
                hint="lines are 1-based; call get_source_context to see the file",
            )
        self._bp_seq += 1
        return Breakpoint(
            f"BP{self._bp_seq}",
            "line",
            file=path,
            line=line,
            condition=condition,
            hit_condition=hit_condition,
            log_message=log_message,
            set_by=actor,
        )

    def _add_breakpoint(self, bp: Breakpoint) -> None:
        self.breakpoints[bp.id] = bp

    def _line_specs(self) -> dict[str, list[tuple[Breakpoint, LineBreakpointSpec]]]:
        by_file: dict[str, list[tuple[Breakpoint, LineBreakpointSpec]]] = {}
        for bp in self.breakpoints.values():
            if bp.kind == "line" and bp.file and bp.line:
                spec = LineBreakpointSpec(bp.line, bp.condition, bp.hit_condition, bp.log_message)
                by_file.setdefault(bp.file, []).append((bp, spec))
        return by_file

    async def _sync_file(self, file: str) -> None:
        specs = self._line_specs().get(file, [])
        states = await self.backend.set_line_breakpoints(file, [s for _, s in specs])
        for (bp, _), state in zip(specs, states, strict=False):
            bp.state = state

    async def _sync_functions(self) -> None:
        bps = [bp for bp in self.breakpoints.values() if bp.kind == "function"]
        states = await self.backend.set_function_breakpoints(
            [FunctionBreakpointSpec(bp.function or "", bp.condition, bp.hit_condition) for bp in bps]
        )
        for bp, state in zip(bps, states, strict=False):
            bp.state = state

    async def add_breakpoint(self, bp: Breakpoint) -> Breakpoint:
        if self.phase.ended:
            raise self._ended_error()
        self._add_breakpoint(bp)
        try:
            if bp.kind == "function":
                await self._sync_functions()
            else:
                assert bp.file is not None
                await self._sync_file(bp.file)
        except (DebugError, NotImplementedError) as exc:
            del self.breakpoints[bp.id]
            if isinstance(exc, NotImplementedError):
                raise DebugError(
                    ErrorCode.CAPABILITY_UNSUPPORTED, f"{self.backend.kind} has no {bp.kind} breakpoints"
                ) from None
            raise
        self._publish_breakpoints()
        return bp

    async def remove_breakpoint(self, bp_id: str) -> Breakpoint:
        bp = self.breakpoints.get(bp_id.strip().upper())
        if bp is None:
            known = ", ".join(self.breakpoints) or "none"
            raise DebugError(
                ErrorCode.PATH_NOT_FOUND,
                f"no breakpoint {bp_id} in session {self.id} (have: {known})",
                hint="call list_breakpoints",
            )
        del self.breakpoints[bp.id]
        if not self.phase.ended:
            if bp.kind == "function":
                await self._sync_functions()
            elif bp.file:
                await self._sync_file(bp.file)
        self._publish_breakpoints()
        return bp

    def _publish_breakpoints(self) -> None:
        self.bus.publish(BreakpointsChanged(self.id, breakpoints=tuple(bp.view() for bp in self.breakpoints.values())))

    async def set_exception_mode(self, mode: ExceptionMode) -> None:
        if self.phase.ended:
            raise self._ended_error()
        await self.backend.set_exception_mode(mode)
        self.exception_mode = mode

    # ----- inspection -------------------------------------------------------------------------------------------

    async def evaluate(self, expression: str, frame: str | None, by_value: bool = False) -> VariableView:
        """In a frame of the paused program; or globally (frame="global", or any time the program runs) where the
        backend can. Values evaluated while the program runs get no handle: it could not outlive the next pause."""
        self._check_text("expression", expression)
        global_ok = "global_evaluate" in self.backend.features
        if frame == "global" or (self.phase == Phase.RUNNING and global_ok and frame is None):
            if not global_ok:
                raise DebugError(
                    ErrorCode.CAPABILITY_UNSUPPORTED,
                    f"{self.backend.kind} cannot evaluate globally",
                    hint="pause first and evaluate in a frame",
                )
            if self.phase.ended:
                raise self._ended_error()
            frame_id = None
        else:
            self._require_paused()
            frame_id = self.handles.frame_id(frame)
        try:
            raw = await self.backend.evaluate(expression, frame_id, context="repl", by_value=by_value)
        except DebugError as exc:
            if exc.code == ErrorCode.PROTOCOL_ERROR:
                raise DebugError(
                    ErrorCode.INVALID_PARAMETERS,
                    f"evaluating {expression!r} failed: {_last_line(exc.message)}",
                    hint="fix the expression; names are those visible in the frame",
                    detail=exc.message,
                ) from None
            raise
        if self.phase != Phase.PAUSED:
            raw.ref = 0
        return self.value_view(raw, 0, frame_id, cap=4000)

    async def children(
        self, handle: str, start: int, count: int, names: list[str] | None
    ) -> tuple[list[VariableView], int]:
        self._require_paused()
        ref = self.handles.variable(handle)
        if not ref.ref:
            raise DebugError(ErrorCode.INVALID_PARAMETERS, f"{handle} ({ref.name}) has no children to list")
        raws = await self.backend.variables(ref.ref)
        if names:
            wanted = set(names)
            raws = [r for r in raws if r.name in wanted]
        return [self.value_view(r, ref.ref, ref.frame_id) for r in raws[start : start + count]], len(raws)

    async def set_variable(self, name: str, value: str, ref_handle: str | None, frame: str | None) -> VariableView:
        self._check_text("value", value)
        self._require_paused()
        if ref_handle:
            container = self.handles.variable(ref_handle)
            if not container.ref:
                raise DebugError(
                    ErrorCode.INVALID_PARAMETERS, f"{ref_handle} is not a container; pass the frame instead"
                )
            parent, frame_id = container.ref, container.frame_id
        else:
            frame_id = self.handles.frame_id(frame)
            parent = 0
            for scope in await self.backend.scopes(frame_id):
                if any(v.name == name for v in await self.backend.variables(scope.ref)):
                    parent = scope.ref
                    break
            if not parent:
                raise DebugError(
                    ErrorCode.PATH_NOT_FOUND,
                    f"no variable {name!r} in frame {frame or '@f0'}",
                    hint="call get_local_variables to see the names",
                )
        try:
            raw = await self.backend.set_variable(parent, name, value)
        except NotImplementedError:
            raise DebugError(ErrorCode.CAPABILITY_UNSUPPORTED, f"{self.backend.kind} cannot set variables") from None
        except DebugError as exc:
            if exc.code == ErrorCode.PROTOCOL_ERROR:
                raise DebugError(
                    ErrorCode.INVALID_PARAMETERS, f"could not set {name}: {_last_line(exc.message)}"
                ) from None
            raise
        return self.value_view(raw, parent, frame_id)

    # ----- watches --------------------------------------------------------------------------------------------

    async def add_watch(self, expression: str) -> WatchView:
        self._check_text("expression", expression)
        if len(self.watches) >= self.limits.max_watches:
            raise DebugError(ErrorCode.LIMIT_EXCEEDED, f"at most {self.limits.max_watches} watches")
        self._watch_seq += 1
        watch = Watch(f"W{self._watch_seq}", expression)
        self.watches[watch.id] = watch
        if self.phase == Phase.PAUSED:
            return await self._evaluate_watch(
                watch, self.handles.frame_id("@f0") if self.last_stop and self.last_stop.stack else None
            )
        return WatchView(id=watch.id, expression=expression, value="(evaluated at the next stop)")

    def remove_watch(self, watch_id: str) -> Watch:
        watch = self.watches.pop(watch_id.strip().upper(), None)
        if watch is None:
            raise DebugError(
                ErrorCode.PATH_NOT_FOUND, f"no watch {watch_id} (have: {', '.join(self.watches) or 'none'})"
            )
        return watch

    # ----- summary ----------------------------------------------------------------------------------------------

    def summary(self) -> SessionSummary:
        stop = self.last_stop if self.phase == Phase.PAUSED else None
        return SessionSummary(
            session_id=self.id,
            name=self.name,
            language=self.language,
            backend=self.backend.kind,
            phase=self.phase,
            program=self.backend.program,
            pid=self.backend.pid,
            stop_number=self.stop_number,
            location=stop.location if stop else None,
            reason=stop.reason if stop else None,
            exit_code=self.exit_code,
            error=self.error,
            capabilities=self.capabilities,
        )


def _is_special(name: str) -> bool:
    return (name.startswith("__") and name.endswith("__")) or name in ("special variables", "function variables")


def _cap(text: str | None, limit: int = TEXT_CAP) -> str | None:
    if text is None or len(text) <= limit:
        return text
    return text[: limit - 1] + f"… ({len(text) - limit + 1} more characters)"


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else text
