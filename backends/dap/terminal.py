"""A program an adapter asks pairdbg to start (DAP `runInTerminal`), started the way pairdbg starts everything.

The adapter hands over a command line (debugpy's: its launcher, which then starts the program). pairdbg runs it in a
process group of its own with its own pipes, reads the program's stdout and stderr itself and hands them on as the
session's output, so output never travels as protocol events (one event per write stalled a loud program).
Ending the program ends its group; what it left running (a child that outlives it, a daemon) belongs to the session
(`Leftovers`) and ends when the session closes.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import fcntl
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import Any, Protocol

from ..errors import DebugError, ErrorCode
from ..process import Leftovers, spawn, stop_group

READ_CHUNK = 64 * 1024
# Largest output entry made from one read: a reply of get_output cuts an entry longer than its character budget
# (16,000), so a read is handed on in pieces below it, each ending at a line's end where there is one.
PIECE = 8 * 1024
# After a small read, wait up to this long before the next: an unbuffered program writes each print in two writes,
# and an entry per write would fill a session's 5,000 entries with a few thousand lines. Output shows at most this
# late. A large read never waits, and a loud program's wait is cut to the time it takes to fill a quarter of the pipe
# (`Pace`): a full 5 ms after pairdbg caught up with it stalled it on a full pipe (about 10 times per 100 MB).
GATHER_S = 0.005
GATHER_BELOW = 4096
PIPE_SIZE = 1024 * 1024  # what a program may write ahead of pairdbg's reading (Linux; 64 KB by default)
SMALL_PIPE = 16 * 1024  # assumed where the size cannot be set (the smallest a macOS pipe starts with)
PACE_WINDOW_S = 0.01
F_SETPIPE_SZ = 1031
DRAIN_S = 1.0  # after the adapter says the program ended, how long its last output gets to arrive
EXIT_S = 2.0  # after TERM, before the group is killed

OutputSink = Callable[[str, str], None]


class StartedProgram(Protocol):
    """What pairdbg started for an adapter: its output is read until `drained`, and `stop` ends it."""

    async def drained(self) -> None: ...

    async def stop(self, terminate: bool = True) -> None: ...


def terminal_command(args: dict[str, Any]) -> tuple[list[str], str | None, dict[str, str]]:
    """The command line, folder and environment of a `runInTerminal` request, checked."""
    argv = args.get("args")
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        raise DebugError(ErrorCode.PROTOCOL_ERROR, "runInTerminal came without a command line")
    if args.get("argsCanBeInterpretedByShell"):  # pairdbg runs no shell: quoting meant for one would be wrong here
        raise DebugError(ErrorCode.PROTOCOL_ERROR, "runInTerminal asked for a shell command line; pairdbg runs none")
    cwd = args.get("cwd") or None
    env = dict(os.environ)
    for name, value in (args.get("env") or {}).items():  # a null value removes the variable (DAP)
        if value is None:
            env.pop(name, None)
        else:
            env[name] = str(value)
    return argv, cwd, env


class TerminalProgram:
    """One command started for a `runInTerminal` request: its process group, and the readers of its output."""

    def __init__(
        self,
        proc: asyncio.subprocess.Process,
        streams: list[PipeReader],
        sink: OutputSink,
        pipe_size: int = SMALL_PIPE,
    ) -> None:
        self.proc = proc
        self.pid = proc.pid
        self._sink: OutputSink | None = sink
        self._ending = False  # pairdbg ends it: a death by its signal is no news
        self._pumps = [
            asyncio.create_task(self._pump(stream, category, Pace(pipe_size)), name=f"program-{proc.pid}-{category}")
            for stream, category in zip(streams, ("stdout", "stderr"), strict=True)
        ]
        self._exit_note = asyncio.create_task(self._note_signal(), name=f"program-{proc.pid}-signal")

    @classmethod
    async def start(cls, args: dict[str, Any], sink: OutputSink, leftovers: Leftovers) -> TerminalProgram:
        """What a `runInTerminal` request asks for."""
        return await cls.spawn(*terminal_command(args), sink, leftovers)

    @classmethod
    async def spawn(
        cls, argv: list[str], cwd: str | None, env: dict[str, str], sink: OutputSink, leftovers: Leftovers
    ) -> TerminalProgram:
        """Start `argv`; what it leaves running when it ends goes to `leftovers` (the session's)."""
        try:
            proc, ends, size = await spawn_with_pipes(argv, cwd, env)  # stdin closed, as with the adapter's console
        except OSError as exc:
            raise DebugError(ErrorCode.CONNECTION_FAILED, f"cannot start {argv[0]!r}: {exc}") from None
        return cls.adopt(proc, ends, size, sink, leftovers)

    @classmethod
    def adopt(
        cls,
        proc: asyncio.subprocess.Process,
        ends: list[int],
        size: int,
        sink: OutputSink,
        leftovers: Leftovers,
    ) -> TerminalProgram:
        """A process `spawn_with_pipes` started (now, or ahead as a spare) becomes the session's program."""
        leftovers.keep(proc)
        return cls(proc, [PipeReader(fd) for fd in ends], sink, size)

    async def wait(self) -> int:
        """Its exit code as debugpy's launcher reports one: the low 8 bits (a death by KILL, -9, reads 247)."""
        return await self.proc.wait() & 0xFF

    @property
    def running(self) -> bool:
        return self.proc.returncode is None

    async def _note_signal(self) -> None:
        """A program killed by a signal (not by pairdbg) says so in its output: its exit code alone (247 for
        KILL, as debugpy reports it) would not."""
        code = await self.proc.wait()
        if code < 0 and not self._ending and self._sink is not None:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            self._sink("important", f"pairdbg: the program was killed by {name} (exit code {code & 0xFF})\n")

    async def _pump(self, stream: PipeReader, category: str, pace: Pace) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        with stream:
            while chunk := await stream.read(READ_CHUNK):
                text = decoder.decode(chunk)
                if self._sink is not None:
                    for piece in pieces(text):
                        self._sink(category, piece)
                wait = pace.gather(len(chunk), time.monotonic())
                if wait:
                    await asyncio.sleep(wait)
        rest = decoder.decode(b"", final=True)
        if rest and self._sink is not None:
            self._sink(category, rest)

    async def drained(self, timeout: float | None = DRAIN_S) -> None:
        """Until every byte the program wrote has been handed on (its pipes closed), or `timeout` (a child that
        outlives it may hold them open; None: no limit)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(asyncio.gather(*self._pumps, return_exceptions=True)), timeout)

    async def end(self) -> None:
        """End the program and its group (TERM, then KILL); its last output is still read. What it left outside
        its group stays with the session's leftovers."""
        if self.running:
            self._ending = True
            await stop_group(self.proc, EXIT_S, escapees=False)

    async def stop(self, terminate: bool = True) -> None:
        """End the program if it runs, and stop handing its output on. The pipes are still read to the end (that
        comes when whatever holds them, a child it left, ends with the session), so nothing blocks on a full pipe.
        Detaching leaves it running."""
        if terminate and self.running:
            await self.end()
            await self.drained(0.2)
        self._sink = None


class Pace:
    """How fast a program writes one of its pipes, and so how long a read may wait to gather its small writes."""

    def __init__(self, pipe_size: int) -> None:
        self.pipe_size = pipe_size
        self._since = 0.0  # start of the current window
        self._bytes = 0  # read in the current window
        self._rate = 0.0  # bytes per second in the last full window

    def gather(self, size: int, now: float) -> float:
        """Seconds to wait after a read of `size` bytes: none after a large one; after a small one GATHER_S, or
        less if at the program's recent pace (the last full window's, or the current one's so far, the larger)
        a quarter of the pipe would fill first."""
        if now - self._since >= PACE_WINDOW_S:
            self._rate = self._bytes / (now - self._since) if self._since else 0.0
            self._since, self._bytes = now, 0
        self._bytes += size
        if size >= GATHER_BELOW:
            return 0.0
        rate = max(self._rate, self._bytes / PACE_WINDOW_S)
        return min(GATHER_S, self.pipe_size / 4 / rate) if rate else GATHER_S


def pieces(text: str, size: int = PIECE) -> list[str]:
    """`text` in consecutive pieces of at most `size` characters, cut after a newline where the piece has one."""
    out = []
    while len(text) > size:
        cut = text.rfind("\n", 0, size) + 1 or size
        out.append(text[:cut])
        text = text[cut:]
    if text:
        out.append(text)
    return out


async def spawn_with_pipes(
    argv: list[str], cwd: str | None, env: dict[str, str], pass_fds: tuple[int, ...] = ()
) -> tuple[asyncio.subprocess.Process, list[int], int]:
    """Start `argv` (`spawn`: its own group, stdin closed) writing stdout and stderr to wide pipes: the process,
    the pipes' read ends (stdout's, stderr's) and the bytes each holds. OSError when it cannot start; the pipes are
    closed then, and when the start is cancelled."""
    pipes, sizes = zip(*(wide_pipe() for _ in range(2)), strict=True)
    try:
        proc = await spawn(argv, env=env, cwd=cwd, stdout=pipes[0][1], stderr=pipes[1][1], pass_fds=pass_fds)
    except BaseException:
        for fds in pipes:
            for fd in fds:
                os.close(fd)
        raise
    for _, write_end in pipes:
        os.close(write_end)  # the program holds it now: EOF comes when it (and what it started) closes it
    return proc, [read_end for read_end, _ in pipes], min(sizes)


def wide_pipe() -> tuple[tuple[int, int], int]:
    """A pipe that holds PIPE_SIZE (Linux; elsewhere the system's default): fewer stalls while pairdbg is busy.
    Its ends, and the bytes it holds as far as known."""
    read_end, write_end = os.pipe()
    size = SMALL_PIPE
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):  # refused past the user's pipe quota: the default size then
            size = fcntl.fcntl(write_end, F_SETPIPE_SZ, PIPE_SIZE)
    return (read_end, write_end), size


class PipeReader:
    """The read end of a program's pipe, read straight into bytes when the event loop says it is readable (no
    stream buffer between: one copy, and a read as large as what the pipe holds, up to the size asked)."""

    def __init__(self, fd: int) -> None:
        os.set_blocking(fd, False)
        self.fd = fd

    async def read(self, size: int) -> bytes:
        """Up to `size` bytes, waiting until there are some; b"" once every writer has closed the pipe."""
        while True:
            try:
                return os.read(self.fd, size)
            except BlockingIOError:
                pass
            loop = asyncio.get_running_loop()
            ready = loop.create_future()
            loop.add_reader(self.fd, _wake, ready)
            try:
                await ready
            finally:
                loop.remove_reader(self.fd)

    def __enter__(self) -> PipeReader:
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)


def _wake(ready: asyncio.Future[None]) -> None:
    if not ready.done():
        ready.set_result(None)
