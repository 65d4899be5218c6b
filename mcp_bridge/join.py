"""`pairdbg --mcp --join`: a stdio MCP server that relays into the running TUI's HTTP endpoint.

For agent hosts that only launch stdio servers. Requests go upstream through one client; change notifications
come back from one upstream `subscriptions/listen` stream (resources and the tool list, which grows when an app or
page connects upstream) and are re-emitted to the stdio client in whichever protocol generation it speaks.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx2
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ResourcesListChanged, ResourceUpdated, ToolsListChanged
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

from .http import read_endpoint, state_dir
from .notify import SESSIONS_URI


@dataclass
class Upstream:
    client: Client
    bus: InMemorySubscriptionBus
    legacy: ServerSession | None = None
    legacy_uris: set[str] = field(default_factory=set)

    async def pump(self, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        uris = [str(r.uri) for r in (await self.client.list_resources()).resources] or [SESSIONS_URI]
        async with self.client.listen(
            resources_list_changed=True, tools_list_changed=True, resource_subscriptions=uris
        ) as stream:
            task_status.started()
            async for event in stream:
                await self.bus.publish(event)
                if self.legacy is None:
                    continue
                if isinstance(event, ResourceUpdated) and event.uri in self.legacy_uris:
                    await self.legacy.send_resource_updated(event.uri)
                elif isinstance(event, ResourcesListChanged):
                    await self.legacy.send_resource_list_changed()
                elif isinstance(event, ToolsListChanged):
                    await self.legacy.send_tool_list_changed()


def build_relay(url: str, token: str) -> Server[Upstream]:
    bus = InMemorySubscriptionBus()

    @asynccontextmanager
    async def lifespan(_: Server[Upstream]) -> AsyncIterator[Upstream]:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=660))
        # cache=None: a relay must never answer live debugger state from a cache.
        async with http, Client(streamable_http_client(url, http_client=http), cache=None) as client:
            async with anyio.create_task_group() as tg:
                upstream = Upstream(client, bus)
                if client.protocol_version == "2026-07-28":
                    await tg.start(upstream.pump)
                yield upstream
                tg.cancel_scope.cancel()

    def up(ctx: ServerRequestContext[Upstream]) -> Client:
        return ctx.lifespan_context.client

    async def list_tools(ctx: ServerRequestContext[Upstream], p: types.PaginatedRequestParams | None):
        return await up(ctx).list_tools()

    async def call_tool(ctx: ServerRequestContext[Upstream], p: types.CallToolRequestParams):
        return await up(ctx).call_tool(p.name, p.arguments or {})

    async def list_resources(ctx: ServerRequestContext[Upstream], p: types.PaginatedRequestParams | None):
        return await up(ctx).list_resources()

    async def list_templates(ctx: ServerRequestContext[Upstream], p: types.PaginatedRequestParams | None):
        return await up(ctx).list_resource_templates()

    async def read_resource(ctx: ServerRequestContext[Upstream], p: types.ReadResourceRequestParams):
        return await up(ctx).read_resource(str(p.uri))

    async def list_prompts(ctx: ServerRequestContext[Upstream], p: types.PaginatedRequestParams | None):
        return await up(ctx).list_prompts()

    async def get_prompt(ctx: ServerRequestContext[Upstream], p: types.GetPromptRequestParams):
        return await up(ctx).get_prompt(p.name, p.arguments)

    async def subscribe(ctx: ServerRequestContext[Upstream], p: types.SubscribeRequestParams) -> types.EmptyResult:
        ctx.lifespan_context.legacy = ctx.session
        ctx.lifespan_context.legacy_uris.add(str(p.uri))
        return types.EmptyResult()

    async def unsubscribe(ctx: ServerRequestContext[Upstream], p: types.UnsubscribeRequestParams) -> types.EmptyResult:
        ctx.lifespan_context.legacy_uris.discard(str(p.uri))
        return types.EmptyResult()

    async def track(ctx: ServerRequestContext[Upstream], call_next: Any) -> Any:
        """A 2025-era client hears changes on its own connection: remember it from any request it makes."""
        if ctx.method != "initialize" and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            ctx.lifespan_context.legacy = ctx.session
        return await call_next(ctx)

    server = Server(
        "pairdbg-join",
        version="0.1.0",
        lifespan=lifespan,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_subscribe_resource=subscribe,
        on_unsubscribe_resource=unsubscribe,
        on_subscriptions_listen=ListenHandler(bus),
    )
    server.middleware.append(track)
    return server


async def serve_join(url: str | None = None, token: str | None = None) -> int:
    if url is None or token is None:
        info = read_endpoint()
        if info is None:
            print(
                f"pairdbg --mcp --join: no running pairdbg to join (none has an endpoint entry in {state_dir()}). "
                "Start `pairdbg` (the TUI) or `pairdbg --mcp --http` first, in the same user session; "
                "`pairdbg --mcp` serves an agent a pairdbg of its own instead",
                file=sys.stderr,
            )
            return 2
        url, token = info["url"], info["token"]
    server = build_relay(url, token)
    opts = server.create_initialization_options(NotificationOptions(resources_changed=True, tools_changed=True))
    async with stdio_server() as (read, write):
        await server.run(read, write, opts)
    return 0
