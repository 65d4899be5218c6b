"""A stdio debug adapter, and a debugpy program, started before the session that will use them.

debugpy's adapter takes ~0.2-0.3 s to start (an interpreter and debugpy's imports) and knows nothing of the
program until it is sent `launch`, so one can be started while the front end is still loading and drawing, and
the first session hands it its program. The front end says when that is worth it (`Runtime.prepare`)."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import logging
import os
import signal
from collections.abc import Callable

from ..process import Leftovers, signal_group, spawn, stop_group
from .terminal import OutputSink, TerminalProgram, spawn_with_pipes, wide_pipe

log = logging.getLogger(__name__)

STOP_GRACE_S = 1.0
#: A front end that keeps a spare ready starts the next one this long after one is taken: not while the session
#: that took it is starting its program (on a small machine the two would compete for the processors).
REFILL_AFTER_S = 2.0


class Refill:
    """Keeping a spare ready: once `keep()` is asked, the next spare is started (`start`) REFILL_AFTER_S after one
    is taken, until `stop()`."""

    def __init__(self, start: Callable[[], None]) -> None:
        self._start = start
        self.on = False
        self._timer: asyncio.TimerHandle | None = None

    def keep(self) -> None:
        self.on = True

    def taken(self) -> None:
        """A spare was taken (or ended for another): the next one comes REFILL_AFTER_S from now."""
        if self.on and self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(REFILL_AFTER_S, self._due)

    def _due(self) -> None:
        self._timer = None
        if self.on:
            self._start()

    def stop(self) -> None:
        self.on = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def forget(self) -> None:
        """Its loop ended: a pending timer will never run there."""
        self._timer = None


class SpareAdapter:
    """One adapter process for `argv`, started by `start()` and given to the first `take(argv)`; one not taken
    by the end is stopped by `close()` (with its process group, like any adapter). After `keep_ready()` a new one
    is started REFILL_AFTER_S after each take, until `close()`."""

    def __init__(self, argv: list[str], line_limit: int) -> None:
        self.argv = list(argv)
        self.line_limit = line_limit
        self._spawning: asyncio.Task[asyncio.subprocess.Process] | None = None
        self._refill = Refill(self.start)
        self._closing: asyncio.Future[None] | None = None

    def keep_ready(self) -> None:
        """Start one now and another after each take (a server whose every session may want one)."""
        self._refill.keep()
        self.start()

    def start(self) -> None:
        """Start the process (on the running loop); a second call while one waits does nothing."""
        if self._spawning is None:
            self._spawning = asyncio.get_running_loop().create_task(
                spawn(self.argv, stdin=asyncio.subprocess.PIPE, limit=self.line_limit), name="pairdbg-spare-adapter"
            )

    @property
    def waiting(self) -> bool:
        return self._spawning is not None

    @property
    def pid(self) -> int | None:
        """The spare's process id once it runs and until it is taken."""
        task = self._spawning
        if task is None or not task.done() or task.cancelled() or task.exception() is not None:
            return None
        return task.result().pid

    async def take(self, argv: list[str]) -> asyncio.subprocess.Process | None:
        """The spare process if one was started for this `argv` and is still alive, else None (the caller starts
        its own, and so sees any failure to start with its own error handling)."""
        if self._spawning is None or list(argv) != self.argv:
            return None
        task, self._spawning = self._spawning, None
        self._refill.taken()
        try:
            proc = await task
        except OSError as exc:
            log.warning("the spare debug adapter did not start: %s", exc)
            return None
        if proc.returncode is not None:
            return None
        return proc

    async def close(self) -> None:
        """Stop a spare nobody took (a no-op when it was taken or never started), and start no more. Callers at the
        same time all wait for the one stop (a SIGTERM's clean-up runs beside the front end's own)."""
        self._refill.stop()
        if self._closing is None or self._closing.done():
            if self._spawning is None:
                return  # nothing to stop
            self._closing = asyncio.ensure_future(self._stop())
        await asyncio.shield(self._closing)

    async def _stop(self) -> None:
        task, self._spawning = self._spawning, None
        if task is None:
            return
        with contextlib.suppress(OSError):
            proc = await task
            await stop_group(proc, STOP_GRACE_S)


def debugpy_dir() -> str:
    """debugpy's folder for pairdbg's interpreter, which runs the adapter: the one a launch's command line names."""
    spec = importlib.util.find_spec("debugpy")
    return os.path.dirname(spec.origin) if spec is not None and spec.origin else ""


#: Variables a spare program reads only once it has its program (pydevd_boot.py): a launch may differ from the
#: spare's environment in these and still take it.
READ_AFTER_GO = frozenset({"PAIRDBG_TEST_HOOK"})


class SpareProgram:
    """A debuggee started before its launch: `<python> -X frozen_modules=off pydevd_boot.py --spare <fd> <debugpy
    dir>` has done debugpy's and pydevd's imports (~0.1 s of the ~0.12 s between the launch and the program's first
    line) and waits on a pipe (`fd`) for the launch's whole command line, folder and environment (pydevd_boot.py).
    The launch whose command line starts as the spare's did, whose environment is the spare's (but for
    READ_AFTER_GO) and whose folder is the spare's or reachable without changing what its interpreter found at start
    (no relative PYTHONPATH entry) takes it; any other launch starts its program as usual. Should what the
    interpreter read at its start have changed since (a .pth file, the interpreter itself), the spare starts the
    command line afresh in its own place (exec). Its output pipes are made at its start, as `TerminalProgram.spawn`
    makes them, and its stdin is closed as every program's is. A spare nobody takes is ended by `close()`, and ends
    by itself if pairdbg goes (its pipe closes). What still tells it apart: /proc's command line of the process."""

    def __init__(self, boot: str) -> None:
        self.boot = boot
        self.debugpy_dir = ""  # known at the first start
        self.python: str | None = None
        self.cwd = ""
        self.env: dict[str, str] = {}
        self._spawning: asyncio.Task[tuple[asyncio.subprocess.Process, list[int], int, int]] | None = None
        self._refill = Refill(self._start_again)  # the next one, for the last launch's interpreter
        self._stopping: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop its tasks and timer belong to
        self._go_size = 0

    def prefix(self, python: str) -> list[str]:
        return [python, "-X", "frozen_modules=off", self.boot]

    def start(self, python: str, cwd: str, env: dict[str, str]) -> None:
        """Start one for `python` (a full path) in `cwd` with `env` (on the running loop); a call while one waits
        does nothing."""
        self._forget_other_loop()
        if self._spawning is not None or not os.path.isabs(python):
            return
        self.debugpy_dir = self.debugpy_dir or debugpy_dir()
        if not self.debugpy_dir:
            return  # no debugpy for the adapter: no launch will come
        self.python, self.cwd, self.env = python, os.path.abspath(cwd), dict(env)
        self._loop = asyncio.get_running_loop()
        self._spawning = self._loop.create_task(self._spawn(), name="pairdbg-spare-program")

    def _forget_other_loop(self) -> None:
        """A spare (or refill timer) left by a loop that ended without close() cannot be awaited here: its process
        is ended and its pipes closed, and it is forgotten."""
        if self._loop is None or self._loop is asyncio.get_running_loop():
            return
        task, self._spawning, self._loop = self._spawning, None, None
        self._refill.forget()
        if task is not None and task.done() and not task.cancelled() and task.exception() is None:
            proc, ends, _, go = task.result()
            for fd in (*ends, go):
                with contextlib.suppress(OSError):
                    os.close(fd)
            signal_group(proc.pid, signal.SIGKILL)

    async def _spawn(self) -> tuple[asyncio.subprocess.Process, list[int], int, int]:
        """The spare's process, its output pipes' read ends and size, and the write end of its go pipe."""
        assert self.python is not None
        (read_end, write_end), self._go_size = wide_pipe()  # a large environment's message fits in one write
        try:
            argv = [*self.prefix(self.python), "--spare", str(read_end), self.debugpy_dir]
            proc, ends, size = await spawn_with_pipes(argv, self.cwd, self.env, pass_fds=(read_end,))
        except BaseException:
            os.close(write_end)
            raise
        finally:
            os.close(read_end)  # the spare has its own
        return proc, ends, size, write_end

    def keep_ready(self, python: str, cwd: str, env: dict[str, str]) -> None:
        """Start one now and another REFILL_AFTER_S after each launch that came by (for the interpreter that launch
        used, so a server follows the agent's choice), until `close()`."""
        self._refill.keep()
        self.start(python, cwd, env)

    @property
    def pid(self) -> int | None:
        """The spare's process id once it runs and until it is taken."""
        task = self._spawning
        if task is None or not task.done() or task.cancelled() or task.exception() is not None:
            return None
        return task.result()[0].pid

    def fits(self, command: list[str], cwd: str, env: dict[str, str]) -> bool:
        """Whether this launch may take the spare: same interpreter start, same environment, a folder it can move to."""
        if self.python is None or command[:4] != self.prefix(self.python):
            return False
        rest = command[4:]
        while rest[:1] == ["-X"]:
            rest = rest[2:]
        if not rest or os.path.normpath(rest[0]) != os.path.normpath(self.debugpy_dir):
            return False
        names = (env.keys() | self.env.keys()) - READ_AFTER_GO
        if any(env.get(name) != self.env.get(name) for name in names):
            return False
        if not (os.path.isdir(cwd) and os.access(cwd, os.X_OK)):
            return False  # a start in it fails: the program's own start says so with its error
        if cwd != self.cwd:  # sys.path holds a relative PYTHONPATH entry as the folder the spare started in made it
            entries = env.get("PYTHONPATH", "")
            if entries and not all(os.path.isabs(entry) for entry in entries.split(os.pathsep)):
                return False
        return True

    async def take(
        self, command: list[str], cwd: str | None, env: dict[str, str], sink: OutputSink, leftovers: Leftovers
    ) -> TerminalProgram | None:
        """The spare, become the program `command` in `cwd` with `env`, if the launch fits it and it is alive;
        else None (the caller starts the program itself)."""
        cwd = os.path.abspath(cwd or os.getcwd())
        self._forget_other_loop()
        task = self._spawning
        if task is None or not self.fits(command, cwd, env):
            another = command[:1] != [self.python] and os.path.isabs(command[0]) and command[1:4] == self.prefix("")[1:]
            if self._refill.on and another:
                self.python = command[0]  # another interpreter: the next one kept ready is for it
                self._replace()
            return None
        self._spawning = None
        self._refill.taken()
        try:
            proc, ends, size, go = await task
        except OSError as exc:
            log.warning("the spare program did not start: %s", exc)
            return None
        message = json.dumps({"command": command, "cwd": cwd, "env": env}).encode()
        sent = False
        if proc.returncode is None and len(message) <= self._go_size:
            try:
                os.set_blocking(go, False)
                sent = os.write(go, message) == len(message)
            except OSError:  # BrokenPipeError: it has ended
                sent = False
        elif proc.returncode is None:
            log.warning("a launch's command line and environment (%d bytes) exceed the spare's pipe", len(message))
        os.close(go)  # the end of the message, or, unsent, the spare's end
        if sent:
            return TerminalProgram.adopt(proc, ends, size, sink, leftovers)
        self._end(proc, ends)
        return None

    def _start_again(self) -> None:
        if self.python is not None:
            self.start(self.python, self.cwd, self.env)

    def _replace(self) -> None:
        """End the waiting spare (it is for another interpreter) and start the next REFILL_AFTER_S later."""
        task, self._spawning = self._spawning, None
        if task is not None:
            self._stop_later(task)
        self._refill.taken()

    def _stop_later(self, task: asyncio.Task[tuple[asyncio.subprocess.Process, list[int], int, int]]) -> None:
        async def stop() -> None:
            try:
                proc, ends, _, go = await task
            except BaseException:  # it never started (or its start was cancelled): nothing to end
                return
            os.close(go)
            self._end(proc, ends)

        stopping = asyncio.ensure_future(stop())
        self._stopping.add(stopping)
        stopping.add_done_callback(self._stopping.discard)

    def _end(self, proc: asyncio.subprocess.Process, ends: list[int]) -> None:
        for fd in ends:
            with contextlib.suppress(OSError):
                os.close(fd)
        if proc.returncode is None:
            stopping = asyncio.ensure_future(stop_group(proc, STOP_GRACE_S))
            self._stopping.add(stopping)
            stopping.add_done_callback(self._stopping.discard)

    async def close(self) -> None:
        """End a spare nobody took, and start no more."""
        self._forget_other_loop()
        self._refill.stop()
        task, self._spawning = self._spawning, None
        if task is not None:
            self._stop_later(task)
        while self._stopping:
            await asyncio.gather(*self._stopping, return_exceptions=True)
