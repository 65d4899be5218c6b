"""The parts of the HTTP endpoint that need the MCP SDK and uvicorn (~0.4-0.7 s to import): the ASGI app behind
the bearer token, uvicorn's protocol with a header deadline, and the embedded server. Imported only when an
endpoint starts (`HttpMcpService.start`), so binding the port and printing its address cost nothing."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from pairdbg.backends.actions.registry import Registry
from pairdbg.backends.hub import Hub
from pairdbg.backends.logbudget import limit

from .http import HEADER_TIMEOUT_S, MCP_PATH
from .notify import Notifier
from .server import build_server

limit("uvicorn.error")  # a client's malformed requests cannot flood pairdbg's log


class BearerAuth:
    """ASGI wrapper: every HTTP request must carry `Authorization: Bearer <token>`; lifespan passes through."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                body = json.dumps(
                    {
                        "error": "unauthorized",
                        "message": "missing or wrong bearer token",
                        "hint": "run `pairdbg mcp-config` for the Authorization header",
                    }
                ).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


class HeaderDeadline(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline for each request's headers; a long response (an SSE stream) is
    not limited, only the wait for a request to be complete."""

    _deadline: asyncio.TimerHandle | None = None
    _timed: object | None = None  # the request whose headers arrived in time

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self.cycle is not None and self.cycle is not self._timed:  # a new request's headers are in
            self._timed = self.cycle
            self._disarm()

    def on_response_complete(self) -> None:
        self._arm()  # before the next request is read (a pipelined one disarms it at once)
        super().on_response_complete()
        if self.transport.is_closing():
            self._disarm()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(HEADER_TIMEOUT_S, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()


class Presence:
    """ASGI wrapper: notices a legacy agent leaving. An MCP session ends with a DELETE (a client closing cleanly),
    or its standalone GET stream closes (a client that died); either way it stops counting as connected."""

    def __init__(self, app: Any, gone: Any) -> None:
        self.app = app
        self.gone = gone  # called with the mcp-session-id
        self._streams: dict[str, int] = {}  # session id -> open GET streams

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        key = dict(scope.get("headers") or []).get(b"mcp-session-id", b"").decode(errors="replace")
        method = scope.get("method")
        if not key or method not in ("GET", "DELETE"):
            await self.app(scope, receive, send)
            return
        if method == "DELETE":
            try:
                await self.app(scope, receive, send)
            finally:
                self.gone(key)
            return
        self._streams[key] = self._streams.get(key, 0) + 1
        try:
            await self.app(scope, receive, send)
        finally:
            left = self._streams[key] - 1
            if left:
                self._streams[key] = left
            else:
                del self._streams[key]
                self.gone(key)


class EmbeddedUvicorn(uvicorn.Server):
    """uvicorn normally takes over SIGINT/SIGTERM; inside pairdbg the app owns signals."""

    @contextlib.contextmanager
    def capture_signals(self):  # type: ignore[override]
        yield


def build(
    hub: Hub,
    registry: Registry,
    host: str,
    token: str,
    *,
    tools: str | None,
    profile: str | None,
    output_schemas: bool = False,
) -> tuple[Any, Notifier, EmbeddedUvicorn]:
    """The MCP server over `registry`, its notifier, and the uvicorn server that serves it behind `token`."""
    server, notifier = build_server(hub, registry, tools=tools, profile=profile, output_schemas=output_schemas)
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    config = uvicorn.Config(
        BearerAuth(Presence(app, notifier.gone), token),
        http=HeaderDeadline,
        log_config=None,
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=1,
    )
    return server, notifier, EmbeddedUvicorn(config)
