"""What a started program leaves running belongs to its session (issue 20 §6): it outlives the program's process and
the session's release, and ends when the session closes, or when an ended session is forgotten. A ScriptedBackend
plays the debugger; the program and what it leaves are real processes (`sh` and `sleep`)."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from support import pid_alive, until
from support.fake_backend import ScriptedBackend

from pairdbg.backends import hub as hub_module
from pairdbg.backends import process
from pairdbg.backends.hub import Hub

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]


@pytest_asyncio.fixture
async def hub() -> AsyncIterator[Hub]:
    h = Hub()
    try:
        yield h
    finally:
        await asyncio.wait_for(h.shutdown(), 10)


async def program_leaving_a_sleep(backend: ScriptedBackend, pidfile: Path) -> int:
    """Start a program (kept by `backend`'s leftovers) that starts a `sleep` and exits at once; the sleep's pid.
    No pipes: one the sleep held would keep asyncio's transport open past the test's loop (its finalizer then
    raises "Event loop is closed" at some later garbage collection)."""
    shell = f"sleep 300 >/dev/null 2>&1 & echo $! > {pidfile}"
    proc = await process.spawn(
        ["sh", "-c", shell], stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
    )
    backend.leftovers.keep(proc)
    await proc.wait()
    return int(pidfile.read_text())


async def test_what_a_program_leaves_ends_when_its_session_closes_not_before(hub, monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(process, "ORPHAN_GRACE_S", 0.0)  # an exited root not kept by its session would go at once
    backend = ScriptedBackend()
    session = await hub.open(backend, "app")
    left = await program_leaving_a_sleep(backend, tmp_path / "left.pid")
    process.LINEAGE.observe()
    backend.exit(0)
    await until(lambda: session.phase.ended, "the session to end with its program")
    await asyncio.sleep(2 * process.WATCH_S)  # the lineage looks again: what was left stays its session's
    assert pid_alive(left), "what the program left was ended before its session closed"
    await hub.close(session.id)
    await until(lambda: not pid_alive(left), "what the program left to end with its session", timeout=5)


async def test_a_forgotten_ended_session_ends_what_its_program_left(hub, monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(hub_module, "MAX_ENDED_KEPT", 1)
    backend = ScriptedBackend()
    first = await hub.open(backend, "first")
    left = await program_leaving_a_sleep(backend, tmp_path / "left.pid")
    backend.exit(0)
    second = ScriptedBackend()
    await hub.open(second, "second")
    second.exit(0)
    await until(lambda: first.phase.ended, "the first session to end")
    assert pid_alive(left)
    await hub.open(ScriptedBackend(), "third")  # two ended sessions: the oldest is forgotten, and closed
    assert first.id not in hub.sessions
    await until(lambda: not pid_alive(left), "a forgotten session's leftovers to end", timeout=5)


async def test_a_daemon_whose_parent_outlives_its_program_ends_with_the_session(hub, tmp_path) -> None:
    """A daemon's parent (setsid()'d: a session of its own, the shape of every process pairdbg starts, so not
    claimed as an orphan) still runs when the program exits, and is re-parented to pairdbg then. It is noted as the
    program's, and closing the session ends it with the daemon under it; otherwise the daemon would reach pairdbg
    only when its parent exits, after the session had let go of the program, and live on. (The program starts the
    parent a little after the lineage's first look, which comes at its start, and exits at once, so no look normally
    sees the parent under it; if one does, the daemon ends with the session too.)"""
    go, pidfile = tmp_path / "go", tmp_path / "daemon.pid"
    backend = ScriptedBackend()
    session = await hub.open(backend, "app")
    middle = f"sleep 300 >/dev/null 2>&1 & echo $! > {pidfile}; until [ -e {go} ]; do sleep 0.05; done"
    program = f"sleep 0.1; setsid sh -c '{middle}' &"
    proc = await process.spawn(
        ["sh", "-c", program], stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
    )
    backend.leftovers.keep(proc)
    await proc.wait()
    await until(lambda: pidfile.exists() and pidfile.read_text().strip(), "the daemon's pid")
    daemon = int(pidfile.read_text())
    backend.exit(0)
    await until(lambda: session.phase.ended, "the session to end with its program")
    assert pid_alive(daemon), "what the program left was ended before its session closed"
    await hub.close(session.id)
    go.touch()  # the parent exits if it still runs: the daemon would reach pairdbg only now
    await until(lambda: not pid_alive(daemon), "the daemon to end with its session", timeout=5)


async def test_a_process_started_as_a_program_exits_is_not_taken_for_that_programs_middle() -> None:
    """A process pairdbg starts in the instant another process of its exits (a spare, the next session's program)
    is pairdbg's own child in a session of its own before it is tracked: a look in that instant must not note it
    as the exited process's middle (a daemon's parent) and end it with that process's session."""
    program = await process.spawn(["sleep", "30"])
    leftovers = process.Leftovers()
    leftovers.keep(program)
    started = None
    try:
        with process.LINEAGE.spawning():  # as spawn() does around its fork
            started = await asyncio.create_subprocess_exec("sleep", "30", start_new_session=True)
            # In the race the exit and the new child come between two looks: the last one saw neither.
            process.LINEAGE._children.discard(started.pid)
            program.kill()
            await program.wait()
            process.LINEAGE.observe()
            await leftovers.end()  # the program's session closes in that instant too
            process.LINEAGE.add(started)
        assert pid_alive(started.pid), "the process started meanwhile was ended with the program's session"
    finally:
        if started is not None:
            started.kill()
            await started.wait()
            process.LINEAGE.release(started.pid)


async def kept_shell(script: str) -> tuple[asyncio.subprocess.Process, process.Leftovers]:
    """`sh -c script` started as a program is (its own group, quiet), its leftovers kept by a session's."""
    program = await process.spawn(
        ["sh", "-c", script], stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
    )
    leftovers = process.Leftovers()
    leftovers.keep(program)
    return program, leftovers


async def test_what_a_program_left_is_ended_at_its_close_even_while_another_process_is_being_started(tmp_path):
    """The wait for a start in flight holds back only the judgement of pairdbg's new children: the close's look
    still finds the program's orphan (in its own session's shape, a daemon) and ends it."""
    pidfile = tmp_path / "child"
    program, leftovers = await kept_shell(f"sleep 0.2; sleep 30 & echo $! > {pidfile}")
    started = None
    child = None
    try:
        with process.LINEAGE.spawning():
            await program.wait()
            child = int(pidfile.read_text())
            started = await asyncio.create_subprocess_exec("sleep", "30", start_new_session=True)
            await leftovers.end()
            process.LINEAGE.add(started)
        await until(lambda: not pid_alive(child), "the program's orphan ended with its session")
        assert pid_alive(started.pid)
    finally:
        if child is not None and pid_alive(child):
            os.kill(child, signal.SIGKILL)
        if started is not None:
            started.kill()
            await started.wait()
            process.LINEAGE.release(started.pid)


async def test_a_daemons_parent_seen_while_a_process_was_being_started_still_ends_with_the_session(tmp_path):
    """The other side of the wait: a real middle (a daemon's parent, between its setsid and its exit) that came to
    pairdbg in a look made while a start was in flight is judged once that start is done, before the session's
    close releases the program: it and the daemon it started end with the session."""
    go, pidfile = tmp_path / "go", tmp_path / "daemon"
    middle_script = f"sleep 300 >/dev/null 2>&1 & echo $! > {pidfile}; until [ -e {go} ]; do sleep 0.05; done"
    program, leftovers = await kept_shell(f"setsid sh -c '{middle_script}' & sleep 0.3")
    starting = asyncio.Event()
    started = asyncio.Event()

    async def a_start_in_flight() -> None:
        with process.LINEAGE.spawning():
            starting.set()
            await started.wait()

    start = asyncio.create_task(a_start_in_flight())
    daemon = None
    try:
        await until(lambda: pidfile.exists() and pidfile.read_text().strip(), "the daemon started")
        daemon = int(pidfile.read_text())
        middle = next(pid for pid in process.process_table() if process.process_table()[pid].ppid == program.pid)
        await starting.wait()
        await program.wait()
        # As in the race: the look that finds the program gone is the first to see the middle, now pairdbg's.
        process.LINEAGE._children.discard(middle)
        root = process.LINEAGE._roots[program.pid]
        root.exited_at = None
        root.seen.pop(middle, None)
        root.seen.pop(daemon, None)
        process.LINEAGE.observe()
        assert middle in process.LINEAGE._undecided  # judged later: it may be the process being started
        asyncio.get_running_loop().call_later(0.05, started.set)  # the start finishes while the close waits
        await leftovers.end()
        await until(lambda: not pid_alive(daemon), "the daemon ended with the session")
    finally:
        started.set()
        await start
        go.touch()
        if daemon is not None and pid_alive(daemon):
            os.kill(daemon, signal.SIGKILL)
