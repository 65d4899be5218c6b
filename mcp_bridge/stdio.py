"""Headless MCP over stdio (`pairdbg --mcp`): the same Hub and actions, no TUI, no Textual import."""

from __future__ import annotations

from mcp.server.stdio import stdio_server

from backends.actions import build_registry
from backends.hub import Hub

from .server import build_server


async def serve_stdio(hub: Hub | None = None) -> None:
    hub = hub or Hub()
    registry = build_registry(hub)
    server, notifier = build_server(hub, registry)
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        notifier.close()
        await hub.shutdown()  # the agent went away: no adapter or program may outlive us


async def serve_http(host: str, port: int, token: str | None) -> None:
    """Headless Streamable HTTP until interrupted."""
    import asyncio
    import sys

    from .http import HttpMcpService

    hub = Hub()
    service = HttpMcpService(hub, build_registry(hub), host, port, token)
    await service.start()
    print(f"pairdbg MCP at {service.url}\nAuthorization: Bearer {service.token}", file=sys.stderr, flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await service.stop()
        await hub.shutdown()
