"""Bad arguments are refused once, in the registry, before anything reaches a target (issue 13, input validation)."""

from __future__ import annotations

import pytest
from support import expect_error, line_of, prog, start, stop_of

pytestmark = pytest.mark.asyncio

LOOP = "loop.py"


async def paused(registry) -> str:
    sid, reply = await start(registry, LOOP, line_of(LOOP, "total = a + b"))
    stop_of(reply)
    return sid


async def test_nul_bytes_in_paths_and_strings_are_refused(registry):
    sid = await paused(registry)
    for action, args in [
        ("set_breakpoint", {"session_id": sid, "file": prog(LOOP) + "\x00.py", "line": 2}),
        ("get_source_context", {"file": "/etc/passwd\x00", "line": 1}),
        ("evaluate_expression", {"session_id": sid, "expression": "1\x00+1"}),
        ("start_debugging", {"program": prog(LOOP) + "\x00"}),
        ("start_debugging", {"program": prog(LOOP), "args": ["a\x00b"]}),
    ]:
        err = await expect_error(registry, action, args, "INVALID_PARAMETERS")
        assert "contains a NUL byte" in err.message, err.message
    # the session is untouched and still paused
    assert "loop.py:2" in (await registry.run("get_call_stack", {"session_id": sid}, "human")).text


async def test_huge_and_negative_integers_are_refused_before_the_target(registry):
    sid = await paused(registry)
    for action, args in [
        ("get_call_stack", {"session_id": sid, "thread_id": 2**63}),
        ("get_call_stack", {"session_id": sid, "thread_id": -1}),
        ("get_call_stack", {"session_id": sid, "thread_id": 10**30}),
        ("set_breakpoint", {"session_id": sid, "file": prog(LOOP), "line": 2**40}),
        ("wait_for_stop", {"session_id": sid, "after_stop": -5}),
    ]:
        err = await expect_error(registry, action, args, "INVALID_PARAMETERS")
        assert len(err.message) < 300, err.message


async def test_every_string_is_length_limited_and_never_echoed_whole(registry, limits):
    sid = await paused(registry)
    huge = "x" * (limits.max_expression + 1)
    for action, args in [
        ("evaluate_expression", {"session_id": sid, "expression": huge}),
        ("set_breakpoint", {"session_id": sid, "function": huge}),
        ("set_breakpoint", {"session_id": sid, "file": "/tmp/" + "p" * 5000, "line": 1}),
        ("get_source_context", {"file": "/" + "d" * 5000}),
        ("add_watch", {"session_id": sid, "expression": huge}),
        ("start_debugging", {"program": prog(LOOP), "env": {"K": huge}}),
        ("get_call_stack", {"session_id": huge}),
        ("start_debugging", {"program": prog(LOOP), "args": ["a"] * 5000}),
    ]:
        err = await expect_error(registry, action, args, "LIMIT_EXCEEDED")
        assert len(err.text()) < 400, err.text()[:400]
        assert "the limit is" in err.message, err.message


async def test_a_handler_error_cuts_a_long_argument_it_would_echo(registry):
    # 3000 characters is within the path limit, so the handler runs and names the missing file
    missing = "/nonexistent/" + "q" * 3000 + ".py"
    err = await expect_error(registry, "get_source_context", {"file": missing, "line": 1}, "PATH_NOT_FOUND")
    assert len(err.text()) < 500 and f"{len(missing)} chars" in err.text(), err.text()[:500]


async def test_a_thread_id_the_program_lacks_names_the_real_ones(registry):
    sid = await paused(registry)
    for tid in (99_999, 2**31 - 1):
        err = await expect_error(
            registry, "get_call_stack", {"session_id": sid, "thread_id": tid}, "INVALID_PARAMETERS"
        )
        assert f"no thread {tid}" in err.message and "threads now:" in (err.hint or ""), err.text()
