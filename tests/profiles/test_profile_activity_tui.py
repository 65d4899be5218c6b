"""A profile's calls are the agent's actions in the TUI: the person sees them in the activity pane (the profile-side
steps of a `created` mcp-debugger session too), and the stop they lead to in the source pane."""

from __future__ import annotations

import json

import pytest
from support import prog, until
from support.core import require_debugpy

from pairdbg.backends.hub import Hub
from pairdbg.mcp_bridge.profiles import load
from pairdbg.mcp_bridge.profiles.common import call_tool
from pairdbg.runtime import build_registry
from pairdbg.tui.app import PairDbgApp
from pairdbg.tui.panes import ActivityLog
from pairdbg.tui.source_view import SourceView

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(90)]

SWAP = prog("swap_vars.py")


async def test_mcp_debugger_calls_show_in_the_activity_pane(proc_guard) -> None:
    require_debugpy()
    hub = Hub()
    registry = build_registry(hub)
    profile = load("mcp-debugger", hub)

    async def run(tool: str, **args) -> dict:
        result = await call_tool(profile, hub, registry, "agent:claude", tool, args)
        return json.loads(result.content[0].text)

    try:
        app = PairDbgApp(hub, registry)
        async with app.run_test(size=(160, 45)) as pilot:
            sid = (await run("create_debug_session", language="python", name="swap"))["sessionId"]
            await run("set_breakpoint", sessionId=sid, file=SWAP, line=9)
            assert (await run("start_debugging", sessionId=sid, scriptPath=SWAP))["state"] == "paused"
            await run("step_over", sessionId=sid)
            source = app.query_one(SourceView)
            await until(lambda: source.current_line == 10, "the agent's step in the source pane", pilot=pilot)
            lines = app.query_one(ActivityLog).lines_text

            def shown(action: str) -> bool:
                return any("◆ agent:claude" in line and f"  {action}" in line and "✓" in line for line in lines)

            for action in ("create_debug_session", "set_breakpoint", "start_debugging", "step_over"):
                await until(lambda action=action: shown(action), f"{action} in the activity pane", pilot=pilot)
            await run("close_debug_session", sessionId=sid)

            # the person's own session is listed under pairdbg's id, and the agent reads it like its own
            human = await registry.run(
                "start_debugging", {"program": SWAP, "breakpoints": [{"file": SWAP, "line": 9}]}, "human"
            )
            hsid = human.data["session_id"]
            listed = await run("list_debug_sessions")
            assert [(r["id"], r["state"]) for r in listed["sessions"]] == [(hsid, "paused")]
            top = (await run("get_stack_trace", sessionId=hsid))["stackFrames"][0]
            assert (top["name"], top["line"]) == ("swap_variables", 9)
    finally:
        await hub.shutdown()
