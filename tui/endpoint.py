"""The TUI's MCP endpoint, started once the first frame is on screen rather than before it.

Its port is bound and listening from the start (its address is shown at once, and an agent that connects early
waits in the backlog); building the MCP server imports the SDK, which took longer than drawing the whole TUI. It
is not put off until a launched program's first stop: importing it then (in a thread, sharing the interpreter)
slowed the first keys a person pressed on the stopped screen about twice as much as it slowed the start."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)


class DeferredEndpoint:
    """Starts `http` (async start()/stop(), or None: no endpoint) on a task of its own and stops it at the end.
    A task, not a Textual worker: cancelling a worker skips uvicorn's shutdown and leaves the socket open (research
    pitfall P6)."""

    def __init__(self, http: Any, failed: Callable[[Exception], None]) -> None:
        self.http = http
        self.failed = failed  # called on the loop with what went wrong; the debugger stays useful without agents
        self._starting: asyncio.Task[None] | None = None

    def begin(self) -> None:
        if self.http is not None and self._starting is None:
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
        if self._starting is not None:
            await self._starting  # _start never raises
        try:
            await self.http.stop()
        except Exception:
            log.exception("MCP endpoint failed to stop cleanly")
