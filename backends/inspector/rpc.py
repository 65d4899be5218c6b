"""JSON-RPC over one WebSocket, for the WebKit Inspector Protocol and CDP alike.

Commands get ids and futures with a timeout; events go to a callback; a dead socket fails every pending command
with NOT_CONNECTED and calls `on_close` once. WebKitGTK serves page targets multiplexed through
`Target.sendMessageToTarget`: with `wrapped=True`, every command is sent inside that envelope and replies and events
are unwrapped from `Target.dispatchMessageFromTarget`, so callers never see the difference.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import urljoin, urlparse

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI

from ..errors import DebugError, ErrorCode
from ..hosts import resolve_one
from ..tcp import ack_now, keep_alive, tcp_socket

log = logging.getLogger(__name__)

EventHandler = Callable[[str, dict[str, Any]], None]
MAX_MESSAGE = 64 * 1024 * 1024


class QuickAckConnection(ClientConnection):
    """Acknowledges every segment at once, and turns on TCP keepalive.

    Once the Debugger domain is on, Node's inspector answers in two small writes with Nagle's algorithm on; the
    second waits for our ACK of the first, which Linux delays by ~40 ms. Measured: 44 ms per request before,
    0.2 ms after. TCP_QUICKACK is not sticky, so it is set again after every read.
    """

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        keep_alive(tcp_socket(transport))

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        ack_now(tcp_socket(self.transport))


class RedirectRefused(InvalidHandshake):
    def __init__(self, location: str) -> None:
        super().__init__(f"it redirects to {location[:200]!r}; pairdbg does not follow inspector redirects")


class NoRedirects(connect):
    """websockets' connect, refusing every redirect of the opening handshake: the hop after a redirect would skip
    the allow-list (and the connection is made to the checked address, not to a name looked up again)."""

    def process_redirect(self, exc: Exception) -> Exception | str:
        if isinstance(exc, InvalidStatus) and 300 <= exc.response.status_code < 400:
            return RedirectRefused(urljoin(self.uri, exc.response.headers.get("Location", "?")))
        return exc


class InspectorRpc:
    def __init__(
        self,
        url: str,
        on_event: EventHandler,
        on_close: Callable[[str], None] | None = None,
        allowed: list[str] | None = None,
    ) -> None:
        self.url = url
        self.allowed = list(allowed or [])
        self._on_event = on_event
        self._on_close = on_close
        self._ws: ClientConnection | None = None
        self._next_id = 0
        self._pending: dict[int, tuple[str, asyncio.Future[dict[str, Any]]]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._closed_reason: str | None = None
        self.target_id: str | None = None  # set when commands travel inside Target.sendMessageToTarget
        self._target_ready = asyncio.Event()

    @property
    def closed(self) -> bool:
        return self._closed_reason is not None

    async def open(self, timeout: float = 5.0, wrapped: bool = False, headers: dict[str, str] | None = None) -> None:
        parsed = urlparse(self.url)
        if not parsed.hostname:
            raise DebugError(ErrorCode.INVALID_PARAMETERS, f"{self.url[:200]!r} names no host")
        port = parsed.port or (443 if parsed.scheme == "wss" else 80)
        address = await resolve_one(parsed.hostname, port, self.allowed, "inspectors")
        try:
            self._ws = await NoRedirects(
                self.url,
                host=address,
                port=port,
                additional_headers=headers,
                open_timeout=timeout,
                max_size=MAX_MESSAGE,
                # No WebSocket pings: Node's inspector closes the connection when it receives one (every Node session
                # used to end ~10 s in). A vanished peer is found by TCP keepalive instead (QuickAckConnection).
                ping_interval=None,
                close_timeout=2,
                compression=None,
                proxy=None,
                create_connection=QuickAckConnection,
            )
        except (OSError, TimeoutError, InvalidHandshake, InvalidURI) as exc:
            raise DebugError(
                ErrorCode.CONNECTION_FAILED,
                f"cannot open the inspector WebSocket {self.url}: {exc.__class__.__name__}: {exc}",
                hint="check the URL (ws://host:port/path) and that the target is running with its inspector on",
            ) from None
        self._reader = asyncio.create_task(self._read_loop(), name="inspector-reader")
        if wrapped:
            try:
                await asyncio.wait_for(self._target_ready.wait(), timeout)
            except TimeoutError:
                await self.close()
                raise DebugError(ErrorCode.PROTOCOL_ERROR, "the inspector announced no page target") from None

    async def send(self, method: str, params: dict[str, Any] | None = None, timeout: float = 10.0) -> dict[str, Any]:
        if self._closed_reason is not None or self._ws is None:
            raise DebugError(ErrorCode.NOT_CONNECTED, f"the inspector connection is closed ({self._closed_reason})")
        self._next_id += 1
        msg_id = self._next_id
        message: dict[str, Any] = {"id": msg_id, "method": method, "params": params or {}}
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        fut.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._pending[msg_id] = (method, fut)
        if self.target_id is not None:
            self._next_id += 1
            message = {
                "id": self._next_id,
                "method": "Target.sendMessageToTarget",
                "params": {"targetId": self.target_id, "message": json.dumps(message)},
            }
        try:
            await self._ws.send(json.dumps(message))
        except ConnectionClosed:
            self._pending.pop(msg_id, None)
            raise DebugError(ErrorCode.NOT_CONNECTED, "the inspector connection closed") from None
        try:
            return await asyncio.wait_for(asyncio.shield(fut), timeout)
        except TimeoutError:
            self._pending.pop(msg_id, None)
            raise DebugError(ErrorCode.TIMEOUT, f"the target did not answer {method} within {timeout:g}s") from None

    async def _read_loop(self) -> None:
        assert self._ws is not None
        reason = "the target closed the connection"
        try:
            async for raw in self._ws:
                try:
                    self._dispatch(json.loads(raw))
                except (ValueError, TypeError):
                    log.warning("dropped a malformed inspector message")
        except ConnectionClosed as exc:
            reason = f"connection closed ({exc.rcvd.code if exc.rcvd else 'no close frame'})"
        except asyncio.CancelledError:
            reason = "closed by pairdbg"
            raise
        except Exception as exc:  # whatever breaks the socket ends the session, never the loop
            reason = f"connection failed: {exc.__class__.__name__}"
        finally:
            self._shutdown(reason)

    def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method == "Target.targetCreated":
            info = (message.get("params") or {}).get("targetInfo") or {}
            if self.target_id is None and info.get("type") in ("page", "web-page", None):
                self.target_id = info.get("targetId")
                self._target_ready.set()
            return
        if method == "Target.didCommitProvisionalTarget":
            # WebKit replaces a page's target when it navigates to another site (process swap). Follow it, and
            # let the backend set the new target up as it did the first one.
            params = message.get("params") or {}
            if params.get("oldTargetId") == self.target_id and params.get("newTargetId"):
                self.target_id = params["newTargetId"]
                self._on_event("Target.targetSwapped", params)
            return
        if method == "Target.dispatchMessageFromTarget":
            params = message.get("params") or {}
            if params.get("targetId") == self.target_id:
                self._dispatch(json.loads(params.get("message") or "{}"))
            return
        if "id" in message and method is None:
            entry = self._pending.pop(message["id"], None)
            if entry is None:
                if "error" in message:  # an envelope (Target.sendMessageToTarget) failed
                    log.warning("inspector envelope error: %s", message["error"])
                return
            command, fut = entry
            if fut.done():
                return
            if "error" in message:
                error = message["error"] or {}
                fut.set_exception(
                    DebugError(
                        ErrorCode.PROTOCOL_ERROR,
                        f"{command}: {error.get('message', error)}",
                        command=command,
                        protocol_code=error.get("code"),
                    )
                )
            else:
                fut.set_result(message.get("result") or {})
            return
        if method:
            try:
                self._on_event(method, message.get("params") or {})
            except Exception:
                log.exception("inspector event handler failed for %s", method)

    def _shutdown(self, reason: str) -> None:
        if self._closed_reason is not None:
            return
        self._closed_reason = reason
        for command, fut in self._pending.values():
            if not fut.done():
                fut.set_exception(DebugError(ErrorCode.NOT_CONNECTED, f"{command}: the target went away ({reason})"))
        self._pending.clear()
        if self._on_close is not None:
            self._on_close(reason)

    async def close(self) -> None:
        self._on_close = None  # a deliberate close is not a lost connection
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._ws.close(), 2)
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        self._shutdown("closed by pairdbg")
