"""One debug session: the phase machine, backend callbacks, lifecycle and control, composed of its parts.

Invariants: the phase changes only here, from backend callbacks or from the outcome of a control request this
session itself sent; front ends read it and call the methods below. Control requests are serialised by a lock that
is held only while a request is sent (never while waiting for a stop), so a second actor gets an honest answer at
once (BUSY, or NOT_PAUSED because the first actor already resumed the program) instead of queueing behind it.

The parts hold no phase logic of their own and get what they need when they are made: the BreakpointBook
(breakpoints.py), the ValueInspector and WatchList (values.py) and the StopRecorder, which builds a stop's report
(stops.py). Recording the stop, and every phase change, stays in this file; the parts ask the session's guards
(require_paused, require_live) before touching a target that may not be there.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Literal

from .base import Backend, BreakpointState, ExceptionMode, RawValue, StopInfo
from .breakpoints import Breakpoint, BreakpointBook
from .changes import Changes
from .errors import DebugError, ErrorCode, not_paused
from .events import EventBus, OutputAppended, PhaseChanged, Stopped
from .handles import Handles
from .limits import Limits
from .models import DataChange, ExecOutcome, Location, Phase, SessionSummary, StopReport, VariableView, WatchView
from .output import OutputRing
from .source import is_url, resolve_path
from .stops import StopRecorder, StopSnapshot
from .values import ValueInspector, Watch, WatchList

__all__ = ["Breakpoint", "ExecOutcome", "Session", "Watch"]  # ExecOutcome lives in models; kept here for callers

log = logging.getLogger(__name__)
# However short a caller's wait_s, a step request gets this long to be answered (a healthy adapter takes ms).
MIN_ANSWER_S = 0.5
CALL_ORDER = re.compile(r" \(call \d+\)$")  # debugpy's suffix on a step-in target that is a line's 2nd call of a name
PROCESS_GONE_GRACE_S = 1.0  # how long the adapter gets to report a watched program's end itself
LOST_GRACE_S = 0.5  # how long a program on this machine gets to be gone when its adapter's connection drops
MAX_CALLS_NAMED = 3  # calls on one line a step_into note looks up and names


async def process_gone(pid: int) -> None:
    """Return once process `pid` (on this machine, not necessarily pairdbg's child) has exited: a pidfd where the
    system has them, else a cheap poll of /proc."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = None
    if fd is None:
        while _process_alive(pid):
            await asyncio.sleep(0.25)
        return
    loop = asyncio.get_running_loop()
    gone = loop.create_future()
    loop.add_reader(fd, lambda: gone.done() or gone.set_result(None))
    try:
        await gone
    finally:
        loop.remove_reader(fd)
        os.close(fd)


def _process_alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")  # a zombie has exited
    except (OSError, IndexError):
        return False


class Session:
    """One program under debug, shared by every actor: its phase, its parts and the control requests."""

    def __init__(
        self,
        session_id: str,
        name: str,
        backend: Backend,
        bus: EventBus,
        limits: Limits,
        language: str,
        open_child: Callable[[Session, Backend, str], Awaitable[None]] | None = None,
        previous: Session | None = None,
    ) -> None:
        """`previous`: the same program's last run, when this session restarts it (see `Hub.restart`)."""
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
        # A restart goes on with the same output (cursors stay valid) and handle numbers (an old @vN is still expired).
        self.output = previous.output if previous else OutputRing(limits.output_capacity, limits.output_bytes)
        self.handles = previous.handles if previous else Handles()
        self.breakpoints = BreakpointBook(session_id, backend, bus, limits, self.require_live, self.source_folders)
        self.values = ValueInspector(
            backend, self.handles, limits, lambda: self.phase, self.require_paused, self.require_live
        )
        self.watches = WatchList(backend, limits)
        self.stops = StopRecorder(
            session_id, backend, limits, self.handles, self.output, self.breakpoints, self.values, self.watches
        )
        self.created = time.time()
        self.launch_args: dict | None = None  # set by start_debugging; restart_debugging starts these again
        # Given by the Hub: opens a session for a further process of this program (a fork, a worker, a subprocess).
        self._open_child = open_child
        self.parent: Session | None = None  # the session of the process that started this one's
        self.child_sessions: list[Session] = []  # sessions of the processes this one's program started
        self._child_tasks: set[asyncio.Future[None]] = set()
        self.last_control: str | None = None  # "agent:x step_over", for honest BUSY / NOT_PAUSED answers
        self.controls_sent = 0  # steps/continues/pauses sent: a read that failed while this moved raced one
        self._lock = asyncio.Lock()
        self._changes = Changes()
        self._stop_gen = 0
        self._output_mark = 1
        self._stop_tasks: set[asyncio.Task[None]] = set()
        self._cleanup_tasks: set[asyncio.Task[None]] = set()  # run_to_line's breakpoints being removed
        self._current_thread: int | None = None
        self._snapshot: StopSnapshot | None = None
        self._depth_before_last = 0  # the stack depth of the stop before the last one, on the same thread
        self._release_task: asyncio.Future[None] | None = None
        self._close_task: asyncio.Future[None] | None = None
        self._watch_task: asyncio.Future[None] | None = None
        self._lost_task: asyncio.Future[None] | None = None
        self._bind_task: asyncio.Future[None] | None = None  # function breakpoints bound as their modules load
        self._bind_again = False
        self._outlived = False  # the program's own process ended while its children's sessions run on
        if previous is not None:
            self._carry(previous)
        backend.listener = self

    def _carry(self, previous: Session) -> None:
        """A restart: the previous run's breakpoints (ids, settings, hit counts), watches, exception mode and
        launch, and its stop numbers go on (a stop number names one stop of this session id)."""
        self.breakpoints.carry(previous.breakpoints)
        self.watches.carry(previous.watches)
        self.launch_args = previous.launch_args
        self.stop_number = previous.stop_number
        self._output_mark = self.output.cursor

    # ----- phase machine ---------------------------------------------------------------------------------------

    def _set_phase(self, phase: Phase, detail: str | None = None) -> None:
        if self.phase == phase or self.phase.ended:
            return
        self.phase = phase
        if phase != Phase.PAUSED:
            self.handles.expire()
        self.bus.publish(PhaseChanged(self.id, phase=phase, detail=detail))
        self._notify()
        if phase.ended:
            # The program is gone: release the adapter/connection now, not when someone closes the session.
            # The session record (output, last stop) stays for reading.
            self._release_task = self._release_task or asyncio.ensure_future(self._release())

    async def _release(self) -> None:
        # The program ended: children of a program pairdbg launched end with it (nothing outlives pairdbg); those
        # of an attached program are left running, detached, as the program itself would be. A program whose own
        # process exited while its children run keeps the adapter they share until they end.
        if self._watch_task is not None:
            self._watch_task.cancel()
        if self._outlived:
            await self._changes.wait_until(lambda: all(c.phase.ended for c in self.descendants()), 1e9)
        terminate = bool(getattr(self.backend, "launched", False))
        await asyncio.gather(
            *(child.close(terminate) for child in self.child_sessions if not child.phase.ended), return_exceptions=True
        )
        for task in list(self._stop_tasks):
            task.cancel()
        with contextlib.suppress(Exception):
            await self.backend.close(True)

    def on_reconnecting(self, message: str) -> None:
        """The backend lost its target and looks for it again: the session waits (its record and waiters stay)."""
        if self.phase.reachable:  # a second loss while looking (a half-open retry) changes nothing
            self.error = message
            self._set_phase(Phase.RECONNECTING, message)

    def on_reconnected(self) -> None:
        """The backend found its target again (same endpoint): breakpoints are restored, the program runs."""
        if self.phase == Phase.RECONNECTING:
            self.error = None
            self._set_phase(Phase.RUNNING, "reconnected")

    def _notify(self) -> None:
        self._changes.notify()
        if self.parent is not None:  # a parent's waiter hears its children's stops
            self.parent._notify()

    def descendants(self) -> list[Session]:
        return [s for child in self.child_sessions for s in (child, *child.descendants())]

    @property
    def snapshot(self) -> StopSnapshot | None:
        """The current stop's frames and scopes (fetched once, extended on demand); None unless paused."""
        return self._snapshot if self.phase == Phase.PAUSED else None

    @property
    def capabilities(self) -> dict[str, bool]:
        """Derived from the phase and what the backend can do; never stored."""
        f = self.backend.features
        paused = self.phase == Phase.PAUSED
        live = self.phase.reachable
        return {
            "can_continue": paused,
            "can_step": paused,
            "can_pause": self.phase == Phase.RUNNING and f.pause,
            "can_evaluate": paused,
            "can_inspect": paused,
            "can_set_breakpoints": live and self.backend.debugs_code,
            "can_set_variables": paused and f.set_variable,
            "conditional_breakpoints": f.conditional_breakpoints,
            "hit_conditions": f.hit_conditions,
            "log_points": f.log_points,
            "function_breakpoints": f.function_breakpoints,
            # A backend that drives a UI acts, and evaluates where it can, whenever its page is there.
            **({"ui_actions": live, "can_evaluate": live and f.global_evaluate} if f.ui else {}),
        }

    # ----- backend callbacks (BackendListener) -------------------------------------------------------------------

    def on_stopped(self, info: StopInfo) -> None:
        if self.phase == Phase.RECONNECTING:
            # The target is back: a breakpoint restored during the re-handshake can stop it before the backend
            # reports the reconnect.
            self.on_reconnected()
        self._stop_gen += 1
        task = asyncio.create_task(self._record_stop(info, self._stop_gen))
        self._stop_tasks.add(task)
        task.add_done_callback(self._stop_tasks.discard)

    def on_continued(self, thread_id: int | None, all_threads: bool) -> None:
        if self.phase == Phase.PAUSED:
            self._set_phase(Phase.RUNNING)

    def on_output(self, category: str, text: str, change: DataChange | None = None) -> None:
        entry = self.output.append(category, text, change)
        self.bus.publish(OutputAppended(self.id, entry=entry))

    def on_exited(self, exit_code: int | None) -> None:
        self.exit_code = exit_code

    def on_terminated(self) -> None:
        if self.phase == Phase.RECONNECTING:
            # The backend gave up looking: the target is lost for good (the reason stays the loss's message).
            self._set_phase(Phase.DISCONNECTED, self.error)
            return
        if self.phase == Phase.DISCONNECTED:
            # Lost, then the backend ended too: release its connection now, not when someone closes the session.
            self._release_task = self._release_task or asyncio.ensure_future(self._release())
            self._notify()
            return
        detail = f"exit code {self.exit_code}" if self.exit_code is not None else None
        self._set_phase(Phase.TERMINATED, detail)

    def on_lost(self, message: str) -> None:
        if self.phase.ended:
            return
        pid = self.backend.pid if getattr(self.backend, "local", False) else None
        if isinstance(pid, int):  # a program on this machine: an adapter that goes as it ends is not a lost program
            self._lost_task = asyncio.ensure_future(self._lost_or_ended(pid, message))
            return
        self._disconnected(message)

    async def _lost_or_ended(self, pid: int, message: str) -> None:
        try:
            await asyncio.wait_for(process_gone(pid), LOST_GRACE_S)
        except TimeoutError:
            self._disconnected(message)
            return
        if not self.phase.ended:
            self.error = f"its program (process {pid}) exited (exit code unknown); {message}"
            self._set_phase(Phase.TERMINATED, self.error)

    def _disconnected(self, message: str) -> None:
        if not self.phase.ended:
            self.error = message
            self._set_phase(Phase.DISCONNECTED, message)

    def on_breakpoint_changed(self, backend_id: int | str, state: BreakpointState, file: str | None = None) -> None:
        self.breakpoints.changed(backend_id, state, file)

    def on_loaded(self, file: str) -> asyncio.Future[None] | None:
        """A function breakpoint may wait for its module to load (an attached program's): look again, once at a
        time however many files load meanwhile; the look, or None when nothing waits."""
        if self.phase.ended or not self.breakpoints.awaits_load():
            return None
        self._bind_again = True
        if self._bind_task is None:
            self._bind_task = asyncio.ensure_future(self._bind_loaded())
        return self._bind_task

    async def _bind_loaded(self) -> None:
        try:
            while self._bind_again and not self.phase.ended:
                self._bind_again = False
                try:
                    await self.breakpoints.bind_loaded()
                except DebugError as exc:  # the target went away meanwhile: its end is reported by its own events
                    log.info("function breakpoints not bound on load: %s", exc.message)
                except Exception:  # a bug here must not end the session's event handling
                    log.exception("function breakpoints not bound on load")
        finally:
            self._bind_task = None

    def on_child(self, backend: Backend, name: str) -> None:
        if self._open_child is None:
            raise self.backend.unsupported("cannot open child sessions here")
        task = asyncio.ensure_future(self._open_child(self, backend, name))
        self._child_tasks.add(task)
        task.add_done_callback(self._child_tasks.discard)

    # ----- recording stops (stops.py builds the report) --------------------------------------------------------

    async def _record_stop(self, info: StopInfo, gen: int) -> None:
        try:
            thread_id = await self.stops.thread_of(info)
            self._current_thread = thread_id
            report, snapshot = await self.stops.build(info, thread_id, self.stop_number + 1, self._output_mark)
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
            snapshot = None
        if gen != self._stop_gen or self.phase.ended:
            return  # a newer stop (or the end) overtook this one
        self.stop_number = report.stop_number
        same_thread = self.last_stop is not None and self.last_stop.thread_id == report.thread_id
        self._depth_before_last = self.last_stop.stack_total if same_thread and self.last_stop else 0
        self.last_stop = report
        self._snapshot = snapshot
        self._output_mark = self.output.cursor
        self.breakpoints.verify_hit(report)
        if self.parent is not None:
            report.process = f"process {self.backend.pid}, child of {self.parent.id}"
        if self.phase == Phase.PAUSED:  # stopped again without a resume we saw (e.g. another thread)
            self.bus.publish(PhaseChanged(self.id, phase=Phase.PAUSED, detail=report.reason))
            self._notify()
        else:
            self._set_phase(Phase.PAUSED, report.reason)
        self.bus.publish(Stopped(self.id, report=report))
        self._drop_temporary()

    # ----- lifecycle ----------------------------------------------------------------------------------------------

    async def start(self, breakpoints: list[Breakpoint]) -> None:
        for bp in breakpoints:
            self.breakpoints.keep(bp)
        if self.backend.debugs_code:
            with contextlib.suppress(DebugError):  # what cannot be looked up now is looked up once the program runs
                await self.breakpoints.bind_functions()
        by_file = self.breakpoints.line_specs()
        try:
            states = await self.backend.start(
                {f: [s for _, s in specs] for f, specs in by_file.items()}, self.breakpoints.exception_mode
            )
        except DebugError as exc:
            self.error = exc.message
            self._set_phase(Phase.ERROR, exc.message)
            raise
        self.breakpoints.started(by_file, states)
        await self.breakpoints.sync_since(by_file)  # what a parent changed while this child's session started
        if getattr(self.backend, "local", False):
            self._watch_task = asyncio.ensure_future(self._watch_program())
        if self.phase == Phase.STARTING and not self._stop_tasks:
            # A stop still being recorded (Bun's stop on entry can come before start returns) makes the session
            # paused; calling it running first would expire the handles that stop's report hands out.
            self._set_phase(Phase.RUNNING)

    async def _watch_program(self) -> None:
        """debugpy reports the end of a program whose children still run only when the last of them ends (it sends
        no more than a thread's exit): the program's process, on this machine, is watched, and once it is gone and
        the adapter has not said so within a grace period, the session says it ended and that its children run."""
        while not isinstance(pid := self.backend.pid, int):  # the adapter's `process` event may come after start
            await asyncio.sleep(0.1)
        await process_gone(pid)
        await self._changes.wait_until(lambda: self.phase.ended, PROCESS_GONE_GRACE_S)
        if self.phase.ended:
            return
        live = [c.id for c in self.descendants() if not c.phase.ended]
        self._outlived = bool(live)
        self.error = f"its program (process {pid}) exited" + (
            f"; child sessions {', '.join(live)} still run" if live else ""
        )
        self.on_output("important", f"pairdbg: {self.error}\n")
        self._set_phase(Phase.TERMINATED, self.error)

    @property
    def closing(self) -> bool:
        """A close has begun (it may still be under way)."""
        return self._close_task is not None

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
        # A child process goes with its parent; its session closes first, while the adapter it shares is there.
        await asyncio.gather(*(child.close(terminate) for child in self.child_sessions), return_exceptions=True)
        for task in list(self._child_tasks):
            task.cancel()
        if self._watch_task is not None:
            self._watch_task.cancel()
        for task in (self._lost_task, self._bind_task):
            if task is not None:
                task.cancel()
        for task in [*self._stop_tasks, *self._cleanup_tasks]:
            task.cancel()
        if self._release_task is not None:
            with contextlib.suppress(Exception):
                await self._release_task
        with contextlib.suppress(Exception):
            await self.backend.close(terminate)
        # What the program left running lives as long as the session, not as long as the program's process: a
        # launched program's leftovers end here, whatever `terminate` says (they cannot outlive pairdbg).
        await self.backend.leftovers.end()
        self._set_phase(Phase.TERMINATED, "closed")

    # ----- execution control --------------------------------------------------------------------------------------

    def require_paused(self) -> None:
        """Raise NOT_PAUSED (saying who resumed it) or the "has ended" error unless the program is paused."""
        if self.phase != Phase.PAUSED:
            if not self.phase.reachable:
                raise self.ended_error()
            err = not_paused(self.id, self.phase.value)
            if self.last_control and self.phase == Phase.RUNNING:
                err.message += f" (last resumed by {self.last_control})"
            raise err

    @property
    def control_in_flight(self) -> bool:
        """A step or continue is being sent (the program is about to move)."""
        return self._lock.locked()

    def require_live(self) -> None:
        """Raise the "has ended" (or "is reconnecting") error while the session's target is not there."""
        if not self.phase.reachable:
            raise self.ended_error()

    def ended_error(self) -> DebugError:
        detail = f" (exit code {self.exit_code})" if self.exit_code is not None else ""
        if self.error:
            detail += f": {self.error}"
        if self.phase in (Phase.DISCONNECTED, Phase.RECONNECTING):
            retrying = self.phase == Phase.RECONNECTING
            return DebugError(
                ErrorCode.NOT_CONNECTED,
                f"session {self.id} is not connected to its target{detail}",
                hint=f"pairdbg is reconnecting; call wait_for_stop(session_id='{self.id}') to wait for it"
                if retrying
                else "start the target again and attach, or start a new session",
                phase=self.phase.value,
            )
        live = [c.id for c in self.descendants() if not c.phase.ended]
        return DebugError(
            ErrorCode.SESSION_INVALID_STATE,
            f"session {self.id} has {self.phase.value}{detail}",
            hint=f"its child sessions {', '.join(live)} still run: call wait_for_stop(session_id='{live[0]}') or "
            "pause_execution on one of them"
            if live
            else "start a new session with start_debugging; get_output still shows what it printed",
            phase=self.phase.value,
        )

    def _refuse_if_busy(self) -> None:
        """A second actor's control request while one is in flight is BUSY at once, never queued."""
        if self._lock.locked():
            raise DebugError(
                ErrorCode.BUSY,
                f"session {self.id} is busy: {self.last_control or 'another action'} is in progress",
                hint="retry in a moment, or call wait_for_stop",
            )

    async def control(self, what: Literal["continue", "over", "into", "out"], actor: str, wait_s: float) -> ExecOutcome:
        """Resume or step, then wait up to wait_s for the next stop and say truthfully where things are."""
        self._refuse_if_busy()
        async with self._lock:
            self.require_paused()
            before, gen = self.stop_number, self._stop_gen
            before_stop = self.last_stop
            thread = self.last_stop.thread_id if self.last_stop else None
            # Named before the request goes out, so a concurrent actor's BUSY says who holds the session.
            self.last_control = f"{actor} {'continue' if what == 'continue' else 'step ' + what}"
            debugger = self.backend.debugger("cannot resume or step")
            calls = await self._calls_ahead(before_stop) if what == "into" else None
            self.controls_sent += 1
            began = time.monotonic()
            request = asyncio.ensure_future(
                debugger.resume(thread) if what == "continue" else debugger.step(what, thread)  # type: ignore[arg-type]
            )
            # The request's answer is awaited only as long as the caller's wait_s: a stopped (SIGSTOP) or stuck
            # debuggee never answers, and the caller is told so rather than kept for the adapter's own timeout.
            answer_s = max(wait_s, MIN_ANSWER_S)
            done, _ = await asyncio.wait({request}, timeout=answer_s)
            if not done:
                request.add_done_callback(lambda task: self._late_control_answer(task, gen, what))
                if self._stop_gen == gen:
                    self._set_phase(Phase.RUNNING)
                return ExecOutcome(
                    "running",
                    pending=True,
                    detail=f"the debug adapter has not answered '{what}' within {answer_s:g}s (the program may be "
                    "stopped by a signal or stuck); the request stays sent",
                )
            request.result()  # a refused request raises here, as before
            if self._stop_gen == gen:  # no stop has arrived yet (it may beat the response)
                self._set_phase(Phase.RUNNING)
        outcome = await self.wait_for_stop(before, max(0.0, wait_s - (time.monotonic() - began)))
        if calls and outcome.report is not None and before_stop is not None:
            self._note_skipped_call(before_stop, outcome.report, calls)
        return outcome

    async def _calls_ahead(self, before: StopReport | None) -> list[tuple[str, str | None]] | None:
        """The calls on the paused line that a step_into could still enter, each with the file of its code ("" for
        built-in code, None if unknown); None when the backend cannot tell (then no note is ever made).
        Nothing is asked on a line reached by returning from a call: its calls are behind it."""
        if before is None or not before.stack or before.stack_total < self._depth_before_last:
            return None
        debugger = self.backend.debugger("cannot step")
        text = next((s.text for s in before.source if s.current), "")
        try:
            frame = self.handles.frame_id("@f0")
            labels = await debugger.step_in_targets(frame)
            if not labels or not text:
                return None
            calls = []
            for label in labels:
                label = CALL_ORDER.sub("", label).strip()
                first = label.splitlines()[0].strip() if label else ""
                if first and first in text and len(calls) < MAX_CALLS_NAMED:  # a call on this line (not a later one)
                    callee = label.split("(", 1)[0].strip()
                    calls.append((callee, await debugger.call_source(frame, callee)))
            return calls
        except DebugError:
            return None

    def _note_skipped_call(self, before: StopReport, after: StopReport, calls: list[tuple[str, str | None]]) -> None:
        """A step_into on a line with calls that did not go deeper: say which call was not entered and why (built-in
        code, or library code the backend steps over on purpose, and how to go in). Calls into the user's own file
        that were not entered (a generator made, not run) get no note."""
        if after.reason != "step" or after.hit_breakpoints or after.stack_total > before.stack_total:
            return
        if after.stack_total == before.stack_total and after.location.function != before.location.function:
            return
        hint = self.backend.debugger("cannot step").skipped_code_hint
        parts = []
        for callee, source in calls:
            if source == "":
                parts.append(f"{callee}() is built-in: cannot be entered")
            elif source is None:
                if hint:
                    parts.append(f"{callee}(): if it is library code, {hint}")
            elif source != before.location.file and hint:
                parts.append(f"{callee}() is library code ({source}); {hint}")
        if parts:
            after.description = (
                f"step_into did not enter the call on line {before.location.line} "
                f"({before.location.function or '?'}): " + "; ".join(parts)
            )

    async def run_to(self, file: str, line: int, actor: str, wait_s: float) -> ExecOutcome:
        """Continue to `line` of `file` through a temporary breakpoint, removed at the next stop whether the program
        stops there or elsewhere (a breakpoint already on that line does the job itself)."""
        self.require_paused()
        path = self.resolve_file(file)
        here = [
            bp
            for bp in self.breakpoints.values()
            if bp.kind == "line" and bp.enabled and bp.file == path and line in (bp.line, bp.state.line)
        ]
        temporary = None
        if not here:
            temporary = self.breakpoints.new(path, line, actor=actor)
            temporary.temporary = True
            await self.add_breakpoint(temporary)
        try:
            return await self.control("continue", actor, wait_s)
        except DebugError:
            if temporary is not None and temporary.id in self.breakpoints:  # it never ran: nothing left behind
                with contextlib.suppress(DebugError):
                    await self.remove_breakpoint(temporary.id)
            raise

    def _drop_temporary(self) -> None:
        temporary = [bp.id for bp in self.breakpoints.values() if bp.temporary]
        if temporary:
            task = asyncio.create_task(self._remove_quietly(temporary))
            self._cleanup_tasks.add(task)
            task.add_done_callback(self._cleanup_tasks.discard)

    async def _remove_quietly(self, bp_ids: list[str]) -> None:
        for bp_id in bp_ids:
            if bp_id in self.breakpoints and not self.phase.ended:
                try:
                    await self.remove_breakpoint(bp_id)
                except DebugError as exc:
                    log.warning("session %s: could not remove run_to_line's %s: %s", self.id, bp_id, exc)

    async def goto(self, file: str, line: int, actor: str, wait_s: float) -> ExecOutcome:
        """Make `line` the next statement of the stopped thread (where the backend can), then report that stop."""
        self._refuse_if_busy()
        async with self._lock:
            self.require_paused()
            debugger = self.backend.debugger("cannot set the next statement")
            if not debugger.features.goto:
                raise debugger.unsupported(
                    "cannot set the next statement (its adapter has no goto)", hint="run_to_line runs to a line instead"
                )
            before = self.stop_number
            thread = self.last_stop.thread_id if self.last_stop else None
            self.last_control = f"{actor} goto line {line}"
            self.controls_sent += 1
            await debugger.goto(thread or 0, self.resolve_file(file), line)
        return await self.wait_for_stop(before, wait_s)

    def _late_control_answer(self, task: asyncio.Future, gen: int, what: str) -> None:
        """A step or continue that failed after its caller was told it is pending: said in the output, since the
        state stays unknown (running) until the target reports a stop or its end."""
        if task.cancelled() or task.exception() is None:
            return
        log.warning("session %s: '%s' failed after its caller stopped waiting: %s", self.id, what, task.exception())
        if self._stop_gen == gen and not self.phase.ended:
            self.on_output("important", f"pairdbg: '{what}' failed after it was reported pending: {task.exception()}\n")

    async def pause(self, actor: str, wait_s: float) -> ExecOutcome:
        """Interrupt a running program. Deliberately takes no lock: it must preempt a pending wait."""
        self.require_live()
        if self.phase == Phase.PAUSED and self.last_stop is not None:
            return ExecOutcome("paused", self.last_stop, detail="already paused")
        if not self.backend.features.pause:
            raise self.backend.unsupported("cannot pause a running program")
        before = self.stop_number
        if self._stop_tasks:  # the program already stopped; its report is being built
            return await self.wait_for_stop(before, wait_s)
        self.controls_sent += 1
        await self.backend.debugger("cannot pause a running program").pause(self._current_thread or 0)
        self.last_control = f"{actor} pause"
        return await self.wait_for_stop(before, wait_s)

    async def wait_for_stop(self, after: int | None, timeout: float) -> ExecOutcome:
        """Wait for a stop newer than `after` (None: the current one counts), or the end of the program."""
        after = self.stop_number if after is None and self.phase != Phase.PAUSED else after
        if after is None:
            after = self.stop_number - 1

        marks = {s.id: s.stop_number for s in self.descendants()}

        def child_stopped() -> bool:
            return any(s.phase == Phase.PAUSED and s.stop_number > marks.get(s.id, 0) for s in self.descendants())

        def settled() -> bool:
            # While reconnecting the target may come back (attach, restarted on its port) and stop again. A child
            # process stopping (a worker at a breakpoint) ends the wait too: the reply names it.
            return self.phase.ended or (self.stop_number > after and self.phase == Phase.PAUSED) or child_stopped()

        await self._changes.wait_until(settled, max(0.0, timeout))
        outcome = self.outcome(pending=True)
        if outcome.state == "running":
            outcome.detail = "; ".join(filter(None, [outcome.detail, self.children_paused()])) or None
            outcome.child_stopped = child_stopped()
        return outcome

    def children_paused(self) -> str | None:
        """Which child processes' sessions are paused, and where: a parent that runs on says so."""
        paused = [s for s in self.descendants() if s.phase == Phase.PAUSED and s.last_stop is not None]
        if not paused:
            return None
        parts = []
        for s in paused:
            stop = s.last_stop
            assert stop is not None
            loc = stop.location
            place = f" at {os.path.basename(loc.file or '?')}:{loc.line}" if loc.line else ""
            hit = f" {','.join(stop.hit_breakpoints)}" if stop.hit_breakpoints else ""
            parts.append(f"child session {s.id} (process {s.backend.pid}) is paused: {stop.reason}{hit}{place}")
        return "; ".join(parts) + f"; call wait_for_stop(session_id='{paused[0].id}') for its stop report"

    def outcome(self, pending: bool = False) -> ExecOutcome:
        if self.phase == Phase.PAUSED and self.last_stop is not None:
            return ExecOutcome("paused", self.last_stop)
        if not self.phase.reachable:
            # While reconnecting the answer is today's "disconnected" (the detail says it is reconnecting).
            state = Phase.DISCONNECTED if self.phase == Phase.RECONNECTING else self.phase
            return ExecOutcome(
                state.value,  # type: ignore[arg-type]
                exit_code=self.exit_code,
                detail=self.error,
                output_tail=self.output.tail_text(self._output_mark, self.limits.report_output_lines),
            )
        return ExecOutcome("running", pending=pending)

    # ----- summary ----------------------------------------------------------------------------------------------

    def source_folders(self) -> list[str]:
        """Where a relative file name an actor passes is looked for: the program's working folder and its own
        folder (launches), and the folder of the file it is stopped in."""
        folders = []
        launch = self.launch_args or {}
        if launch.get("cwd"):
            folders.append(os.path.abspath(os.path.expanduser(launch["cwd"])))
        program = self.backend.program
        if program and os.path.isabs(program):
            folders.append(os.path.dirname(program))
        stop = self.last_stop
        if stop is not None and stop.location.file and os.path.isabs(stop.location.file):
            folders.append(os.path.dirname(stop.location.file))
        return list(dict.fromkeys(folders))

    def resolve_file(self, file: str) -> str:
        """An absolute path for a file an actor names, relative ones found through `source_folders`."""
        return file if is_url(file) else resolve_path(file, self.source_folders())

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
            parent_id=self.parent.id if self.parent else None,
            child_ids=[child.id for child in self.child_sessions] or None,
        )

    # ----- the parts, as callers know them ------------------------------------------------------------------------

    @property
    def exception_mode(self) -> ExceptionMode:
        return self.breakpoints.exception_mode

    @property
    def _syncs_breakpoints(self) -> bool:
        """Breakpoint changes go to the target now; while the session starts they are kept, and its start sends
        them when it is done (a child process's session can get its parent's changes then)."""
        return self.phase.reachable and self.phase != Phase.STARTING

    async def add_breakpoint(self, bp: Breakpoint) -> Breakpoint:
        await self.breakpoints.add(bp)
        await self._pass_down(bp)
        return bp

    async def add_data_breakpoint(self, bp: Breakpoint, frame: str | None) -> Breakpoint:
        """Arm a data breakpoint on what its expression names in a frame of the paused program (not passed to child
        processes: the watched object lives in this one)."""
        self.require_paused()
        return await self.breakpoints.add_data(bp, self.handles.frame_id(frame))

    async def _pass_down(self, bp: Breakpoint) -> None:
        """Child processes get a parent's new breakpoint too, under the same id (kept even if one refuses it)."""
        for child in self.child_sessions:
            copy = child.breakpoints.copy_of(bp)
            if copy is not None and not child.phase.ended:
                await child.breakpoints.add_inherited(copy, live=child._syncs_breakpoints)
                await child._pass_down(copy)

    def child_bindings(self, bp_id: str) -> str | None:
        """How a breakpoint stands in the child processes' sessions where that differs from this session's."""
        bp = self.breakpoints.get(bp_id)
        parts = []
        for child in self.descendants():
            copy = child.breakpoints.get(bp_id)
            if bp is None or copy is None or child.phase.ended:
                continue
            if (copy.state.verified, copy.state.message) != (bp.state.verified, bp.state.message):
                status = "verified" if copy.state.verified else "unverified"
                if copy.state.message:
                    status += f": {copy.state.message}"
                parts.append(f"in child session {child.id} (process {child.backend.pid}) {bp_id} is {status}")
        return "; ".join(parts) or None

    async def remove_breakpoint(self, bp_id: str) -> Breakpoint:
        bp = await self.breakpoints.remove(bp_id, live=self._syncs_breakpoints)
        for child in self.child_sessions:
            if bp.id in child.breakpoints:  # inherited (ids are unique in a process family)
                with contextlib.suppress(DebugError):
                    await child.remove_breakpoint(bp.id)
        return bp

    async def update_breakpoint(
        self,
        bp_id: str,
        enabled: bool | None = None,
        condition: str | None = None,
        hit_condition: str | None = None,
        log_message: str | None = None,
    ) -> Breakpoint:
        bp = await self.breakpoints.update(
            bp_id, self._syncs_breakpoints, enabled, condition, hit_condition, log_message
        )
        for child in self.child_sessions:
            if bp.id in child.breakpoints:
                with contextlib.suppress(DebugError):
                    await child.update_breakpoint(bp.id, enabled, condition, hit_condition, log_message)
        return bp

    async def set_exception_mode(self, mode: ExceptionMode) -> None:
        await self.breakpoints.set_exception_mode(mode)
        for child in self.child_sessions:  # child processes follow their parent's exception mode
            if child.phase.reachable:
                with contextlib.suppress(DebugError):
                    await child.set_exception_mode(mode)

    async def set_exception_filters(self, ids: list[str]) -> None:
        await self.breakpoints.set_exception_filters(ids)
        for child in self.child_sessions:  # child processes follow their parent's filters
            if child.phase.reachable:
                with contextlib.suppress(DebugError):
                    await child.set_exception_filters(ids)

    def value_view(self, raw: RawValue, parent_ref: int, frame_id: int | None, cap: int | None = None) -> VariableView:
        return self.values.value_view(raw, parent_ref, frame_id, cap)

    async def frame_locals(
        self, frame_id: int, limit: int, include_special: bool = False
    ) -> tuple[list[VariableView], int]:
        snapshot = self.snapshot  # the stop's scopes are read once
        scopes = await snapshot.scopes(frame_id) if snapshot is not None else None
        return await self.values.frame_locals(frame_id, limit, include_special, scopes)

    async def evaluate(self, expression: str, frame: str | None, by_value: bool = False) -> VariableView:
        return await self.values.evaluate(expression, frame, by_value)

    async def children(
        self, handle: str, start: int, count: int, names: list[str] | None
    ) -> tuple[list[VariableView], int]:
        return await self.values.children(handle, start, count, names)

    async def set_variable(self, name: str, value: str, ref_handle: str | None, frame: str | None) -> VariableView:
        return await self.values.set_variable(name, value, ref_handle, frame)

    async def add_watch(self, expression: str, actor: str = "human") -> WatchView:
        """Watch an expression; a paused program evaluates it at once, a running one at its next stop."""
        return await self._watch_view(self.watches.add(expression, actor))

    async def edit_watch(self, watch_id: str, expression: str) -> WatchView:
        return await self._watch_view(self.watches.edit(watch_id, expression))

    async def _watch_view(self, watch: Watch) -> WatchView:
        if self.phase == Phase.PAUSED:
            top = self.handles.frame_id("@f0") if self.last_stop and self.last_stop.stack else None
            return await self.watches.evaluate(watch, top)
        return WatchView(
            id=watch.id, expression=watch.expression, value="(evaluated at the next stop)", added_by=watch.added_by
        )

    def remove_watch(self, watch_id: str) -> Watch:
        return self.watches.remove(watch_id)
