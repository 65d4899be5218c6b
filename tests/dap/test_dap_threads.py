"""Multi-threaded Python: a stop in a worker thread names that thread, and each thread's stack can be read."""

from __future__ import annotations

import pytest

from support import line_of, prog, start, stop_of


@pytest.mark.asyncio
async def test_a_stop_in_a_worker_thread_is_reported_for_that_thread(registry) -> None:
    sid, reply = await start(registry, "threads.py", line_of("threads.py", "ready.set()"))
    stop = stop_of(reply)
    assert stop["thread_name"] == "worker-1" and stop["location"]["function"] == "worker"
    threads = await registry.run("list_threads", {"session_id": sid}, "agent:x")
    ids = {t["name"]: t["id"] for t in threads.data["threads"]}
    assert threads.data["current"] == ids["worker-1"] == stop["thread_id"]
    main = await registry.run("get_call_stack", {"session_id": sid, "thread_id": ids["MainThread"]}, "agent:x")
    assert any(f["file"] == prog("threads.py") for f in main.data["frames"])
    end = await registry.run("continue_execution", {"session_id": sid}, "human")
    assert end.data["state"] == "terminated" and end.data["exit_code"] == 0
