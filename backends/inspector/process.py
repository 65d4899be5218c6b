"""A JavaScript runtime (Node or Bun) that pairdbg starts with its inspector on a loopback port.

The inspector's WebSocket URL is read from the runtime's stderr banner; the rest of stdout/stderr becomes the
session's program output. The runtime runs in its own process group, so stopping it ends everything it started.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections.abc import Callable

from ..errors import DebugError, ErrorCode
from ..process import Leftovers, spawn, stop_group

RUNTIME_EXIT_S = 3.0  # after TERM, before the runtime's group is killed
BANNER_NOISE = (
    "Debugger listening on",
    "For help, see:",
    "Debugger attached.",
    "--- Bun Inspector ---",
    "Listening:",
    "Inspect in browser:",
    "debug.bun.sh",
    "Waiting for the debugger to disconnect",
    "Debugger ending on",  # Node, as it exits
)

WS_URL = re.compile(r"ws://[^\s'\"<>]+")


class TargetFailed(RuntimeError):
    """A target started but did not offer its inspector in time (the message carries its log tail)."""


async def read_ws_url(stream: asyncio.StreamReader, timeout: float = 10.0, seen: list[str] | None = None) -> str:
    """The first `ws://…` URL in a banner (Bun's and Node's `--inspect*` banners on stderr). The lines read on the
    way are appended to `seen` when given (a caller may show them, or keep them as program output)."""
    seen = [] if seen is None else seen

    async def scan() -> str:
        while True:
            line = await stream.readline()
            if not line:
                raise TargetFailed("the target exited before printing a ws:// URL:\n" + "".join(seen)[-2000:])
            text = line.decode(errors="replace")
            seen.append(text)
            match = WS_URL.search(text)
            if match:
                return match.group(0)

    try:
        return await asyncio.wait_for(scan(), timeout)
    except TimeoutError:
        raise TargetFailed(f"no ws:// URL in the banner within {timeout}s") from None


BANNER_URL_LINE = re.compile(r"^\s*wss?://\S+\s*$")  # Bun prints its URL on a line of its own


def banner_line(line: str) -> bool:
    """A line of the runtime's inspector banner or debugger chatter, not the program's output."""
    return any(n in line for n in BANNER_NOISE) or BANNER_URL_LINE.match(line) is not None


class RuntimeProcess:
    def __init__(self, proc: asyncio.subprocess.Process, ws_url: str) -> None:
        self.proc = proc
        self.pid = proc.pid
        self.ws_url = ws_url
        self.on_output: Callable[[str, str], None] | None = None
        self.on_exit: Callable[[int | None], None] | None = None
        # Called with the inspector URL of a process this one starts (a fork inherits --inspect-brk and announces
        # itself on the stderr it shares with us).
        self.on_child_inspector: Callable[[str], None] | None = None
        self._early: list[tuple[str, str]] = []
        self._tasks = [
            asyncio.create_task(self._pump(proc.stdout, "stdout")),
            asyncio.create_task(self._pump(proc.stderr, "stderr")),
        ]
        self._waiter = asyncio.create_task(self._wait())
        self._kept = False  # what it leaves running belongs to a session (keep_leftovers)

    @property
    def returncode(self) -> int | None:
        return self.proc.returncode

    @classmethod
    async def spawn(cls, argv: list[str], cwd: str | None, env: dict[str, str] | None, timeout: float = 10.0):
        """Start the runtime and wait for its inspector banner; on failure nothing is left running."""
        try:
            proc = await spawn(argv, cwd=cwd, env={**os.environ, **(env or {})})
        except OSError as exc:
            raise DebugError(ErrorCode.CONNECTION_FAILED, f"cannot start {argv[0]}: {exc}") from None
        seen: list[str] = []
        try:
            assert proc.stderr is not None
            url = await read_ws_url(proc.stderr, timeout, seen)
        except TargetFailed:
            await _end_group(proc)
            tail = "".join(seen)[-1500:].strip()
            raise DebugError(
                ErrorCode.CONNECTION_FAILED,
                f"{os.path.basename(argv[0])} did not open its inspector" + (f":\n{tail}" if tail else " (no output)"),
                hint="check the program path and that the runtime supports --inspect-brk",
            ) from None
        runtime = cls(proc, url)
        runtime._early = [("stderr", line) for line in seen if not banner_line(line)]
        return runtime

    async def _pump(self, stream: asyncio.StreamReader | None, category: str) -> None:
        if stream is None:
            return
        while True:
            chunk = await stream.read(65536)
            if not chunk:
                return
            text = chunk.decode(errors="replace")
            if category == "stderr":
                if self.on_child_inspector is not None and "Debugger listening on ws://" in text:
                    for url in WS_URL.findall(text):
                        self.on_child_inspector(url)
                kept = "".join(line for line in text.splitlines(keepends=True) if not banner_line(line))
                if "Waiting for the debugger to disconnect" in text and self.on_output is not None:
                    self.on_output("control", "Waiting for the debugger to disconnect")
                text = kept
            if text and self.on_output is not None:
                for early in self._early:
                    self.on_output(*early)
                self._early.clear()
                self.on_output(category, text)

    async def _wait(self) -> None:
        code = await self.proc.wait()
        for task in self._tasks:  # let the last output arrive before the end is reported
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(task), 1)
        if self.on_exit is not None:
            self.on_exit(code)

    def keep_leftovers(self, leftovers: Leftovers) -> None:
        """What the runtime leaves running when it ends or is stopped (a detached child, a daemon) goes to
        `leftovers`, its session's: ended when the session closes, not with the runtime."""
        leftovers.keep(self.proc)
        self._kept = True

    async def stop(self, terminate: bool = True) -> None:
        if terminate:
            await stop_group(self.proc, RUNTIME_EXIT_S, escapees=not self._kept)
        for task in (*self._tasks, self._waiter):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


async def _end_group(proc: asyncio.subprocess.Process) -> None:
    """TERM the runtime's process group, then KILL what is left (anything it started in its group), and reap it."""
    await stop_group(proc, RUNTIME_EXIT_S)
