"""Changes: wake whoever waits for a condition over some state when that state changes (no polling)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable


class Changes:
    def __init__(self) -> None:
        self._event = asyncio.Event()

    def notify(self) -> None:
        """The state changed: every waiter re-checks its condition."""
        event, self._event = self._event, asyncio.Event()
        event.set()

    async def wait_until(self, done: Callable[[], object], timeout: float) -> bool:
        """True once done() holds (checked now and after each change), False when `timeout` seconds pass first."""
        deadline = asyncio.get_running_loop().time() + timeout
        while not done():
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                return False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._event.wait(), remaining)
        return True
