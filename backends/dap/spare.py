"""A stdio debug adapter started before the session that will use it.

debugpy's adapter takes ~0.2-0.3 s to start (an interpreter and debugpy's imports) and knows nothing of the
program until it is sent `launch`, so one can be started while the front end is still loading and drawing, and
the first session hands it its program. The front end says when that is worth it (`Runtime.prepare`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from ..process import spawn, stop_group

log = logging.getLogger(__name__)

STOP_GRACE_S = 1.0
#: A front end that keeps a spare ready starts the next one this long after one is taken: not while the session
#: that took it is starting its program (on a small machine the two would compete for the processors).
REFILL_AFTER_S = 2.0


class SpareAdapter:
    """One adapter process for `argv`, started by `start()` and given to the first `take(argv)`; one not taken
    by the end is stopped by `close()` (with its process group, like any adapter). After `keep_ready()` a new one
    is started REFILL_AFTER_S after each take, until `close()`."""

    def __init__(self, argv: list[str], line_limit: int) -> None:
        self.argv = list(argv)
        self.line_limit = line_limit
        self._spawning: asyncio.Task[asyncio.subprocess.Process] | None = None
        self._refill: asyncio.TimerHandle | None = None
        self._keep_ready = False
        self._closing: asyncio.Future[None] | None = None

    def keep_ready(self) -> None:
        """Start one now and another after each take (a server whose every session may want one)."""
        self._keep_ready = True
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
        if self._keep_ready:
            self._refill = asyncio.get_running_loop().call_later(REFILL_AFTER_S, self._refilled)
        try:
            proc = await task
        except OSError as exc:
            log.warning("the spare debug adapter did not start: %s", exc)
            return None
        if proc.returncode is not None:
            return None
        return proc

    def _refilled(self) -> None:
        self._refill = None
        if self._keep_ready:
            self.start()

    async def close(self) -> None:
        """Stop a spare nobody took (a no-op when it was taken or never started), and start no more. Callers at the
        same time all wait for the one stop (a SIGTERM's clean-up runs beside the front end's own)."""
        self._keep_ready = False
        if self._refill is not None:
            self._refill.cancel()
            self._refill = None
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
