"""An agent over MCP hears the person change the agent mode: debug://agent says the mode and is updated when it
changes; a refused call is a PERMISSION_DENIED tool error naming the mode; set_agent_mode is no tool."""

from __future__ import annotations

import json
import warnings

import pytest
from mcp import types

from support import until
from support.mcp import DEMO, http_client


@pytest.mark.asyncio
async def test_the_agent_hears_the_mode_change_and_is_refused(hub, registry, mcp_service) -> None:
    heard: list[str] = []

    async def on_message(message) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            heard.append(str(message.params.uri))

    url, token = mcp_service.url, mcp_service.token
    async with http_client(url, token, mode="legacy", message_handler=on_message) as agent:
        assert "set_agent_mode" not in {t.name for t in (await agent.list_tools()).tools}
        started = await agent.call_tool("start_debugging", {"program": DEMO, "stop_on_entry": True})
        assert not started.is_error
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await agent.subscribe_resource("debug://agent")
        body = json.loads((await agent.read_resource("debug://agent")).contents[0].text)
        assert body["mode"] == "full" and body["redacted"] is True

        await registry.run("set_agent_mode", {"mode": "inspect"}, "human")
        await until(lambda: "debug://agent" in heard, "resources/updated for debug://agent")
        body = json.loads((await agent.read_resource("debug://agent")).contents[0].text)
        assert body["mode"] == "inspect" and "read state" in body["may"]
        refused = await agent.call_tool("step_over", {"session_id": "S1"})
        assert refused.is_error
        error = refused.structured_content["error"]
        assert error["code"] == "PERMISSION_DENIED" and "agent mode is inspect" in error["message"]
        assert "TUI" in error["hint"]
        stack = await agent.call_tool("get_call_stack", {"session_id": "S1"})
        assert not stack.is_error

        await registry.run("set_agent_mode", {"mode": "control"}, "human")
        stepped = await agent.call_tool("step_over", {"session_id": "S1"})
        assert not stepped.is_error, stepped.content[0].text
