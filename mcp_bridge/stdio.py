"""Headless MCP over stdio (`pairdbg --mcp`): the same Hub and actions, no TUI, no Textual import."""

from __future__ import annotations

from mcp.server.stdio import stdio_server

from pairdbg.backends.actions.registry import Registry
from pairdbg.backends.hub import Hub

from .server import build_server


async def serve_stdio(hub: Hub, registry: Registry, tools: str | None = None, profile: str | None = None) -> None:
    """Serve MCP on stdin/stdout until the agent goes away; the caller starts and shuts down the Hub. `tools`: the
    tool groups listed from the start (see build_server); `profile`: a seed server's surface instead."""
    server, notifier = build_server(hub, registry, tools=tools, profile=profile)
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        notifier.close()
