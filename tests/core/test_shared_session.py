"""The heart of pairdbg: the person in the TUI and an agent over MCP HTTP on one live session.

The agent sets a breakpoint and continues; the person sees the breakpoint, the stop and the agent's actions. The
person presses F10; the agent's wait_for_stop returns the new line. Both protocol generations are exercised.
"""

from __future__ import annotations

import asyncio

import pytest
import pytest_asyncio

from pairdbg.runtime import build_registry
from pairdbg.backends.hub import Hub
from pairdbg.backends.samples import DEMO
from pairdbg.mcp_bridge.http import HttpMcpService
from support import until
from support.mcp import http_client
from pairdbg.tui.app import PairDbgApp
from pairdbg.tui.panes import ActivityLog, BreakpointsPane, StatusBar
from pairdbg.tui.source_view import SourceView

STOP_LINE = 13  # `total = price * qty`


@pytest_asyncio.fixture
async def shared(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    hub = Hub()
    registry = build_registry(hub)
    service = HttpMcpService(hub, registry, "127.0.0.1", 0)
    app = PairDbgApp(hub, registry, service, launch={"program": DEMO, "stop_on_entry": True})
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            yield hub, service, app, pilot
    finally:
        await hub.shutdown()


def activity(app: PairDbgApp) -> list[str]:
    return app.query_one(ActivityLog).lines_text


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_person_and_agent_share_one_session(shared, mode) -> None:
    hub, service, app, pilot = shared
    source = app.query_one(SourceView)
    await until(lambda: "S1" in hub.sessions and hub.sessions["S1"].stop_number == 1, "the entry stop", pilot=pilot)
    await until(lambda: source.current_line == 1, "the TUI to show the entry line", pilot=pilot)

    async with http_client(service.url, service.token, mode=mode) as agent:
        # The agent sets a breakpoint and continues: the person sees both, and the stop.
        bp = await agent.call_tool("set_breakpoint", {"session_id": "S1", "file": DEMO, "line": STOP_LINE})
        assert not bp.is_error and bp.structured_content["verified"]
        stop = await agent.call_tool("continue_execution", {"session_id": "S1"})
        assert stop.structured_content["stop"]["location"]["line"] == STOP_LINE
        await until(lambda: source.current_line == STOP_LINE, "the TUI to show the agent's stop", pilot=pilot)
        assert source.breakpoints[STOP_LINE].state == "verified"
        bps = app.query_one(BreakpointsPane)
        assert any("BP1" in str(bps.get_option_at_index(i).prompt) for i in range(bps.option_count))
        await until(
            lambda: any("continue_execution" in line for line in activity(app)),
            "the agent's actions in the activity pane",
            pilot=pilot,
        )
        agent_lines = [line for line in activity(app) if "agent:" in line]
        assert any("set_breakpoint" in line for line in agent_lines)
        assert any("continue_execution" in line and "✓" in line for line in agent_lines)
        await until(
            lambda: "1 agent" in app.query_one(StatusBar).text_plain,
            "the status line to count the agent",
            pilot=pilot,
        )

        # The person presses F10; the agent, waiting, hears the new line.
        waiting = asyncio.create_task(agent.call_tool("wait_for_stop", {"session_id": "S1", "timeout_s": 15}))
        await pilot.pause(0.05)
        source.focus()
        await pilot.press("f10")
        result = await asyncio.wait_for(waiting, 20)
        stop = result.structured_content["stop"]
        assert stop["location"]["line"] == STOP_LINE + 1 and stop["reason"] == "step"
        await until(lambda: source.current_line == STOP_LINE + 1, "the TUI to show the person's step", pilot=pilot)
        await until(
            lambda: any(line.split()[1:3] == ["●", "human"] and "step_over" in line for line in activity(app)),
            "the person's step in the activity pane",
            pilot=pilot,
        )


@pytest.mark.asyncio
async def test_wait_for_stop_returns_stops_the_agent_has_not_seen(registry) -> None:
    agent = "agent:a"
    started = await registry.run(
        "start_debugging", {"program": DEMO, "breakpoints": [{"file": DEMO, "line": STOP_LINE}]}, agent
    )
    assert started.data["stop"]["stop_number"] == 1
    # Nothing new since the agent's last report: it waits, and says the program is still paused there.
    quiet = await registry.run("wait_for_stop", {"session_id": "S1", "timeout_s": 0.2}, agent)
    assert quiet.data["state"] == "paused" and quiet.data["stop"]["stop_number"] == 1
    assert quiet.data["new_stop"] is False and quiet.text.startswith("No new stop within 0.2s")
    # The person steps while the agent is thinking: the agent's next wait returns that stop at once.
    await registry.run("step_over", {"session_id": "S1"}, "human")
    missed = await registry.run("wait_for_stop", {"session_id": "S1", "timeout_s": 10}, agent)
    assert missed.data["stop"]["stop_number"] == 2 and missed.data["new_stop"] is True
    assert missed.data["stop"]["location"]["line"] == STOP_LINE + 1
    # An explicit after_stop overrides what the agent has seen.
    again = await registry.run("wait_for_stop", {"session_id": "S1", "timeout_s": 0, "after_stop": 0}, agent)
    assert again.data["stop"]["stop_number"] == 2
