"""Nothing escapes (issue 20): a program's daemon — a child that setsid()s, forks again, and execs with an empty
environment, so neither its process group nor pairdbg's environment mark finds it — ends when its session closes
and when pairdbg exits, however it exits (SIGTERM, SIGHUP, SIGKILL)."""

from __future__ import annotations

import asyncio
import glob
import os
import signal
import time
from pathlib import Path

import pytest
from support import prog, until
from support.core import marked_processes, missing_target, wait_gone
from support.mcp import RawServer

from pairdbg.backends import process
from pairdbg.backends.process import WATCH_S, cgroup_parent

pytestmark = pytest.mark.timeout(90)


def running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


def command(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read()
    except OSError:
        return b""


def cgroups_left(server: RawServer) -> list[str]:
    """The cgroups a pairdbg server made (named after its mark, which starts with its pid) still there."""
    parent = cgroup_parent()
    return glob.glob(os.path.join(parent, f"pairdbg-{server.proc.pid}-*")) if parent else []


def writable_cgroups() -> None:
    """Only the cgroup way finds a daemon born after the reaper's last look: skip (fail under CI) without it."""
    parent = cgroup_parent()
    if parent is None:
        missing_target("no cgroup v1 pids or v2 hierarchy is mounted")
    probe = os.path.join(parent, f"pairdbg-probe-{os.getpid()}")
    try:
        os.mkdir(probe)
    except OSError as e:
        missing_target(f"cannot make a cgroup under {parent}: {e.strerror}")
    os.rmdir(probe)


def daemon_of(pidfile, may_be_gone: bool = False) -> int:
    """The daemon's pid, once it has exec'd; checks it really carries no mark and left its parent's session.
    `may_be_gone`: its program has exited, and pairdbg may already have ended what the program left."""
    pid = int(pidfile.read_text())
    exec_d = wait_gone(lambda: [] if command(pid).startswith(b"sleep") or not running(pid) else [pid], 10)
    assert not exec_d, "the daemon never exec'd"
    if may_be_gone and not running(pid):
        return pid
    with open(f"/proc/{pid}/environ", "rb") as fh:
        environment = fh.read()
    assert b"PAIRDBG_OWNER" not in environment and b"PAIRDBG_TEST_RUN" not in environment, "the daemon has a mark"
    assert os.getsid(pid) != os.getsid(0)
    return pid


@pytest.mark.asyncio
@pytest.mark.parametrize("program_does", ["stay", "exit"])
async def test_a_daemon_the_program_left_ends_with_its_session(registry, tmp_path, program_does) -> None:
    pidfile = tmp_path / "daemon.pid"
    reply = await registry.run(
        "start_debugging",
        {"program": prog("daemonize.py"), "args": [str(pidfile), program_does], "wait_s": 0},
        "human",
    )
    sid = reply.data["session_id"]
    await until(pidfile.exists, "the program to start its daemon")
    pid = daemon_of(pidfile)
    try:
        if program_does == "exit":
            await until(lambda: registry.hub.get(sid).phase.ended, "the program to exit, leaving its daemon")
            # What the program left belongs to its session: kept (and tracked) until the close below.
            assert running(pid), "the daemon was ended with its program, before its session closed"
        await registry.run("close_debug_session", {"session_id": sid}, "human")
        await until(lambda: not running(pid), f"the daemon {pid} to end with its session", timeout=5)
    finally:
        if running(pid):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.asyncio
@pytest.mark.parametrize("program_does", ["stay", "exit", "exit-middle-later"])
@pytest.mark.parametrize("backend", ["inspector", "dap"])
async def test_a_node_programs_daemon_ends_with_its_session(registry, tmp_path, backend, program_does) -> None:
    """The same for a Node program, launched by pairdbg (inspector) or through js-debug (whose adapter ends the
    program on disconnect before pairdbg ends anything itself), running on or ending the moment it has started the
    daemon (so the daemon is re-parented to pairdbg before anything saw it under the program), or ending while the
    daemon's parent still runs (so the daemon reaches pairdbg only after the session has released the program: the
    `exit` case's failure under load, when the shell happened to be slower than Node)."""
    from inspector.test_inspector_node import need_runtime

    need_runtime("node")
    pidfile = tmp_path / "daemon.pid"
    program = os.path.join(os.path.dirname(prog("loop.py")), "..", "js", "daemonize.js")
    reply = await registry.run(
        "start_debugging",
        {"program": os.path.abspath(program), "args": [str(pidfile), program_does], "backend": backend, "wait_s": 0},
        "human",
    )
    await until(pidfile.exists, "the program to start its daemon")
    pid = daemon_of(pidfile, may_be_gone=program_does != "stay")  # ended with its program's group, or at close
    try:
        await registry.run("close_debug_session", {"session_id": reply.data["session_id"]}, "human")
        await until(lambda: not running(pid), f"the daemon {pid} to end with its session", timeout=5)
    finally:
        if running(pid):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.asyncio
@pytest.mark.parametrize("program_does", ["stay", "exit"])
@pytest.mark.parametrize("backend", ["inspector", "dap"])
async def test_a_detached_child_of_a_node_program_ends_when_its_session_closes(registry, backend, program_does) -> None:
    """A child in a session of its own (`spawn(..., {detached: true})`) outlives its program's group; it belongs to
    the session, as a Python program's does: kept when the program exits, ended by close_debug_session. On pairdbg's
    inspector backend and through js-debug alike."""
    from inspector.test_inspector_node import need_runtime
    from inspector.test_jsdebug import line_of, need_js_debug

    need_js_debug() if backend == "dap" else need_runtime("node")
    program = os.path.join(os.path.dirname(prog("loop.py")), "..", "js", "detached.js")
    program = os.path.abspath(program)
    held = [{"file": program, "line": line_of(program, "exit")}] if program_does == "exit" else []
    started = await registry.run("start_debugging", {
        "program": program, "args": [program_does], "language": "javascript", "backend": backend,
        "breakpoints": held, "wait_s": 10 if held else 0}, "agent:test")
    sid = started.data["session_id"]
    session = registry.hub.get(sid)
    text = ""

    async def child_printed() -> bool:
        nonlocal text
        reply = await registry.run("get_output", {"session_id": sid, "category": "stdout"}, "h")
        text = "".join(e["text"] for e in reply.data["entries"])
        return "detached child" in text

    await until(child_printed, lambda: f"the program to start its detached child: {started.text}")
    pid = int(text.split("detached child", 1)[1].split()[0])
    try:
        assert running(pid) and os.getsid(pid) == pid  # really detached: a session (and group) of its own
        if program_does == "exit":
            assert started.data["state"] == "paused", started.text
            process.LINEAGE.observe()  # the lineage's look (every WATCH_S) while the program runs, made now
            await registry.run("continue_execution", {"session_id": sid}, "h")
            await until(lambda: session.phase.ended, "the program to exit, leaving its child")
            assert session.exit_code == 0
            await asyncio.sleep(2 * WATCH_S)  # the ended session is released, and the lineage looks again
            assert running(pid), "the child was ended with its program, before its session closed"
        await registry.run("close_debug_session", {"session_id": sid}, "h")
        await until(lambda: not running(pid), f"the detached child {pid} to end with its session", timeout=5)
    finally:
        if running(pid):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("program_does", ["stay", "exit"])
@pytest.mark.parametrize("how", ["SIGTERM", "SIGHUP", "SIGKILL"])
def test_a_daemon_the_program_left_ends_when_pairdbg_does(proc_guard, tmp_path, how, program_does) -> None:
    """Whether its program still runs or has exited (then its session has ended but is not closed, and the daemon
    is kept as that session's)."""
    pidfile = tmp_path / "daemon.pid"
    server = RawServer(env={**os.environ, "PAIRDBG_RN__WS_PORT": "0", "PAIRDBG_BRIDGE__PORT": "0"})
    pid = None
    try:
        started = server.call(
            "start_debugging", {"program": prog("daemonize.py"), "args": [str(pidfile), program_does], "wait_s": 0}
        )
        assert not started.get("isError"), started
        assert not wait_gone(lambda: [] if pidfile.exists() else ["no daemon yet"], 15)
        pid = daemon_of(pidfile)
        if how == "SIGKILL":
            # pairdbg runs nothing after a SIGKILL: its reaper ends what it noted under pairdbg, every WATCH_S.
            time.sleep(2 * WATCH_S)
        server.proc.send_signal(getattr(signal, how))
        server.proc.wait(20)
        left = wait_gone(lambda: [pid] if running(pid) else [], 10)
        assert not left, f"the daemon outlived pairdbg's {how}"
        assert not wait_gone(marked_processes, 10), f"processes outlived pairdbg's {how}"
        assert not wait_gone(lambda: cgroups_left(server), 5), f"pairdbg's cgroup outlived its {how}"
    finally:
        server.kill()
        if pid is not None and running(pid):
            os.kill(pid, signal.SIGKILL)


def test_a_daemon_born_just_before_pairdbg_is_killed_ends_too(proc_guard, tmp_path) -> None:
    """The reaper's last look under pairdbg may predate the daemon: what ends it is the cgroup every process pairdbg
    starts joins before it can fork (so its daemons are in it, whatever they do to session or environment)."""
    writable_cgroups()
    pidfile = tmp_path / "daemon.pid"
    server = RawServer(env={**os.environ, "PAIRDBG_RN__WS_PORT": "0", "PAIRDBG_BRIDGE__PORT": "0"})
    pid = None
    try:
        started = server.call(
            "start_debugging", {"program": prog("daemonize.py"), "args": [str(pidfile), "stay"], "wait_s": 0}
        )
        assert not started.get("isError"), started
        deadline = time.monotonic() + 15
        while not pidfile.exists() and time.monotonic() < deadline:
            time.sleep(0.002)
        assert pidfile.exists(), "the program never started its daemon"
        pid = int(pidfile.read_text())
        # Killed once the daemon has exec'd with no mark (before that its environment still carries pairdbg's),
        # within a few ms of its birth: far inside WATCH_S, so the reaper has most likely never seen it.
        while not command(pid).startswith(b"sleep") and running(pid) and time.monotonic() < deadline:
            time.sleep(0.001)
        exec_d = command(pid).startswith(b"sleep")
        with open(f"/proc/{pid}/environ", "rb") as fh:
            environment = fh.read()
        groups = cgroups_left(server)
        members = [Path(g, "cgroup.procs").read_text().split() for g in groups]
        server.proc.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        assert exec_d, "the daemon never exec'd"
        assert b"PAIRDBG_OWNER" not in environment, "the daemon has a mark"
        assert len(groups) == 1 and str(pid) in members[0], f"the daemon is not in pairdbg's cgroup: {groups}"
        server.proc.wait(20)
        left = wait_gone(lambda: [pid] if running(pid) else [], 5)
        assert not left, f"the daemon outlived pairdbg's SIGKILL ({time.monotonic() - killed:.1f} s after it)"
        assert not wait_gone(lambda: cgroups_left(server), 5), "pairdbg's cgroup outlived its SIGKILL"
    finally:
        server.kill()
        if pid is not None and running(pid):
            os.kill(pid, signal.SIGKILL)


def test_without_a_cgroup_to_make_the_reaper_works_as_before(monkeypatch, tmp_path, caplog) -> None:
    """No cgroupfs, or a parent that is not one (or not writable): no cgroup, nothing left behind, a debug line."""
    caplog.set_level("DEBUG", logger=process.__name__)
    monkeypatch.setattr(process, "cgroup_parent", lambda: None)
    assert process.make_cgroup("pairdbg-test") is None
    monkeypatch.setattr(process, "cgroup_parent", lambda: str(tmp_path / "missing"))
    assert process.make_cgroup("pairdbg-test") is None
    monkeypatch.setattr(process, "cgroup_parent", lambda: str(tmp_path))  # a plain directory: no cgroup.procs
    assert process.make_cgroup("pairdbg-test") is None
    assert list(tmp_path.iterdir()) == [], "a half-made cgroup was left"
    assert sum("cgroup" in r.getMessage() for r in caplog.records) == 3
