"""Limits, two actors at once, clean shutdown and attach, against the real debugpy."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest

from pairdbg.backends.events import ActionPerformed
from pairdbg.backends.limits import Limits
from support import expect_error, free_port, line_of, pid_alive, prog, start, stop_of, until

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]

LOOP = "loop.py"
ADD_BODY = line_of(LOOP, "total = a + b")
CALL_ADD = line_of(LOOP, "acc = add(acc, i)")
TICK = line_of("sleeper.py", "return n + 1")


@pytest.mark.parametrize("limits", [Limits(max_sessions=2)])
async def test_session_limit(registry, hub):
    s1, _ = await start(registry, "sleeper.py", wait_s=0)
    s2, _ = await start(registry, "sleeper.py", wait_s=0)
    err = await expect_error(registry, "start_debugging", {"program": prog(LOOP)}, "LIMIT_EXCEEDED")
    assert "2 sessions" in err.message and "close_debug_session" in err.hint
    assert set(hub.sessions) == {s1, s2}
    await registry.run("close_debug_session", {"session_id": s1}, "human")
    s3, reply = await start(registry, LOOP, ADD_BODY)
    assert s3 == "S3" and stop_of(reply)["stop_number"] == 1


@pytest.mark.parametrize("limits", [Limits(max_breakpoints=3)])
async def test_breakpoint_limit(registry, hub):
    path = prog(LOOP)
    err = await expect_error(
        registry,
        "start_debugging",
        {"program": path, "breakpoints": [{"file": path, "line": n} for n in (2, 3, 7, 9)]},
        "LIMIT_EXCEEDED",
    )
    assert "limit 3" in err.message
    assert hub.sessions == {}
    sid, _ = await start(registry, LOOP, 2, 3)
    await registry.run("set_breakpoint", {"session_id": sid, "function": "main"}, "human")
    err = await expect_error(registry, "set_breakpoint", {"session_id": sid, "file": path, "line": 9}, "LIMIT_EXCEEDED")
    assert "remove_breakpoint" in err.hint
    listed = await registry.run("list_breakpoints", {"session_id": sid}, "human")
    assert [b["id"] for b in listed.data["breakpoints"]] == ["BP1", "BP2", "BP3"]
    await registry.run("remove_breakpoint", {"session_id": sid, "breakpoint_id": "BP3"}, "human")
    bp = await registry.run("set_breakpoint", {"session_id": sid, "file": path, "line": 9}, "human")
    assert bp.data["verified"] is True


@pytest.mark.parametrize("limits", [Limits(max_expression=40)])
async def test_expression_limit(registry):
    path = prog(LOOP)
    long = "a + " * 10 + "b"  # 41 characters
    assert len(long) == 41
    err = await expect_error(
        registry,
        "start_debugging",
        {"program": path, "breakpoints": [{"file": path, "line": ADD_BODY, "condition": long}]},
        "LIMIT_EXCEEDED",
    )
    assert "condition is 41 characters; the limit is 40" in err.message
    sid, _ = await start(registry, LOOP, ADD_BODY)
    err = await expect_error(registry, "evaluate_expression", {"session_id": sid, "expression": long}, "LIMIT_EXCEEDED")
    assert "expression is 41 characters" in err.message
    await expect_error(registry, "add_watch", {"session_id": sid, "expression": long}, "LIMIT_EXCEEDED")
    await expect_error(
        registry, "set_breakpoint", {"session_id": sid, "file": path, "line": 3, "log_message": long}, "LIMIT_EXCEEDED"
    )
    ok = await registry.run("evaluate_expression", {"session_id": sid, "expression": long[4:]}, "human")
    assert ok.data["value"] == "0"


async def test_two_actors_step_at_the_same_moment(registry, hub):
    sid, reply = await start(registry, LOOP, CALL_ADD)
    session = hub.sessions[sid]
    sub = hub.bus.subscribe(predicate=lambda e: isinstance(e, ActionPerformed) and e.action == "step_over")
    results = await asyncio.gather(
        registry.run("step_over", {"session_id": sid}, "human"),
        registry.run("step_over", {"session_id": sid}, "agent:x"),
        return_exceptions=True,
    )
    ok = [r for r in results if not isinstance(r, BaseException)]
    failed = [r for r in results if isinstance(r, BaseException)]
    assert len(ok) == 1 and len(failed) == 1, results
    assert getattr(failed[0], "code", None) in ("BUSY", "NOT_PAUSED"), repr(failed[0])
    assert "step" in failed[0].message or "running" in failed[0].message
    stop = stop_of(ok[0])
    assert stop["stop_number"] == 2 and stop["location"]["line"] == CALL_ADD + 1
    assert session.phase.value == "paused" and session.stop_number == 2
    events = [sub.queue.get_nowait() for _ in range(sub.queue.qsize())]
    assert sorted(e.actor for e in events) == ["agent:x", "human"] and sorted(e.ok for e in events) == [False, True]
    # the session still steps normally afterwards
    nxt = stop_of(await registry.run("step_over", {"session_id": sid}, "agent:x"))
    assert nxt["stop_number"] == 3


async def test_close_leaves_no_process(registry, hub):
    sid, _ = await start(registry, LOOP, ADD_BODY)
    backend = hub.sessions[sid].backend
    await until(lambda: backend.pid is not None, "debugpy's process event", timeout=10)
    adapter, program = backend.proc.pid, backend.pid
    assert pid_alive(adapter) and pid_alive(program)
    r = await registry.run("close_debug_session", {"session_id": sid}, "human")
    assert r.data["closed"] is True and sid not in hub.sessions
    await until(lambda: not pid_alive(adapter) and not pid_alive(program), "adapter and program to end", timeout=5)
    await expect_error(registry, "step_over", {"session_id": sid}, "SESSION_NOT_FOUND")
    listed = await registry.run("list_debug_sessions", {}, "human")
    assert listed.data["sessions"] == []


async def test_close_a_running_session(registry, hub):
    sid, _ = await start(registry, "sleeper.py", wait_s=0)
    backend = hub.sessions[sid].backend
    await until(lambda: backend.pid is not None, "debugpy's process event", timeout=10)
    program = backend.pid
    await registry.run("close_debug_session", {"session_id": sid}, "agent:x")
    await until(lambda: not pid_alive(program), "the program to end", timeout=5)


def _listening(port: int) -> bool:
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            parts = row.split()
            if parts[1].endswith(f":{port:04X}") and parts[3] == "0A":  # 0A = LISTEN
                return True
    return False


@pytest.fixture
def listening_target():
    """`python -m debugpy --listen 127.0.0.1:PORT --wait-for-client sleeper.py`, killed with its group afterwards."""
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-X",
            "frozen_modules=off",
            "-m",
            "debugpy",
            "--listen",
            f"127.0.0.1:{port}",
            "--wait-for-client",
            prog("sleeper.py"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        yield port, proc
    finally:
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:
            pass
        proc.wait(5)


async def test_attach_set_breakpoint_and_stop(registry, hub, listening_target):
    port, proc = listening_target
    await until(lambda: _listening(port) or proc.poll() is not None, f"debugpy to listen on {port}", timeout=15)
    assert proc.poll() is None, "the debugpy listener exited"
    reply = await registry.run("attach", {"target": f"127.0.0.1:{port}", "wait_s": 0}, "agent:x")
    sid = reply.data["session_id"]
    assert reply.text.startswith(f"Attached {sid} to 127.0.0.1:{port}") and reply.data["state"] == "running"
    bp = await registry.run("set_breakpoint", {"session_id": sid, "file": prog("sleeper.py"), "line": TICK}, "human")
    assert bp.data["verified"] is True
    stop = stop_of(await registry.run("wait_for_stop", {"session_id": sid, "timeout_s": 10}, "human"))
    assert stop["reason"] == "breakpoint" and stop["location"]["line"] == TICK and stop["hit_breakpoints"] == ["BP1"]
    n = int(stop["locals"][0]["value"])
    again = stop_of(await registry.run("continue_execution", {"session_id": sid}, "human"))
    assert again["stop_number"] == 2 and int(again["locals"][0]["value"]) == n + 1
    await until(lambda: hub.sessions[sid].backend.pid is not None, "the attached pid", timeout=5)
    assert hub.sessions[sid].backend.pid == proc.pid
    refused = await expect_error(registry, "restart_debugging", {"session_id": sid}, "CAPABILITY_UNSUPPORTED")
    assert "attach again" in refused.hint  # pairdbg did not start it, so it cannot start it again
    await registry.run("close_debug_session", {"session_id": sid}, "human")
    # terminate=True (the default) ends the attached program too
    await until(lambda: proc.poll() is not None, "the attached program to end", timeout=10)


async def test_attach_to_nothing_listening(registry, hub):
    port = free_port()
    err = await expect_error(registry, "attach", {"target": f"127.0.0.1:{port}"}, "CONNECTION_FAILED")
    assert f"127.0.0.1:{port}" in err.message
    assert f"--listen 127.0.0.1:{port} --wait-for-client" in err.hint
    await expect_error(registry, "attach", {"target": "no-port-here"}, "INVALID_PARAMETERS")
    assert hub.sessions == {}


async def test_closing_an_attached_session_signals_only_through_debugpy(registry, hub, listening_target, monkeypatch):
    """pairdbg did not start an attached program: closing must never signal a process group by pid from the wire.

    The pid comes from debugpy's `process` event; for a remote target it is a pid on another machine, and a program
    started from pairdbg's own shell shares pairdbg's process group (killpg there ends pairdbg itself).
    """
    import pairdbg.backends.dap.backend as dap_backend

    signals = []
    real_kill, real_killpg = os.kill, os.killpg
    monkeypatch.setattr(
        dap_backend.os, "killpg", lambda pgid, sig: (signals.append(("killpg", pgid)), real_killpg(pgid, sig))
    )
    monkeypatch.setattr(dap_backend.os, "kill", lambda pid, sig: (signals.append(("kill", pid)), real_kill(pid, sig)))
    port, proc = listening_target
    await until(lambda: _listening(port) or proc.poll() is not None, f"debugpy to listen on {port}", timeout=15)
    sid = (await registry.run("attach", {"target": f"127.0.0.1:{port}", "wait_s": 0}, "agent:x")).data["session_id"]
    await until(lambda: hub.sessions[sid].backend.pid is not None, "the attached pid", timeout=5)
    await registry.run("close_debug_session", {"session_id": sid}, "human")
    await until(lambda: proc.poll() is not None, "debugpy to end the attached program", timeout=10)
    assert signals == [], f"pairdbg signalled processes it does not own: {signals}"


async def test_launched_program_is_killed_by_its_own_group_only(registry, hub, monkeypatch):
    """The belt-and-braces kill of a launched program must never hit pairdbg's own process group."""
    import pairdbg.backends.dap.backend as dap_backend

    groups = []
    real_killpg = os.killpg
    monkeypatch.setattr(dap_backend.os, "killpg", lambda pgid, sig: (groups.append(pgid), real_killpg(pgid, sig)))
    sid, _ = await start(registry, "sleeper.py", wait_s=0)
    backend = hub.sessions[sid].backend
    await until(lambda: backend.pid is not None, "debugpy's process event", timeout=10)
    program = backend.pid
    await registry.run("close_debug_session", {"session_id": sid}, "human")
    await until(lambda: not pid_alive(program), "the program to end", timeout=5)
    assert os.getpgid(0) not in groups
