"""A TUI serving a profile (`pairdbg --profile mcp-debugger`) and a stdio agent joining it (`pairdbg --mcp --join`):
the agent gets the seed's tools and errors through the relay, on the person's Hub."""

from __future__ import annotations

import json
import os
import sys

import pytest
from mcp import Client, MCPError, StdioServerParameters
from support import prog
from support.core import require_debugpy
from support.mcp import ROOT

from pairdbg.backends.hub import Hub
from pairdbg.mcp_bridge.http import HttpMcpService
from pairdbg.runtime import build_registry

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(90)]

SWAP = prog("swap_vars.py")


async def test_joined_agent_uses_the_profile_on_the_persons_hub(tmp_path, monkeypatch, proc_guard) -> None:
    require_debugpy()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    hub = Hub()
    registry = build_registry(hub)
    service = HttpMcpService(hub, registry, "127.0.0.1", 0, profile="mcp-debugger")
    await service.start()
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pairdbg", "--mcp", "--join"],
        cwd=str(ROOT),
        env={**os.environ, "XDG_RUNTIME_DIR": str(tmp_path)},
    )
    try:
        async with Client(params, cache=None) as agent:
            names = {t.name for t in (await agent.list_tools()).tools}
            assert {"create_debug_session", "get_stack_trace", "attach_to_process"} <= names
            assert "wait_for_stop" not in names
            created = json.loads(
                (await agent.call_tool("create_debug_session", {"language": "python"})).content[0].text
            )
            sid = created["sessionId"]
            await agent.call_tool("set_breakpoint", {"sessionId": sid, "file": SWAP, "line": 9})
            started = json.loads(
                (await agent.call_tool("start_debugging", {"sessionId": sid, "scriptPath": SWAP})).content[0].text
            )
            assert started["state"] == "paused"
            (session,) = hub.sessions.values()  # the person's Hub holds the agent's session
            assert session.last_stop.location.line == 9
            missing = json.loads((await agent.call_tool("step_over", {"sessionId": "nope"})).content[0].text)
            assert missing["success"] is False and missing["error"].startswith("Session not found: nope")
            with pytest.raises(MCPError) as unknown:  # protocol errors pass the relay as they are
                await agent.call_tool("restart_debuging", {"sessionId": sid})
            assert unknown.value.code == -32601
            closed = json.loads((await agent.call_tool("close_debug_session", {"sessionId": sid})).content[0].text)
            assert closed["success"] is True
    finally:
        await service.stop()
        await hub.shutdown()
