"""The TUI always exits when its terminal goes away.

A closed terminal window does not always mean a SIGHUP (a program started in its own session, a terminal that
closes while the app quits): Textual's input thread then reads end-of-file forever at 100 % of a core, and its
writer thread dies on the first failed write, after which the app's next writes block once its queue is full.
`HangupWatch` waits (in a thread, in `poll`, costing nothing) for the terminal's hang-up; then it points the
terminal's file descriptors at /dev/null (writes succeed, reads end at once), asks the app to exit the normal way
(sessions closed), and ends the process itself if that has not happened within `grace` seconds (the Reaper then
ends what pairdbg started).
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import sys
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)
GRACE_S = 1.5
HANGUP = select.POLLHUP | select.POLLERR | select.POLLNVAL


class HangupWatch:
    def __init__(self, on_hangup: Callable[[], None], fd: int | None = None, grace: float = GRACE_S) -> None:
        self.on_hangup = on_hangup
        self.fd = sys.__stdin__.fileno() if fd is None and sys.__stdin__ is not None else fd
        self.grace = grace
        self.hung_up = False
        self._stop_r, self._stop_w = os.pipe()
        self._thread = threading.Thread(target=self._run, name="pairdbg-hangup", daemon=True)

    def start(self) -> None:
        if self.fd is not None and os.isatty(self.fd):
            self._thread.start()

    def stop(self) -> None:
        """pairdbg ended the normal way: the watch ends too."""
        with contextlib.suppress(OSError):
            os.write(self._stop_w, b"x")
        if self._thread.is_alive():
            self._thread.join(1)
        for fd in (self._stop_r, self._stop_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    def _run(self) -> None:
        poller = select.poll()
        poller.register(self.fd, 0)  # no events asked: only a hang-up or an error is reported
        poller.register(self._stop_r, select.POLLIN)
        while True:
            ready = dict(poller.poll())
            if self._stop_r in ready:
                return
            if ready.get(self.fd, 0) & HANGUP:
                break
        self.hung_up = True
        self._detach_terminal()
        log.warning("the terminal went away: quitting")
        try:
            self.on_hangup()
        except Exception:  # the loop may be closing already; the deadline below still holds
            log.debug("hang-up callback failed", exc_info=True)
        stopped, _, _ = select.select([self._stop_r], [], [], self.grace)
        if not stopped:
            log.warning("pairdbg did not end within %.1f s of its terminal closing: ending it now", self.grace)
            os._exit(1)

    def _detach_terminal(self) -> None:
        """Writes to the dead terminal would fail (killing Textual's writer thread): output goes to /dev/null. Input
        reads /dev/null, which never blocks: the input thread may be between its select and its read right now,
        and a read that blocked would hold the app's exit (it joins that thread)."""
        for fd, flags in ((0, os.O_RDONLY), (1, os.O_WRONLY), (2, os.O_WRONLY)):
            devnull = os.open(os.devnull, flags)
            try:
                os.dup2(devnull, fd)
            finally:
                os.close(devnull)
