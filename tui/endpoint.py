"""The TUI's MCP endpoint, started once the first frame is on screen rather than before it, and with a program
launching from the command line, once that launch has answered.

Its port is bound and listening from the start (its address is shown at once, and an agent that connects early
waits in the backlog); building the MCP server imports the SDK, which took longer than drawing the whole TUI.
Since the launch starts before the app loads, the program's start overlaps the window's; the SDK's import beside
both took the processor they needed (`pairdbg test`'s failing stop came ~0.3 s later on a quiet two-core machine:
scripts/bench_tui.py --test), so it waits for the launch's answer (its first stop, its end or its failure), or
LAUNCH_WAIT_S at the most (a test run without a failure, a server that runs on). Importing it just after the stop
slows keys pressed in the next ~0.5 s (an earlier measurement: F10 0.4 s after the stop ~330 ms against ~160 ms)."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

#: After the launch answered: its stopped screen (frame, variables) is drawn by then.
AFTER_LAUNCH_S = 0.3
#: A launch that has not answered by then (its program runs on) does not keep agents out longer.
LAUNCH_WAIT_S = 3.0


class DeferredEndpoint:
    """Starts `http` (async start()/stop(), or None: no endpoint) on a task of its own and stops it at the end.
    A task, not a Textual worker: cancelling a worker skips uvicorn's shutdown and leaves the socket open (research
    pitfall P6)."""

    def __init__(self, http: Any, failed: Callable[[Exception], None]) -> None:
        self.http = http
        self.failed = failed  # called on the loop with what went wrong; the debugger stays useful without agents
        self._starting: asyncio.Task[None] | None = None
        self._timers: list[asyncio.TimerHandle] = []
        self._stopped = False

    def begin(self) -> None:
        if self.http is not None and self._starting is None and not self._stopped:
            self._cancel_timers()
            self._starting = asyncio.get_running_loop().create_task(self._start(), name="pairdbg-mcp-start")

    def begin_after(self, launch: asyncio.Future[Any]) -> None:
        """Begin AFTER_LAUNCH_S after `launch` is done, or LAUNCH_WAIT_S from now, whichever comes first."""
        loop = asyncio.get_running_loop()
        self._timers.append(loop.call_later(LAUNCH_WAIT_S, self.begin))

        def answered(_: asyncio.Future[Any]) -> None:
            if not self._stopped:
                self._timers.append(loop.call_later(AFTER_LAUNCH_S, self.begin))

        launch.add_done_callback(answered)

    def _cancel_timers(self) -> None:
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()

    async def _start(self) -> None:
        try:
            await self.http.start()
        except Exception as exc:
            log.exception("MCP endpoint failed to start")
            self.failed(exc)
            return
        if gc.get_freeze_count():  # start-up was settled (runtime.settle_memory) before the SDK loaded: its
            gc.freeze()  # modules are as long-lived, so full collections skip them too (a move, no pause)

    async def stop(self) -> None:
        """Stop the endpoint (after a start still under way has finished, so uvicorn shuts down cleanly); its port
        is closed whether or not it ever served."""
        self._stopped = True
        self._cancel_timers()
        if self.http is None:
            return
        if self._starting is not None:
            await self._starting  # _start never raises
        try:
            await self.http.stop()
        except Exception:
            log.exception("MCP endpoint failed to stop cleanly")
