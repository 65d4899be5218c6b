"""A protocol backend on any Debug Adapter: requests, events and process clean-up; profiles add launch details."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import signal
from collections import deque
from typing import Any

from ..base import (
    BreakpointState,
    Capabilities,
    Completion,
    Debugger,
    ExceptionDetails,
    ExceptionFilter,
    ExceptionMode,
    FunctionBreakpointSpec,
    LineBreakpointSpec,
    RawFrame,
    RawScope,
    RawValue,
    StepKind,
    StopInfo,
)
from ..errors import DebugError, ErrorCode, evaluation_failed
from ..process import signal_group, spawn, stop_group
from .client import DapClient
from .spare import SpareAdapter
from .terminal import StartedProgram, TerminalProgram

log = logging.getLogger(__name__)

# What each capability is called in the adapter's `initialize` answer (pause and threads are required requests).
DAP_CAPABILITIES = {
    "conditional_breakpoints": "supportsConditionalBreakpoints",
    "hit_conditions": "supportsHitConditionalBreakpoints",
    "log_points": "supportsLogPoints",
    "function_breakpoints": "supportsFunctionBreakpoints",
    "set_variable": "supportsSetVariable",
    "exception_info": "supportsExceptionInfoRequest",
    "goto": "supportsGotoTargetsRequest",
}


def dap_capabilities(answer: dict[str, Any], allowed: frozenset[str] | None = None) -> Capabilities:
    """Capabilities from an adapter's `initialize` answer, narrowed to `allowed` when a profile says so."""
    caps = Capabilities(
        pause=True, threads=True, **{ours: bool(answer.get(key)) for ours, key in DAP_CAPABILITIES.items()}
    )
    return caps if allowed is None else caps.only(allowed)


WORD_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$"
CONDITION_ERROR = "Error while evaluating expression in conditional breakpoint:"  # pydevd's output line
STEP_COMMANDS = {"over": "next", "into": "stepIn", "out": "stepOut"}
MAX_LINE = 1024 * 1024  # longest adapter stderr line read at once
MAX_WHOLE_STACK = 1000  # frames read when a stop's library frames are placed in its stack
ADAPTER_EXIT_S = 2.0  # how long an adapter told to disconnect gets to exit before its group is killed
ADAPTER_STOP_S = 0.5  # how long a server adapter (adapter_serves_on) gets after TERM


class DapBackend(Debugger):
    """Drives one adapter connection. Subclasses provide `_connect()` and `_start_request()`."""

    kind = "dap"
    adapter_id = "dap"
    #: Whether pairdbg started the program (launch) and may end it itself as a last resort. An attached program
    #: is not ours: its pid comes off the wire (it may be on another machine) and it may share our process group.
    owns_debuggee = True
    #: DAP exception filter ids for each of our modes; profiles override with their adapter's filter names.
    exception_filters: dict[str, list[str]] = {"none": [], "uncaught": ["uncaught"], "all": ["raised", "uncaught"]}
    #: Capabilities a profile lets through (None: all the adapter announces).
    allowed: frozenset[str] | None = None

    #: The adapter is a server that outlives `disconnect` (js-debug); closing ends its process group at once.
    adapter_serves_on = False
    #: pairdbg answers `runInTerminal`: it starts the command the adapter gives and reads its output itself.
    runs_in_terminal = False

    def __init__(self) -> None:
        super().__init__()
        self.client: DapClient | None = None
        self.adapter_capabilities: dict[str, Any] = {}  # the adapter's `initialize` answer
        self.breakpoint_files: list[str] = []  # files with breakpoints at the start (launch rules can name them)
        self.proc: asyncio.subprocess.Process | None = None
        self.stderr_tail: deque[str] = deque(maxlen=40)
        self._initialized = asyncio.Event()
        self._terminated = False
        self._closing = False
        self._stderr_task: asyncio.Task[None] | None = None
        self.request_timeout = 10.0
        # Conditional breakpoints by adapter id (condition, state), and how often each condition raised.
        self._conditions: dict[int | str, tuple[str, BreakpointState]] = {}
        self._condition_errors: dict[int | str, int] = {}
        self.terminal: StartedProgram | None = None  # what pairdbg started for `runInTerminal`
        self._held: list[tuple[str, dict[str, Any]]] = []  # the program's end, held until its output is read
        self._release_held: asyncio.Task[None] | None = None

    @property
    def features(self) -> Capabilities:  # type: ignore[override]
        """What the adapter said it can do when it was initialized (nothing before)."""
        return dap_capabilities(self.adapter_capabilities, self.allowed)

    # ----- connection ---------------------------------------------------------------------------------------

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        raise NotImplementedError

    def _start_request(self) -> tuple[str, dict[str, Any]]:
        """The `launch` or `attach` request and its arguments."""
        raise NotImplementedError

    def _open_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.client = DapClient(reader, writer, self._on_event, self._on_reverse, self._on_close, name=self.adapter_id)

    async def start(
        self, line_breakpoints: dict[str, list[LineBreakpointSpec]], exception_mode: ExceptionMode
    ) -> dict[str, list[BreakpointState]]:
        reader, writer = await self._connect()
        self._open_client(reader, writer)
        client = self._require()
        try:
            self.adapter_capabilities = await client.request(
                "initialize",
                {
                    "clientID": "pairdbg",
                    "clientName": "pairdbg",
                    "adapterID": self.adapter_id,
                    "linesStartAt1": True,
                    "columnsStartAt1": True,
                    "pathFormat": "path",
                    "supportsVariableType": True,
                    "supportsRunInTerminalRequest": self.runs_in_terminal,
                    "locale": "en",
                },
                timeout=15,
            )
        except DebugError as exc:  # an adapter that dies at start: say why, with its stderr
            if self._stderr_task is not None:  # its stderr ends when it does: read it to the end (bounded)
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.shield(self._stderr_task), 1)
            raise self._start_failed(exc) from None
        self.breakpoint_files = list(line_breakpoints)
        command, args = self._start_request()
        start_fut = client.send_request(command, args)
        # The adapter answers launch/attach only after configurationDone, but a bad launch fails at once:
        # wait for whichever comes first.
        init_wait = asyncio.ensure_future(self._initialized.wait())
        try:
            done, _ = await asyncio.wait({start_fut, init_wait}, timeout=20, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not init_wait.done():
                init_wait.cancel()
        if start_fut.done() and start_fut.exception() is not None:
            raise self._start_failed(start_fut.exception())
        if not done:
            raise DebugError(ErrorCode.TIMEOUT, f"the debug adapter did not get ready within 20s ({command})")
        results: dict[str, list[BreakpointState]] = {}
        for file, specs in line_breakpoints.items():
            results[file] = await self.set_line_breakpoints(file, specs)
        await self.set_exception_mode(exception_mode)
        await client.request("configurationDone", {}, timeout=self.request_timeout)
        try:
            await client.wait(start_fut, command, 20)
        except DebugError as exc:
            raise self._start_failed(exc) from None
        return results

    def _start_failed(self, exc: BaseException | None) -> DebugError:
        detail = str(exc) if exc else "unknown error"
        tail = "\n".join(self.stderr_tail).strip()
        message = f"the debug adapter could not start the program: {detail}"
        if tail:
            message += f"\nadapter stderr:\n{tail[-1500:]}"
        return DebugError(ErrorCode.CONNECTION_FAILED, message)

    def _require(self) -> DapClient:
        if self.client is None or self.client.closed:
            raise DebugError(ErrorCode.NOT_CONNECTED, "the debug adapter is not connected")
        return self.client

    async def _req(self, command: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        return await self._require().request(command, args, timeout=self.request_timeout)

    # ----- events -------------------------------------------------------------------------------------------

    def _on_event(self, event: str, body: dict[str, Any]) -> None:
        if event in ("exited", "terminated") and self.terminal is not None and self.listener is not None:
            # The program's last output is still in its pipes: say it ended only once that output is read.
            self._held.append((event, body))
            if self._release_held is None:
                self._release_held = asyncio.ensure_future(self._after_output())
            return
        self._dispatch_event(event, body)

    async def _after_output(self) -> None:
        assert self.terminal is not None
        await self.terminal.drained()
        held, self._held = self._held, []
        self._release_held = None
        for event, body in held:
            self._dispatch_event(event, body)

    def _dispatch_event(self, event: str, body: dict[str, Any]) -> None:
        listener = self.listener
        if event == "initialized":
            self._initialized.set()
        elif event == "process":
            self.pid = body.get("systemProcessId") or self.pid
        elif listener is None:
            return
        elif event == "stopped":
            listener.on_stopped(
                StopInfo(
                    reason=body.get("reason", "unknown"),
                    thread_id=body.get("threadId"),
                    description=body.get("description"),
                    text=body.get("text"),
                    hit_breakpoint_ids=list(body.get("hitBreakpointIds") or []),
                    all_threads_stopped=bool(body.get("allThreadsStopped", True)),
                )
            )
        elif event == "continued":
            listener.on_continued(body.get("threadId"), bool(body.get("allThreadsContinued", True)))
        elif event == "output":
            category = body.get("category") or "console"
            if category != "telemetry" and body.get("output"):
                listener.on_output(category, body["output"])
                if CONDITION_ERROR in body["output"]:
                    self._condition_failed(body["output"])
        elif event == "exited":
            listener.on_exited(body.get("exitCode"))
        elif event == "terminated":
            self._terminated = True
            listener.on_terminated()
        elif event == "loadedSource" and body.get("reason") in ("new", "changed"):
            path = (body.get("source") or {}).get("path")
            if path and os.path.isabs(path):
                listener.on_loaded(path)
        elif event == "breakpoint":
            bp = body.get("breakpoint") or {}
            if bp.get("id") is not None:
                listener.on_breakpoint_changed(
                    bp["id"],
                    BreakpointState(bool(bp.get("verified")), bp.get("line"), self._bp_message(bp), bp["id"]),
                    (bp.get("source") or {}).get("path"),
                )

    #: What to do about a breakpoint in a file justMyCode excludes (debugpy's advice, edit launch.json, said in
    #: pairdbg's terms): only an attached program can still exclude one (launches include it when it is set).
    excluded_advice = (
        "this file is library code that justMyCode excludes in the attached program; attach again with "
        'just_my_code=false (or "justMyCode": false in launch.json) to stop in it'
    )

    def _bp_message(self, bp: dict[str, Any]) -> str | None:
        """The adapter's word on a breakpoint, with `excluded_advice` for a file its filters exclude."""
        message = bp.get("message")
        return self.excluded_advice if message and "excluded by filters" in message else message

    def _condition_failed(self, output: str) -> None:
        """pydevd does not stop when a breakpoint's condition raises; it only says so in an output line. Mark the
        breakpoints with that condition, so the breakpoint list shows why they never fire."""
        rest = output.partition(CONDITION_ERROR)[2]
        lines = rest.strip().splitlines()
        if not lines or self.listener is None:
            return
        condition = lines[0].strip()
        error = next((line.strip() for line in reversed(lines[1:]) if line.strip()), "an error")
        for bp_id, (cond, state) in self._conditions.items():
            if cond.strip() != condition:
                continue
            times = self._condition_errors[bp_id] = self._condition_errors.get(bp_id, 0) + 1
            if times & (times - 1):  # tell on the 1st, 2nd, 4th, 8th… failure: a hot loop must not flood the bus
                continue
            message = f"its condition raised {error} (at least {times}x); it does not stop while the condition fails"
            self.listener.on_breakpoint_changed(
                bp_id, BreakpointState(state.verified, state.line, message, bp_id, passed=times)
            )

    def _remember_conditions(self, conditions: list[str | None], states: list[BreakpointState]) -> None:
        for condition, state in zip(conditions, states, strict=False):
            if condition and state.backend_id is not None:
                self._conditions[state.backend_id] = (condition, state)
                self._condition_errors.pop(state.backend_id, None)

    async def _on_reverse(self, command: str, args: dict[str, Any]) -> dict[str, Any] | None:
        if command == "runInTerminal" and self.runs_in_terminal:
            return await self._run_in_terminal(args)
        raise DebugError(ErrorCode.CAPABILITY_UNSUPPORTED, f"pairdbg does not support the reverse request '{command}'")

    async def _run_in_terminal(self, args: dict[str, Any]) -> dict[str, Any]:
        """Start what the adapter asks for (once per session), its output the session's own."""
        self._check_first_start()
        program = self.terminal = await TerminalProgram.start(args, self._program_output, self.leftovers)
        return {"processId": program.pid}

    def _check_first_start(self) -> None:
        if self.terminal is not None or self._closing:
            raise DebugError(ErrorCode.PROTOCOL_ERROR, "this session's program was already started")

    def _program_output(self, category: str, text: str) -> None:
        if self.listener is not None:
            self.listener.on_output(category, text)

    def _on_close(self, reason: str) -> None:
        if self.listener is not None and not self._terminated and not self._closing:
            tail = "\n".join(list(self.stderr_tail)[-5:]).strip()
            self.listener.on_lost(f"debug adapter connection lost ({reason})" + (f": {tail}" if tail else ""))

    # ----- breakpoints ---------------------------------------------------------------------------------------

    async def set_line_breakpoints(self, file: str, specs: list[LineBreakpointSpec]) -> list[BreakpointState]:
        bps = []
        for spec in specs:
            bp: dict[str, Any] = {"line": spec.line}
            if spec.condition:
                bp["condition"] = spec.condition
            if spec.hit_condition:
                bp["hitCondition"] = spec.hit_condition
            if spec.log_message:
                bp["logMessage"] = spec.log_message
            bps.append(bp)
        body = await self._req(
            "setBreakpoints",
            {"source": {"path": file}, "breakpoints": bps, "lines": [s.line for s in specs], "sourceModified": False},
        )
        states = [
            BreakpointState(bool(b.get("verified")), b.get("line"), self._bp_message(b), b.get("id"))
            for b in body.get("breakpoints", [])
        ]
        self._remember_conditions([s.condition for s in specs], states)
        return states

    async def set_function_breakpoints(self, specs: list[FunctionBreakpointSpec]) -> list[BreakpointState]:
        body = await self._req(
            "setFunctionBreakpoints",
            {
                "breakpoints": [
                    {
                        k: v
                        for k, v in (("name", s.name), ("condition", s.condition), ("hitCondition", s.hit_condition))
                        if v
                    }
                    for s in specs
                ]
            },
        )
        states = [
            BreakpointState(bool(b.get("verified")), b.get("line"), self._bp_message(b), b.get("id"))
            for b in body.get("breakpoints", [])
        ]
        self._remember_conditions([s.condition for s in specs], states)
        return states

    async def set_exception_mode(self, mode: ExceptionMode) -> None:
        await self._req("setExceptionBreakpoints", {"filters": list(self.exception_filters[mode])})

    def exception_filter_options(self) -> list[ExceptionFilter]:
        """The adapter's own filters from its `initialize` answer; else the ids this profile's modes use."""
        declared = self.adapter_capabilities.get("exceptionBreakpointFilters") or []
        if declared:
            return [
                ExceptionFilter(f["filter"], f.get("label") or f["filter"], f.get("description") or "")
                for f in declared
                if f.get("filter")
            ]
        ids = dict.fromkeys(i for ids in self.exception_filters.values() for i in ids)
        return [ExceptionFilter(i, i) for i in ids]

    async def set_exception_filters(self, ids: list[str]) -> None:
        await self._req("setExceptionBreakpoints", {"filters": list(ids)})

    # ----- execution ------------------------------------------------------------------------------------------

    async def resume(self, thread_id: int | None) -> None:
        await self._req("continue", {"threadId": thread_id or 0})

    async def step(self, kind: StepKind, thread_id: int | None) -> None:
        await self._req(STEP_COMMANDS[kind], {"threadId": thread_id or 0})

    async def pause(self, thread_id: int | None) -> None:
        await self._req("pause", {"threadId": thread_id or 0})

    # ----- inspection -----------------------------------------------------------------------------------------

    async def threads(self) -> list[tuple[int, str]]:
        body = await self._req("threads")
        return [(t["id"], t.get("name", "")) for t in body.get("threads", [])]

    def _keep_frame(self, frame: dict[str, Any]) -> bool:
        return True

    async def stack(self, thread_id: int, start: int = 0, levels: int = 20) -> tuple[list[RawFrame], int]:
        body = await self._req("stackTrace", {"threadId": thread_id, "startFrame": start, "levels": levels})
        raw = body.get("stackFrames", [])
        frames = [_raw_frame(f) for f in raw if self._keep_frame(f)]
        if len(frames) == len(raw):
            return frames, body.get("totalFrames") or start + len(raw)
        # A profile leaves frames out (its own bootstrap, js-debug's node internals and labels): the adapter's
        # positions and total are not ours, so the whole stack is read once and paged as shown.
        if start or (body.get("totalFrames") or 0) > len(raw):
            body = await self._req("stackTrace", {"threadId": thread_id, "startFrame": 0, "levels": MAX_WHOLE_STACK})
            shown = [_raw_frame(f) for f in body.get("stackFrames", []) if self._keep_frame(f)]
            return shown[start : start + levels], len(shown)
        return frames, len(frames)

    async def stack_with_library(self, thread_id: int, top_frame_id: int) -> list[RawFrame] | None:
        """The library frames `stack` leaves out (those the adapter marks deemphasized or subtle, e.g. js-debug's
        skipFiles <node_internals>), in their place; a profile's own frames and labels stay out. None if none."""
        body = await self._req("stackTrace", {"threadId": thread_id, "startFrame": 0, "levels": MAX_WHOLE_STACK})
        frames: list[RawFrame] = []
        hidden = False
        for f in body.get("stackFrames", []):
            if self._keep_frame(f):
                frames.append(_raw_frame(f))
            elif _raw_frame(f).hint in ("deemphasize", "subtle"):
                hidden = True
                path = (f.get("source") or {}).get("path") or ""
                frames.append(dataclasses.replace(_raw_frame(f), library=True, package=path.split("/", 1)[0] or None))
        return frames if hidden else None

    async def step_in_targets(self, frame_id: int) -> list[str] | None:
        """The calls a step_into on this frame's current line could enter (the adapter's `stepInTargets`), by name;
        None when the adapter cannot tell."""
        if not self.adapter_capabilities.get("supportsStepInTargetsRequest"):
            return None
        # Asked before every step_into: bounded short, so an adapter slow to answer delays the step little.
        body = await self._require().request("stepInTargets", {"frameId": frame_id}, timeout=2)
        return [t.get("label") or "?" for t in body.get("targets") or []]

    async def loaded_sources(self) -> list[str]:
        """The adapter's `modules` (debugpy) and `loadedSources` (js-debug), where it declares them; only sources
        with a path (one known by a sourceReference alone has no file to open)."""
        caps, found = self.adapter_capabilities, []
        if caps.get("supportsModulesRequest"):
            body = await self._req("modules", {"startModule": 0, "moduleCount": 0})
            found += [m["path"] for m in body.get("modules") or [] if m.get("path")]
        if caps.get("supportsLoadedSourcesRequest"):
            body = await self._req("loadedSources", {})
            found += [s["path"] for s in body.get("sources") or [] if s.get("path")]
        return list(dict.fromkeys(found))

    async def goto(self, thread_id: int, file: str, line: int) -> None:
        if not self.adapter_capabilities.get("supportsGotoTargetsRequest"):
            raise self.unsupported(
                "cannot set the next statement: its adapter does not declare gotoTargets",
                hint="run_to_line runs to a line instead",
            )
        body = await self._req("gotoTargets", {"source": {"path": file}, "line": line})
        targets = body.get("targets") or []
        if not targets:
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                f"line {line} of {os.path.basename(file)} is not a statement the program can jump to",
                hint="pick a line with code in the function the program is stopped in",
            )
        await self._req("goto", {"threadId": thread_id, "targetId": targets[0]["id"]})

    async def scopes(self, frame_id: int) -> list[RawScope]:
        body = await self._req("scopes", {"frameId": frame_id})
        return [
            RawScope(
                s.get("name", "?"), s.get("variablesReference", 0), bool(s.get("expensive")), s.get("namedVariables")
            )
            for s in body.get("scopes", [])
        ]

    async def variables(self, ref: int, start: int = 0, count: int = 0) -> list[RawValue]:
        args: dict[str, Any] = {"variablesReference": ref}
        if start or count:
            args.update(start=start, count=count)
        try:
            body = await self._req("variables", args)
        except DebugError as exc:
            if "Unable to find thread" in exc.message:  # pydevd: the frame's thread is not suspended in Python code
                raise DebugError(
                    ErrorCode.NOT_PAUSED,
                    "that frame's thread is not suspended in Python code (it is blocked in native code, e.g. a wait), "
                    "so its values cannot be read",
                    hint="read a thread that runs Python code, or step until this one returns to Python",
                ) from None
            raise
        return [_raw_value(v) for v in body.get("variables", [])]

    async def evaluate(
        self, expression: str, frame_id: int | None, context: str = "repl", by_value: bool = False
    ) -> RawValue:
        args: dict[str, Any] = {"expression": expression, "context": context}
        if frame_id is not None:
            args["frameId"] = frame_id
        try:
            body = await self._req("evaluate", args)
        except DebugError as exc:
            # An adapter answers an expression that raised (or does not parse) with an error naming the exception:
            # the program's failure, not the protocol's.
            if exc.code == ErrorCode.PROTOCOL_ERROR:
                raise evaluation_failed(expression, exc.message) or exc from None
            raise
        return RawValue(
            name=expression,
            value=body.get("result", ""),
            type=body.get("type"),
            ref=body.get("variablesReference", 0),
            named=body.get("namedVariables"),
            indexed=body.get("indexedVariables"),
            evaluate_name=expression,
        )

    async def completions(self, text: str, cursor: int, frame_id: int | None) -> list[Completion] | None:
        """The adapter's `completions` (debugpy, js-debug declare it); columns are 1-based, in UTF-16 units."""
        if not self.adapter_capabilities.get("supportsCompletionsRequest"):
            return None
        column = len(text[:cursor].encode("utf-16-le")) // 2 + 1
        args: dict[str, Any] = {"text": text, "column": column}
        if frame_id is not None:
            args["frameId"] = frame_id
        body = await self._require().request("completions", args, timeout=3)
        word = len(text[:cursor].rstrip(WORD_CHARS))  # where the word before the cursor starts
        out = []
        for target in body.get("targets") or []:
            label = target.get("label") or ""
            insert = target.get("text") or label
            start, length = target.get("start"), target.get("length") or 0
            if start is None:  # no range given: the word before the cursor is replaced
                start, length = word, cursor - word
            elif start and not insert.lower().startswith(text[start : start + length].lower()):
                start -= 1  # an adapter that counts from 1, as it was told (debugpy counts from 0 regardless)
            out.append(Completion(label, insert, start, length, target.get("type")))
        return out

    async def set_variable(self, ref: int, name: str, value: str) -> RawValue:
        body = await self._req("setVariable", {"variablesReference": ref, "name": name, "value": value})
        return RawValue(
            name=name, value=body.get("value", ""), type=body.get("type"), ref=body.get("variablesReference", 0)
        )

    async def exception_details(self, thread_id: int) -> ExceptionDetails | None:
        if not self.adapter_capabilities.get("supportsExceptionInfoRequest"):
            return None
        try:
            body = await self._req("exceptionInfo", {"threadId": thread_id})
        except DebugError:
            return None
        details = body.get("details") or {}
        # debugpy appends a note after the type name ("ValueError    (note: full exception trace ...)").
        type_name = (details.get("typeName") or body.get("exceptionId") or "Exception").split()[0]
        return ExceptionDetails(
            type=type_name,
            message=body.get("description") or details.get("message"),
            break_mode=body.get("breakMode"),
        )

    # ----- shutdown -------------------------------------------------------------------------------------------

    async def close(self, terminate: bool = True) -> None:
        self._closing = True
        client = self.client
        if client is not None and not client.closed:
            with contextlib.suppress(Exception):
                await client.request("disconnect", {"terminateDebuggee": terminate, "restart": False}, timeout=3)
        if client is not None:
            await client.close()
        if terminate and self.terminal is None:  # what pairdbg started itself it ends itself, just below
            self._kill_debuggee()
        if self.terminal is not None:
            await self.terminal.stop(terminate)
        if self._release_held is not None:
            self._release_held.cancel()
        await self._reap_adapter(terminate)

    def _kill_debuggee(self) -> None:
        """Belt and braces: if the adapter left the program running, end its process group ourselves."""
        if not self.owns_debuggee or not self.pid or self.pid == os.getpid():
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            group = os.getpgid(self.pid)
            if group == self.pid and group != os.getpgid(0):  # its own group (debugpy's launcher makes one), not ours
                signal_group(group, signal.SIGTERM)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(self.pid, signal.SIGTERM)

    async def _reap_adapter(self, terminate: bool = True) -> None:
        proc = self.proc
        if proc is None:
            return
        # It was told to disconnect: give it time to exit by itself. No sweep: a program detached from may share
        # the adapter's group (debuggers other than debugpy) and must live on. A DAP server (js-debug) never exits
        # by itself: waiting for it cost 2 s per close, long enough for an MCP host's shutdown grace to run out and
        # orphan it, so it is asked to go at once.
        serves_on = self.adapter_serves_on
        # Ending the session ends what the program left behind too (a daemon that setsid()s away from its group);
        # detaching leaves it.
        grace = ADAPTER_STOP_S if serves_on else ADAPTER_EXIT_S
        await stop_group(proc, grace, term=serves_on, sweep=False, escapees=terminate)
        if self._stderr_task is not None:
            self._stderr_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._stderr_task

    async def _spawn_adapter(
        self,
        argv: list[str],
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        spare: SpareAdapter | None = None,
    ) -> None:
        """Start a stdio adapter in its own process group so nothing it starts can outlive a kill; or take `spare`,
        the same adapter started earlier (see spare.py), when it is there."""
        self.proc = await spare.take(argv) if spare is not None and env is None and cwd is None else None
        if self.proc is None:
            try:
                self.proc = await spawn(argv, env=env, cwd=cwd, stdin=asyncio.subprocess.PIPE, limit=MAX_LINE)
            except (FileNotFoundError, PermissionError) as exc:
                raise DebugError(
                    ErrorCode.CONNECTION_FAILED, f"cannot start the debug adapter {argv[0]!r}: {exc}"
                ) from None
        self._stderr_task = asyncio.create_task(self._drain_stderr())

    async def _drain_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        while line := await self.proc.stderr.readline():
            self.stderr_tail.append(line.decode(errors="replace").rstrip())


def _raw_frame(f: dict[str, Any]) -> RawFrame:
    return RawFrame(
        id=f["id"],
        name=f.get("name", "?"),
        file=(f.get("source") or {}).get("path"),
        line=f.get("line") or None,
        column=f.get("column") or None,
        hint=f.get("presentationHint") or (f.get("source") or {}).get("presentationHint"),
    )


def _raw_value(v: dict[str, Any]) -> RawValue:
    return RawValue(
        name=v.get("name", "?"),
        value=v.get("value", ""),
        type=v.get("type"),
        ref=v.get("variablesReference", 0),
        evaluate_name=v.get("evaluateName"),
        named=v.get("namedVariables"),
        indexed=v.get("indexedVariables"),
    )
