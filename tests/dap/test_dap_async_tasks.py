"""asyncio tasks of a paused Python program, each with where it awaits, without evaluating asyncio.all_tasks()."""

from __future__ import annotations

import pytest

from support import line_of, prog, start

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]


async def test_each_task_says_where_it_awaits(registry) -> None:
    sid, _ = await start(registry, "tasks.py", line_of("tasks.py", "# stop here"))
    reply = await registry.run("list_async_tasks", {"session_id": sid}, "agent:x")
    tasks = {t["name"]: t for t in reply.data["tasks"]}
    assert reply.data["running_loop"] and set(tasks) >= {"fetcher", "waiter"}
    program = prog("tasks.py")

    def frames_in_program(task):
        return [(c["function"], c["line"]) for c in task["chain"] if c["file"] == program]

    assert frames_in_program(tasks["fetcher"]) == [("fetch", line_of("tasks.py", "# fetcher waits here"))]
    assert frames_in_program(tasks["waiter"]) == [("wait_for", line_of("tasks.py", "# waiter waits here"))]
    assert "Future pending" in (tasks["fetcher"]["awaiting"] or "")
    current = [t for t in reply.data["tasks"] if t["current"]]
    assert len(current) == 1 and frames_in_program(current[0]) == [("main", line_of("tasks.py", "# stop here"))]
    assert "fetcher: fetch tasks.py:5" in reply.text, reply.text


async def test_a_program_without_a_running_loop_says_so(registry) -> None:
    sid, _ = await start(registry, "loop.py", line_of("loop.py", "total = a + b"))
    reply = await registry.run("list_async_tasks", {"session_id": sid}, "agent:x")
    assert reply.data == {"session_id": sid, "running_loop": False, "tasks": []}
    assert "no asyncio loop runs in the stopped thread" in reply.text
