"""The header's "agents connected" counts only live clients (issue 21 §4): an agent that closes its session, or whose
connection dies, stops counting at once, not ten minutes later; one silent for too long is dropped on a timer."""

from __future__ import annotations


import httpx2
import pytest

from pairdbg.mcp_bridge.agents import AGENT_IDLE_S, MODERN_IDLE_S, AgentsChanged
from support import until
from support.mcp import INITIALIZE, http_client

ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def counts(hub) -> list[int]:
    heard: list[int] = []
    hub.bus.add_listener(lambda e: heard.append(len(e.names)) if isinstance(e, AgentsChanged) else None)
    return heard


@pytest.mark.asyncio
async def test_an_agent_closing_its_session_stops_counting(hub, mcp_service) -> None:
    heard = counts(hub)
    async with http_client(mcp_service.url, mcp_service.token, mode="legacy") as agent:
        await agent.list_tools()
        await until(lambda: len(mcp_service.notifier.agents) == 1, "the agent counted")
    await until(lambda: len(mcp_service.notifier.agents) == 0, "the closed agent no longer counted")
    assert heard[-1] == 0 and 1 in heard


@pytest.mark.asyncio
async def test_an_agent_whose_connection_dies_stops_counting(hub, mcp_service) -> None:
    auth = {**ACCEPT, "Authorization": f"Bearer {mcp_service.token}"}
    async with httpx2.AsyncClient(timeout=10) as http:
        init = await http.post(mcp_service.url, json=INITIALIZE, headers=auth)
        session = init.headers["mcp-session-id"]
        headers = {**auth, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
        await http.post(
            mcp_service.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
        )
        async with http.stream("GET", mcp_service.url, headers=headers) as stream:  # the standalone SSE stream
            assert stream.status_code == 200
            listed = await http.post(
                mcp_service.url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=headers
            )
            assert listed.status_code == 200 and "get_focus" in listed.text
            await until(lambda: len(mcp_service.notifier.agents) == 1, "the agent counted")
        # The stream closed without a DELETE, as when the agent's process dies.
        await until(lambda: len(mcp_service.notifier.agents) == 0, "the dead agent no longer counted")


@pytest.mark.asyncio
async def test_a_stateless_agent_counts_while_it_listens(hub, mcp_service) -> None:
    async with http_client(mcp_service.url, mcp_service.token) as agent:
        assert agent.protocol_version == "2026-07-28"
        async with agent.listen(resource_subscriptions=["debug://sessions"]):
            await agent.list_tools()
            await until(lambda: len(mcp_service.notifier.agents) == 1, "the listening agent counted")
        await until(lambda: len(mcp_service.notifier.agents) == 0, "the agent whose stream closed no longer counted")


def test_a_silent_agent_expires_without_anyone_else_calling() -> None:
    from pairdbg.backends.events import EventBus
    from pairdbg.mcp_bridge.agents import Agents

    agents = Agents(EventBus())
    agents.saw("a", "claude", 1000.0)
    assert agents.expire(1000.0 + AGENT_IDLE_S - 1) == [] and len(agents) == 1
    assert agents.expire(1000.0 + AGENT_IDLE_S + 1) == ["a"] and len(agents) == 0
    agents.saw("modern:claude", "claude", 1000.0)  # stateless: nothing ends when it leaves, so a shorter wait
    agents.opened("modern:claude")
    assert agents.expire(1000.0 + MODERN_IDLE_S + 1) == []  # a listen stream is open: it is there
    agents.closed("modern:claude")
    assert len(agents) == 0
    agents.saw("modern:claude", "claude", 1000.0)
    assert agents.expire(1000.0 + MODERN_IDLE_S + 1) == ["modern:claude"]
