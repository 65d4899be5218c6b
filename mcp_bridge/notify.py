"""Turns Hub events into MCP change notifications for both protocol generations, coalesced.

2026-07-28 clients only hear changes on `subscriptions/listen` streams (our own InMemorySubscriptionBus);
2025-era clients only on their connection's standalone channel, for URIs they `resources/subscribe`d. We keep one
ServerSession per legacy connection (from any request it made) so a person's action in the TUI reaches them too.
Each flush also asks the ToolList whether an app's tool group joined the list, and sends tools/list_changed if so.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp.server import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ResourcesListChanged,
    ResourceUpdated,
    ToolsListChanged,
)
from mcp.types import EmptyResult, SubscribeRequestParams, UnsubscribeRequestParams
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

from pairdbg.backends.events import (
    ActionPerformed,
    BreakpointsChanged,
    Event,
    OutputAppended,
    PhaseChanged,
    ResourceChanged,
    ResourceListChanged,
    SessionAdded,
    SessionRemoved,
    Stopped,
)
from pairdbg.backends.focus import HUMAN, FocusChanged
from pairdbg.backends.hub import Hub
from pairdbg.backends.notes import NoteAdded
from pairdbg.backends.policy import AgentModeChanged

from .agents import Agents

if TYPE_CHECKING:
    from .tools import ToolList

log = logging.getLogger(__name__)

SESSIONS_URI = "debug://sessions"
AGENT_URI = "debug://agent"  # what agents may do now (the agent mode) and whether they get secrets redacted
FOCUS_URI = "debug://focus/human"  # what the person looks at in the TUI
NOTES_URI = "debug://notes"  # notes between the person and the agents
COALESCE_S = 0.1
# The person's selection is flushed sooner: an agent asked to "look here" should see it at once (a key held down
# still coalesces into one notification per 10 ms).
FOCUS_COALESCE_S = 0.01
EXPIRY_S = 30  # how often idle agents are looked for


def session_uri(session_id: str) -> str:
    return f"{SESSIONS_URI}/{session_id}"


def output_uri(session_id: str) -> str:
    return f"{SESSIONS_URI}/{session_id}/output"


def connection_key(ctx: ServerRequestContext[Any, Any]) -> str:
    headers = getattr(ctx.request, "headers", None)
    return (headers.get("mcp-session-id") if headers is not None else None) or "stdio"


def agent_key(ctx: ServerRequestContext[Any, Any]) -> str:
    """Who a request comes from: its MCP session (2025-era HTTP), else its client's name on stdio or, for the
    stateless 2026-07-28 protocol, anywhere."""
    key = connection_key(ctx)
    if key != "stdio":
        return key
    prefix = "modern" if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS else "stdio"
    return f"{prefix}:{client_name(ctx)}"


def client_name(ctx: ServerRequestContext[Any, Any]) -> str:
    params = ctx.session.client_params
    info = getattr(params, "client_info", None) if params is not None else None
    return getattr(info, "name", None) or "agent"


class Notifier:
    def __init__(self, hub: Hub, listing: ToolList | None = None) -> None:
        self.hub = hub
        self.listing = listing  # checked on every flush: an app connecting adds its tools
        self.on_tools_changed: Callable[[], None] | None = None
        self.agents = Agents(hub.bus)
        self.bus = InMemorySubscriptionBus()
        self.legacy: dict[str, tuple[ServerSession, set[str]]] = {}
        self._dirty: set[str] = set()
        self._list_changed = False
        self._flush: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._expiry: asyncio.TimerHandle | None = None
        hub.bus.add_listener(self.on_event)

    def close(self) -> None:
        self.hub.bus.remove_listener(self.on_event)
        if self._flush is not None:
            self._flush.cancel()
        if self._expiry is not None:
            self._expiry.cancel()

    def gone(self, key: str) -> None:
        """A legacy connection ended (its session was deleted, or its stream closed): no longer an agent here."""
        self.legacy.pop(key, None)
        self.agents.forget(key)

    def listen_handler(self) -> Callable[..., Any]:
        """`subscriptions/listen` (2026-07-28 clients): an agent counts as connected while its stream is open,
        and stops counting when its last one closes (a stateless client has no session that could end)."""
        handler = ListenHandler(self.bus)

        async def listen(ctx: ServerRequestContext[Any, Any], params: Any) -> Any:
            key = agent_key(ctx)
            self.agents.opened(key)
            try:
                return await handler(ctx, params)
            finally:
                self.agents.closed(key)

        return listen

    def _expire(self) -> None:
        """Every EXPIRY_S: agents silent too long stop counting as connected, even if nobody else calls."""
        for stale in self.agents.expire(time.time()):
            self.legacy.pop(stale, None)
        self._expiry = asyncio.get_running_loop().call_later(EXPIRY_S, self._expire) if self.agents.names else None

    # ----- request-side hooks ----------------------------------------------------------------------------------

    async def track(self, ctx: ServerRequestContext[Any, Any], call_next: Any) -> Any:
        """Server middleware: remember who is connected, and each legacy connection's session for pushes."""
        key = connection_key(ctx)
        if ctx.method != "initialize":
            name = client_name(ctx)
            for stale in self.agents.saw(agent_key(ctx), name, time.time()):
                self.legacy.pop(stale, None)
            if self._expiry is None:
                self._expiry = asyncio.get_running_loop().call_later(EXPIRY_S, self._expire)
            if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
                _, uris = self.legacy.get(key, (None, set()))
                self.legacy[key] = (ctx.session, uris)
        return await call_next(ctx)

    async def on_subscribe(self, ctx: ServerRequestContext[Any, Any], params: SubscribeRequestParams) -> EmptyResult:
        key = connection_key(ctx)
        _, uris = self.legacy.get(key, (None, set()))
        uris.add(str(params.uri))
        self.legacy[key] = (ctx.session, uris)
        return EmptyResult()

    async def on_unsubscribe(
        self, ctx: ServerRequestContext[Any, Any], params: UnsubscribeRequestParams
    ) -> EmptyResult:
        entry = self.legacy.get(connection_key(ctx))
        if entry:
            entry[1].discard(str(params.uri))
        return EmptyResult()

    # ----- hub side ------------------------------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        sid = event.session_id
        if isinstance(event, (SessionAdded, SessionRemoved)):
            self._list_changed = True
            self._dirty.add(SESSIONS_URI)
        elif isinstance(event, OutputAppended) and sid:
            self._dirty.add(output_uri(sid))
        elif isinstance(event, (PhaseChanged, Stopped, BreakpointsChanged)) and sid:
            self._dirty.update((SESSIONS_URI, session_uri(sid)))
        elif isinstance(event, ActionPerformed) and sid:
            self._dirty.add(session_uri(sid))
        elif isinstance(event, ResourceChanged):
            self._dirty.add(event.uri)
        elif isinstance(event, ResourceListChanged):
            self._list_changed = True
        elif isinstance(event, AgentModeChanged):
            self._dirty.add(AGENT_URI)
        elif isinstance(event, FocusChanged) and event.actor == HUMAN:
            self._dirty.add(FOCUS_URI)
            self._schedule(FOCUS_COALESCE_S)
            return
        elif isinstance(event, NoteAdded):
            self._dirty.add(NOTES_URI)
            self._schedule(FOCUS_COALESCE_S)
            return
        else:
            return
        self._schedule(COALESCE_S)

    def _schedule(self, delay: float) -> None:
        """Flush within `delay`: a flush already due sooner stays, one due later is brought forward."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if self._flush is not None:
            if self._flush.when() <= loop.time() + delay:
                return
            self._flush.cancel()
        self._flush = loop.call_later(delay, self._start_flush)

    def _start_flush(self) -> None:
        self._flush = None
        dirty, self._dirty = self._dirty, set()
        list_changed, self._list_changed = self._list_changed, False
        tools_changed = self.listing is not None and self.listing.refresh()
        if tools_changed and self.on_tools_changed is not None:
            self.on_tools_changed()
        task = asyncio.create_task(self._send(dirty, list_changed, tools_changed))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, uris: set[str], list_changed: bool, tools_changed: bool = False) -> None:
        """Best effort: a gone client is not an error, and nothing here may raise into the loop."""
        try:
            if tools_changed:
                await self.bus.publish(ToolsListChanged())
                for session, _ in list(self.legacy.values()):
                    await session.send_tool_list_changed()
            if list_changed:
                await self.bus.publish(ResourcesListChanged())
                for session, _ in list(self.legacy.values()):
                    await session.send_resource_list_changed()
            for uri in sorted(uris):
                await self.bus.publish(ResourceUpdated(uri=uri))
                for session, subscribed in list(self.legacy.values()):
                    if uri in subscribed:
                        await session.send_resource_updated(uri)
        except Exception:
            log.debug("notification delivery failed", exc_info=True)
