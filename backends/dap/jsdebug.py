"""JavaScript on VS Code's js-debug DAP server: a parent session attached to a Node we start, and the child session
js-debug asks for (reverse `startDebugging` with `__pendingTargetId`) that does the actual debugging.

pairdbg starts Node itself (`--inspect-brk` on a loopback port, stdout/stderr piped to the session) and lets js-debug
attach through a TcpRelay: Node's inspector and js-debug (both Node) otherwise stall every request ~40 ms on
Nagle + delayed ACK. This is also the order the seed found reliable (attach, then child adoption).

Order matters to js-debug (seed 004): the child connects on a second TCP connection to the same server, sends
`initialize`, then the `launch`/`attach` request carrying exactly the configuration it was given, waits for
`initialized`, sets breakpoints and exception filters, then `configurationDone`. Every debuggee-scoped request
goes to the child; output and the end of the program arrive on the parent.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import re
from typing import Any

from ..base import (
    BreakpointState,
    Capabilities,
    ExceptionMode,
    LineBreakpointSpec,
    ProgramRuntime,
    RawScope,
    RawValue,
)
from ..errors import DebugError, ErrorCode
from ..process import free_port
from ..runtimes import TargetMissing, find_js_debug, find_node
from ..inspector.process import RuntimeProcess
from ..tcp_relay import TcpRelay
from .backend import DapBackend
from .client import DapClient

ENTRY_STOP_WAIT_S = 3.0
LISTENING = re.compile(rb"listening at ([\d.]+):(\d+)")
# The arguments of the function a CommonJS module runs in: left out of its top-level locals unless asked for.
MODULE_WRAPPER = frozenset({"exports", "require", "module", "__filename", "__dirname"})


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


class JsDebugLaunch(DapBackend):
    language = "javascript"
    adapter_id = "pwa-node"
    adapter_serves_on = True
    launched = True
    exception_filters = {"none": [], "uncaught": ["uncaught"], "all": ["all", "uncaught"]}

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
        self.port = 0
        self.runtime: RuntimeProcess | None = None
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
        self._source_refs: dict[str, int] = {}  # path of a source not on disk -> js-debug's sourceReference
        self._merged: dict[int, list[int]] = {}  # a Locals scope made of several (negative refs, never js-debug's)
        self._merged_seq = 0

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
        """Node paused before its first line, its inspector reached through the relay."""
        self.runtime = await RuntimeProcess.spawn(
            [node, "--inspect-brk=127.0.0.1:0", self.program, *self.args],
            self.cwd or os.path.dirname(self.program),
            self.env,
        )
        self.pid = self.runtime.pid
        self.runtime.on_output = self._program_output
        self.runtime.on_exit = self._program_exited
        self.runtime.on_child_inspector = self._child_process
        match = re.match(r"ws://([^/:]+):(\d+)(/.*)", self.runtime.ws_url)
        if match is None:
            raise DebugError(ErrorCode.PROTOCOL_ERROR, f"unexpected inspector URL {self.runtime.ws_url}")
        self.relay = TcpRelay(match.group(1), int(match.group(2)))
        self.ws_url = f"ws://127.0.0.1:{await self.relay.start()}{match.group(3)}"

    def _program_output(self, category: str, text: str) -> None:
        if category == "control":  # Node waits for a debugger to let go: js-debug does that by itself
            return
        if self.listener is not None:
            self.listener.on_output(category, text)

    def _child_process(self, url: str) -> None:
        """A fork or worker of the program, paused on --inspect-brk: debug it as a session of its own, through
        pairdbg's inspector backend (it is a plain Node inspector, and it waits until a debugger releases it)."""
        from ..inspector.backend import Endpoint, InspectorBackend
        from ..inspector.dialect import Dialect

        if self.listener is not None:
            backend = InspectorBackend(Endpoint(url, Dialect("v8"), waiting=True), "javascript", url)
            with contextlib.suppress(DebugError):  # a session that cannot open children leaves it waiting
                self.listener.on_child(backend, f"{os.path.basename(self.program)} child")

    def _on_close(self, reason: str) -> None:
        """js-debug hangs up when the program ends; only a hang-up while the program lives is a lost session."""
        if self.runtime is None or self._closing:
            return super()._on_close(reason)
        self._spawn(self._lost_unless_exiting(reason))

    async def _lost_unless_exiting(self, reason: str) -> None:
        assert self.runtime is not None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.runtime.proc.wait()), 3)
        if self.runtime.returncode is None:
            super()._on_close(reason)

    def _program_exited(self, code: int | None) -> None:
        if self.listener is not None and not self._closing:
            self._terminated = True
            self.listener.on_exited(code)
            self.listener.on_terminated()

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
            **self._source_map_options(),
        }

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
        configuration = args.get("configuration") or {}
        if self._adopted:
            # Another process (a fork, a worker): it becomes a session of its own beside this one. Declining it
            # would leave that process waiting for a debugger forever.
            if self.listener is None:
                raise DebugError(ErrorCode.CAPABILITY_UNSUPPORTED, "this session cannot open child sessions")
            child = JsDebugChild(self.port, args.get("request", "launch"), configuration)
            self.listener.on_child(child, configuration.get("name") or "child process")
            return {}
        self._adopted = True
        self._spawn(self._adopt(args.get("request", "launch"), configuration))
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
            started = child.send_request(request, {**self._source_map_options(), **configuration})
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

    @staticmethod
    def _is_noise(body: dict[str, Any]) -> bool:
        """js-debug's own lines: the command it ran (category console) and Node's debugger chatter."""
        text = body.get("output", "")
        return body.get("category") in ("telemetry", "console") or any(
            marker in text for marker in ("Debugger attached.", "Waiting for the debugger to disconnect")
        )

    async def set_line_breakpoints(self, file: str, specs: list[LineBreakpointSpec]) -> list[BreakpointState]:
        self._files[file] = list(specs)
        if self.client is self.parent or self.client is None:  # before the child exists: remember, bind later
            return [BreakpointState(False, s.line, "pending: binds when the program starts") for s in specs]
        return await super().set_line_breakpoints(file, specs)

    @property
    def features(self) -> Capabilities:  # type: ignore[override]
        # Sources that are not on disk (a package's .ts sources, known from its map's sourcesContent) are read from
        # js-debug by their sourceReference.
        return dataclasses.replace(super().features, remote_sources=True)

    def module_runtime(self) -> ProgramRuntime | None:
        try:
            node = find_node()
        except TargetMissing:
            return None
        folder = self.cwd or os.path.dirname(os.path.abspath(self.program or "."))
        return ProgramRuntime("node", node, folder, folder, dict(self.env))

    async def scopes(self, frame_id: int) -> list[RawScope]:
        """js-debug lists a block's variables (`i` of a loop) as a scope before the function's own: shown as one
        Locals scope, as the inspector path does, so a stop report has the function's variables too."""
        scopes = await super().scopes(frame_id)
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

    async def set_variable(self, ref: int, name: str, value: str) -> RawValue:
        for part in self._merged.get(ref, []):  # the scope of the merged ones that holds the name
            if any(v.name == name for v in await super().variables(part)):
                return await super().set_variable(part, name, value)
        return await super().set_variable(ref, name, value)

    async def variables(self, ref: int, start: int = 0, count: int = 0) -> list[RawValue]:
        if ref in self._merged:
            merged = [v for part in self._merged[ref] for v in await self.variables(part)]
            return merged[start : start + count] if count else merged[start:]
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
        return not path.startswith("<node_internals>") and frame.get("presentationHint") != "label"

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
        await super().close(terminate)
        if self.relay is not None:
            await self.relay.stop()
        if self.runtime is not None:
            await self.runtime.stop(terminate)


class JsDebugChild(DapBackend):
    """A further process of a js-debug session (a fork or a worker), debugged as a session of its own on the same
    js-debug server. js-debug owns the process; ending the session asks js-debug to end it."""

    language = "javascript"
    adapter_id = "pwa-node"
    owns_debuggee = False
    exception_filters = JsDebugLaunch.exception_filters

    def __init__(self, port: int, request: str, configuration: dict[str, Any]) -> None:
        super().__init__()
        self.port = port
        self.request = request
        self.configuration = configuration
        self.program = configuration.get("name") or "child process"

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        try:
            return await asyncio.wait_for(asyncio.open_connection("127.0.0.1", self.port), 5)
        except (OSError, TimeoutError) as exc:
            raise DebugError(ErrorCode.CONNECTION_FAILED, f"js-debug is gone ({exc.__class__.__name__})") from None

    def _start_request(self) -> tuple[str, dict[str, Any]]:
        return self.request, self.configuration

    def _on_event(self, event: str, body: dict[str, Any]) -> None:
        if event == "output" and JsDebugLaunch._is_noise(body):
            return
        super()._on_event(event, body)

    def _keep_frame(self, frame: dict[str, Any]) -> bool:
        return JsDebugLaunch._keep_frame(self, frame)  # type: ignore[arg-type]


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
