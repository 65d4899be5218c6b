"""A launched Python program is pairdbg's own child (it plays debugpy's launcher): its output is read from its pipes,
complete and in order, its exit code is its own, and nothing of it outlives its session. Against the real debugpy."""

from __future__ import annotations

import os
import textwrap

import pytest

from support import pid_alive, require_debugpy, until
from support.core import marked_processes, wait_gone

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(90)]

LINES = 100_000  # 1.2 MB: less than a session keeps (4 MB), far more than one pipe read (64 KB)


def write(tmp_path, name: str, source: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return str(path)


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as fh:
        return int(fh.read().rsplit(b")", 1)[1].split()[1])


async def read_all(registry, sid: str, category: str) -> str:
    text, since = [], 0
    for _ in range(10_000):  # bounded: 1.2 MB in pages
        reply = await registry.run(
            "get_output", {"session_id": sid, "since": since, "limit": 500, "category": category}, "agent:t"
        )
        assert reply.data["dropped"] == 0, reply.text
        text += [e["text"] for e in reply.data["entries"]]
        if not reply.data["has_more"]:
            return "".join(text)
        since = reply.data["next_since"]
    raise AssertionError("get_output never ended")


async def test_large_output_arrives_complete_and_in_order(registry, tmp_path) -> None:
    require_debugpy()
    program = write(
        tmp_path,
        "loud.py",
        f"""\
        import sys
        for i in range({LINES}):
            print(f"line {{i:06d}}")
            if i % 25_000 == 0:
                print(f"err {{i}}", file=sys.stderr)
        print("finished")
        """,
    )
    reply = await registry.run("start_debugging", {"program": program, "wait_s": 60}, "agent:t")
    sid = reply.data["session_id"]
    session = registry.hub.sessions[sid]
    await until(lambda: session.phase.ended, "the program to end", timeout=60)
    assert session.phase.value == "terminated" and session.exit_code == 0, session.error
    stdout = await read_all(registry, sid, "stdout")
    assert stdout.splitlines() == [f"line {i:06d}" for i in range(LINES)] + ["finished"]
    stderr = await read_all(registry, sid, "stderr")
    assert stderr.splitlines() == [f"err {i}" for i in range(0, LINES, 25_000)]


async def test_the_program_is_pairdbgs_child_and_its_exit_code_is_its_own(registry, tmp_path) -> None:
    """No launcher process between: the pid debugpy reports is pairdbg's child. stdin is closed (reads see EOF,
    nothing waits for a terminal), and the exit code is the program's."""
    require_debugpy()
    program = write(
        tmp_path,
        "reader.py",
        """\
        import os, sys, time
        print("stdin gave", repr(sys.stdin.read()), "parent", os.getppid(), flush=True)
        time.sleep(0.5)
        os._exit(3)  # sys.exit(3) would stop as an uncaught SystemExit
        """,
    )
    reply = await registry.run("start_debugging", {"program": program, "wait_s": 0}, "agent:t")
    session = registry.hub.sessions[reply.data["session_id"]]
    backend = session.backend
    await until(lambda: backend.pid is not None, "debugpy's process event")
    pid = backend.pid
    assert parent_of(pid) == os.getpid()
    await until(lambda: session.phase.ended, "the program to end", timeout=30)
    assert session.phase.value == "terminated" and session.exit_code == 3, (session.phase, session.exit_code)
    printed = "".join(e.text for e in session.output.read(0, 100)[0])
    assert f"stdin gave '' parent {os.getpid()}" in printed, printed


async def test_closing_the_session_leaves_no_process(registry, tmp_path) -> None:
    require_debugpy()
    program = write(
        tmp_path,
        "forever.py",
        """\
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
        print("child", child.pid, flush=True)
        while True:
            print("tick", flush=True)
            time.sleep(0.05)
        """,
    )
    before = {pid for pid, _ in marked_processes()}
    reply = await registry.run("start_debugging", {"program": program, "wait_s": 0}, "agent:t")
    sid = reply.data["session_id"]
    session = registry.hub.sessions[sid]
    await until(lambda: "tick" in "".join(e.text for e in session.output.read(0, 100)[0]), "the program to run")
    pid = session.backend.pid
    await registry.run("close_debug_session", {"session_id": sid}, "agent:t")
    assert not pid_alive(pid)
    left = wait_gone(lambda: [p for p, _ in marked_processes() if p not in before], 10)
    assert not left, f"processes left after closing the session: {left}"


async def test_what_the_program_leaves_runs_until_its_session_closes(registry, tmp_path) -> None:
    """The program's end ends its session, not what it started: a child it left (holding its output pipes) runs on
    and is tracked, and so is what that child starts after the program is gone, in a session of its own, even once
    the child itself has exited. Closing the session ends all of it."""
    require_debugpy()
    pidfile, written = tmp_path / "grandchild.pid", str(tmp_path / "grandchild.tmp")
    child = (
        "import os, subprocess, sys, time\n"
        "time.sleep(1)\n"  # the program has exited by now
        "g = subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
        f"open({written!r}, 'w').write(str(g.pid)); os.rename({written!r}, {str(pidfile)!r})\n"
        "time.sleep(1.5)\n"  # seen under the child before it goes
    )
    program = write(
        tmp_path,
        "leaves.py",
        f"""\
        import subprocess, sys
        child = subprocess.Popen([sys.executable, "-c", {child!r}])
        print("child", child.pid, flush=True)
        """,
    )
    before = {pid for pid, _ in marked_processes()}
    reply = await registry.run("start_debugging", {"program": program, "wait_s": 0}, "agent:t")
    sid = reply.data["session_id"]
    session = registry.hub.sessions[sid]
    await until(lambda: session.phase.ended, "the program to end", timeout=30)
    assert session.phase.value == "terminated", session.error
    printed = "".join(e.text for e in session.output.read(0, 100)[0])
    child_pid = int(printed.split("child ", 1)[1].split()[0])
    assert pid_alive(child_pid), "the child the program left was ended with the program"
    await until(pidfile.exists, "the child to start a process of its own", timeout=15)
    grandchild = int(pidfile.read_text())
    await until(lambda: not pid_alive(child_pid), "the child to exit, leaving its own child", timeout=15)
    assert pid_alive(grandchild), "what the child started was ended before the session closed"
    await registry.run("close_debug_session", {"session_id": sid}, "agent:t")
    assert not wait_gone(lambda: [grandchild] if pid_alive(grandchild) else [], 5), "it outlived the session"
    left = wait_gone(lambda: [p for p, _ in marked_processes() if p not in before], 10)
    assert not left, f"processes left after closing the session: {left}"


async def test_a_program_killed_by_a_signal_says_so(registry, tmp_path) -> None:
    require_debugpy()
    program = write(
        tmp_path,
        "killed.py",
        """\
        import os, signal
        print("going", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """,
    )
    reply = await registry.run("start_debugging", {"program": program, "wait_s": 0}, "agent:t")
    session = registry.hub.sessions[reply.data["session_id"]]
    await until(lambda: session.phase.ended, "the program to be killed", timeout=30)
    assert session.phase.value == "terminated" and session.exit_code == 247, (session.phase, session.exit_code)
    printed = "".join(e.text for e in session.output.read(0, 100)[0])
    assert "going" in printed and "killed by SIGKILL (exit code 247)" in printed, printed
