"""The TUI's MCP endpoint, started once the screen has what the person waits for rather than before it.

Its port is bound and listening from the start (its address is shown at once, and an agent that connects early
waits in the backlog); building the MCP server imports the SDK, which took longer than drawing the whole TUI and,
done while a program was starting, delayed its stopped screen."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Callable
from typing import Any

from pairdbg.backends.events import Event, Stopped
from pairdbg.backends.hub import Hub

log = logging.getLogger(__name__)

#: With a program being launched: start this long after its first stop (its screen is drawn by then) ...
AFTER_STOP_S = 0.3
#: ... or this long after the first frame if it has not stopped by then (it runs on, or a test run has no failure).
LAUNCH_WAIT_S = 3.0


class DeferredEndpoint:
    """Starts `http` (async start()/stop(), or None: no endpoint) on a task of its own and stops it at the end.
    A task, not a Textual worker: cancelling a worker skips uvicorn's shutdown and leaves the socket open (research
    pitfall P6)."""

    def __init__(self, hub: Hub, http: Any, failed: Callable[[Exception], None]) -> None:
        self.hub = hub
        self.http = http
        self.failed = failed  # called on the loop with what went wrong; the debugger stays useful without agents
        self._starting: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._listening = False

    def begin(self, launching: bool = False) -> None:
        """Called once the first frame is drawn: start now, or, with a program `launching`, after its first stop
        (or LAUNCH_WAIT_S)."""
        if self.http is None or self._starting is not None or self._timer is not None:
            return
        if not launching:
            self._start_now()
            return
        self._timer = asyncio.get_running_loop().call_later(LAUNCH_WAIT_S, self._start_now)
        self.hub.bus.add_listener(self._on_event)
        self._listening = True

    def _on_event(self, event: Event) -> None:
        if isinstance(event, Stopped):
            self._stop_waiting()
            self._timer = asyncio.get_running_loop().call_later(AFTER_STOP_S, self._start_now)

    def _stop_waiting(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._listening:
            self.hub.bus.remove_listener(self._on_event)
            self._listening = False

    def _start_now(self) -> None:
        self._stop_waiting()
        if self._starting is None:
            self._starting = asyncio.get_running_loop().create_task(self._start(), name="pairdbg-mcp-start")

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
        if self.http is None:
            return
        self._stop_waiting()
        if self._starting is not None:
            await self._starting  # _start never raises
        try:
            await self.http.stop()
        except Exception:
            log.exception("MCP endpoint failed to stop cleanly")
