"""A JavaScript start that fails leaves nothing running (issue 13): no `node --inspect-brk` with an open,
unauthenticated inspector port that any local process could use to run code."""

from __future__ import annotations

import pytest
from support import expect_error
from support.core import marked_processes
from test_inspector_node import js, line, need_runtime

from pairdbg.backends.limits import Limits

pytestmark = pytest.mark.asyncio


@pytest.fixture
def limits() -> Limits:
    return Limits(max_sessions=1, max_expression=100)


@pytest.mark.parametrize(
    "breakpoint, code",
    [
        ({"file": "/nonexistent/app.js", "line": 1}, "PATH_NOT_FOUND"),
        ({"line": 10_000}, "INVALID_PARAMETERS"),
        ({"line": 1, "condition": "x" * 101}, "LIMIT_EXCEEDED"),
    ],
)
async def test_a_refused_breakpoint_leaves_no_runtime(registry, breakpoint, code):
    need_runtime("node")
    program = js("flow.js")
    bp = {"file": program, **breakpoint}
    await expect_error(registry, "start_debugging", {"program": program, "breakpoints": [bp]}, code)
    assert marked_processes() == [], "a node outlived the failed start"  # the hub fixture's guard checks again


async def test_the_session_limit_leaves_no_second_runtime(registry):
    need_runtime("node")
    program = js("flow.js")
    first = await registry.run(
        "start_debugging",
        {"program": program, "breakpoints": [{"file": program, "line": line("flow.js", "ADD_BODY")}]},
        "agent:t",
    )
    assert first.data["state"] == "paused", first.text
    before = len(marked_processes())
    await expect_error(registry, "start_debugging", {"program": program}, "LIMIT_EXCEEDED")
    assert len(marked_processes()) == before, "the refused start spawned a runtime"
