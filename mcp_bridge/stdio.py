"""Headless MCP over stdio (`pairdbg --mcp`): the same Hub and actions, no TUI, no Textual import."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys

from mcp.server.stdio import stdio_server

from pairdbg.backends.actions import build_registry
from pairdbg.backends.hub import Hub
from pairdbg.backends.setup import make_hub, settle_memory

from .server import build_server


def end_on_sigterm(hub: Hub) -> None:
    """Agent hosts stop their servers with SIGTERM. End every session first, so no adapter or program is
    orphaned, then exit. Cancelling alone is not enough on stdio: the thread blocked reading stdin keeps the
    process alive until the host closes the pipe, which a host that signalled us may never do."""
    loop = asyncio.get_running_loop()
    main = asyncio.current_task()
    pending: set[asyncio.Task[None]] = set()

    async def shut_down_and_exit() -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(hub.shutdown(), 10)
        os._exit(0)

    def on_sigterm() -> None:
        if main is not None:
            main.cancel()
        pending.add(loop.create_task(shut_down_and_exit()))

    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGTERM, on_sigterm)


async def serve_stdio(hub: Hub | None = None) -> None:
    hub = hub or make_hub()
    end_on_sigterm(hub)
    registry = build_registry(hub)
    server, notifier = build_server(hub, registry)
    await hub.start_services()
    settle_memory()
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        notifier.close()
        await hub.shutdown()  # the agent went away: no adapter or program may outlive us


async def serve_http(host: str, port: int, token: str | None) -> None:
    """Headless Streamable HTTP until interrupted (Ctrl+C or SIGTERM)."""
    from .http import HttpMcpService

    hub = make_hub()
    end_on_sigterm(hub)
    service = HttpMcpService(hub, build_registry(hub), host, port, token)
    await service.start()
    print(f"pairdbg MCP at {service.url}\nAuthorization: Bearer {service.token}", file=sys.stderr, flush=True)
    await hub.start_services()
    settle_memory()
    try:
        await asyncio.Event().wait()
    finally:
        await service.stop()
        await hub.shutdown()
