"""JavaScript on VS Code's js-debug DAP server: a parent session attached to a Node we start, and the child session
js-debug asks for (reverse `startDebugging` with `__pendingTargetId`) that does the actual debugging.

pairdbg starts Node itself (`--inspect-brk` on a loopback port, as `TerminalProgram`: its own group, its pipes read
into the session) and lets js-debug attach through a TcpRelay: Node's inspector and js-debug (both Node) otherwise
stall every request ~40 ms on Nagle + delayed ACK. This is also the order the seed found reliable (attach, then child
adoption). js-debug could start the program through pairdbg instead (a launch with `console: integratedTerminal`
sends `runInTerminal`: node with js-debug's bootloader in NODE_OPTIONS), but its bootloader then connects a watchdog
process of its own to the inspector, out of the relay's reach: a step with its stack and scopes took ~48 ms that way
against ~10 ms for a whole step report here.

Order matters to js-debug (seed 004): the child connects on a second TCP connection to the same server, sends
`initialize`, then the `launch`/`attach` request carrying exactly the configuration it was given, waits for
`initialized`, sets breakpoints and exception filters, then `configurationDone`. Every debuggee-scoped request
goes to the child; output and the end of the program arrive on the parent.

Forks and worker threads: js-debug finds them itself (on attach it puts its bootloader into the program's
NODE_OPTIONS; workers through Node's NodeWorker domain) and offers each with a further `startDebugging`; each becomes
a session of its own (`JsDebugChild`), so every process and worker is debugged by exactly one session. The program's
forks must not inherit its --inspect-brk (they would wait on an inspector nobody attaches to): `jsdebug_boot.cjs`,
preloaded, keeps the flag out of the arguments Node hands on.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import os
import re
from collections.abc import Callable
from typing import Any

import aiohttp

from ..base import (
    BreakpointState,
    Capabilities,
    DataBreakpointSpec,
    DataWatch,
    ExceptionMode,
    FunctionBreakpointSpec,
    FunctionLocation,
    LineBreakpointSpec,
    ProgramRuntime,
    RawFrame,
    RawScope,
    RawValue,
    StepKind,
)
from .. import jsfunction
from ..errors import DebugError, ErrorCode
from ..hosts import check_host
from ..tcp import ack_now, no_delay
from ..process import free_port
from ..runtimes import TargetMissing, find_js_debug, find_node
from ..inspector.datawatch import BINDING, DataWatches, FileMaps, is_helper_url, v8_thrown
from ..inspector.process import WS_URL, banner_line
from ..models import DataChange
from ..tcp_relay import TcpRelay
from .backend import MAX_WHOLE_STACK, DapBackend
from .client import DapClient
from .datawatch import change_line
from .terminal import OutputSink, TerminalProgram

ENTRY_STOP_WAIT_S = 3.0
LISTENING = re.compile(rb"listening at ([\d.]+):(\d+)")
# The arguments of the function a CommonJS module runs in: left out of its top-level locals unless asked for.
MODULE_WRAPPER = frozenset({"exports", "require", "module", "__filename", "__dirname"})
BOOT = os.path.join(os.path.dirname(__file__), "jsdebug_boot.cjs")  # keeps --inspect-brk from the program's forks
WORKER_NAME = re.compile(r"^\[worker \d+\]")  # js-debug's name for a worker thread's target
PROXY_MESSAGE_MAX = 64 * 1024 * 1024  # a pause with a deep stack is a big message; still bounded
PROCESS_NAME = re.compile(r"\[(\d+)\]$")  # js-debug's name for a process it found: "<script> [<pid>]"


def project_root(program: str) -> str:
    """The nearest folder above `program` holding a package.json or tsconfig.json, else the program's folder."""
    folder = os.path.dirname(program)
    here = folder
    while True:
        if any(os.path.isfile(os.path.join(here, name)) for name in ("package.json", "tsconfig.json")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return folder
        here = parent


def compiled_folders(root: str, limit: int = 50) -> list[str]:
    """Folders under `root` (node_modules left out) holding compiled files with maps (`x.js` + `x.js.map`): the
    ones whose files js-debug stops at as they load. A project without maps has none and pays nothing."""
    found: list[str] = []
    for visited, (folder, dirs, files) in enumerate(os.walk(root)):
        dirs[:] = [d for d in dirs if d != "node_modules" and not d.startswith(".")]
        if any(name.endswith((".js.map", ".mjs.map", ".cjs.map")) for name in files):
            found.append(folder)
        if len(found) >= limit or visited >= 5000:
            break
    return found


class CdpProxy:
    """js-debug's CDP proxy for one target (the custom `requestCDPProxy` request): plain CDP requests beside the DAP
    session, for what DAP cannot ask, such as where a function returns. js-debug replays the current pause to a
    client that enables the Debugger domain, which is how the paused call frames are read; other events come only
    once subscribed to (`subscribe`), to `on_event`."""

    def __init__(self, session: aiohttp.ClientSession, socket: aiohttp.ClientWebSocketResponse) -> None:
        self._session = session
        self._socket = socket
        # js-debug writes with Nagle on, like Node's inspector: acknowledged at once (see tcp.py), or every reply
        # waits ~40 ms for our delayed ACK.
        self._tcp = socket.get_extra_info("socket")
        no_delay(self._tcp)
        self._ids = itertools.count(1)
        self._waiting: dict[int, tuple[asyncio.Future[dict], list[dict]]] = {}  # id -> (reply, events meanwhile)
        self.on_event: Callable[[str, dict[str, Any]], None] | None = None
        self._lost: str | None = None
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def open(cls, where: dict[str, Any]) -> CdpProxy:
        host, port, path = str(where.get("host") or ""), where.get("port"), str(where.get("path") or "")
        check_host(host, [], "js-debug's CDP proxy")  # js-debug serves it on loopback; never follow it elsewhere
        session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5))
        try:
            socket = await session.ws_connect(f"ws://{host}:{port}{path}", max_msg_size=PROXY_MESSAGE_MAX)
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            await session.close()
            raise DebugError(ErrorCode.CONNECTION_FAILED, f"js-debug's CDP proxy: {exc.__class__.__name__}") from None
        return cls(session, socket)

    async def _read(self) -> None:
        try:
            while True:
                message = await self._socket.receive_json()
                ack_now(self._tcp)
                waiting = self._waiting.pop(message.get("id"), None) if "id" in message else None
                if waiting is not None:
                    if not waiting[0].done():
                        waiting[0].set_result(message)
                    continue
                for _, events in self._waiting.values():
                    events.append(message)
                if self.on_event is not None and message.get("method"):
                    self.on_event(str(message["method"]), message.get("params") or {})
        except (aiohttp.ClientError, OSError, TypeError, ValueError) as exc:  # (TypeError: the socket closed)
            self._lost = exc.__class__.__name__
        finally:
            for reply, _ in self._waiting.values():
                if not reply.done():
                    reply.set_exception(
                        DebugError(ErrorCode.CONNECTION_FAILED, f"js-debug's CDP proxy closed ({self._lost})")
                    )
            self._waiting.clear()

    async def call(self, method: str, params: dict[str, Any] | None = None) -> tuple[dict[str, Any], list[dict]]:
        """The result of one CDP request, and the events that arrived before it."""
        if self._reader.done():
            raise DebugError(ErrorCode.CONNECTION_FAILED, f"js-debug's CDP proxy closed ({self._lost})")
        number = next(self._ids)
        reply: asyncio.Future[dict] = asyncio.get_running_loop().create_future()
        events: list[dict] = []
        self._waiting[number] = (reply, events)
        try:
            ack_now(self._tcp)
            await self._socket.send_json({"id": number, "method": method, "params": params or {}})
            message = await asyncio.wait_for(reply, 5)
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            raise DebugError(
                ErrorCode.CONNECTION_FAILED, f"js-debug's CDP proxy ({method}): {exc.__class__.__name__}"
            ) from None
        finally:
            self._waiting.pop(number, None)
        if "error" in message:
            raise DebugError(ErrorCode.PROTOCOL_ERROR, f"{method}: {(message['error'] or {}).get('message')}")
        return message.get("result") or {}, events

    async def subscribe(self, events: list[str]) -> None:
        """Have js-debug pass on these CDP events (its own `JsDebug` domain)."""
        await self.call("JsDebug.subscribe", {"events": events})

    async def paused(self) -> dict[str, Any] | None:
        """The current pause's `Debugger.paused` parameters (None while running)."""
        _, events = await self.call("Debugger.enable")  # (V8 ignores it for a session that has the domain on)
        return next((e["params"] for e in events if e.get("method") == "Debugger.paused"), None)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self._socket.close()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader
        await self._session.close()


class InspectorBanner:
    """Node's output on its way to the session: the inspector's address is read from the banner Node prints on
    stderr before the program's first line, and that banner and the debugger's chatter after it ("Debugger
    attached.", "Waiting for the debugger to disconnect...") are kept out of the program's output."""

    def __init__(self, sink: OutputSink) -> None:
        self._sink = sink
        self._url: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._before: list[str] = []  # stderr before the address: why Node did not open its inspector

    def write(self, category: str, text: str) -> None:
        if category == "stderr":
            if not self._url.done():
                self._before.append(text)
                if found := WS_URL.search(text):
                    self._url.set_result(found.group(0))
            text = "".join(line for line in text.splitlines(keepends=True) if not banner_line(line))
        if text:
            self._sink(category, text)

    async def address(self, program: TerminalProgram, timeout: float = 10.0) -> str:
        """The inspector's ws:// URL; an error naming what Node said if it exits first or prints none in time (its
        group is ended then)."""
        exited = asyncio.ensure_future(program.proc.wait())
        try:
            await asyncio.wait({self._url, exited}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            exited.cancel()
        if self._url.done():
            return self._url.result()
        if program.running:
            await program.end()
        await program.drained(0.5)
        tail = "".join(self._before)[-1500:].strip()
        raise DebugError(
            ErrorCode.CONNECTION_FAILED,
            "node did not open its inspector" + (f":\n{tail}" if tail else f" within {timeout:g}s (no output)"),
            hint="check the program path and that `node --inspect-brk` runs it",
        )


def _is_helper_frame(frame: dict[str, Any]) -> bool:
    source = frame.get("source") or {}
    return any(is_helper_url(str(source.get(key) or "")) for key in ("path", "name"))


@dataclasses.dataclass
class _StepOut:
    wire_ids: list[str]  # temporary CDP breakpoints on the function's return positions
    depth: int  # stack depth of the function's frame
    function: str


class JsDebugTarget(DapBackend):
    """One JavaScript target js-debug debugs (the program, a fork, a worker): what all of them show the same way.

    js-debug names sources that are not on disk by a sourceReference, lists a block's variables as scopes of their own
    and a CommonJS module's wrapper arguments as locals; every session on it, the program's and its children's,
    reads them alike."""

    language = "javascript"
    adapter_id = "pwa-node"
    exception_filters = {"none": [], "uncaught": ["uncaught"], "all": ["all", "uncaught"]}

    def __init__(self) -> None:
        super().__init__()
        self._source_refs: dict[str, int] = {}  # path of a source not on disk -> js-debug's sourceReference
        self._merged: dict[int, list[int]] = {}  # a Locals scope made of several (negative refs, never js-debug's)
        self._merged_seq = 0
        self.port = 0  # js-debug's server: where a further target's session connects
        self._pausing = False  # a pause was asked for and has not stopped the target yet
        self._proxy: CdpProxy | None = None
        self._step_out: _StepOut | None = None  # a step out waiting at its function's returns
        self._returned: RawValue | None = None  # what the function a step out left gave back
        self._step_note: str | None = None  # said on the stop that ends a step out which brings no value back
        self._top_frame: int | None = None  # the current stop's top frame, and its first scope (the returned value's)
        self._returned_scope: int | None = None
        self._step_tasks: set[asyncio.Future[None]] = set()
        self.inherited_place: jsfunction.Place | None = None  # a child's: where its parent looks module names up
        self._proxy_lock = asyncio.Lock()
        # Data breakpoints: the inspector backend's helper (datawatch.js), reached through js-debug's CDP proxy.
        self.data_watches = DataWatches(self._cdp_send, v8_thrown)
        self._binding_heard = False
        self._file_maps = FileMaps()  # a change's place in the original source (js-debug keeps its maps to itself)

    @staticmethod
    def _is_noise(body: dict[str, Any]) -> bool:
        """js-debug's own lines: the command it ran (category console) and Node's debugger chatter."""
        text = body.get("output", "")
        return body.get("category") in ("telemetry", "console") or any(
            marker in text for marker in ("Debugger attached.", "Waiting for the debugger to disconnect")
        )

    async def _on_reverse(self, command: str, args: dict[str, Any]) -> dict[str, Any] | None:
        """A target this one started (a fork, a worker thread; js-debug asks the session of the process that made
        it): a session of its own, the only one debugging it. Declining would leave it waiting for a debugger."""
        if command != "startDebugging":
            return await super()._on_reverse(command, args)
        if self.listener is None:
            raise DebugError(ErrorCode.CAPABILITY_UNSUPPORTED, "this session cannot open child sessions")
        configuration = args.get("configuration") or {}
        child = JsDebugChild(self.port, args.get("request", "launch"), configuration, self.pid)
        child.inherited_place = self.function_place()
        self.listener.on_child(child, configuration.get("name") or "child process")
        return {}

    def _on_event(self, event: str, body: dict[str, Any]) -> None:
        if event == "stopped" and self.data_watches.armed and body.get("reason") != "data breakpoint":
            self._spawn_task(self._data_stop_or_not(body))  # the helper's `debugger;` is told by asking the program
            return
        self._on_checked_event(event, body)

    def _on_checked_event(self, event: str, body: dict[str, Any]) -> None:
        if event == "stopped" and self._step_out is not None:
            self._spawn_task(self._continue_step_out(body))  # at one of the function's returns, or stopped before
            return
        if event == "stopped" and self._pausing:
            # A pause that lands in skipped code (Node's timers, while the program idles) is stepped on by js-debug
            # into the program's own code, which it then calls a "step": it is still the pause that was asked for.
            self._pausing = False
            if body.get("reason") == "step":
                body = {**body, "reason": "pause"}
        if event == "stopped":
            note, self._step_note = self._step_note, None
            if note and body.get("reason") == "step":  # the end of a step out (a breakpoint ending it: no note)
                body = {**body, "description": note}
        super()._on_event(event, body)

    def _spawn_task(self, coro) -> None:
        task = asyncio.ensure_future(coro)
        self._step_tasks.add(task)
        task.add_done_callback(self._step_tasks.discard)

    async def pause(self, thread_id: int | None) -> None:
        self._pausing = True
        await super().pause(thread_id)

    async def resume(self, thread_id: int | None) -> None:
        self._pausing = False
        self._returned = self._step_note = None
        await super().resume(thread_id)

    async def step(self, kind: StepKind, thread_id: int | None) -> None:
        self._pausing = False
        self._returned = self._step_note = None
        if kind == "out" and await self._arm_step_out(thread_id):
            await DapBackend.resume(self, thread_id)  # on to the function's returns; the step out goes on from there
            return
        await super().step(kind, thread_id)

    # ----- data breakpoints (the inspector backend's helper, through js-debug's CDP proxy) ---------------------------

    async def _cdp(self) -> CdpProxy:
        async with self._proxy_lock:
            if self._proxy is None:
                self._proxy = await CdpProxy.open(await self._req("requestCDPProxy"))
            return self._proxy

    async def _cdp_send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        result, _ = await (await self._cdp()).call(method, params)
        return result

    async def set_data_breakpoint(self, spec: DataBreakpointSpec, frame_id: int) -> DataWatch:
        proxy = await self._cdp()
        if not self._binding_heard:  # the helper's change reports: js-debug passes them on once asked
            proxy.on_event = self._on_cdp_event
            await proxy.subscribe(["Runtime.bindingCalled"])
            self._binding_heard = True
        return await self.data_watches.arm(spec, await self._call_frame(proxy, frame_id))

    async def clear_data_breakpoint(self, bp_id: str) -> None:
        await self.data_watches.clear(bp_id)

    async def update_data_breakpoint(self, bp_id: str, enabled: bool | None, condition: str | None) -> None:
        frames = ((await (await self._cdp()).paused()) or {}).get("callFrames") or []
        await self.data_watches.update(bp_id, enabled, condition, frames[0] if frames else None)

    async def _call_frame(self, proxy: CdpProxy, frame_id: int) -> dict[str, Any]:
        """The CDP call frame of js-debug's frame `frame_id`: js-debug lists the paused call frames in V8's order,
        then the async ones after a label."""
        paused = await proxy.paused()
        call_frames = (paused or {}).get("callFrames") or []
        threads = await self.threads()
        body = await self._req(
            "stackTrace", {"threadId": threads[0][0] if threads else 0, "startFrame": 0, "levels": MAX_WHOLE_STACK}
        )
        for index, frame in enumerate(body.get("stackFrames") or []):
            if frame.get("presentationHint") == "label":
                break
            if frame.get("id") == frame_id and index < len(call_frames):
                return dict(call_frames[index])
        raise DebugError(
            ErrorCode.INVALID_PARAMETERS,
            "a data breakpoint is set from a frame of the paused call stack (not an async caller's)",
            hint="select a frame above the first async label in get_call_stack",
        )

    def _on_cdp_event(self, method: str, params: dict[str, Any]) -> None:
        if method == "Runtime.bindingCalled" and params.get("name") == BINDING:
            change = self.data_watches.on_change(str(params.get("payload") or ""), self._file_maps.site)
            if change is not None and self.listener is not None:
                self.listener.on_output("changes", change_line(change), DataChange.of(change))

    async def _data_stop_or_not(self, body: dict[str, Any]) -> None:
        """A stop while watches are set: the helper's pause for a change (reported at the writing statement, its
        frames hidden), a step that ended in the helper (it goes on out into the program), or any other stop."""
        thread = body.get("threadId")
        try:
            change = await self.data_watches.take_stop_in_page(self._file_maps.site)
            if change is None and body.get("reason") == "step" and await self._top_is_helper(thread):
                await DapBackend.step(self, "out", thread)
                return
        except DebugError:
            change = None  # the program could not be asked: the stop is reported as the adapter gave it
        if change is not None:
            self._pausing = False
            self._step_note = None
            body = {
                **body,
                "reason": "data breakpoint",
                "description": f"data breakpoint {change['id']}: {change['expression']} {change['old']} → "
                f"{change['new']}",
                "hitBreakpointIds": [change["id"]],
            }
        self._on_checked_event("stopped", body)

    async def _top_is_helper(self, thread: int | None) -> bool:
        if thread is None:
            return False
        frames = (await self._req("stackTrace", {"threadId": thread, "startFrame": 0, "levels": 1})).get("stackFrames")
        return bool(frames) and _is_helper_frame(frames[0])

    # ----- step out with the function's return value ------------------------------------------------------------

    async def _arm_step_out(self, thread_id: int | None) -> bool:
        """V8 shows a function's return value only while paused at one of its returns, and js-debug lists it then
        ("Return value" in the Local scope); a plain step out never pauses there. So, as the inspector backend does,
        stop at the function's return positions first (temporary CDP breakpoints through js-debug's proxy), take the
        value, then step out. False: a plain step out (already at a return, or the value cannot be had; then the
        stop says why)."""
        try:
            proxy = await self._cdp()
            paused = await proxy.paused()
            frames = (paused or {}).get("callFrames") or []
            while frames and self.data_watches.in_helper(frames[0]):
                frames = frames[1:]  # paused in the data-breakpoint helper: the step out is the writing frame's
            if not frames:
                raise DebugError(ErrorCode.PROTOCOL_ERROR, "no paused call frames")
            top = frames[0]
            function = top.get("functionName") or "(anonymous)"
            if "returnValue" in top:  # at a return already: the value is listed now
                self._returned = await self._return_value(function, thread_id)
                if self._returned is None:
                    self._step_note = "(return value not available: js-debug listed none at the return)"
                return False
            local = next((s for s in top.get("scopeChain") or [] if s.get("type") == "local"), None)
            start, end = top.get("functionLocation"), (local or {}).get("endLocation")
            if not start or not end:
                raise DebugError(ErrorCode.PROTOCOL_ERROR, "the function's extent is unknown")
            found, _ = await proxy.call(
                "Debugger.getPossibleBreakpoints", {"start": start, "end": end, "restrictToFunction": True}
            )
            returns = [loc for loc in found.get("locations") or [] if loc.get("type") == "return"]
            here = top.get("location") or {}
            if any((r.get("lineNumber"), r.get("columnNumber")) == (here.get("lineNumber"), here.get("columnNumber"))
                   for r in returns):
                self._step_note = "(return value not available: paused on the return before its value was computed)"
                return False
            ids = []
            for r in returns:
                where = {k: r[k] for k in ("scriptId", "lineNumber", "columnNumber") if k in r}
                with contextlib.suppress(DebugError):
                    bound, _ = await proxy.call("Debugger.setBreakpoint", {"location": where})
                    if bound.get("breakpointId"):
                        ids.append(str(bound["breakpointId"]))
            if not ids:
                raise DebugError(ErrorCode.PROTOCOL_ERROR, "no return position could be stopped at")
        except (DebugError, KeyError) as exc:
            detail = exc.message if isinstance(exc, DebugError) else "unexpected answer"
            self._step_note = f"(return value not available through js-debug: {detail})"
            return False
        self._step_out = _StepOut(ids, len(frames), function)
        return True

    async def _continue_step_out(self, body: dict[str, Any]) -> None:
        out, proxy = self._step_out, self._proxy
        assert out is not None and proxy is not None
        thread = body.get("threadId")
        try:
            paused = await proxy.paused() or {}
        except DebugError:
            paused = {}
        hit = paused.get("hitBreakpoints") or []
        at_return = bool(hit) and set(hit) <= set(out.wire_ids)
        if at_return and len(paused.get("callFrames") or []) != out.depth:  # the function, called deeper: not ours
            try:
                await DapBackend.resume(self, thread)
                return
            except DebugError:
                at_return = False  # cannot go on: this is where the step out ends
        self._step_out = None
        for wire_id in out.wire_ids:
            with contextlib.suppress(DebugError):
                await proxy.call("Debugger.removeBreakpoint", {"breakpointId": wire_id})
        if not at_return:  # something else stopped the program first (a breakpoint, an exception): that is the stop
            self._on_event("stopped", body)
            return
        try:
            self._returned = await self._return_value(out.function, thread)
            if self._returned is None:
                self._step_note = "(return value not available: js-debug listed none at the return)"
            await DapBackend.step(self, "out", thread)
        except DebugError as exc:  # the value or the step failed: report where the program is, and why
            self._step_note = f"(stopped at the return of {out.function}: {exc.message})"
            self._on_event("stopped", {**body, "reason": "step"})

    async def _return_value(self, function: str, thread_id: int | None) -> RawValue | None:
        """js-debug's "Return value" entry of the top frame's Local scope, named as pairdbg names a returned value.
        Its reference dies as the program moves on, so it is kept as a value, not expandable."""
        if thread_id is None:
            threads = await self.threads()
            thread_id = threads[0][0] if threads else 0
        frames, _ = await DapBackend.stack(self, thread_id, 0, 1)
        scopes = await DapBackend.scopes(self, frames[0].id) if frames else []
        for scope in scopes[:2]:  # (a block scope may come before the function's own)
            for value in await DapBackend.variables(self, scope.ref):
                if value.name == "Return value":
                    return RawValue(f"(return) {function}", value.value, value.type)
        return None

    async def stack(self, thread_id: int, start: int = 0, levels: int = 20) -> tuple[list[RawFrame], int]:
        frames, total = await super().stack(thread_id, start, levels)
        if start == 0 and frames:
            self._top_frame = frames[0].id
        return frames, total

    @property
    def features(self) -> Capabilities:  # type: ignore[override]
        # Sources that are not on disk (a package's .ts sources, known from its map's sourcesContent) are read from
        # js-debug by their sourceReference.
        # js-debug has no function breakpoints: pairdbg binds module:function as a line breakpoint (jsfunction.py).
        return dataclasses.replace(super().features, remote_sources=True, function_breakpoints=True)

    async def function_location(self, name: str) -> FunctionLocation:
        """`module:function` found by reading the module, bound as a line breakpoint on its first body line
        (js-debug's own pending breakpoint until the module loads, mapped through source maps like any other)."""
        return await jsfunction.function_location(name, *self.function_place(), loaded=self._loaded_files)

    async def _loaded_files(self) -> list[str]:
        with contextlib.suppress(DebugError):
            return await self.loaded_sources()
        return []

    def function_place(self) -> jsfunction.Place:
        """Where module names are looked up: the launched program's (a worker's or fork's: its parent's)."""
        if self.inherited_place is not None:
            return self.inherited_place
        program = self.program if os.path.isabs(self.program or "") else None
        return jsfunction.Place(program, getattr(self, "cwd", None), self.module_runtime())

    async def set_function_breakpoints(self, specs: list[FunctionBreakpointSpec]) -> list[BreakpointState]:
        # Never sent to js-debug (which refuses them): every name is bound as a line breakpoint or kept unverified.
        return [BreakpointState(False, message="js-debug matches no function by name") for _ in specs]

    async def scopes(self, frame_id: int) -> list[RawScope]:
        """js-debug lists a block's variables (`i` of a loop) as a scope before the function's own: shown as one
        Locals scope, as the inspector path does, so a stop report has the function's variables too."""
        scopes = self._merged_blocks(await super().scopes(frame_id))
        if frame_id == self._top_frame and scopes:
            self._returned_scope = scopes[0].ref
        return scopes

    def _merged_blocks(self, scopes: list[RawScope]) -> list[RawScope]:
        blocks = 0
        while blocks < len(scopes) and scopes[blocks].name.startswith("Block"):
            blocks += 1
        if not blocks or blocks >= len(scopes) or not scopes[blocks].name.startswith("Local"):
            return scopes
        self._merged_seq -= 1
        self._merged[self._merged_seq] = [s.ref for s in scopes[: blocks + 1]]
        while len(self._merged) > 256:  # js-debug's references die as the program runs on; these go with them
            del self._merged[next(iter(self._merged))]
        return [RawScope(scopes[blocks].name, self._merged_seq), *scopes[blocks + 1 :]]

    async def close(self, terminate: bool = True) -> None:
        for task in list(self._step_tasks):
            task.cancel()
        if self._proxy is not None:
            await self._proxy.close()
        await super().close(terminate)

    async def set_variable(self, ref: int, name: str, value: str) -> RawValue:
        for part in self._merged.get(ref, []):  # the scope of the merged ones that holds the name
            if any(v.name == name for v in await super().variables(part)):
                return await super().set_variable(part, name, value)
        return await super().set_variable(ref, name, value)

    async def variables(self, ref: int, start: int = 0, count: int = 0) -> list[RawValue]:
        returned = [self._returned] if self._returned is not None and ref == self._returned_scope else []
        if ref in self._merged or returned:
            parts = self._merged.get(ref, [ref])
            merged = returned + [v for part in parts for v in await self._own_variables(part)]
            return merged[start : start + count] if count else merged[start:]
        return await self._own_variables(ref, start, count)

    async def _own_variables(self, ref: int, start: int = 0, count: int = 0) -> list[RawValue]:
        values = await super().variables(ref, start, count)
        if {v.name for v in values} >= MODULE_WRAPPER:  # a CommonJS module's top-level scope: the wrapper's names
            for value in values:
                value.special = value.name in MODULE_WRAPPER
        return values

    async def script_source(self, path: str) -> str | None:
        reference = self._source_refs.get(path)
        if not reference:
            return None
        body = await self._req(
            "source", {"source": {"path": path, "sourceReference": reference}, "sourceReference": reference}
        )
        return body.get("content")

    def _keep_frame(self, frame: dict[str, Any]) -> bool:
        source = frame.get("source") or {}
        if source.get("sourceReference") and source.get("path"):
            self._source_refs[source["path"]] = source["sourceReference"]
        path = source.get("path") or ""
        if _is_helper_frame(frame):  # pairdbg's data-breakpoint helper: the stop is the writing frame's
            return False
        return not path.startswith("<node_internals>") and frame.get("presentationHint") != "label"


class JsDebugLaunch(JsDebugTarget):
    adapter_serves_on = True
    launched = True

    def __init__(
        self,
        program: str,
        args: list[str] | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        stop_on_entry: bool = False,
    ) -> None:
        super().__init__()
        self.program = program
        self.args = list(args or [])
        self.cwd = cwd
        self.env = dict(env or {})
        self.stop_on_entry = stop_on_entry
        self.parent: DapClient | None = None
        self.relay: TcpRelay | None = None
        self.ws_url = ""
        self._files: dict[str, list[LineBreakpointSpec]] = {}
        self._child_ready = asyncio.Event()
        self._child_error: DebugError | None = None
        self._bound: dict[str, list[BreakpointState]] = {}
        self._child_initialized = asyncio.Event()
        self._stopped_once = asyncio.Event()
        self._adopted = False
        self._tasks: set[asyncio.Task[Any]] = set()

    # ----- the server and the parent session ----------------------------------------------------------------

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        try:
            server, node = find_js_debug(), find_node()
        except TargetMissing as exc:
            raise DebugError(ErrorCode.CONNECTION_FAILED, str(exc), hint=exc.how_to_install) from None
        self.port = free_port()
        await self._spawn_adapter([node, server, str(self.port), "127.0.0.1"])
        await self._start_program(node)
        assert self.proc is not None and self.proc.stdout is not None
        try:
            await asyncio.wait_for(self._wait_listening(), 10)
            return await asyncio.wait_for(asyncio.open_connection("127.0.0.1", self.port), 5)
        except (TimeoutError, OSError) as exc:
            raise DebugError(
                ErrorCode.CONNECTION_FAILED,
                f"js-debug did not start ({exc.__class__.__name__})",
                hint="\n".join(self.stderr_tail)[-500:] or None,
            ) from None

    async def _start_program(self, node: str) -> None:
        """Node paused before its first line, started as pairdbg starts every program (`TerminalProgram`: its own
        group, pipes read into the session, what it leaves running kept until the session closes), its inspector
        reached through the relay."""
        banner = InspectorBanner(self._program_output)
        program = self.terminal = await TerminalProgram.spawn(
            [node, "--require", BOOT, "--inspect-brk=127.0.0.1:0", self.program, *self.args],
            self.cwd or os.path.dirname(self.program),
            {**os.environ, **self.env},
            banner.write,
            self.leftovers,
        )
        self.pid = program.pid
        url = await banner.address(program)
        self._spawn(self._report_exit(program))
        match = re.match(r"ws://([^/:]+):(\d+)(/.*)", url)
        if match is None:
            raise DebugError(ErrorCode.PROTOCOL_ERROR, f"unexpected inspector URL {url}")
        self.relay = TcpRelay(match.group(1), int(match.group(2)))
        self.ws_url = f"ws://127.0.0.1:{await self.relay.start()}{match.group(3)}"

    async def _report_exit(self, program: TerminalProgram) -> None:
        """The program's end, once its last output is read (a death by a signal as the note in its output says it)."""
        code = await program.wait()
        await program.drained()
        if self.listener is not None and not self._closing:
            self._terminated = True
            self.listener.on_exited(code)
            self.listener.on_terminated()

    def _on_close(self, reason: str) -> None:
        """js-debug hangs up when the program ends; only a hang-up while the program lives is a lost session."""
        if not isinstance(self.terminal, TerminalProgram) or self._closing:
            return super()._on_close(reason)
        self._spawn(self._lost_unless_exiting(reason))

    async def _lost_unless_exiting(self, reason: str) -> None:
        assert isinstance(self.terminal, TerminalProgram)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.terminal.proc.wait()), 3)
        if self.terminal.running:
            super()._on_close(reason)

    async def _wait_listening(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        while True:
            line = await self.proc.stdout.readline()
            if not line:
                raise OSError("js-debug exited")
            if LISTENING.search(line):
                self._spawn(self._drain(self.proc.stdout))
                return

    async def _drain(self, stream: asyncio.StreamReader) -> None:
        while await stream.readline():
            pass

    def _start_request(self) -> tuple[str, dict[str, Any]]:
        return "attach", {
            "type": "pwa-node",
            "request": "attach",
            "name": "pairdbg",
            "websocketAddress": self.ws_url,
            "continueOnAttach": not self.stop_on_entry,
            "attachExistingChildren": False,
            "skipFiles": ["<node_internals>/**"],
            **self._capture_options(),
            **self._source_map_options(),
        }

    def _capture_options(self) -> dict[str, Any]:
        """A launched program's output is read from its pipes: js-debug is not to turn console calls into output
        events too (they would be dropped here; jsdebug_boot.cjs keeps them from the inspector in the first place)."""
        return {"outputCapture": "std"} if self.launched else {}

    def _source_map_options(self) -> dict[str, Any]:
        """Where js-debug looks for compiled files and their maps: the program's project (the nearest folder up with
        a package.json or tsconfig.json). Maps are followed everywhere, node_modules included (library frames through
        their own maps). Each compiled file of the project is stopped at as it loads, so js-debug reads its map and
        binds breakpoints on its original (.ts) lines before it runs; Node compiles CommonJS modules as functions,
        which V8's before-a-script-with-a-map stop (pauseForSourceMap) never sees. That load stop also swallows the
        entry stop, so with stop_on_entry it is left out (top-level code of later modules may then run unseen)."""
        root = project_root(self.program) if os.path.isabs(self.program) else self.cwd
        options: dict[str, Any] = {"sourceMaps": True, "resolveSourceMapLocations": None, "pauseForSourceMap": True}
        if root:
            options["cwd"] = root
            options["outFiles"] = [f"{root}/**/*.(m|c|)js", "!**/node_modules/**"]
            mapped = compiled_folders(root)
            if mapped and not self.stop_on_entry:
                options["runtimeSourcemapPausePatterns"] = [f"{folder}/*.(m|c|)js" for folder in mapped]
        return options

    async def start(
        self, line_breakpoints: dict[str, list[LineBreakpointSpec]], exception_mode: ExceptionMode
    ) -> dict[str, list[BreakpointState]]:
        self._files = {file: list(specs) for file, specs in line_breakpoints.items()}
        self._exception_mode = exception_mode
        await super().start({}, exception_mode)  # the parent only launches; the child carries the breakpoints
        self.parent = self.client
        try:
            await asyncio.wait_for(self._child_ready.wait(), 15)
        except TimeoutError:
            raise DebugError(
                ErrorCode.TIMEOUT,
                "js-debug launched the program but never handed over its session",
                hint="check that `node` runs the program on its own",
            ) from None
        if self._child_error is not None:
            raise self._child_error
        return dict(self._bound)

    # ----- the child session ----------------------------------------------------------------------------------

    async def _on_reverse(self, command: str, args: dict[str, Any]) -> dict[str, Any] | None:
        if command != "startDebugging":
            return await super()._on_reverse(command, args)
        if self._adopted:
            return await super()._on_reverse(command, args)
        self._adopted = True
        self._spawn(self._adopt(args.get("request", "launch"), args.get("configuration") or {}))
        return {}

    async def _adopt(self, request: str, configuration: dict[str, Any]) -> None:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            child = DapClient(reader, writer, self._on_child_event, self._on_reverse, self._on_close, name="js-child")
            # The child session debugs the program: its answer is what this session can do.
            self.adapter_capabilities = await child.request(
                "initialize",
                {
                    "clientID": "pairdbg",
                    "adapterID": "pwa-node",
                    "linesStartAt1": True,
                    "columnsStartAt1": True,
                    "pathFormat": "path",
                    "supportsVariableType": True,
                },
                timeout=15,
            )
            # The child session finds compiled files and maps by its own configuration, not the parent's.
            started = child.send_request(
                request, {**self._capture_options(), **self._source_map_options(), **configuration}
            )
            await asyncio.wait_for(self._child_initialized.wait(), 15)
            self.client = child  # from here on, debuggee-scoped requests go to the child
            for file, specs in self._files.items():
                self._bound[file] = await self.set_line_breakpoints(file, specs)
            await self.set_exception_mode(self._exception_mode)
            await child.request("configurationDone", {}, timeout=self.request_timeout)
            await child.wait(started, request, 20)
            if self.stop_on_entry:
                self._spawn(self._entry_fallback())
        except (DebugError, OSError, TimeoutError) as exc:
            self._child_error = (
                exc
                if isinstance(exc, DebugError)
                else DebugError(
                    ErrorCode.CONNECTION_FAILED, f"could not join js-debug's child session: {exc.__class__.__name__}"
                )
            )
        finally:
            self._child_ready.set()

    async def _entry_fallback(self) -> None:
        """The seed's fallback: if js-debug adopted the program but no stop arrives, ask for one (threads + pause)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopped_once.wait(), ENTRY_STOP_WAIT_S)
            return
        with contextlib.suppress(DebugError):
            threads = await self.threads()
            await self.pause(threads[0][0] if threads else 0)

    def _on_child_event(self, event: str, body: dict[str, Any]) -> None:
        if event == "initialized":
            self._child_initialized.set()
            return
        if event == "stopped" and not self._stopped_once.is_set():
            self._stopped_once.set()
            if self.stop_on_entry:  # js-debug calls the --inspect-brk stop a plain "pause"
                body = {**body, "reason": "entry"}
        if event in ("output", "terminated", "exited"):
            return  # the program's own pipes and exit tell its output and its end
        self._on_event(event, body)

    def _on_event(self, event: str, body: dict[str, Any]) -> None:
        if event in ("output", "terminated", "exited"):
            return  # the parent's copies: output comes from the program's pipes, the end from its exit
        super()._on_event(event, body)

    async def set_line_breakpoints(self, file: str, specs: list[LineBreakpointSpec]) -> list[BreakpointState]:
        self._files[file] = list(specs)
        if self.client is self.parent or self.client is None:  # before the child exists: remember, bind later
            return [BreakpointState(False, s.line, "pending: binds when the program starts") for s in specs]
        return await super().set_line_breakpoints(file, specs)

    def module_runtime(self) -> ProgramRuntime | None:
        try:
            node = find_node()
        except TargetMissing:
            return None
        folder = self.cwd or os.path.dirname(os.path.abspath(self.program or "."))
        return ProgramRuntime("node", node, folder, folder, dict(self.env))

    def _spawn(self, coro) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self, terminate: bool = True) -> None:
        self._closing = True  # the child's connection closing now is not a lost session
        for task in list(self._tasks):
            task.cancel()
        child = self.client if self.client is not self.parent else None
        if child is not None and not child.closed:
            with contextlib.suppress(Exception):
                await child.request("disconnect", {"terminateDebuggee": terminate}, timeout=3)
            await child.close()
        self.client = self.parent
        await super().close(terminate)  # (ends the program's group; what it left ends as the session closes)
        if self.relay is not None:
            await self.relay.stop()


class JsDebugChild(JsDebugTarget):
    """A further target of a js-debug session (a fork, a worker thread), debugged as a session of its own on the same
    js-debug server, which announced it (reverse `startDebugging`). js-debug owns it; ending the session asks
    js-debug to let it go. Its stops, steps and values work as the program's do."""

    owns_debuggee = False

    def __init__(self, port: int, request: str, configuration: dict[str, Any], parent_pid: int | None) -> None:
        super().__init__()
        self.port = port
        self.request = request
        self.configuration = configuration
        self.program = configuration.get("name") or "child process"
        # A worker runs in its parent's process; a fork is named by js-debug with its own pid.
        self.is_worker = WORKER_NAME.match(self.program) is not None
        named = PROCESS_NAME.search(self.program)
        self.pid = parent_pid if self.is_worker else int(named.group(1)) if named else None

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        try:
            return await asyncio.wait_for(asyncio.open_connection("127.0.0.1", self.port), 5)
        except (OSError, TimeoutError) as exc:
            raise DebugError(ErrorCode.CONNECTION_FAILED, f"js-debug is gone ({exc.__class__.__name__})") from None

    def _start_request(self) -> tuple[str, dict[str, Any]]:
        return self.request, self.configuration

    def _on_event(self, event: str, body: dict[str, Any]) -> None:
        if event == "output" and self._is_noise(body):
            return
        super()._on_event(event, body)


class JsDebugAttach(JsDebugLaunch):
    """js-debug attached to a Node the user started (`node --inspect[-brk]=host:port`), found through /json/list
    and reached through the same relay. The program is not ours: closing detaches unless asked to terminate."""

    launched = False
    owns_debuggee = False

    def __init__(self, target: str, allowed_hosts: list[str], roots: tuple[str, str] | None = None) -> None:
        super().__init__(program=target)
        self.target = target
        self.allowed_hosts = allowed_hosts
        self.roots = roots  # (localRoot, remoteRoot): js-debug maps the target's paths itself

    async def _start_program(self, node: str) -> None:
        from ..inspector.discovery import discover

        endpoint = await discover(self.target, self.allowed_hosts)
        match = re.match(r"ws://([^/:]+):(\d+)(/.*)", endpoint.url)
        if match is None:
            raise DebugError(ErrorCode.PROTOCOL_ERROR, f"unexpected inspector URL {endpoint.url}")
        self.relay = TcpRelay(match.group(1), int(match.group(2)))
        self.ws_url = f"ws://127.0.0.1:{await self.relay.start()}{match.group(3)}"

    def module_runtime(self) -> ProgramRuntime | None:
        return None  # the attached program may run anywhere, from any folder

    def _start_request(self) -> tuple[str, dict[str, Any]]:
        kind, args = super()._start_request()
        args["continueOnAttach"] = True  # a target waiting on --inspect-brk runs once breakpoints are set
        if self.roots is not None:
            args["localRoot"], args["remoteRoot"] = self.roots
        return kind, args
