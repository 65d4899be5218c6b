"""A real pseudo-terminal running one command, read through a terminal emulator (pyte): what a person would see.

Used by the 80x24 test and by scripts/bench_tui.py, which times the screen rather than the app's render."""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Callable

import pyte

F2 = b"\x1bOQ"
F10 = b"\x1b[21~"
CTRL_Q = b"\x11"
MARKER = re.compile(r"▶\s*(\d+)")


class Terminal:
    """A pty running one command, and what its screen shows right now."""

    def __init__(
        self,
        argv: list[str],
        env: dict[str, str],
        cols: int,
        rows: int,
        *,
        controlling: bool = False,
        cwd: str | None = None,
    ) -> None:
        """`controlling`: the pty becomes the program's controlling terminal, so closing it sends a SIGHUP (as a
        terminal window does); otherwise the program only finds its terminal gone."""
        self.master, slave = os.openpty()
        self._set_size(slave, cols, rows)
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)

        def take_terminal() -> None:
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen(
            argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=cwd,
            start_new_session=True,
            close_fds=True,
            preexec_fn=take_terminal if controlling else None,
        )
        os.close(slave)
        self.closed = False

    @staticmethod
    def _set_size(fd: int, cols: int, rows: int) -> None:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    @property
    def display(self) -> list[str]:
        return self.screen.display

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def pump(self, timeout: float) -> bool:
        """Feed whatever the program wrote within `timeout` into the screen; False if nothing came."""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.master, 1 << 16)
        except OSError:
            return False
        self.stream.feed(data)
        return True

    def settle(self, quiet: float = 0.3) -> None:
        """Read until the program has written nothing for `quiet` seconds."""
        while self.pump(quiet):
            pass

    def wait_for(self, predicate: Callable[[list[str]], bool], timeout: float = 30.0) -> float:
        """Time (perf_counter) at which the screen first satisfied `predicate`."""
        deadline = time.perf_counter() + timeout
        while not predicate(self.screen.display):
            if time.perf_counter() > deadline:
                raise TimeoutError("the screen never showed what was awaited:\n" + self.text())
            self.pump(0.05)
        return time.perf_counter()

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def resize(self, cols: int, rows: int) -> None:
        """What a terminal window resize does: new size on the pty, SIGWINCH to the program."""
        self._set_size(self.master, cols, rows)
        self.screen.resize(rows, cols)
        os.killpg(self.proc.pid, signal.SIGWINCH)

    def hang_up(self) -> None:
        """Close the terminal's side, as closing its window does."""
        if not self.closed:
            self.closed = True
            os.close(self.master)

    def close(self) -> None:
        if self.closed:
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
            return
        if self.proc.poll() is None:
            self.send(CTRL_Q)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        os.close(self.master)


def marked_line(display: list[str]) -> int | None:
    """The line number the source pane marks with ▶ (where the program is), if the screen shows one."""
    for row in display:
        match = MARKER.search(row)
        if match:
            return int(match.group(1))
    return None
