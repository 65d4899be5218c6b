"""What a session holds is released and bounded: adapters after the end, report sizes, slow watches, closes."""

from __future__ import annotations

import asyncio

import pytest

from pairdbg.backends.errors import DebugError, ErrorCode
from support import until


def write(tmp_path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(body)
    return str(path)


@pytest.mark.asyncio
async def test_the_adapter_is_released_when_the_program_ends(registry, tmp_path) -> None:
    program = write(tmp_path, "hi.py", "print('hi')\n")
    reply = await registry.run("start_debugging", {"program": program, "wait_s": 10}, "agent:test")
    assert reply.data["state"] == "terminated"
    session = registry.hub.sessions["S1"]
    await until(lambda: session.backend.proc.returncode is not None, "the adapter to exit", timeout=10)
    assert session.backend.client.closed
    listed = await registry.run("get_output", {"session_id": "S1"}, "agent:test")  # the record stays readable
    assert "hi" in listed.text


@pytest.mark.asyncio
async def test_a_launched_program_cannot_be_detached(registry, tmp_path) -> None:
    program = write(tmp_path, "loop.py", "import time\nwhile True:\n    time.sleep(0.05)\n")
    await registry.run("start_debugging", {"program": program, "wait_s": 0}, "agent:test")
    with pytest.raises(DebugError) as err:
        await registry.run("close_debug_session", {"session_id": "S1", "terminate": False}, "agent:test")
    assert err.value.code == ErrorCode.INVALID_PARAMETERS and "terminate=true" in err.value.hint
    assert "S1" in registry.hub.sessions  # nothing was half-done


@pytest.mark.asyncio
async def test_two_actors_closing_at_once_both_succeed(registry, tmp_path) -> None:
    program = write(tmp_path, "stop.py", "x = 1\nprint(x)\n")
    await registry.run("start_debugging", {"program": program, "stop_on_entry": True}, "agent:test")
    results = await asyncio.gather(
        registry.run("close_debug_session", {"session_id": "S1"}, "human"),
        registry.run("close_debug_session", {"session_id": "S1"}, "agent:test"),
        return_exceptions=True,
    )
    assert all(not isinstance(r, Exception) for r in results), results
    assert registry.hub.sessions == {}


@pytest.mark.asyncio
async def test_stop_reports_stay_small_with_huge_output_and_exceptions(registry, tmp_path) -> None:
    program = write(tmp_path, "big.py", "print('y' * 50000)\nraise ValueError('z' * 100000)\n")
    reply = await registry.run("start_debugging", {"program": program}, "agent:test")
    stop = reply.data["stop"]
    assert stop["reason"] == "exception"
    assert len(reply.text) < 4000, len(reply.text)
    assert "more characters" in stop["exception"]["message"]


@pytest.mark.asyncio
async def test_a_slow_watch_does_not_hold_the_stop_back(registry, tmp_path) -> None:
    program = write(tmp_path, "w.py", "import time\nx = 1\nx = 2\nx = 3\n")
    await registry.run("start_debugging", {"program": program, "breakpoints": [{"file": program, "line": 2}]}, "h")
    await registry.run("add_watch", {"session_id": "S1", "expression": "time.sleep(5) or x"}, "h")
    loop = asyncio.get_running_loop()
    started = loop.time()
    stepped = await registry.run("step_over", {"session_id": "S1", "wait_s": 4}, "h")
    assert stepped.data["state"] == "paused"
    assert loop.time() - started < 4
    assert "not evaluated" in stepped.data["stop"]["watches"][0]["value"]
