"""Child processes pairdbg owns: each starts in a process group of its own and is ended as a group, TERM then KILL,
then reaped, so nothing it started outlives pairdbg (ARCHITECTURE.md invariant 9)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Sequence
from typing import Any


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def spawn(
    argv: Sequence[str],
    *,
    env: dict[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    stdin: Any = asyncio.subprocess.DEVNULL,
    stdout: Any = asyncio.subprocess.PIPE,
    stderr: Any = asyncio.subprocess.PIPE,
    limit: int | None = None,
) -> asyncio.subprocess.Process:
    """Start `argv` in a new session (so a process group of its own, pgid == pid), stdin closed by default.

    With pipes (the default) the caller must keep reading stdout and stderr, or the process blocks once they fill.
    """
    extra = {"limit": limit} if limit is not None else {}
    return await asyncio.create_subprocess_exec(
        *argv, stdin=stdin, stdout=stdout, stderr=stderr, env=env, cwd=cwd, start_new_session=True, **extra
    )


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes in process group `pgid`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        # After the command name: state, ppid, pgrp, ...
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            found.append(int(entry))
    return found


def signal_group(pgid: int, sig: int) -> None:
    """Signal every process in group `pgid`; a group already gone (or not ours) is not an error."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def _wait_group_gone(pgid: int, timeout: float) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while group_members(pgid):
        if loop.time() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def stop_group(
    proc: asyncio.subprocess.Process,
    grace_s: float,
    *,
    term: bool = True,
    sweep: bool = True,
    wait_group: bool = False,
) -> None:
    """End `proc` (a group leader: see `spawn`) and its group, and reap it. Safe to call twice.

    `term`: send TERM to the group first; False when `proc` was asked to exit by its protocol and gets `grace_s`
    to do so. KILL follows for the group if `proc` is still there after `grace_s`. `sweep`: KILL whatever is left
    in the group after `proc` exited (False when a detached program may share the group and must live on).
    `wait_group`: also wait up to `grace_s` for every member to be gone (browsers' helper processes) before KILL.
    """
    pgid = proc.pid
    if proc.returncode is None or wait_group:
        if term:
            signal_group(pgid, signal.SIGTERM)
        gone = False
        try:
            await asyncio.wait_for(proc.wait(), grace_s)
            gone = await _wait_group_gone(pgid, grace_s) if wait_group else True
        except TimeoutError:
            pass
        if not gone:
            signal_group(pgid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), grace_s)
            if wait_group:
                await _wait_group_gone(pgid, grace_s)
    if sweep:
        signal_group(pgid, signal.SIGKILL)


OWNER_VAR = "PAIRDBG_OWNER"  # inherited by every process pairdbg starts, and by theirs

# The reaper's whole program (run with `python -S -c`): wait for EOF on stdin, which comes when pairdbg exits in any
# way (its end of the pipe closes with it, even on SIGKILL), then SIGKILL every process still carrying the mark.
REAPER = r"""
import os, signal, sys, time
mark = ("PAIRDBG_OWNER=" + sys.argv[1]).encode()
sys.stdin.buffer.read()
def marked():
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                with open("/proc/%s/environ" % pid, "rb") as fh:
                    if mark in fh.read().split(b"\0"):
                        yield int(pid)
            except OSError:
                pass
for _ in range(40):
    found = list(marked())
    if not found:
        break
    for pid in found:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    time.sleep(0.05)
"""


class Reaper:
    """Makes sure nothing pairdbg started outlives it, even when pairdbg is killed (SIGKILL, a crash) and cannot
    close its sessions: a tiny watchdog process holds the read end of a pipe from pairdbg and, when it reads EOF,
    kills every process carrying pairdbg's mark in its environment — debug adapters, runtimes, the programs they
    started and those programs' children alike (a process group or a parent-death signal would miss grandchildren
    that debugpy's launcher or js-debug start in groups of their own). Linux only (/proc); elsewhere it does nothing."""

    def __init__(self) -> None:
        self.mark = f"{os.getpid()}-{os.urandom(6).hex()}"
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        if not os.path.isdir("/proc") or self._proc is not None:
            return
        env = {k: v for k, v in os.environ.items() if k != OWNER_VAR}
        os.environ[OWNER_VAR] = self.mark  # from now on every child inherits it
        self._proc = subprocess.Popen(
            [sys.executable, "-S", "-c", REAPER, self.mark],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # a Ctrl+C to pairdbg's terminal must not end the watchdog first
        )

    def stop(self) -> None:
        """After an orderly shutdown: let the watchdog sweep (finding nothing, normally) and go."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError):
            proc.stdin.close()  # type: ignore[union-attr]
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(3)
        if os.environ.get(OWNER_VAR) == self.mark:
            del os.environ[OWNER_VAR]
