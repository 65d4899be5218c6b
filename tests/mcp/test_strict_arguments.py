"""Unknown arguments are refused with the closest real one named, never silently dropped (issue 14, section 2).

Before, `evaluate_expression(call_frame_id=…)` evaluated in the top frame and `get_scopes(frameId=3)` returned the
top frame's scopes: right-looking, wrong answers.
"""

from __future__ import annotations

import pytest
from mcp import Client
from support import expect_error
from support.mcp import DEMO, DEMO_BP_LINE, stdio_params, text

pytestmark = pytest.mark.asyncio


async def test_the_registry_names_the_unknown_argument_and_the_one_meant(registry):
    err = await expect_error(
        registry,
        "evaluate_expression",
        {"session_id": "S1", "expression": "1", "call_frame_id": "@f2"},
        "INVALID_PARAMETERS",
    )
    assert "unknown argument 'call_frame_id' (did you mean 'frame'?)" in err.message, err.message
    assert "frame" in (err.hint or "") and "expression" in (err.hint or "")
    err = await expect_error(
        registry, "get_scopes", {"session_id": "S1", "frameId": 3, "threadId": 1}, "INVALID_PARAMETERS"
    )
    assert "'frameId' (did you mean 'frame'?)" in err.message and "'threadId'" in err.message, err.message
    huge = "x" * 5000
    err = await expect_error(registry, "list_debug_sessions", {huge: 1}, "INVALID_PARAMETERS")
    assert len(err.message) < 300 and "takes: no arguments" in (err.hint or ""), err.message


async def test_an_agent_over_mcp_gets_the_refusal_and_nothing_runs():
    async with Client(stdio_params(), cache=None) as client:
        started = await client.call_tool(
            "start_debugging", {"program": DEMO, "breakpoints": [{"file": DEMO, "line": DEMO_BP_LINE}]}
        )
        assert started.structured_content["state"] == "paused", text(started)
        wrong = await client.call_tool("evaluate_expression", {"session_id": "S1", "expression": "qty", "frameId": 1})
        assert wrong.is_error and "INVALID_PARAMETERS" in text(wrong), text(wrong)
        assert "did you mean 'frame'?" in text(wrong), text(wrong)
        right = await client.call_tool("evaluate_expression", {"session_id": "S1", "expression": "qty", "frame": "@f0"})
        assert not right.is_error, text(right)
        await client.call_tool("close_debug_session", {"session_id": "S1"})
