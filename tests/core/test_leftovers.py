"""What a started program leaves running belongs to its session (issue 20 §6): it outlives the program's process and
the session's release, and ends when the session closes, or when an ended session is forgotten. A ScriptedBackend
plays the debugger; the program and what it leaves are real processes (`sh` and `sleep`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

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


async def program_leaving_a_sleep(backend: ScriptedBackend) -> int:
    """Start a program (kept by `backend`'s leftovers) that starts a `sleep` and exits at once; the sleep's pid."""
    proc = await process.spawn(["sh", "-c", "sleep 300 & echo $!"], stderr=asyncio.subprocess.DEVNULL)
    backend.leftovers.keep(proc)
    assert proc.stdout is not None
    left = int((await proc.stdout.readline()).decode())
    # Not proc.wait(): asyncio's waits for the pipes too, and the sleep holds stdout.
    await until(lambda: proc.returncode is not None, "the program to exit")
    return left


async def test_what_a_program_leaves_ends_when_its_session_closes_not_before(hub, monkeypatch) -> None:
    monkeypatch.setattr(process, "ORPHAN_GRACE_S", 0.0)  # an exited root not kept by its session would go at once
    backend = ScriptedBackend()
    session = await hub.open(backend, "app")
    left = await program_leaving_a_sleep(backend)
    process.LINEAGE.observe()
    backend.exit(0)
    await until(lambda: session.phase.ended, "the session to end with its program")
    await asyncio.sleep(2 * process.WATCH_S)  # the lineage looks again: what was left stays its session's
    assert pid_alive(left), "what the program left was ended before its session closed"
    await hub.close(session.id)
    await until(lambda: not pid_alive(left), "what the program left to end with its session", timeout=5)


async def test_a_forgotten_ended_session_ends_what_its_program_left(hub, monkeypatch) -> None:
    monkeypatch.setattr(hub_module, "MAX_ENDED_KEPT", 1)
    backend = ScriptedBackend()
    first = await hub.open(backend, "first")
    left = await program_leaving_a_sleep(backend)
    backend.exit(0)
    second = ScriptedBackend()
    await hub.open(second, "second")
    second.exit(0)
    await until(lambda: first.phase.ended, "the first session to end")
    assert pid_alive(left)
    await hub.open(ScriptedBackend(), "third")  # two ended sessions: the oldest is forgotten, and closed
    assert first.id not in hub.sessions
    await until(lambda: not pid_alive(left), "a forgotten session's leftovers to end", timeout=5)


async def test_a_daemon_whose_parent_outlives_the_session_ends_when_it_reaches_pairdbg(hub, tmp_path) -> None:
    """A daemon's parent (setsid()'d: a session of its own, so pairdbg cannot tell it from a process it started
    itself) exits only after the program and its session have ended, so the daemon is orphaned onto pairdbg after
    every look the session had at it: it is ended as it arrives. (The program starts the parent a little after the
    lineage's first look, which comes at its start, and exits at once, so no look normally sees the parent under it;
    if one does, the daemon ends with the session, which is right too.)"""
    go = tmp_path / "go"
    # A process pairdbg started that exited and is never ended (like its interpreter probes) may have left the
    # daemon too, as far as the lineage can tell: that must not keep it alive.
    await process.run_briefly(["true"], 10)
    backend = ScriptedBackend()
    session = await hub.open(backend, "app")
    middle = f"sleep 300 & echo $!; until [ -e {go} ]; do sleep 0.05; done"
    program = f"sleep 0.1; setsid sh -c '{middle}' &"
    proc = await process.spawn(["sh", "-c", program], stderr=asyncio.subprocess.DEVNULL)
    backend.leftovers.keep(proc)
    assert proc.stdout is not None
    daemon = int((await proc.stdout.readline()).decode())
    await until(lambda: proc.returncode is not None, "the program to exit")
    backend.exit(0)
    await until(lambda: session.phase.ended, "the session to end with its program")
    await hub.close(session.id)
    go.touch()  # the parent exits: the daemon reaches pairdbg now, if the close has not ended it
    await until(lambda: not pid_alive(daemon), "the daemon to end when it reached pairdbg", timeout=5)
