"""pairdbg in the role of debugpy's launcher: the program is started by pairdbg, not by a launcher process.

For a launch, debugpy's adapter asks its client (`runInTerminal`) to run `python <debugpy>/launcher <port> -- <program
args>`; that launcher connects back to the adapter, takes the `launch` request, starts the program under debugpy and
reports it (`process`, then `exited` and `terminated`). Playing that part here saves a Python process start and the
launcher's imports on every session, and the program is pairdbg's own child: its process group, pipes and exit code
are read directly. As debugpy's launcher does, the program's end is reported to the adapter only once its output
ends (its pipes close: a child that outlives it holds them, and the adapter ends a launch's remaining processes
once it hears the end), or when the adapter asks to end it; what it left running belongs to the session
(`Leftovers`) and ends when the session closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import struct
from typing import Any

from ..errors import DebugError, ErrorCode
from ..process import Leftovers
from .client import DapClient
from .spare import SpareProgram
from .terminal import DRAIN_S, OutputSink, TerminalProgram, terminal_command

LOOPBACK = ("127.0.0.1", "::1", "localhost")
SPAWN_S = 10.0  # how long the adapter gets to send `launch` once pairdbg is connected


def launcher_command(argv: list[str]) -> tuple[str, int, str, list[str]] | None:
    """If `argv` is debugpy's launcher command (`python... <debugpy>/launcher ADDRESS -- ARGS`): the adapter's
    host and port, debugpy's folder and the program's arguments. None for anything else (it is run as given)."""
    if "--" not in argv:
        return None
    sep = argv.index("--")
    if sep < 3:
        return None
    path, address = os.path.normpath(argv[sep - 2]), argv[sep - 1]
    if os.path.basename(path) != "launcher" or os.path.basename(os.path.dirname(path)) != "debugpy":
        return None
    host, colon, port = address.rpartition(":")
    host = host.strip("[]") if colon else "127.0.0.1"
    if not port.isdigit() or host not in LOOPBACK:  # the adapter is pairdbg's own, on this machine
        return None
    return host, int(port), os.path.dirname(path), argv[sep + 1 :]


def program_command(launch: dict[str, Any], host: str, port: int, debugpy_dir: str, args: list[str]) -> list[str]:
    """The program's command line for the adapter's `launch` request, as debugpy's launcher would build it."""
    python = launch.get("python")
    if not isinstance(python, list) or not python or not all(isinstance(p, str) for p in python):
        raise DebugError(ErrorCode.PROTOCOL_ERROR, "debugpy's launch request named no interpreter")
    command = list(python)
    if not launch.get("noDebug"):
        # -X frozen_modules=off lets pydevd see the stdlib's code (3.11+; older interpreters ignore unknown -X).
        command += ["-X", "frozen_modules=off", debugpy_dir, "--connect", f"{host}:{launch.get('port')}"]
        if not launch.get("subProcess", True):
            command += ["--configure-subProcess", "False"]
        if isinstance(launch.get("qt"), str):
            command += ["--configure-qt", launch["qt"]]
        if isinstance(launch.get("adapterAccessToken"), str):
            command += ["--adapter-access-token", launch["adapterAccessToken"]]
        command += [str(a) for a in launch.get("debugpyArgs") or []]
    return command + args


class DebugpyLauncher:
    """One launch: the connection to the adapter's launcher port and, once `launch` came, the program."""

    def __init__(
        self,
        runin: dict[str, Any],
        found: tuple[str, int, str, list[str]],
        sink: OutputSink,
        leftovers: Leftovers,
        spare: SpareProgram | None = None,
    ) -> None:
        _, self.cwd, self.env = terminal_command(runin)
        self.spare = spare  # a debuggee started ahead, which the program may become
        self.host, self.port, self.debugpy_dir, self.args = found
        self.sink = sink
        self.leftovers = leftovers
        self.client: DapClient | None = None
        self.program: TerminalProgram | None = None
        self._started = asyncio.Event()
        self._end_asked = asyncio.Event()  # the adapter (or pairdbg) ends the program: report without its output
        self._reporter: asyncio.Task[None] | None = None
        self._ending: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        return self.program.pid if self.program is not None else None

    async def open(self) -> int:
        """Connect to the adapter as its launcher and start the program when it says `launch`; its pid."""
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(self.host, self.port), 5)
        except (OSError, TimeoutError) as exc:
            raise DebugError(
                ErrorCode.CONNECTION_FAILED, f"debugpy's adapter did not take its launcher's connection ({exc!r})"
            ) from None
        self.client = DapClient(
            reader, writer, lambda event, body: None, self._on_request, self._adapter_gone, name="debugpy-launcher"
        )
        try:
            await asyncio.wait_for(self._started.wait(), SPAWN_S)
        except TimeoutError:
            raise DebugError(ErrorCode.TIMEOUT, "debugpy's adapter never asked to start the program") from None
        assert self.program is not None
        return self.program.pid

    async def _on_request(self, command: str, args: dict[str, Any]) -> dict[str, Any]:
        if command == "launch":
            return await self._launch(args)
        if command == "terminate":
            self._end_asked.set()
            if self.program is not None:
                await self.program.end()  # its end is reported (exited, terminated) once it has exited
            return {}
        raise DebugError(ErrorCode.CAPABILITY_UNSUPPORTED, f"pairdbg's launcher does not answer '{command}'")

    def _adapter_gone(self, reason: str) -> None:
        """The adapter went while the program runs (killed, crashed): the program goes too, as with debugpy's own
        launcher. After the program's end the adapter closes this connection as usual; what the program left
        running (a child) then lives on until the session closes."""
        self._end_asked.set()
        if self.program is not None and self.program.running and self._ending is None:
            self._ending = asyncio.ensure_future(self.program.end())

    async def _launch(self, launch: dict[str, Any]) -> dict[str, Any]:
        if self.program is not None:
            raise DebugError(ErrorCode.PROTOCOL_ERROR, "the program was already started")
        command = program_command(launch, self.host, self.port, self.debugpy_dir, self.args)
        env = dict(self.env)
        for name, value in (launch.get("env") or {}).items():  # null removes a variable, as in runInTerminal
            if value is None:
                env.pop(name, None)
            else:
                env[name] = str(value)
        taken = None
        if self.spare is not None:
            taken = await self.spare.take(command, self.cwd, env, self.sink, self.leftovers)
        self.program = taken or await TerminalProgram.spawn(command, self.cwd, env, self.sink, self.leftovers)
        assert self.client is not None
        self.client.send_event(
            "process",
            {
                "startMethod": "launch",
                "isLocalProcess": True,
                "systemProcessId": self.program.pid,
                "name": launch.get("processName") or command[0],
                "pointerSize": struct.calcsize("P") * 8,
            },
        )
        self._reporter = asyncio.create_task(self._report_exit(), name=f"program-{self.program.pid}-exit")
        self._started.set()
        return {}

    async def _report_exit(self) -> None:
        """The program's end, after its last output: when its pipes close (a child it left that holds them ends),
        or, once it has exited, when the adapter asks to end it (a session released while that child runs: its
        output is read on all the same). debugpy tells pairdbg on `terminated`."""
        assert self.program is not None and self.client is not None
        code = await self.program.wait()
        output = asyncio.ensure_future(self.program.drained(None))
        asked = asyncio.ensure_future(self._end_asked.wait())
        try:
            await asyncio.wait([output, asked], return_when=asyncio.FIRST_COMPLETED)
        finally:
            read_all = output.done()
            for task in (output, asked):
                task.cancel()
        if not read_all:
            await self.program.drained(0.2)  # what it wrote last, as far as it has arrived
        self.client.send_event("exited", {"exitCode": code})
        self.client.send_event("terminated")

    async def drained(self) -> None:
        """Once the program's end was reported (its output read before that), nothing more is waited for."""
        if self._reporter is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._reporter), DRAIN_S)

    async def stop(self, terminate: bool = True) -> None:
        if self.program is not None:
            await self.program.stop(terminate)
        if terminate:
            for task in (self._reporter, self._ending):
                if task is not None:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await task
        if self.client is not None and terminate:
            await self.client.close()
