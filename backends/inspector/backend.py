"""The inspector backend: one JS target (Bun, Node, Chromium page, WebKitGTK page) behind the Backend contract.

Frames, scopes and objects live only while the target is paused; their numeric handles are handed out per stop and
forgotten on resume, as DAP's are. Lines are 1-based at this contract and 0-based on the wire; for transpiled or
source-mapped scripts both directions go through the script's source map.

Binding line breakpoints (InspectorBreakpoints, breakpoints.py) and inspecting a pause (InspectorValues,
inspection.py) are mixins; the connection, reconnects, events, the launched process and execution control are here.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import logging
import re
from dataclasses import dataclass, field
from typing import Any

from ..base import (
    BreakpointState,
    Capabilities,
    DataBreakpointSpec,
    DataWatch,
    Debugger,
    ExceptionDetails,
    ExceptionMode,
    FunctionBreakpointSpec,
    FunctionLocation,
    ProgramRuntime,
    LineBreakpointSpec,
    StepKind,
    StopInfo,
)
from .. import jsfunction
from ..dap.datawatch import change_line
from ..errors import DebugError, ErrorCode
from ..models import DataChange
from ..source import forget_source, is_url
from .breakpoints import InspectorBreakpoints, _Bp
from .datawatch import BINDING, DataWatches, FileMaps, is_helper_url
from .dialect import Dialect
from .inspection import TEST_HOOK_FILE, InspectorValues, _Ref
from .process import RuntimeProcess
from .rpc import InspectorRpc
from .scripts import Roots, Scripts
from .values import describe, type_of

log = logging.getLogger(__name__)
STEP_METHODS = {"over": "Debugger.stepOver", "into": "Debugger.stepInto", "out": "Debugger.stepOut"}
RECONNECT_DELAYS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 8.0)
STACK_LINE = re.compile(r"\n\s+at ")  # where an Error's description turns into its stack trace
BLANK_LINES = re.compile(r"\n\s*\n")
STACK_SITE = re.compile(r"\n\s+at (?:(\S+) \()?(?:file://)?([^\s()]+?):(\d+):\d+\)?")
# testhook.cjs's answers at a pause of a `node --test` run: the error already reached node:test; the running test.
TEST_HOOK = "globalThis[Symbol.for('pairdbg.testhook')]"
DELIVERED = f"function () {{ const hook = {TEST_HOOK}; return !!hook && hook.delivered(this); }}"
CURRENT_TEST = f"{TEST_HOOK} ? {TEST_HOOK}.current() : null"
CHANGES_POLL_S = 0.5  # JSC: how often a running program's log-only changes are taken


def error_message(paused: dict[str, Any] | None) -> str | None:
    """An error's whole message (an assertion's says what differed on its later lines), without the stack trace."""
    description = str(((paused or {}).get("data") or {}).get("description") or "")
    text = BLANK_LINES.sub("\n", STACK_LINE.split(description, 1)[0].strip())
    head, sep, message = text.partition(": ")
    return message.strip() if sep and " " not in head.split(" [")[0] else text or None


def first_stack_site(paused: dict[str, Any] | None) -> str | None:
    """`math.js:38 in depth`: the innermost place an Error's stack trace names."""
    description = str(((paused or {}).get("data") or {}).get("description") or "")
    found = STACK_SITE.search(description)
    if found is None:
        return None
    function, path, line = found.groups()
    return f"{os.path.basename(path)}:{line}" + (f" in {function}" if function else "") + f" ({path})"


@dataclass
class Endpoint:
    """Where the inspector is and how to talk to it."""

    url: str
    dialect: Dialect
    wrapped: bool = False  # WebKitGTK: commands travel inside Target.sendMessageToTarget
    page: bool = False  # a browser page (Page domain, no process of ours)
    waiting: bool = False  # started with --inspect-brk: must be released after breakpoints are set
    rediscover: Any = None  # async () -> Endpoint, to find the target again after it restarts
    title: str | None = None  # the target's title and URL as its /json/list names them (None: not listed)
    target_url: str | None = None
    allowed: list[str] = field(default_factory=list)  # hosts besides loopback this endpoint may be reached at


@dataclass
class _StepOut:
    wire_ids: list[str]  # temporary breakpoints on the function's return positions
    depth: int  # stack depth of the function's frame
    function: str


class InspectorBackend(InspectorBreakpoints, InspectorValues, Debugger):
    kind = "inspector"
    features = Capabilities(
        conditional_breakpoints=True,
        hit_conditions=True,
        log_points=True,
        set_variable=True,
        exception_info=True,
        pause=True,
        threads=True,
        async_stacks=True,
        remote_sources=True,
        global_evaluate=True,
        function_breakpoints=True,  # module:function, bound as a line breakpoint (jsfunction.py)
    )

    def __init__(
        self,
        endpoint: Endpoint,
        language: str = "javascript",
        program: str | None = None,
        process: RuntimeProcess | None = None,
        stop_on_entry: bool = False,
        roots: Roots | None = None,
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
        self.scripts = Scripts(self.dialect, roots)
        self.rpc: InspectorRpc | None = None
        self._files: dict[str, list[_Bp]] = {}
        self._bp_seq = 0
        self._exception_mode: ExceptionMode = "uncaught"
        self._paused: dict[str, Any] | None = None
        self._refs: dict[int, _Ref] = {}
        self._generated: dict[str, str] = {}
        self._next_ref = 1
        self._last_request: str | None = None
        self._entry_pending = endpoint.waiting
        self._closing = False
        self._tasks: set[asyncio.Task[Any]] = set()
        # Binding runs from scriptParsed, the entry pause and set_breakpoint at once; one at a time, or a second
        # setBreakpointByUrl for the same bp races the first (Bun: "Breakpoint for given location already exists").
        self._apply_lock = asyncio.Lock()
        self._bootstraps = {}
        self._step_out: _StepOut | None = None  # a step out waiting at its function's returns
        self._returned: tuple[str, dict[str, Any]] | None = None  # (function, value) a step out brought back
        self._step_note: str | None = None  # said on the stop that ends a step out which brings no value back
        self._last_stop_at: tuple[str, int, int] | None = None  # (file, line, column) of the last stop reported
        self._lost_reason: str | None = None  # why the socket of a launched runtime closed, if not by us
        #: A `node --test` run with testhook.cjs preloaded: a failing test pauses where it throws (testrun.py).
        self.test_hook = False
        self.inherited_place: jsfunction.Place | None = None  # a fork's: where its parent looks module names up
        self._attached_place: jsfunction.Place | None = None  # an attached Node's, as it told us
        self._place_answered = False  # the attached program answered (its place, or that it has none here)
        self.data_watches = DataWatches(self._send, self.dialect.thrown, jsc=self.dialect.is_jsc)
        self._changes_lock = asyncio.Lock()
        self._file_maps = FileMaps()
        self._polling = False  # JSC: a task takes the log-only changes while the program runs
        self._paused_in_helper = False  # the current pause is the data-breakpoint helper's (its frames hidden)
        self._out_twice = False  # JSC: a step out from a data stop, past the writing frame too
        if process is not None:
            process.keep_leftovers(self.leftovers)
            process.on_output = self._program_output
            process.on_exit = self._program_exited
            if not self.dialect.is_jsc:
                process.on_child_inspector = self._child_process

    async def loaded_sources(self) -> list[str]:
        """The scripts the engine parsed (their files, else URLs) and the original sources their maps name."""
        found = [s.path or s.url for s in self.scripts.by_id.values() if (s.path or s.url) and not is_helper_url(s.url)]
        return list(dict.fromkeys([*found, *self.scripts.by_original]))

    def module_runtime(self) -> ProgramRuntime | None:
        """Node or Bun resolve a package as the launched program would (`require.resolve` from its folder)."""
        if self.process is None or not self.program or "://" in self.program:
            return None
        from ..runtimes import TargetMissing, find_bun, find_node

        try:
            executable = find_bun() if self.dialect.is_jsc else find_node()
        except TargetMissing:
            return None
        folder = os.path.dirname(os.path.abspath(self.program))
        return ProgramRuntime("node", executable, folder, folder)

    # ----- function breakpoints (jsfunction.py) -----------------------------------------------------------

    async def function_location(self, name: str) -> FunctionLocation:
        """The inspectors have no function breakpoints: `module:function` is found by reading the module and bound as
        a line breakpoint on the function's first body line (pending until the module loads)."""
        place = self.function_place()
        if place.program is None and place.cwd is None:
            place = await self._ask_place() or place
        return await jsfunction.function_location(name, *place, loaded=self.loaded_sources)

    async def _ask_place(self) -> jsfunction.Place | None:
        """An attached Node program's main file and working folder, asked of it once: a module is then found on
        disk as for a launch and bound before it loads. None for what has no local files (a page, other roots)."""
        if self._place_answered:
            return self._attached_place
        if self.process is not None or self.endpoint.page or self.scripts.roots is not None or self.dialect.is_jsc:
            return None
        expression = "JSON.stringify([process.cwd(), (process.argv || [])[1] || null])"
        try:
            got = await self._send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, timeout=2.0)
        except DebugError as exc:  # gone or busy now: asked again at the next lookup
            log.info("the attached program's folder is unknown: %s", exc.message)
            return None
        self._place_answered = True  # (not Node, another machine's folder: the same answer next time)
        try:
            cwd, main = json.loads((got.get("result") or {}).get("value") or "null")
        except (ValueError, TypeError):
            return None
        if not isinstance(cwd, str) or not os.path.isdir(cwd):
            return None  # another machine's folder
        program = main if isinstance(main, str) and os.path.isfile(main) else None
        runtime = None
        from ..runtimes import TargetMissing, find_node

        with contextlib.suppress(TargetMissing):
            folder = os.path.dirname(program) if program else cwd
            runtime = ProgramRuntime("node", find_node(), folder, cwd)
        self._attached_place = jsfunction.Place(program, cwd, runtime)
        return self._attached_place

    def function_place(self) -> jsfunction.Place:
        """Where module names are looked up: the launched program's (a fork's: its parent's)."""
        if self.inherited_place is not None:
            return self.inherited_place
        if self._attached_place is not None:
            return self._attached_place
        return jsfunction.Place(self.program if self.process is not None else None, None, self.module_runtime())

    async def set_function_breakpoints(self, specs: list[FunctionBreakpointSpec]) -> list[BreakpointState]:
        # Never asked: every name is bound as a line breakpoint or kept unverified with its reason.
        return [BreakpointState(False, message="the inspector matches no function by name") for _ in specs]

    # ----- data breakpoints (datawatch.py, datawatch.js) ---------------------------------------------------

    def _data_refusal(self) -> str | None:
        if self.endpoint.page:
            return "data breakpoints are built for Node's and Bun's inspectors only, not for browser pages"
        return None

    async def set_data_breakpoint(self, spec: DataBreakpointSpec, frame_id: int) -> DataWatch:
        refusal = self._data_refusal()
        if refusal is not None:
            return DataWatch(False, reason=refusal, hint="debug the program with Node or Bun, or use a log point")
        armed = await self.data_watches.arm(spec, self._call_frame(frame_id))
        if self.data_watches.jsc and self.data_watches.log_only and not self._polling:
            self._polling = True
            self._spawn(self._poll_changes())
        return armed

    async def clear_data_breakpoint(self, bp_id: str) -> None:
        await self.data_watches.clear(bp_id)

    async def update_data_breakpoint(self, bp_id: str, enabled: bool | None, condition: str | None) -> None:
        frames = (self._paused or {}).get("callFrames") or []
        await self.data_watches.update(bp_id, enabled, condition, frames[0] if frames else None)

    def _source_site(self, file: str, line: int, column: int) -> tuple[str, int]:
        """(file, 1-based line) of a place the engine names by its file (a call site): through the script's source
        map when it has one."""
        if self.dialect.is_jsc:  # Bun's call sites name places in the file on disk: mapped by that file's own map
            return self._file_maps.site(file, line, column)
        script = self.scripts.for_file(file)
        if script is None:
            return file, line
        mapped, line0, _ = self.scripts.from_wire(script.script_id, line - 1, max(column - 1, 0))
        return mapped, line0 + 1

    def _without_helper_frames(self, params: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """A pause inside the helper (its `debugger;`) seen from the writing frame: the helper's frames on top go."""
        frames = list(params.get("callFrames") or [])
        skip = 0
        while skip < len(frames) - 1:
            script = self.scripts.by_id.get(str((frames[skip].get("location") or {}).get("scriptId")))
            helper = self.data_watches.in_helper(frames[skip]) or (script is not None and is_helper_url(script.url))
            # (JavaScriptCore lists its builtins written in JS, Array.prototype.sort's, as frames of scripts it never
            # announced: between the helper and the writing statement they are the engine's, not the program's)
            builtin = skip > 0 and script is None and self.dialect.is_jsc
            if not helper and not builtin:
                break
            skip += 1
        if not skip:
            return params, False
        return {**params, "callFrames": frames[skip:]}, True

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
        elif self.process is None and not self.dialect.is_jsc and not self.endpoint.page:
            # An attached Node may have been started with --inspect-brk (or --inspect-wait) and be waiting for a
            # debugger: without this it never runs, and breakpoints never bind. A no-op for a program that runs.
            await self._send("Runtime.runIfWaitingForDebugger")
        return states

    async def _connect(self, endpoint: Endpoint) -> None:
        rpc = InspectorRpc(endpoint.url, self._on_event, self._on_close, endpoint.allowed)
        # A Bun we launched must end when its program does; by default our connection keeps its event loop alive
        # (it would idle after the last line until we hang up). Bun's own adapter sends this header.
        headers = {"Ref-Event-Loop": "0"} if self.launched and self.transpiles else None
        await rpc.open(timeout=5.0, wrapped=endpoint.wrapped, headers=headers)
        self.rpc = rpc
        self.data_watches.forget()
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
        self._generated.clear()
        self._paused = None
        self._refs.clear()
        self._forget_wire_ids()
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
            # A runtime that dies closes the socket as it goes, and Bun hangs up as its program ends: then the exit,
            # with its code, is the honest report. A runtime still alive a moment later has lost us.
            self._lost_reason = reason
            self._spawn(self._lost_launched(reason, 3.0 if self.dialect.hangs_up_at_exit else 0.5))
            return
        will_retry = self.endpoint.rediscover is not None and self.process is None
        if self.listener is not None:
            message = f"the inspector connection was lost ({reason})"
            if will_retry:  # a lost target that may come back keeps its session open
                self.listener.on_reconnecting(message + "; reconnecting")
            else:
                self.listener.on_lost(message)
        if will_retry:
            self._spawn(self._reconnect())

    async def _lost_launched(self, reason: str, grace_s: float) -> None:
        assert self.process is not None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.process.proc.wait()), grace_s)
        if self.process.returncode is not None or self._closing:
            return  # _program_exited reports the end (after the last output)
        if self.listener is not None:
            # The session ends, and with it the program pairdbg launched (no debuggee outlives its session).
            self.listener.on_lost(f"the inspector connection was lost ({reason}); pairdbg ended the program")

    async def _reconnect(self) -> None:
        """A target that went away and comes back on the same endpoint is re-attached, breakpoints restored."""
        for delay in RECONNECT_DELAYS:
            await asyncio.sleep(delay)
            if self._closing:
                return
            try:
                endpoint = await self.endpoint.rediscover() if self.endpoint.rediscover else self.endpoint
                self.scripts.clear()
                self._generated.clear()
                self._forget_wire_ids()  # ids of the old target mean nothing to the new one
                await self._connect(endpoint)
            except DebugError as exc:
                log.info("reconnect to %s failed: %s", self.endpoint.url, exc.message)
                if self.rpc is not None and not self.rpc.closed:  # half-open: its close must not count as a loss
                    await self.rpc.close()
                continue
            endpoint.rediscover = endpoint.rediscover or self.endpoint.rediscover  # so a second restart is followed too
            self.endpoint = endpoint
            if endpoint.waiting:
                self._entry_pending = True
                with contextlib.suppress(DebugError):
                    await self._send(self.dialect.release_command)
            if self.listener is not None:
                self.listener.on_reconnected()
            return
        if self.listener is not None:  # gave up: the session ends as disconnected, resources released
            self.listener.on_terminated()

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

    def _child_process(self, url: str) -> None:
        """A fork of the program: it inherits --inspect-brk, announces its inspector on the stderr it shares with
        the program, and waits for a debugger. It becomes a session of its own (the only one debugging it), or it
        would wait forever."""
        if self.listener is None or self._closing:
            return
        child = InspectorBackend(Endpoint(url, self.dialect, waiting=True), self.language, url)
        child.inherited_place = self.function_place()
        name = f"{os.path.basename(self.program)} child"
        try:
            self.listener.on_child(child, name)
        except DebugError as exc:  # a session that cannot open children: said, not hidden
            self.listener.on_output("important", f"pairdbg: {name} ({url}) is not debugged: {exc.message}\n")

    def _program_exited(self, code: int | None) -> None:
        if self.listener is None or self._closing:
            return
        self.listener.on_exited(code)
        killed = code is not None and code < 0
        if self._lost_reason is not None and not self.dialect.hangs_up_at_exit and not killed:
            # Node ends its programs by waiting for the debugger to hang up (we do, on its "Waiting for the
            # debugger to disconnect"). One that exits on its own after the socket closed ran on without us.
            self.listener.on_lost(
                f"the inspector connection was lost ({self._lost_reason}); the program then ran to its end without "
                f"the debugger (exit code {code})"
            )
            return
        self.listener.on_terminated()

    # ----- events ---------------------------------------------------------------------------------------------

    def _on_event(self, method: str, params: dict[str, Any]) -> None:
        if method == "Debugger.scriptParsed":
            script = self.scripts.add(params)
            if is_url(script.url):
                forget_source(script.url)  # a reloaded page may serve a new version of the script
            waiting = [f for f, bps in self._files.items() if any(not bp.state.verified for bp in bps)]
            if waiting and any(self.scripts.for_file(f) is script for f in waiting):
                self._spawn(self._apply_files([f for f in waiting if self.scripts.for_file(f) is script]))
            if script.path and self.listener is not None:
                self.listener.on_loaded(script.path)
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
        elif method == "Runtime.bindingCalled" and params.get("name") == BINDING:
            change = self.data_watches.on_change(str(params.get("payload") or ""), self._source_site)
            if change is not None and self.listener is not None:
                self.listener.on_output("changes", change_line(change), DataChange.of(change))
        elif method in ("Runtime.consoleAPICalled", "Console.messageAdded", "Runtime.exceptionThrown"):
            self._on_console(method, params)
        elif method in ("Runtime.executionContextsCleared", "Debugger.globalObjectCleared"):
            self.scripts.clear()
            self.data_watches.forget()
            self._generated.clear()
        elif method == "Runtime.executionContextDestroyed" and self._ends_with_its_context:
            # Node ran its script to the end and now waits for the debugger to let go: let it, and say so.
            self._spawn(self._target_finished())

    def _on_paused(self, params: dict[str, Any]) -> None:
        params, in_helper = self._without_helper_frames(params)
        self._paused = params
        self._refs.clear()
        self._paused_in_helper = in_helper
        stepped = self._last_request == "step" and not self.dialect.hit_breakpoint_ids(params)
        if self._out_twice and not in_helper and stepped:
            self._out_twice = False
            self._spawn(self._send_running("Debugger.stepOut"))
            return
        self._out_twice = False
        if in_helper and self.data_watches.jsc:  # no binding calls: the changes are asked of the helper
            self._spawn(self._pulled_helper_pause(params))
            return
        if self.data_watches.jsc and self.data_watches.log_only:  # any stop: the change log is complete up to it
            self._spawn(self._take_changes_quietly())
        if self._helper_pause(params, in_helper, self.data_watches.take_stop() if in_helper else None):
            return
        hit = self.dialect.hit_breakpoint_ids(params)
        bootstrap = hit and all(h in {wire_id for wire_id, _ in self._bootstraps.values()} for h in hit)
        if bootstrap:  # (never the entry's: it binds at the entry stop; ES modules it imports run before that)
            self._spawn(self._bind_at_load(params))  # a file stopped before its first statement (Bun)
            return
        if self._step_out is not None:
            self._spawn(self._continue_step_out(params, hit))
            return
        self._dispatch_pause(params, hit)

    def _helper_pause(self, params: dict[str, Any], in_helper: bool, change: dict[str, Any] | None) -> bool:
        """A pause of the data-breakpoint helper, handled (True): a change's stop, or a step or a condition's error
        that ended in it."""
        if change is not None:  # the helper's `debugger;` after a stopping change: reported at the writing statement
            self._step_out = None
            self._last_request = None
            self._report_stop(
                "data breakpoint",
                None,
                [],
                f"data breakpoint {change['id']}: {change['expression']} {change['old']} → {change['new']}",
                data_ids=[str(change["id"])],
            )
            return True
        if in_helper and (self._last_request == "step" or params.get("reason") in ("exception", "promiseRejection")):
            # A step that ended in the helper (the line of its `debugger;`) goes on out of it into the program; an
            # error a condition raised is the helper's to report (a note on the change), not a stop.
            method = "Debugger.stepOut" if self._last_request == "step" else "Debugger.resume"
            self._spawn(self._send_running(method))
            return True
        return False

    async def _pulled_helper_pause(self, params: dict[str, Any]) -> None:
        """JSC: a pause in the helper. Its changes are taken first (the change log), then the one it stops for, if
        any; a pause only to hand over its changes (a busy program, its exit) goes on at once."""
        try:
            await self._take_changes()
            change = await self.data_watches.take_stop_in_page(self._source_site)
        except DebugError:
            change = None  # the program could not be asked: reported as the pause it is
        if self._helper_pause(params, True, change):
            return
        if params is self._paused:
            await self._send_running("Debugger.resume")

    async def _take_changes(self) -> None:
        async with self._changes_lock:  # (one batch at a time: the log keeps the order of the changes)
            changes = await self.data_watches.take_log(self._source_site)
        if self.listener is not None:
            for change in changes:
                self.listener.on_output("changes", change_line(change), DataChange.of(change))

    async def _take_changes_quietly(self) -> None:
        with contextlib.suppress(DebugError):
            await self._take_changes()

    async def _poll_changes(self) -> None:
        """JSC: while log-only watches are set, their changes are taken every half second the program runs (a
        program busy in a loop hands them over itself, at a pause of the helper's)."""
        try:
            while self.data_watches.log_only and not self._closing:
                await asyncio.sleep(CHANGES_POLL_S)
                if self._paused is None and self.rpc is not None and not self.rpc.closed:
                    await self._take_changes_quietly()
        finally:
            self._polling = False

    def _dispatch_pause(self, params: dict[str, Any], hit: list[str]) -> None:
        # (ES modules the entry imports run before it: a breakpoint in one is a stop of its own, not the entry's)
        if self._entry_pending and self.dialect.is_entry_pause(params):
            self._entry_pending = False
            if not self.stop_on_entry:
                self._spawn(self._leave_entry())
                return
            params = {**params, "reason": "Break on start"}
        if self.listener is None:
            return
        reason = self.dialect.reason(params, self._last_request)
        unasked = self._last_request is None
        self._last_request = None
        if reason == "pause" and unasked and params.get("reason") == "other":
            # V8 names a `debugger;` statement "other": look at the code it stopped on before saying "pause".
            self._spawn(self._report_unasked_pause(params, hit))
            return
        text = type_of(params.get("data") or {}) if reason == "exception" else None
        if reason == "exception" and self.test_hook:
            self._spawn(self._report_test_failure(params, text, hit))
            return
        known = {bp.wire_id for bps in self._files.values() for bp in bps}
        if self._apply_lock.locked() and any(h not in known for h in hit):
            # A breakpoint can hit the moment it is set (a restarted target, a bind on scriptParsed), before we
            # have read the reply that names it: report the stop once binding is done, so the hit has its id.
            self._spawn(self._report_after_binding(self._paused, reason, text, hit))
            return
        self._report_stop(reason, text, hit)

    async def _report_test_failure(self, paused: dict[str, Any], text: str | None, hit: list[str]) -> None:
        """A failing test pauses where it throws; V8 pauses on the same error again once node:test has it (its
        catch is out of V8's sight there): that echo is let go, so each failure is one stop."""
        data = paused.get("data") or {}
        echo = False
        if data.get("objectId"):
            with contextlib.suppress(DebugError):
                answer = await self._send(
                    "Runtime.callFunctionOn",
                    {"objectId": data["objectId"], "functionDeclaration": DELIVERED, "returnByValue": True},
                )
                echo = (answer.get("result") or {}).get("value") is True
        if self._paused is not paused:
            return
        if echo:
            with contextlib.suppress(DebugError):
                await self._send("Debugger.resume")
            return
        self._report_stop("exception", text, hit)

    async def exception_details(self, thread_id: int) -> ExceptionDetails | None:
        """In a `node --test` run, the test that failed (testhook.cjs knows which test is running)."""
        details = await super().exception_details(thread_id)
        frames = (self._paused or {}).get("callFrames") or []
        if details is None or not self.test_hook or not frames:
            return details
        with contextlib.suppress(DebugError):
            answer = await self._send(
                "Debugger.evaluateOnCallFrame",
                {"callFrameId": frames[0]["callFrameId"], "expression": CURRENT_TEST, "returnByValue": True},
            )
            name = (answer.get("result") or {}).get("value")
            if isinstance(name, str) and name:
                details.test = {"runner": "node --test", "test": name}
                details.break_mode = None  # node:test catches it: "uncaught" is V8's word for no handler in sight
                details.message = error_message(self._paused) or details.message
        top = self.scripts.by_id.get(str((frames[0].get("location") or {}).get("scriptId")))
        if top is not None and top.url.endswith(TEST_HOOK_FILE):
            # Not paused where it was thrown: V8 does not pause at a stack overflow, so the first pause is where the
            # test's failure reached the hook. The error's own stack says where it was raised.
            site = first_stack_site(self._paused)
            details.raised_at = (
                (f"at {site} " if site else "")
                + "(V8 does not pause where the stack overflowed: this stop is where the test's failure arrived, "
                "after the stack unwound)"
            )
        return details

    async def _report_after_binding(self, paused: dict[str, Any] | None, reason: str, text: str | None, hit) -> None:
        async with self._apply_lock:
            pass
        if self._paused is paused:  # still the same pause
            self._report_stop(reason, text, hit)

    async def _report_unasked_pause(self, paused: dict[str, Any], hit: list[str]) -> None:
        reason = "pause"
        top = (paused.get("callFrames") or [{}])[0].get("location") or {}
        with contextlib.suppress(DebugError, KeyError, IndexError):
            result = await self._send("Debugger.getScriptSource", {"scriptId": top["scriptId"]})
            code = (result.get("scriptSource") or "").splitlines()[top["lineNumber"]][top.get("columnNumber", 0) :]
            if code.lstrip().startswith("debugger"):
                reason = "debugger statement"
        if self._paused is paused:  # still the same pause
            self._report_stop(reason, None, hit)

    def _report_stop(
        self,
        reason: str,
        text: str | None,
        hit: list[str],
        description: str | None = None,
        data_ids: list[str] | None = None,
    ) -> None:
        if self.listener is None:
            return
        backend_ids = [bp.backend_id for bps in self._files.values() for bp in bps if bp.wire_id in hit]
        backend_ids += data_ids or []
        top = ((self._paused or {}).get("callFrames") or [{}])[0].get("location") or {}
        here = self.scripts.from_wire(top.get("scriptId", ""), top.get("lineNumber", 0), top.get("columnNumber", 0))
        before, self._last_stop_at = self._last_stop_at, here
        note, self._step_note = self._step_note, None
        if reason == "step" and note:  # the end of a step out (another stop ended it early: nothing to say)
            description = f"{description}; {note}" if description else note
        if description is None and reason == "step" and before is not None and before[:2] == here[:2]:
            # A step within one line (a call's arguments, a loop's header): the column is what moved.
            description = f"still on line {here[1] + 1}, now at column {here[2] + 1} (was {before[2] + 1})"
        self.listener.on_stopped(
            StopInfo(reason=reason, thread_id=1, text=text, description=description, hit_breakpoint_ids=backend_ids)
        )

    async def _bind_at_load(self, paused: dict[str, Any]) -> None:
        """Bind the breakpoints of the file that is about to run, then let it run, unless one of them is right here."""
        top = (paused.get("callFrames") or [{}])[0].get("location") or {}
        script = self.scripts.by_id.get(str(top.get("scriptId")))
        files = [f for f, bps in self._files.items() if any(bp.wire_id is None for bp in bps)]
        files = [f for f in files if script is not None and self.scripts.for_file(f) is script]
        await self._apply_files(files)
        with contextlib.suppress(DebugError):
            await self._drop_bootstraps()
        if self._paused is not paused:
            return
        file, line0, _ = self.scripts.from_wire(
            top.get("scriptId", ""), top.get("lineNumber", 0), top.get("columnNumber", 0)
        )
        here = [
            bp.wire_id
            for f in files
            for bp in self._files.get(f, [])
            if f == file and bp.wire_id and bp.state.verified and bp.state.line == line0 + 1
        ]
        if here:
            self._report_stop("breakpoint", None, here)
            return
        if self._last_request == "step":
            # A step was under way (over a `require`): letting the program run on would lose it, and a step out of
            # a module does not come back through Bun's loader. The step ends here, where the file starts.
            self._last_request = None
            self._report_stop("step", None, [], f"stopped where {os.path.basename(file)} starts to load")
            return
        with contextlib.suppress(DebugError):
            await self._send("Debugger.resume")

    def _forget_wire_ids(self) -> None:
        self._bootstraps.clear()
        for bps in self._files.values():
            for bp in bps:
                bp.wire_id = None

    async def _leave_entry(self) -> None:
        """The first pause of --inspect-brk: every script is parsed now, so bind the pending breakpoints."""
        if self.pid is None and self.process is None and not self.dialect.is_jsc:  # a fork handed to us: which one
            with contextlib.suppress(DebugError):  # (`process` is defined from here on, not before the release)
                got = await self._send("Runtime.evaluate", {"expression": "process.pid", "returnByValue": True})
                pid = (got.get("result") or {}).get("value")
                self.pid = pid if isinstance(pid, int) else None
        await self._apply_files(list(self._files))
        with contextlib.suppress(DebugError):
            await self._drop_bootstraps()
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

    # ----- execution --------------------------------------------------------------------------------------------

    async def resume(self, thread_id: int | None) -> None:
        self._last_request = None
        self._returned = None
        self._step_note = None
        await self._send_running("Debugger.resume")

    async def step(self, kind: StepKind, thread_id: int | None) -> None:
        self._last_request = "step"
        self._returned = None
        self._step_note = None
        if kind == "out" and not self.dialect.returns_values:
            # JSC's call frames carry no return value, and it has no return positions to stop at first.
            self._step_note = f"(return value not available on {'Bun' if self.transpiles else 'WebKit'}'s inspector)"
            # From a data stop, JSC's step out ends at the writing frame (out of the blackboxed helper): one more
            # step out leaves the function the stop shows.
            self._out_twice = self._paused_in_helper
        if kind == "out" and self.dialect.returns_values and self._paused is not None:
            top = self._frames()[0]
            if "returnValue" in top:  # already at a return: the value is here
                self._returned = (top.get("functionName") or "(anonymous)", top["returnValue"])
            elif await self._arm_step_out():
                await self._send_running("Debugger.resume")
                return
        await self._send_running(STEP_METHODS[kind])

    async def _arm_step_out(self) -> bool:
        """V8 shows a function's return value only while paused at one of its returns: stop there first (temporary
        breakpoints on the function's return positions), take the value, then step out."""
        frames = self._frames()
        top = frames[0]
        local = next((s for s in top.get("scopeChain") or [] if s.get("type") == "local"), None)
        start, end = top.get("functionLocation"), (local or {}).get("endLocation")
        if not start or not end:
            self._step_note = "(return value not available: the function's extent is unknown)"
            return False
        try:
            found = await self._send(
                "Debugger.getPossibleBreakpoints", {"start": start, "end": end, "restrictToFunction": True}
            )
        except DebugError as exc:
            self._step_note = f"(return value not available: {exc.message})"
            return False
        returns = [loc for loc in found.get("locations") or [] if loc.get("type") == "return"]
        here = top.get("location") or {}
        if any(
            (loc.get("lineNumber"), loc.get("columnNumber")) == (here.get("lineNumber"), here.get("columnNumber"))
            for loc in returns
        ):
            # Paused on a return already, its value not computed yet: a plain step out.
            self._step_note = "(return value not available: paused on the return before its value was computed)"
            return False
        ids = []
        for location in returns:
            where = {k: location[k] for k in ("scriptId", "lineNumber", "columnNumber") if k in location}
            with contextlib.suppress(DebugError, KeyError):
                ids.append((await self._send("Debugger.setBreakpoint", {"location": where}))["breakpointId"])
        if not ids:
            self._step_note = "(return value not available: no return position could be stopped at)"
            return False
        self._step_out = _StepOut(ids, len(frames), top.get("functionName") or "(anonymous)")
        return True

    async def _continue_step_out(self, paused: dict[str, Any], hit: list[str]) -> None:
        out = self._step_out
        assert out is not None
        frames = paused.get("callFrames") or []
        at_return = bool(hit) and set(hit) <= set(out.wire_ids)
        if at_return and len(frames) != out.depth:  # the same function, called deeper (recursion): not ours
            with contextlib.suppress(DebugError):
                await self._send("Debugger.resume")
            return
        self._step_out = None
        for wire_id in out.wire_ids:
            with contextlib.suppress(DebugError):
                await self._send("Debugger.removeBreakpoint", {"breakpointId": wire_id})
        if not at_return:  # something else stopped the program first (a breakpoint, an exception): that is the stop
            if self._paused is paused:
                self._dispatch_pause(paused, hit)
            return
        if "returnValue" in frames[0]:
            self._returned = (out.function, frames[0]["returnValue"])
        with contextlib.suppress(DebugError):
            await self._send("Debugger.stepOut")

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

    def loaded_files(self) -> list[str]:
        return self.scripts.local_files()

    async def threads(self) -> list[tuple[int, str]]:
        if self.rpc is None or self.rpc.closed:
            raise DebugError(ErrorCode.NOT_CONNECTED, "the inspector target is not connected")
        return [(1, "main")]


def _plain(arg: dict[str, Any]) -> str:
    if arg.get("type") == "string":
        return str(arg.get("value", ""))
    return describe(arg)
