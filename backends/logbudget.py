"""A log budget for listeners: what a remote client can make pairdbg log (invalid frames, refused upgrades) is
logged at most BURST times per WINDOW_S for each kind of message, then counted; the next line of that kind that is
logged says how many were left out. Attached as a filter to each listener's logger (`limit`)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable


class LogBudget(logging.Filter):
    BURST = 10
    WINDOW_S = 60.0

    def __init__(self, burst: int = BURST, window_s: float = WINDOW_S, clock: Callable[[], float] = time.monotonic):
        super().__init__()
        self.burst = burst
        self.window_s = window_s
        self.clock = clock
        # (logger, format string) -> [window start, lines logged, lines left out]; the format strings are the code's
        # own, so this stays as small as the number of distinct messages.
        self._kinds: dict[tuple[str, str], list[float]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, record.msg if isinstance(record.msg, str) else type(record.msg).__name__)
        now = self.clock()
        state = self._kinds.setdefault(key, [now, 0, 0])
        if now - state[0] >= self.window_s:
            left_out = int(state[2])
            state[:] = [now, 0, 0]
            if left_out and isinstance(record.msg, str):
                record.msg += f" ({left_out} more like this were not logged in the last {self.window_s:g}s)"
        if state[1] < self.burst:
            state[1] += 1
            return True
        state[2] += 1
        return False


def limit(*loggers: str) -> None:
    """Give each named logger a budget (once)."""
    for name in loggers:
        logger = logging.getLogger(name)
        if not any(isinstance(f, LogBudget) for f in logger.filters):
            logger.addFilter(LogBudget())
