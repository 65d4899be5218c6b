"""The inspector backend: one JS target (Bun, Node, Chromium page, WebKitGTK page) behind the Backend contract.

Frames, scopes and objects live only while the target is paused; their numeric handles are handed out per stop and
forgotten on resume, as DAP's are. Lines are 1-based at this contract and 0-based on the wire; for transpiled or
source-mapped scripts both directions go through the script's source map.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass, field
from typing import Any

from ..base import (
    Backend,
    BreakpointState,
    ExceptionDetails,
    ExceptionMode,
    LineBreakpointSpec,
    RawFrame,
    RawScope,
    RawValue,
    StepKind,
    StopInfo,
)
from ..errors import DebugError, ErrorCode
from ..source import forget_source, is_url
from .dialect import Dialect
from .process import RuntimeProcess
from .rpc import InspectorRpc
from .scripts import Scripts
from .values import describe, type_of

log = logging.getLogger(__name__)
STEP_METHODS = {"over": "Debugger.stepOver", "into": "Debugger.stepInto", "out": "Debugger.stepOut"}
# Copies the readable, non-function properties of `this` (own and inherited) into a plain object, at most 300.
READABLE_SNAPSHOT = """function() {
  const out = {}; let n = 0;
  for (const key in this) {
    if (n >= 300) break;
    try { const v = this[key]; if (typeof v !== "function") { out[key] = v; n++; } } catch (e) {}
  }
  return out;
}"""
RECONNECT_DELAYS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 8.0)


@dataclass
class Endpoint:
    """Where the inspector is and how to talk to it."""

    url: str
    dialect: Dialect
    wrapped: bool = False  # WebKitGTK: commands travel inside Target.sendMessageToTarget
    page: bool = False  # a browser page (Page domain, no process of ours)
    waiting: bool = False  # started with --inspect-brk: must be released after breakpoints are set
    rediscover: Any = None  # async () -> Endpoint, to find the target again after it restarts


@dataclass
class _Ref:
    object_ids: list[str]
    frame: int | None = None
    scope_numbers: list[int] = field(default_factory=list)  # when this handle is a (merged) scope of `frame`


@dataclass
class _Bp:
    backend_id: str
    spec: LineBreakpointSpec
    wire_id: str | None = None
    state: BreakpointState = field(default_factory=lambda: BreakpointState(False))


class InspectorBackend(Backend):
    kind = "inspector"
    features = frozenset(
        {
            "conditional_breakpoints",
            "hit_conditions",
            "log_points",
            "set_variable",
            "exception_info",
            "pause",
            "threads",
            "async_stacks",
            "remote_sources",
            "global_evaluate",
        }
    )

    def __init__(
        self,
        endpoint: Endpoint,
        language: str = "javascript",
        program: str | None = None,
        process: RuntimeProcess | None = None,
        stop_on_entry: bool = False,
    ) -> None:
        super().__init__()
        self.endpoint = endpoint
        self.dialect = endpoint.dialect
        self.language = language
        self.program = program or endpoint.url
        self.process = process
        self.launched = process is not None
        # Bun (JSC outside a browser page) transpiles every file, so lines are only known once a script is parsed.
        self.transpiles = self.dialect.is_jsc and not endpoint.page
        self.pid = process.pid if process else None
        self.stop_on_entry = stop_on_entry
        self.scripts = Scripts(self.dialect)
        self.rpc: InspectorRpc | None = None
        self._files: dict[str, list[_Bp]] = {}
        self._bp_seq = 0
        self._exception_mode: ExceptionMode = "uncaught"
        self._paused: dict[str, Any] | None = None
        self._refs: dict[int, _Ref] = {}
        self._next_ref = 1
        self._last_request: str | None = None
        self._entry_pending = endpoint.waiting
        self._closing = False
        self._tasks: set[asyncio.Task[Any]] = set()
        # Binding runs from scriptParsed, the entry pause and set_breakpoint at once; one at a time, or a second
        # setBreakpointByUrl for the same bp races the first (Bun: "Breakpoint for given location already exists").
        self._apply_lock = asyncio.Lock()
        self.reconnecting = False
        if process is not None:
            process.on_output = self._program_output
            process.on_exit = self._program_exited

    # ----- lifecycle ----------------------------------------------------------------------------------------

    async def start(
        self, line_breakpoints: dict[str, list[LineBreakpointSpec]], exception_mode: ExceptionMode
    ) -> dict[str, list[BreakpointState]]:
        self._exception_mode = exception_mode
        for file, specs in line_breakpoints.items():
            self._files[file] = [self._new_bp(spec) for spec in specs]
        await self._connect(self.endpoint)
        states = {file: [bp.state for bp in bps] for file, bps in self._files.items()}
        if self.endpoint.waiting:
            await self._send(self.dialect.release_command)
        return states

    async def _connect(self, endpoint: Endpoint) -> None:
        rpc = InspectorRpc(endpoint.url, self._on_event, self._on_close)
        # A Bun we launched must end when its program does; by default our connection keeps its event loop alive
        # (it would idle after the last line until we hang up). Bun's own adapter sends this header.
        headers = {"Ref-Event-Loop": "0"} if self.launched and self.transpiles else None
        await rpc.open(timeout=5.0, wrapped=endpoint.wrapped, headers=headers)
        self.rpc = rpc
        await self._set_up_target(endpoint)

    async def _set_up_target(self, endpoint: Endpoint) -> None:
        """Enable the domains, the exception mode and every breakpoint on the (current) target."""
        for method, params in self.dialect.enable_commands(endpoint.page):
            try:
                await self._send(method, params)
            except DebugError as exc:  # optional domains differ between versions; the core ones must work
                if method in ("Debugger.enable", "Runtime.enable"):
                    raise
                log.info("%s not available: %s", method, exc.message)
        await self.set_exception_mode(self._exception_mode)
        for file in list(self._files):
            await self._apply_file(file)

    async def _follow_new_target(self) -> None:
        """A WebKit page moved to a new target (cross-site navigation): its scripts and breakpoints start over."""
        self.scripts.clear()
        self._paused = None
        self._refs.clear()
        for bps in self._files.values():
            for bp in bps:
                bp.wire_id = None
        try:
            await self._set_up_target(self.endpoint)
        except DebugError as exc:
            log.warning("could not set up the new page target: %s", exc.message)

    @property
    def _ends_with_its_context(self) -> bool:
        """A Node process we neither started nor will look for again (e.g. a fork handed to us)."""
        return (
            self.process is None
            and not self.endpoint.page
            and self.endpoint.rediscover is None
            and not self.dialect.is_jsc
        )

    async def _target_finished(self) -> None:
        self._closing = True
        if self.rpc is not None:
            await self.rpc.close()
        if self.listener is not None:
            self.listener.on_terminated()

    def _spawn(self, coro) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, method: str, params: dict[str, Any] | None = None, timeout: float = 10.0) -> dict[str, Any]:
        if self.rpc is None or self.rpc.closed:
            raise DebugError(
                ErrorCode.NOT_CONNECTED,
                "the inspector target is not connected",
                hint="pairdbg reconnects by itself when the target comes back; wait_for_stop, or close",
            )
        return await self.rpc.send(method, params, timeout)

    def _on_close(self, reason: str) -> None:
        if self._closing:
            return
        self._paused = None
        self._refs.clear()
        if self.process is not None:
            # A launched runtime closes the socket as it exits (Bun after an uncaught error, or at the end): the
            # exit, with its code, is the honest report. Only a runtime still alive after a moment has lost us.
            self._spawn(self._lost_launched(reason))
            return
        will_retry = self.endpoint.rediscover is not None and self.process is None
        self.reconnecting = will_retry  # read by the session: a lost target that may come back is kept open
        if self.listener is not None:
            self.listener.on_lost(
                f"the inspector connection was lost ({reason})" + ("; reconnecting" if will_retry else "")
            )
        if will_retry:
            self._spawn(self._reconnect())

    async def _lost_launched(self, reason: str) -> None:
        assert self.process is not None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.process.proc.wait()), 3)
        if self.process.returncode is not None or self._closing:
            return  # _program_exited reports the end (after the last output)
        if self.listener is not None:
            self.listener.on_lost(f"the inspector connection was lost ({reason})")

    async def _reconnect(self) -> None:
        """A target that went away and comes back on the same endpoint is re-attached, breakpoints restored."""
        self.reconnecting = True
        try:
            for delay in RECONNECT_DELAYS:
                await asyncio.sleep(delay)
                if self._closing:
                    return
                try:
                    endpoint = await self.endpoint.rediscover() if self.endpoint.rediscover else self.endpoint
                    self.scripts.clear()
                    for bps in self._files.values():  # ids of the old target mean nothing to the new one
                        for bp in bps:
                            bp.wire_id = None
                    await self._connect(endpoint)
                except DebugError as exc:
                    log.info("reconnect to %s failed: %s", self.endpoint.url, exc.message)
                    if self.rpc is not None and not self.rpc.closed:  # half-open: its close must not count as a loss
                        await self.rpc.close()
                    continue
                endpoint.rediscover = (
                    endpoint.rediscover or self.endpoint.rediscover
                )  # so a second restart is followed too
                self.endpoint = endpoint
                if endpoint.waiting:
                    self._entry_pending = True
                    with contextlib.suppress(DebugError):
                        await self._send(self.dialect.release_command)
                self.reconnecting = False
                reconnected = getattr(self.listener, "on_reconnected", None)
                if reconnected is not None:
                    reconnected()
                return
            self.reconnecting = False
            if self.listener is not None:  # gave up: the session ends as disconnected, resources released
                self.listener.on_terminated()
        finally:
            self.reconnecting = False

    async def close(self, terminate: bool = True) -> None:
        self._closing = True
        for task in list(self._tasks):
            task.cancel()
        if self.rpc is not None:
            if not terminate and self._paused is not None:
                with contextlib.suppress(DebugError):
                    await self.rpc.send("Debugger.resume", timeout=2)
            await self.rpc.close()
        if self.process is not None:
            await self.process.stop(terminate)

    # ----- program process (launched runtimes) --------------------------------------------------------------

    def _program_output(self, category: str, text: str) -> None:
        if category == "control":
            # Node finished the script but stays alive while a debugger is attached: let it go.
            if self.rpc is not None:
                self._spawn(self.rpc.close())
            return
        if self.listener is not None:
            self.listener.on_output(category, text)

    def _program_exited(self, code: int | None) -> None:
        if self.listener is not None and not self._closing:
            self.listener.on_exited(code)
            self.listener.on_terminated()

    # ----- events ---------------------------------------------------------------------------------------------

    def _on_event(self, method: str, params: dict[str, Any]) -> None:
        if method == "Debugger.scriptParsed":
            script = self.scripts.add(params)
            if is_url(script.url):
                forget_source(script.url)  # a reloaded page may serve a new version of the script
            waiting = [f for f, bps in self._files.items() if any(bp.wire_id is None for bp in bps)]
            if waiting and any(self.scripts.for_file(f) is script for f in waiting):
                self._spawn(self._apply_files([f for f in waiting if self.scripts.for_file(f) is script]))
        elif method == "Debugger.paused":
            self._on_paused(params)
        elif method == "Target.targetSwapped":
            self._spawn(self._follow_new_target())
        elif method == "Debugger.resumed":
            self._paused = None
            self._refs.clear()
            if self.listener is not None:
                self.listener.on_continued(None, True)
        elif method == "Debugger.breakpointResolved":
            self._on_resolved(params.get("breakpointId"), params.get("location") or {})
        elif method in ("Runtime.consoleAPICalled", "Console.messageAdded", "Runtime.exceptionThrown"):
            self._on_console(method, params)
        elif method in ("Runtime.executionContextsCleared", "Debugger.globalObjectCleared"):
            self.scripts.clear()
        elif method == "Runtime.executionContextDestroyed" and self._ends_with_its_context:
            # Node ran its script to the end and now waits for the debugger to let go: let it, and say so.
            self._spawn(self._target_finished())

    def _on_paused(self, params: dict[str, Any]) -> None:
        self._paused = params
        self._refs.clear()
        if self._entry_pending:
            self._entry_pending = False
            if not self.stop_on_entry:
                self._spawn(self._leave_entry())
                return
            params = {**params, "reason": "Break on start"}
        if self.listener is None:
            return
        hit = self.dialect.hit_breakpoint_ids(params)
        reason = self.dialect.reason(params, self._last_request)
        self._last_request = None
        text = type_of(params.get("data") or {}) if reason == "exception" else None
        known = {bp.wire_id for bps in self._files.values() for bp in bps}
        if self._apply_lock.locked() and any(h not in known for h in hit):
            # A breakpoint can hit the moment it is set (a restarted target, a bind on scriptParsed), before we
            # have read the reply that names it: report the stop once binding is done, so the hit has its id.
            self._spawn(self._report_after_binding(self._paused, reason, text, hit))
            return
        self._report_stop(reason, text, hit)

    async def _report_after_binding(self, paused: dict[str, Any] | None, reason: str, text: str | None, hit) -> None:
        async with self._apply_lock:
            pass
        if self._paused is paused:  # still the same pause
            self._report_stop(reason, text, hit)

    def _report_stop(self, reason: str, text: str | None, hit: list[str]) -> None:
        if self.listener is None:
            return
        backend_ids = [bp.backend_id for bps in self._files.values() for bp in bps if bp.wire_id in hit]
        self.listener.on_stopped(StopInfo(reason=reason, thread_id=1, text=text, hit_breakpoint_ids=backend_ids))

    async def _leave_entry(self) -> None:
        """The first pause of --inspect-brk: every script is parsed now, so bind the pending breakpoints."""
        await self._apply_files(list(self._files))
        with contextlib.suppress(DebugError):
            await self._send("Debugger.resume")

    def _on_console(self, method: str, params: dict[str, Any]) -> None:
        if self.listener is None or (self.process is not None and method != "Runtime.exceptionThrown"):
            return  # a launched program's console already reaches us through its stdout/stderr
        if method == "Runtime.consoleAPICalled":
            kind = params.get("type", "log")
            text = " ".join(_plain(arg) for arg in params.get("args") or [])
        elif method == "Console.messageAdded":
            message = params.get("message") or {}
            kind = message.get("level", "log")
            text = message.get("text", "")
        else:
            if self.process is not None:
                return
            details = params.get("exceptionDetails") or {}
            kind = "error"
            text = (details.get("exception") or {}).get("description") or details.get("text", "exception")
        category = "stderr" if kind in ("error", "warning", "assert") else "console"
        self.listener.on_output(category, text + "\n")

    # ----- breakpoints ------------------------------------------------------------------------------------------

    def _new_bp(self, spec: LineBreakpointSpec) -> _Bp:
        self._bp_seq += 1
        return _Bp(f"ib{self._bp_seq}", spec)

    async def set_line_breakpoints(self, file: str, specs: list[LineBreakpointSpec]) -> list[BreakpointState]:
        async with self._apply_lock:  # an in-flight bind of the old list must finish first, or its id leaks
            old = self._files.get(file, [])
            for bp in old:
                if bp.wire_id is not None:
                    with contextlib.suppress(DebugError):
                        await self._send("Debugger.removeBreakpoint", {"breakpointId": bp.wire_id})
            self._files[file] = [self._new_bp(spec) for spec in specs]
            await self._apply_file_locked(file)
            return [bp.state for bp in self._files[file]]

    async def _apply_files(self, files: list[str]) -> None:
        for file in files:
            with contextlib.suppress(DebugError):
                await self._apply_file(file)

    async def _apply_file(self, file: str) -> None:
        """Bind the file's breakpoints that are not bound yet, through its script's source map when it has one."""
        async with self._apply_lock:
            await self._apply_file_locked(file)

    async def _apply_file_locked(self, file: str) -> None:
        for bp in self._files.get(file, []):
            if bp.wire_id is not None:
                continue
            script, line0, column0, bound0 = self.scripts.to_wire(file, bp.spec.line - 1)
            if script is None and self.transpiles:
                # Bun transpiles every file: the wire line is unknown until the script is parsed.
                bp.state = BreakpointState(
                    False, bp.spec.line, "pending: the file has not been loaded yet", bp.backend_id
                )
                if self.listener is not None:
                    self.listener.on_breakpoint_changed(bp.backend_id, bp.state)
                continue
            url = script.url if script is not None else file if is_url(file) else self.dialect.url_for_path(file)
            params = self.dialect.breakpoint_params(
                url, line0, column0, bp.backend_id, bp.spec.condition, bp.spec.hit_condition, bp.spec.log_message
            )
            try:
                result = await self._send("Debugger.setBreakpointByUrl", params)
            except DebugError as exc:
                bp.state = BreakpointState(False, bp.spec.line, exc.message, bp.backend_id)
            else:
                bp.wire_id = result.get("breakpointId")
                locations = result.get("locations") or []
                if locations:
                    bp.state = self._state_at(bp, locations[0])
                else:
                    bp.state = BreakpointState(False, bound0 + 1, "pending: binds when the script loads", bp.backend_id)
            if self.listener is not None:
                self.listener.on_breakpoint_changed(bp.backend_id, bp.state)

    def _state_at(self, bp: _Bp, location: dict[str, Any]) -> BreakpointState:
        _, line0, _ = self.scripts.from_wire(
            location.get("scriptId", ""), location.get("lineNumber", 0), location.get("columnNumber", 0)
        )
        return BreakpointState(True, line0 + 1, None, bp.backend_id)

    def _on_resolved(self, wire_id: str | None, location: dict[str, Any]) -> None:
        for bps in self._files.values():
            for bp in bps:
                if bp.wire_id == wire_id:
                    bp.state = self._state_at(bp, location)
                    if self.listener is not None:
                        self.listener.on_breakpoint_changed(bp.backend_id, bp.state)
                    return

    async def set_exception_mode(self, mode: ExceptionMode) -> None:
        await self._send("Debugger.setPauseOnExceptions", {"state": self.dialect.exception_states[mode]})
        self._exception_mode = mode

    # ----- execution --------------------------------------------------------------------------------------------

    async def resume(self, thread_id: int | None) -> None:
        self._last_request = None
        await self._send_running("Debugger.resume")

    async def step(self, kind: StepKind, thread_id: int | None) -> None:
        self._last_request = "step"
        await self._send_running(STEP_METHODS[kind])

    async def _send_running(self, method: str) -> None:
        """Resume or step. A launched runtime may run to its end and close the socket before it answers (Bun
        does after an uncaught error): the request did its work, and the exit is reported as the outcome."""
        try:
            await self._send(method)
        except DebugError as exc:
            if exc.code != ErrorCode.NOT_CONNECTED or self.process is None or self.rpc is None or not self.rpc.closed:
                raise

    async def pause(self, thread_id: int | None) -> None:
        self._last_request = "pause"
        await self._send("Debugger.pause")

    async def threads(self) -> list[tuple[int, str]]:
        if self.rpc is None or self.rpc.closed:
            raise DebugError(ErrorCode.NOT_CONNECTED, "the inspector target is not connected")
        return [(1, "main")]

    # ----- inspection -------------------------------------------------------------------------------------------

    def _frames(self) -> list[dict[str, Any]]:
        if self._paused is None:
            raise DebugError(ErrorCode.NOT_PAUSED, "the target is not paused")
        return list(self._paused.get("callFrames") or [])

    async def stack(self, thread_id: int, start: int = 0, levels: int = 20) -> tuple[list[RawFrame], int]:
        frames: list[RawFrame] = []
        for index, frame in enumerate(self._frames()):
            location = frame.get("location") or {}
            if index and self._internal(location.get("scriptId", "")):
                continue  # the runtime's own frames (node:internal/…) are noise under the user's code
            file, line0, column0 = self.scripts.from_wire(
                location.get("scriptId", ""), location.get("lineNumber", 0), location.get("columnNumber", 0)
            )
            frames.append(RawFrame(index, frame.get("functionName") or "(anonymous)", file, line0 + 1, column0 + 1))
        frames.extend(self._async_frames())
        total = len(frames)
        return frames[start : start + levels], total

    def _internal(self, script_id: str) -> bool:
        script = self.scripts.by_id.get(str(script_id))
        # The runtime's own code: Node's node:/internal/ modules, Bun's bun: ones, and WebKit's built-ins
        # (asyncFunctionResume, promise jobs), which have no URL or were never announced by scriptParsed.
        return script is None or not script.url or script.url.startswith(("node:", "internal/", "bun:"))

    def _async_frames(self) -> list[RawFrame]:
        """Frames of the async callers (an `await`, a timer, a promise), marked and not evaluable."""
        out: list[RawFrame] = []
        trace = (self._paused or {}).get("asyncStackTrace")
        one_based = self.dialect.is_jsc  # JSC stack traces count lines from 1 (its Locations count from 0)
        while trace and len(out) < 50:
            label = trace.get("description")  # V8: "await", "Timeout", "Promise.then"; JSC gives none
            tag = f"[async {label}]" if label and label != "async" else "[async]"
            for call in trace.get("callFrames") or []:
                url = call.get("url") or ""
                if not url or url.startswith(("node:", "internal/", "bun:")) or url == "[native code]":
                    continue  # the runtime's own frames (async hooks, JSC built-ins and natives) bury the callers
                line0 = (call.get("lineNumber") or 0) - (1 if one_based else 0)
                script_id = call.get("scriptId")
                if script_id and str(script_id) in self.scripts.by_id:
                    file, line0, column0 = self.scripts.from_wire(script_id, max(line0, 0), call.get("columnNumber", 0))
                else:
                    file, column0 = call.get("url") or "?", call.get("columnNumber", 0)
                name = f"{call.get('functionName') or '(anonymous)'} {tag}"
                out.append(RawFrame(-(len(out) + 1), name, file, line0 + 1, column0 + 1, hint="async"))
            trace = trace.get("parent") or trace.get("parentStackTrace")
        return out

    def _call_frame(self, frame_id: int) -> dict[str, Any]:
        frames = self._frames()
        if frame_id < 0 or frame_id >= len(frames):
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                "async frames can be seen but not inspected; pick a frame above the async boundary",
            )
        return frames[frame_id]

    def _ref(self, ref: _Ref) -> int:
        number = self._next_ref
        self._next_ref += 1
        self._refs[number] = ref
        return number

    async def scopes(self, frame_id: int) -> list[RawScope]:
        frame = self._call_frame(frame_id)
        chain = frame.get("scopeChain") or []
        local_count = self.dialect.local_scope_count(frame)
        scopes: list[RawScope] = []
        if local_count:
            ids = [s["object"]["objectId"] for s in chain[:local_count] if (s.get("object") or {}).get("objectId")]
            scopes.append(RawScope("Locals", self._ref(_Ref(ids, frame_id, list(range(local_count))))))
        for number, scope in enumerate(chain[local_count:], start=local_count):
            object_id = (scope.get("object") or {}).get("objectId")
            if not object_id:
                continue
            kind = scope.get("type", "scope")
            name = {
                "global": "Global",
                "globalLexicalEnvironment": "Script",
                "script": "Script",
                "module": "Module",
                "closure": "Closure",
                "block": "Block",
            }.get(kind, kind.title())
            if scope.get("name"):
                name += f" ({scope['name']})"
            scopes.append(RawScope(name, self._ref(_Ref([object_id], frame_id, [number])), expensive=kind == "global"))
        return scopes

    async def variables(self, ref: int, start: int = 0, count: int = 0) -> list[RawValue]:
        entry = self._refs.get(ref)
        if entry is None:
            raise DebugError(ErrorCode.PATH_NOT_FOUND, "that object is gone (the target resumed since)")
        values: list[RawValue] = []
        for object_id in entry.object_ids:
            values.extend(await self._own_values(object_id, entry.frame))
        if not values and not entry.scope_numbers and entry.object_ids:
            # A DOM node (or any object of getters) has no own data properties: list its readable ones instead.
            result = await self._send(
                "Runtime.callFunctionOn",
                {
                    "objectId": entry.object_ids[0],
                    "functionDeclaration": READABLE_SNAPSHOT,
                    "generatePreview": True,
                    "objectGroup": "pairdbg",
                },
            )
            snapshot = (result.get("result") or {}).get("objectId")
            if snapshot and self.dialect.thrown(result) is None:
                values.extend(await self._own_values(snapshot, entry.frame))
        if start or count:
            values = values[start : start + count if count else None]
        return values

    async def _own_values(self, object_id: str, frame: int | None) -> list[RawValue]:
        result = await self._send(
            "Runtime.getProperties", {"objectId": object_id, "ownProperties": True, "generatePreview": True}
        )
        return [
            self._raw(prop.get("name", "?"), prop["value"], frame)
            for prop in self.dialect.properties(result)
            if "value" in prop and prop.get("name") != "__proto__"
        ]

    def _raw(self, name: str, obj: dict[str, Any], frame: int | None) -> RawValue:
        ref = 0
        if obj.get("objectId") and obj.get("type") == "object" and obj.get("subtype") != "null":
            ref = self._ref(_Ref([obj["objectId"]], frame))
        return RawValue(name=name, value=describe(obj), type=type_of(obj), ref=ref, evaluate_name=name)

    async def evaluate(
        self, expression: str, frame_id: int | None, context: str = "repl", by_value: bool = False
    ) -> RawValue:
        params: dict[str, Any] = {
            "expression": expression,
            "generatePreview": True,
            "objectGroup": "pairdbg",
            "returnByValue": by_value,
        }
        if frame_id is not None and self._paused is not None:
            params["callFrameId"] = self._call_frame(frame_id)["callFrameId"]
            result = await self._send("Debugger.evaluateOnCallFrame", params)
        else:
            result = await self._send("Runtime.evaluate", params)
        thrown = self.dialect.thrown(result)
        if thrown is not None:
            raise DebugError(ErrorCode.PROTOCOL_ERROR, thrown)
        obj = result.get("result") or {}
        if by_value and "value" in obj and obj.get("type") in ("object", "array"):
            return RawValue(name=expression, value=json.dumps(obj["value"], ensure_ascii=False), type=type_of(obj))
        return self._raw(expression, obj, frame_id)

    async def set_variable(self, ref: int, name: str, value: str) -> RawValue:
        entry = self._refs.get(ref)
        if entry is None:
            raise DebugError(ErrorCode.PATH_NOT_FOUND, "that object is gone (the target resumed since)")
        frame_id = entry.frame
        if entry.scope_numbers and frame_id is not None:
            frame = self._call_frame(frame_id)
            if self.dialect.is_jsc:  # JSC has no setVariableValue: assign by evaluation in the frame
                result = await self._send(
                    "Debugger.evaluateOnCallFrame",
                    {
                        "callFrameId": frame["callFrameId"],
                        "expression": f"{name} = ({value}), {name}",
                        "generatePreview": True,
                    },
                )
                thrown = self.dialect.thrown(result)
                if thrown is not None:
                    raise DebugError(ErrorCode.PROTOCOL_ERROR, thrown)
                return self._raw(name, result.get("result") or {}, frame_id)
            new_value = await self._call_argument(value, frame)
            holder = await self._scope_holding(entry, name)
            await self._send(
                "Debugger.setVariableValue",
                {
                    "scopeNumber": holder,
                    "variableName": name,
                    "newValue": new_value,
                    "callFrameId": frame["callFrameId"],
                },
            )
            return await self.evaluate(name, frame_id)
        frame = self._call_frame(frame_id) if frame_id is not None and self._paused else None
        argument = await self._call_argument(value, frame)
        result = await self._send(
            "Runtime.callFunctionOn",
            {
                "objectId": entry.object_ids[0],
                "functionDeclaration": "function(k, v) { this[k] = v; return this[k]; }",
                "arguments": [{"value": name}, argument],
                "generatePreview": True,
            },
        )
        thrown = self.dialect.thrown(result)
        if thrown is not None:
            raise DebugError(ErrorCode.PROTOCOL_ERROR, thrown)
        return self._raw(name, result.get("result") or {}, frame_id)

    async def _call_argument(self, expression: str, frame: dict[str, Any] | None) -> dict[str, Any]:
        if frame is not None:
            result = await self._send(
                "Debugger.evaluateOnCallFrame", {"callFrameId": frame["callFrameId"], "expression": f"({expression})"}
            )
        else:
            result = await self._send("Runtime.evaluate", {"expression": f"({expression})"})
        thrown = self.dialect.thrown(result)
        if thrown is not None:
            raise DebugError(ErrorCode.PROTOCOL_ERROR, thrown)
        obj = result.get("result") or {}
        if obj.get("objectId"):
            return {"objectId": obj["objectId"]}
        if "unserializableValue" in obj:
            return {"unserializableValue": obj["unserializableValue"]}
        return {"value": obj.get("value")}

    async def _scope_holding(self, entry: _Ref, name: str) -> int:
        for number, object_id in zip(entry.scope_numbers, entry.object_ids, strict=False):
            result = await self._send("Runtime.getProperties", {"objectId": object_id, "ownProperties": True})
            if any(p.get("name") == name for p in self.dialect.properties(result)):
                return number
        return entry.scope_numbers[-1]

    async def exception_details(self, thread_id: int) -> ExceptionDetails | None:
        data = (self._paused or {}).get("data") or {}
        if not data:
            return None
        description = str(data.get("description") or describe(data))
        first = description.split("\n", 1)[0]
        kind, _, message = first.partition(": ")
        uncaught = data.get("uncaught") if "uncaught" in data else (self._paused or {}).get("data", {}).get("uncaught")
        mode = "uncaught" if uncaught else None
        return ExceptionDetails(
            type=data.get("className") or kind or "Error", message=message or first, break_mode=mode
        )

    async def script_source(self, path: str) -> str | None:
        """Source text for a file that is not on this machine (a page script): from its source map, or the target."""
        script = self.scripts.for_file(path) or self.scripts.by_id.get(self.scripts.by_key.get(path, ""))
        if script is None:
            return None
        source_map = script.source_map()
        content = source_map.source_content(path) if source_map is not None and path != script.url else None
        if content is not None:
            return content
        result = await self._send("Debugger.getScriptSource", {"scriptId": script.script_id})
        return result.get("scriptSource")


def _plain(arg: dict[str, Any]) -> str:
    if arg.get("type") == "string":
        return str(arg.get("value", ""))
    return describe(arg)
