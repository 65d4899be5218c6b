"""What the tests share: where things are, the run's process mark and leak scan, and small action helpers.

Every process a test starts (debugpy adapter, launcher, the program, an attach target) inherits the environment
variable PAIRDBG_TEST_RUN with a value unique to this pytest run; `marked_processes` finds them in /proc, so it also
finds orphans that were re-parented away from the test process.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import re
import signal
import socket
import sys
import time
import uuid
from typing import NoReturn
from collections.abc import Callable
from pathlib import Path

import pytest

from pairdbg.backends.actions.registry import Registry

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
PROGRAMS = TESTS / "programs"
RUN_MARK = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
os.environ["PAIRDBG_TEST_RUN"] = RUN_MARK
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


# ----- process scanning -------------------------------------------------------------------------------------------


def marked_processes() -> list[tuple[int, str]]:
    """Live (non-zombie) processes started by this test run, as (pid, command line)."""
    needle = f"PAIRDBG_TEST_RUN={RUN_MARK}".encode()
    found = []
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
            if state in (b"Z", b"X"):
                continue
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if needle not in fh.read().split(b"\0"):
                    continue
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except (OSError, IndexError):
            continue
        found.append((int(entry), cmd))
    return found


def pid_alive(pid: int) -> bool:
    """True while `pid` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            state = fh.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def wait_gone(check, timeout: float = 5.0) -> list:
    """Poll `check()` (returns a list of leftovers) until it is empty or the time is up; return what is left."""
    deadline = time.monotonic() + timeout
    left = check()
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = check()
    return left


def kill_all(procs: list[tuple[int, str]]) -> None:
    for pid, _ in procs:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


# ----- requirements -----------------------------------------------------------------------------------------------


def missing_target(message: str) -> NoReturn:
    """A real target the test needs is not here: a failure under CI (CI=true), else a skip that says why."""
    if IN_CI:
        pytest.fail(f"missing under CI: {message}")
    pytest.skip(message)


def require_debugpy() -> None:
    import importlib.util

    if importlib.util.find_spec("debugpy") is None:
        missing_target(f"debugpy is not installed for {sys.executable}")


def prog(name: str) -> str:
    path = PROGRAMS / name
    assert path.is_file(), f"missing test program {path}"
    return str(path)


def line_of(name: str, marker: str, nth: int = 1) -> int:
    """1-based line number of the nth line of a test program containing `marker` (keeps tests off magic numbers)."""
    seen = 0
    for n, text in enumerate((PROGRAMS / name).read_text().splitlines(), 1):
        if marker in text:
            seen += 1
            if seen == nth:
                return n
    raise AssertionError(f"{marker!r} not found in {name}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_ADDR = re.compile(r"0x[0-9a-fA-F]+")


def normalise(text: str) -> str:
    """Make reply text stable across machines and runs: paths, pids, addresses, thread ids."""
    text = text.replace(str(PROGRAMS), "<programs>")
    text = text.replace(str(ROOT), "<repo>")
    text = re.sub(r"pid \d+", "pid <pid>", text)
    # the interpreter a start chose, and why, depend on the machine's virtualenvs
    text = re.sub(r"(Started \S+ \([^)]*\)) on \S+ \((?:[^()]|\([^()]*\))*\)", r"\1 on <python>", text)
    text = re.sub(r"thread \d+", "thread <tid>", text)
    text = _ADDR.sub("0xADDR", text)
    return text


# ----- action helpers for the debugpy tests -------------------------------------------------------------------------


async def start(registry: Registry, name: str, *bp_lines: int, wait_s: float = 10, actor: str = "human", **kw):
    """start_debugging `name` with line breakpoints in the same file; returns (session_id, reply)."""
    path = prog(name)
    bps = kw.pop("breakpoints", None) or [{"file": path, "line": n} for n in bp_lines]
    reply = await registry.run("start_debugging", {"program": path, "breakpoints": bps, "wait_s": wait_s, **kw}, actor)
    return reply.data["session_id"], reply


async def expect_error(registry: Registry, action: str, args: dict, *codes, actor: str = "agent:test"):
    """Run an action that must fail with one of `codes`; return the DebugError."""
    from pairdbg.backends.errors import DebugError

    try:
        reply = await registry.run(action, args, actor)
    except DebugError as exc:
        assert str(exc.code) in {str(c) for c in codes}, f"{action}: got {exc.code}: {exc.message}"
        return exc
    raise AssertionError(f"{action} should have failed with {codes}, but replied:\n{reply.text}")


async def until(condition, what: str | Callable[[], str], *, timeout: float = 15.0, pilot=None) -> None:
    """Wait, bounded, until `condition()` holds; fail naming `what` (a text, or a callable giving one at the timeout).

    `condition` may be a coroutine function. With a Textual `pilot`, the app processes its messages between checks.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        held = condition()
        if inspect.isawaitable(held):
            held = await held
        if held:
            return
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what() if callable(what) else what}")
        if pilot is not None:
            await pilot.pause(0.02)
        else:
            await asyncio.sleep(0.02)


def stop_of(reply) -> dict:
    assert reply.data.get("state") == "paused", f"expected a stop, got:\n{reply.text}"
    return reply.data["stop"]


def local_values(stop: dict) -> dict[str, str]:
    return {v["name"]: v["value"] for v in stop["locals"]}
