"""Child processes of a debugged Python program (multiprocessing fork and spawn, Pool workers, `subprocess`) become
sessions of their own through debugpy's subProcess support: listed with their parent, with the parent's breakpoints,
stopped at them, pausable, and closed with the parent, leaving no process behind."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys

import pytest
from support import expect_error, free_port, line_of, prog, stop_of, until
from support.core import marked_processes, wait_gone

from pairdbg.backends.errors import DebugError
from pairdbg.backends.limits import Limits

POOL = "pool_job.py"
WORKER_LINE = line_of(POOL, "# worker line")


def children_of(registry, parent: str):
    return [s for s in registry.hub.sessions.values() if s.parent is not None and s.parent.id == parent]


@pytest.mark.parametrize("method", ["fork", "spawn"])
@pytest.mark.asyncio
async def test_a_pool_worker_stops_at_a_breakpoint_in_a_session_of_its_own(registry, method) -> None:
    path = prog(POOL)
    reply = await registry.run(
        "start_debugging",
        {"program": path, "args": [method], "breakpoints": [{"file": path, "line": WORKER_LINE}], "wait_s": 20},
        "agent:test",
    )
    parent = reply.data["session_id"]
    # The parent runs on (it waits for its pool): the reply says so, and names the child that stopped.
    assert reply.data["state"] == "running", reply.text
    assert "child session" in reply.text and f"{POOL}:{WORKER_LINE}" in reply.text, reply.text
    child = next(s for s in children_of(registry, parent) if s.phase.value == "paused")
    waited = await registry.run("wait_for_stop", {"session_id": child.id, "timeout_s": 5}, "agent:test")
    stop = stop_of(waited)
    assert stop["location"]["line"] == WORKER_LINE and stop["hit_breakpoints"] == ["BP1"]
    assert f"child of {parent}" in waited.text and f"process {child.backend.pid}" in waited.text
    listed = await registry.run("list_debug_sessions", {}, "agent:test")
    assert f"(child of {parent}, pid {child.backend.pid})" in listed.text
    # Named for what it is: a spawn worker by its command line; a fork has its parent's, so its parent's name.
    assert child.name == (
        f"multiprocessing worker {child.backend.pid}" if method == "spawn" else f"{POOL} child {child.backend.pid}"
    )
    assert any(s.get("parent_id") == parent for s in listed.data["sessions"])
    # A change to the parent's breakpoint reaches its children, under the same id.
    await registry.run(
        "update_breakpoint", {"session_id": parent, "breakpoint_id": "BP1", "condition": "n == 99"}, "agent:test"
    )
    assert child.breakpoints["BP1"].condition == "n == 99"
    # Let every worker run to its end: the breakpoint goes, each paused child continues (a spawn worker may
    # still be starting with it, so keep releasing until the parent ends).
    await registry.run("remove_breakpoint", {"session_id": parent, "breakpoint_id": "BP1"}, "agent:test")
    parent_session = registry.hub.sessions[parent]

    async def released() -> bool:
        for s in children_of(registry, parent):
            if s.phase.value == "paused":
                await registry.run("continue_execution", {"session_id": s.id, "wait_s": 0}, "agent:test")
        return parent_session.phase.ended

    await until(released, "the pool job to finish", timeout=30)
    ended = await registry.run("wait_for_stop", {"session_id": parent, "timeout_s": 1}, "agent:test")
    assert ended.data["state"] == "terminated", ended.text
    assert "results [0, 1, 4, 9]" in "\n".join(ended.data.get("output_tail", [])), ended.text
    # multiprocessing's resource tracker (spawn) never runs user code: released undebugged, said, no session.
    assert not any("resource tracker" in s.name for s in children_of(registry, parent))
    printed = "".join(e.text for e in parent_session.output.read(0, 1000)[0])
    assert ("multiprocessing resource tracker" in printed and "runs undebugged" in printed) == (method == "spawn")


@pytest.mark.asyncio
async def test_a_subprocess_child_stops_at_a_breakpoint_set_in_its_file(registry) -> None:
    child_file = prog("child_task.py")
    reply = await registry.run(
        "start_debugging",
        {
            "program": prog("run_child.py"),
            "breakpoints": [{"file": child_file, "line": line_of("child_task.py", "# child line")}],
            "wait_s": 20,
        },
        "agent:test",
    )
    parent = reply.data["session_id"]
    assert "child session" in reply.text, reply.text
    child = children_of(registry, parent)[0]
    stop = stop_of(await registry.run("wait_for_stop", {"session_id": child.id, "timeout_s": 5}, "agent:test"))
    assert stop["location"]["file"] == child_file and stop["process"].startswith(f"process {child.backend.pid}")
    value = await registry.run(
        "evaluate_expression", {"session_id": child.id, "expression": "int(sys.argv[1])"}, "agent:test"
    )
    assert value.data["value"] == "7"
    await registry.run("continue_execution", {"session_id": child.id, "wait_s": 0}, "agent:test")
    ended = await registry.run("wait_for_stop", {"session_id": parent, "timeout_s": 20}, "agent:test")
    assert ended.data["state"] == "terminated" and "child exited 0" in "\n".join(ended.data["output_tail"])


@pytest.mark.asyncio
@pytest.mark.parametrize("method", ["fork", "spawn"])
async def test_a_running_child_pauses_and_closes_with_its_parent(registry, method) -> None:
    before = {pid for pid, _ in marked_processes()}
    reply = await registry.run(
        "start_debugging", {"program": prog("spin_workers.py"), "args": [method], "wait_s": 0}, "agent:test"
    )
    parent = reply.data["session_id"]
    session = registry.hub.sessions[parent]

    def worker():  # spawn also starts multiprocessing's resource tracker, a child of its own: pick the worker
        printed = "".join(e.text for e in session.output.read(0, 100)[0])
        pid = int(printed.split("worker ")[1].split()[0]) if "worker " in printed else None
        return next((s for s in children_of(registry, parent) if s.backend.pid == pid and s.phase.reachable), None)

    await until(lambda: worker() is not None and worker().phase.value == "running", "the worker's session")
    child = worker()
    await until(lambda: "spinning" in "".join(e.text for e in child.output.read(0, 100)[0]), "the worker to spin")
    paused = stop_of(await registry.run("pause_execution", {"session_id": child.id, "wait_s": 10}, "agent:test"))
    assert paused["location"]["function"] == "spin", [(f["function"], f["file"], f["line"]) for f in paused["stack"]]
    worker_pid = child.backend.pid
    assert worker_pid in {pid for pid, _ in marked_processes()}
    await registry.run("close_debug_session", {"session_id": parent}, "agent:test")
    assert child.phase.ended
    left = wait_gone(lambda: [p for p, _ in marked_processes() if p not in before], 10)
    assert not left, f"processes left after closing the parent: {left}"


@pytest.mark.asyncio
@pytest.mark.parametrize("limits", [Limits(max_sessions=1)])
async def test_a_child_with_no_room_for_a_session_is_said_and_runs_on(registry, limits) -> None:
    path = prog(POOL)
    reply = await registry.run(
        "start_debugging",
        {"program": path, "args": ["fork"], "breakpoints": [{"file": path, "line": WORKER_LINE}], "wait_s": 30},
        "agent:test",
    )
    assert reply.data["state"] == "terminated", reply.text  # the workers ran undebugged; nothing hung
    printed = "".join(e.text for e in registry.hub.sessions[reply.data["session_id"]].output.read(0, 100)[0])
    assert "is not debugged" in printed and "sessions are already live" in printed, printed
    assert "results [0, 1, 4, 9]" in printed


@pytest.mark.asyncio
async def test_an_attached_programs_subprocess_becomes_a_session_too(registry) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "debugpy", "--listen", f"127.0.0.1:{port}", "--wait-for-client", prog("run_child.py")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        replies = []

        async def attached() -> bool:
            with contextlib.suppress(DebugError):
                replies.append(await registry.run("attach", {"target": f"127.0.0.1:{port}", "wait_s": 0}, "agent:t"))
            return bool(replies)

        await until(attached, "debugpy to listen", timeout=15)
        parent = replies[0].data["session_id"]
        child_file, line = prog("child_task.py"), line_of("child_task.py", "# child line")
        await registry.run("set_breakpoint", {"session_id": parent, "file": child_file, "line": line}, "agent:t")
        waited = await registry.run("wait_for_stop", {"session_id": parent, "timeout_s": 15}, "agent:t")
        assert waited.data["state"] == "running" and "no stop of its own; child session" in waited.text, waited.text
        child = children_of(registry, parent)[0]
        stop = stop_of(await registry.run("wait_for_stop", {"session_id": child.id, "timeout_s": 5}, "agent:t"))
        assert stop["location"]["file"] == child_file and stop["location"]["line"] == line
        await registry.run("close_debug_session", {"session_id": parent}, "agent:t")
        assert child.phase.ended
        await until(lambda: proc.poll() is not None, "the attached program to end", timeout=10)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 9)
        proc.wait(5)


@pytest.mark.asyncio
async def test_a_childs_own_breakpoint_keeps_its_id_apart_from_its_parents(registry) -> None:
    """Parent and children number breakpoints from one counter: a child's own BP2 and the parent's next breakpoint
    never share an id, so the parent's never misses the child and removing it leaves the child's own alone."""
    path = prog(POOL)
    reply = await registry.run(
        "start_debugging",
        {"program": path, "args": ["fork"], "breakpoints": [{"file": path, "line": WORKER_LINE}], "wait_s": 20},
        "agent:test",
    )
    parent = reply.data["session_id"]
    child = next(s for s in children_of(registry, parent) if s.phase.value == "paused")
    own = await registry.run("set_breakpoint", {"session_id": child.id, "file": path, "line": WORKER_LINE + 1}, "a:t")
    done = line_of(POOL, "# parent done")
    new = await registry.run("set_breakpoint", {"session_id": parent, "file": path, "line": done}, "agent:test")
    assert own.data["id"] != new.data["id"], (own.text, new.text)
    assert child.breakpoints[new.data["id"]].line == done  # the parent's new breakpoint reached the child
    await registry.run("remove_breakpoint", {"session_id": parent, "breakpoint_id": new.data["id"]}, "agent:test")
    assert child.breakpoints[own.data["id"]].line == WORKER_LINE + 1  # the child's own one stays
    assert new.data["id"] not in child.breakpoints
    await registry.run("close_debug_session", {"session_id": parent}, "agent:test")


@pytest.mark.asyncio
async def test_a_breakpoint_set_while_a_child_starts_reaches_it(registry, monkeypatch) -> None:
    """A child's session is `starting` while it attaches; a breakpoint its parent gets then is kept in the child's
    book and sent when its start is done, and the child stops at it."""
    from pairdbg.backends.dap.python import PythonChild

    connect = PythonChild._connect

    async def slow_connect(self):  # widens the window in which the child's session is starting
        await asyncio.sleep(1)
        return await connect(self)

    monkeypatch.setattr(PythonChild, "_connect", slow_connect)
    path, line = prog("spin_workers.py"), line_of("spin_workers.py", "# spin line")
    reply = await registry.run("start_debugging", {"program": path, "args": ["fork"], "wait_s": 0}, "agent:test")
    parent = reply.data["session_id"]
    await until(lambda: children_of(registry, parent), "the worker's session")
    child = children_of(registry, parent)[0]
    assert child.phase.value == "starting"
    await registry.run("set_breakpoint", {"session_id": parent, "file": path, "line": line}, "agent:test")
    stop = stop_of(await registry.run("wait_for_stop", {"session_id": child.id, "timeout_s": 15}, "agent:test"))
    assert stop["location"]["line"] == line and stop["hit_breakpoints"] == ["BP1"], stop
    assert child.breakpoints["BP1"].state.verified
    await registry.run("close_debug_session", {"session_id": parent}, "agent:test")


@pytest.mark.asyncio
@pytest.mark.parametrize("method", ["fork", "spawn"])
async def test_a_library_breakpoint_set_later_binds_in_a_child(registry, method) -> None:
    """A spawned child starts through debugpy's own bootstrap, not pairdbg's, and justMyCode there excludes the
    stdlib: a breakpoint set in json after the child started must still bind and stop it (and the child's session
    never tells the user to "attach again", which is impossible for a child)."""
    import inspect
    import json

    path = prog("pool_json.py")
    reply = await registry.run(
        "start_debugging",
        {
            "program": path,
            "args": [method],
            "breakpoints": [{"file": path, "line": line_of("pool_json.py", "# worker line")}],
            "wait_s": 25,
        },
        "agent:test",
    )
    parent = reply.data["session_id"]
    child = next(s for s in children_of(registry, parent) if s.phase.value == "paused")
    lines, first = inspect.getsourcelines(json.dumps)
    line = first + next(i for i, text in enumerate(lines) if text.strip().startswith("if (not skipkeys"))
    bp = await registry.run("set_breakpoint", {"session_id": parent, "file": json.__file__, "line": line}, "agent:test")
    assert "attach again" not in bp.text and "in child session" not in bp.text, bp.text
    assert child.breakpoints[bp.data["id"]].state.verified, child.breakpoints[bp.data["id"]].state
    step = await registry.run("continue_execution", {"session_id": child.id, "wait_s": 10}, "agent:test")
    stop = stop_of(step)
    assert stop["location"]["file"] == json.__file__ and stop["hit_breakpoints"] == [bp.data["id"]], step.text
    await registry.run("close_debug_session", {"session_id": parent}, "agent:test")


@pytest.mark.asyncio
async def test_a_parent_that_exits_before_its_child_says_so_and_refuses_control(registry) -> None:
    """debugpy reports a parent's end only when its last child ends: pairdbg watches the program's process, says it
    ended while its child runs, and refuses control on it with a hint naming the child."""
    before = {pid for pid, _ in marked_processes()}
    reply = await registry.run("start_debugging", {"program": prog("parent_leaves.py"), "wait_s": 0}, "agent:test")
    parent = registry.hub.sessions[reply.data["session_id"]]
    await until(lambda: parent.phase.ended, "the parent's session to say its program ended", timeout=15)
    child = children_of(registry, parent.id)[0]
    assert child.phase.value == "running" and parent.phase.value == "terminated"
    assert child.backend.program == "python -c"  # debugpy calls it "-c"
    assert f"child sessions {child.id} still run" in (parent.error or ""), parent.error
    error = await expect_error(
        registry, "pause_execution", {"session_id": parent.id, "wait_s": 1}, "SESSION_INVALID_STATE"
    )
    assert "exited" in error.message and f"session_id='{child.id}'" in (error.hint or ""), error
    paused = stop_of(await registry.run("pause_execution", {"session_id": child.id, "wait_s": 10}, "agent:test"))
    assert paused["location"]["line"] in (2, 3), paused  # the child is debugged still
    await registry.run("close_debug_session", {"session_id": parent.id}, "agent:test")
    assert child.phase.ended
    left = wait_gone(lambda: [p for p, _ in marked_processes() if p not in before], 10)
    assert not left, f"processes left after closing the parent: {left}"
