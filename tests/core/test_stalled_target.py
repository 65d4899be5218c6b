"""wait_s holds when the adapter stalls, and a read racing another actor's step says the program moved on (issue 13)."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest
from support import line_of, start, stop_of

from pairdbg.backends.errors import DebugError

pytestmark = pytest.mark.asyncio

SLEEPER = "sleeper.py"
LOOP = "loop.py"


async def test_a_step_on_a_stopped_debuggee_answers_within_wait_s_with_an_honest_state(registry, hub):
    sid, reply = await start(registry, SLEEPER, line_of(SLEEPER, "return n + 1"))
    stop_of(reply)
    pid = hub.get(sid).backend.pid
    assert pid
    os.kill(pid, signal.SIGSTOP)
    try:
        began = time.monotonic()
        stepped = await registry.run("step_over", {"session_id": sid, "wait_s": 2}, "agent:test")
        took = time.monotonic() - began
        assert took < 4, f"step_over(wait_s=2) took {took:.1f}s"
        assert stepped.data["state"] == "running" and stepped.data["pending"], stepped.text
        # usually pydevd cannot answer at all; if the adapter did answer, the step is simply still pending
        if "detail" in stepped.data:
            assert "not answered" in stepped.data["detail"] and "not answered" in stepped.text, stepped.text
    finally:
        os.kill(pid, signal.SIGCONT)
    # once the program runs again the step completes and the session stops where it should
    waited = await registry.run("wait_for_stop", {"session_id": sid, "timeout_s": 15}, "agent:test")
    assert stop_of(waited)


# Reads that reach the adapter at once (a stack or scopes read once per stop comes from the stop's snapshot).
READS = [
    ("evaluate_expression", lambda sid: {"session_id": sid, "expression": "a + b"}),
]


@pytest.mark.parametrize("read_action,read_args", READS, ids=[r[0] for r in READS])
async def test_a_read_racing_another_actors_step_says_the_program_moved_on(registry, hub, read_action, read_args):
    sid, reply = await start(registry, LOOP, line_of(LOOP, "total = a + b"))
    stop_of(reply)
    seen: dict[str, int] = {}
    for n in range(25):

        async def read(n=n):
            await asyncio.sleep(0.0005 * (n % 5))
            try:
                await registry.run(read_action, read_args(sid), "agent:reader")
                return "ok"
            except DebugError as exc:
                assert exc.code in ("NOT_PAUSED", "BUSY"), exc.text()
                return str(exc.code)

        step = registry.run("step_over", {"session_id": sid, "wait_s": 5}, "human")
        stepped, got = await asyncio.gather(step, read())
        seen[got] = seen.get(got, 0) + 1
        if stepped.data["state"] != "paused":
            break
    assert seen, seen
