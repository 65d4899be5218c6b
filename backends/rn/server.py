"""The WebSocket listener apps connect to (`/adapter`, PROTOCOL.md): handshake, one live connection, the mirror
fed from pushed events and snapshots, request/response with ids and timeouts, and the application heartbeat.

`listener(kind, stream)` hears every change (kind: connected, disconnected, replaced, events, snapshot, gap,
responsive); it runs synchronously on the loop and must be quick.

The wire protocol's models (`protocol`, P) are imported where a frame is read or written, not with this module: the
services are built before the MCP `initialize` answer, and defining those models was ~5 ms of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import itertools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from ..listener import LOOPBACK, ListenerServer, loopback_origin
from .config import RnConfig
from .mirror import Mirror, SessionMirror

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

    from . import protocol as P

log = logging.getLogger(__name__)

PATH = "/adapter"
SERVER_INFO = {"name": "pairdbg", "version": "0.1.0"}
MALFORMED_LIMIT = 3

Listener = Callable[[str, str | None], None]


class WireFailure(Exception):
    """A request that failed: a wire error code (PROTOCOL.md §6), a message and the adapter's details."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}


@dataclass
class Connection:
    ws: ServerConnection
    session: SessionMirror
    hello: P.Hello
    connected_at: float = field(default_factory=time.time)
    last_rx: float = field(default_factory=time.monotonic)
    unanswered_since: float | None = None  # monotonic time of the first ping not followed by any frame
    last_pong: float | None = None
    pong_stats: dict[str, Any] = field(default_factory=dict)
    rtt_ms: float | None = None
    pending: dict[str, asyncio.Future[Any]] = field(default_factory=dict)
    malformed: int = 0
    protocol_errors: int = 0
    ignored: int = 0
    frames: int = 0
    was_responsive: bool = True

    def responsive(self, timeout_s: float) -> bool:
        return self.unanswered_since is None or time.monotonic() - self.unanswered_since < timeout_s


class AdapterServer(ListenerServer):
    config: RnConfig

    def __init__(self, config: RnConfig, mirror: Mirror, listener: Listener | None = None) -> None:
        super().__init__(config, log)
        self.mirror = mirror
        self.listener = listener or (lambda kind, stream: None)
        self.conn: Connection | None = None
        self._ids = itertools.count(1)
        self.protocol_errors = 0
        self.last_close: dict[str, Any] | None = None

    # ----- lifecycle ----------------------------------------------------------------------------------------------

    async def start(self) -> None:
        await super().start()
        log.info("React Native listener on ws://%s:%s%s", self.config.WS_HOST, self.port, PATH)

    async def stop(self) -> None:
        await super().stop()
        if self.conn is not None:
            self._fail_pending(self.conn, "NOT_CONNECTED", "pairdbg is shutting down")

    @property
    def url(self) -> str:
        return f"ws://{self.config.WS_HOST}:{self.port}{PATH}"

    # ----- HTTP upgrade: path and Origin --------------------------------------------------------------------------

    def _check_request(self, ws: ServerConnection, request: Request) -> Response | None:
        if urlsplit(request.path).path != PATH:
            self.count("path")
            return ws.respond(HTTPStatus.NOT_FOUND, f"the React Native adapter endpoint is {PATH}\n")
        origin = request.headers.get("Origin")
        if not self._origin_ok(origin, request.headers.get("Host")):
            self.count("origin")
            log.warning("refused a WebSocket upgrade from Origin %r", origin)
            return ws.respond(HTTPStatus.FORBIDDEN, "this Origin may not connect to pairdbg\n")
        return None

    def _origin_ok(self, origin: str | None, host_header: str | None) -> bool:
        if origin is None or loopback_origin(origin):
            return True
        bind = self.config.WS_HOST
        if bind in LOOPBACK:
            return False
        try:
            host = urlsplit(origin).hostname
        except ValueError:
            return False
        if not host:
            return False
        if host == bind:
            return True
        try:
            ipaddress.ip_address(host)  # an IP literal cannot be DNS-rebound
        except ValueError:
            return False
        try:
            return host == urlsplit(f"//{host_header}").hostname
        except ValueError:
            return False

    # ----- one connection -----------------------------------------------------------------------------------------

    async def _reject(self, ws: ServerConnection, close: int, code: str, message: str, **extra: Any) -> None:
        from . import protocol as P

        self.count(code)
        log.warning("adapter refused (%s): %s", code, message)
        with contextlib.suppress(ConnectionClosed):
            await ws.send(P.dump(P.ErrorMsg(code=code, message=message, **extra)))
        await ws.close(close, message[:120])

    async def _handshake(self, ws: ServerConnection) -> tuple[P.Hello, dict[str, Any]] | None:
        from . import protocol as P

        try:
            async with asyncio.timeout(self.config.RN_HELLO_TIMEOUT_MS / 1000):
                frame = await ws.recv(decode=False)
        except TimeoutError:
            await self._reject(ws, P.CLOSE_HANDSHAKE, "BAD_REQUEST", "no hello within the handshake timeout")
            return None
        if self.too_large(frame):
            await self._reject(ws, P.CLOSE_TOO_LARGE, "PAYLOAD_TOO_LARGE", "hello frame too large")
            return None
        try:
            raw = P.parse_raw(frame)
        except P.ProtocolViolation as exc:
            await self._reject(ws, P.CLOSE_HANDSHAKE, "BAD_REQUEST", f"first frame must be hello: {exc}")
            return None
        if raw.get("t") != "hello":
            await self._reject(ws, P.CLOSE_HANDSHAKE, "BAD_REQUEST", f"first frame must be hello, got {raw.get('t')!r}")
            return None
        rng = raw.get("protocol")
        lo = rng.get("min") if isinstance(rng, dict) else None
        hi = rng.get("max") if isinstance(rng, dict) else None
        if isinstance(lo, int) and isinstance(hi, int) and max(lo, P.PROTOCOL_MIN) > min(hi, P.PROTOCOL_MAX):
            await self._reject(
                ws,
                P.CLOSE_UNSUPPORTED_VERSION,
                "UNSUPPORTED_VERSION",
                f"server speaks {P.PROTOCOL_MIN}..{P.PROTOCOL_MAX}, adapter {lo}..{hi}",
                server={"min": P.PROTOCOL_MIN, "max": P.PROTOCOL_MAX},
            )
            return None
        token = raw.get("token")
        if not self.token_ok(token):
            await self._reject(ws, P.CLOSE_UNAUTHORIZED, "UNAUTHORIZED", "bad or missing token")
            return None
        try:
            hello = P.parse_message(raw)
        except P.ProtocolViolation as exc:
            await self._reject(ws, P.CLOSE_HANDSHAKE, "BAD_REQUEST", f"invalid hello: {exc}")
            return None
        assert isinstance(hello, P.Hello)
        return hello, raw

    async def _handle(self, ws: ServerConnection) -> None:
        from . import protocol as P

        got = await self._handshake(ws)
        if got is None:
            return
        hello, raw = got
        old = self.conn
        session, resumed = self.mirror.open(hello.sessionId)
        session.hello = {k: v for k, v in raw.items() if k not in ("token", "v", "t")}
        for info in hello.streams:
            session.stream(info.name).info = info.model_dump()
        conn = Connection(ws, session, hello)
        self.conn = conn
        if old is not None:
            self._fail_pending(old, "NOT_CONNECTED", "the adapter connection was replaced")
            asyncio.get_running_loop().create_task(old.ws.close(P.CLOSE_REPLACED, "replaced by a newer connection"))
        resume = {name: s.last_seq for name, s in session.streams.items()}
        welcome = P.Welcome(
            protocol=P.PROTOCOL_MAX,
            server=SERVER_INFO,
            sessionId=hello.sessionId,
            resume=resume,
            heartbeat={"intervalMs": self.config.RN_HEARTBEAT_MS, "timeoutMs": self.config.RN_HEARTBEAT_TIMEOUT_MS},
            limits={
                "maxMessageBytes": self.config.MAX_PAYLOAD_SIZE,
                "maxSnapshotBytes": max(1024, self.config.MAX_PAYLOAD_SIZE - 16 * 1024),
                "maxEventBytes": min(65536, self.config.MAX_PAYLOAD_SIZE // 4),
            },
            serverTime=int(time.time() * 1000),
        )
        log.info(
            "adapter connected: session %s (%s), resume %s", hello.sessionId, "resumed" if resumed else "new", resume
        )
        heartbeat = asyncio.get_running_loop().create_task(self._heartbeat(conn))
        close_info: dict[str, Any] = {}
        try:
            await ws.send(P.dump(welcome))
            self.listener("connected", None)
            await self._read_loop(conn)
        except ConnectionClosed:
            pass
        finally:
            heartbeat.cancel()
            close_info = {
                "code": ws.close_code,
                "reason": ws.close_reason or "",
                "at": time.time(),
                "sessionId": hello.sessionId,
            }
            if self.conn is conn:
                self.conn = None
                self.last_close = close_info
                self._fail_pending(conn, "NOT_CONNECTED", "the app disconnected while the request waited")
                log.info("adapter disconnected: %s", close_info)
                self.listener("disconnected", None)

    async def _read_loop(self, conn: Connection) -> None:
        from . import protocol as P

        ws = conn.ws
        limit = self.config.MAX_PAYLOAD_SIZE
        while True:
            frame = await ws.recv(decode=False)
            conn.last_rx = time.monotonic()
            conn.frames += 1
            if conn.unanswered_since is not None:
                conn.unanswered_since = None
                if not conn.was_responsive:
                    conn.was_responsive = True
                    self.listener("responsive", None)
            size = len(frame)
            if size > limit:
                await self._reject(
                    ws, P.CLOSE_TOO_LARGE, "PAYLOAD_TOO_LARGE", f"frame of {size} bytes exceeds maxMessageBytes {limit}"
                )
                return
            try:
                msg = P.parse_message(raw := P.parse_raw(frame))
            except P.ProtocolViolation as exc:
                if exc.kind == "malformed":
                    conn.malformed += 1
                    log.warning("malformed frame %d from the adapter: %s", conn.malformed, exc)
                    if conn.malformed >= MALFORMED_LIMIT:
                        await self._reject(ws, P.CLOSE_MALFORMED, "BAD_REQUEST", f"{conn.malformed} malformed frames")
                        return
                elif exc.kind == "unknown":
                    conn.ignored += 1
                    log.debug("ignored a message of unknown type %r", exc.t)
                else:
                    conn.protocol_errors += 1
                    self.protocol_errors += 1
                    log.warning("invalid message from the adapter: %s", exc)
                continue
            self._dispatch(conn, msg, raw, size)
            if isinstance(msg, P.Bye):
                await ws.close(1000, "bye")
                return

    def _dispatch(self, conn: Connection, msg: P.Message, raw: dict[str, Any], size: int) -> None:
        from . import protocol as P

        now = time.time()
        session = conn.session
        if isinstance(msg, P.Events):
            items = raw["items"]
            each = max(1, size // max(1, len(items)))
            touched: set[str] = set()
            for item in items:
                if session.stream(item["stream"]).add_event(item, each, now):
                    touched.add(item["stream"])
            for name in touched:
                self.listener("events", name)
        elif isinstance(msg, P.Snapshot):
            session.stream(msg.stream).add_snapshot(msg.seq, raw.get("data"), size, now)
            self.listener("snapshot", msg.stream)
        elif isinstance(msg, P.Gap):
            session.stream(msg.stream).gap(msg.from_, msg.to, msg.reason)
            self.listener("gap", msg.stream)
        elif isinstance(msg, P.Res):
            fut = conn.pending.get(msg.id)
            if fut is not None and not fut.done():
                fut.set_result(msg)
        elif isinstance(msg, P.Pong):
            conn.last_pong = now
            conn.pong_stats = msg.stats
            if msg.ts is not None:
                conn.rtt_ms = max(0.0, now * 1000 - msg.ts)

    async def _heartbeat(self, conn: Connection) -> None:
        from . import protocol as P

        interval = self.config.RN_HEARTBEAT_MS / 1000
        timeout = self.config.RN_HEARTBEAT_TIMEOUT_MS / 1000
        with contextlib.suppress(ConnectionClosed, asyncio.CancelledError):
            while True:
                await asyncio.sleep(min(interval, timeout / 2) if conn.unanswered_since else interval)
                if conn.unanswered_since is None:
                    conn.unanswered_since = time.monotonic()
                await conn.ws.send(P.dump(P.Ping(ts=int(time.time() * 1000))))
                if conn.was_responsive and not conn.responsive(timeout):
                    conn.was_responsive = False
                    log.warning("the app stopped answering (JS thread stalled?)")
                    self.listener("responsive", None)

    def _fail_pending(self, conn: Connection, code: str, message: str) -> None:
        for fut in conn.pending.values():
            if not fut.done():
                fut.set_exception(WireFailure(code, message))
        conn.pending.clear()

    # ----- requests -----------------------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self.conn is not None

    def responsive(self) -> bool:
        return self.conn is not None and self.conn.responsive(self.config.RN_HEARTBEAT_TIMEOUT_MS / 1000)

    async def request(self, method: str, params: dict[str, Any], timeout_ms: int | None = None) -> Any:
        """The adapter's `result` for one request. Raises WireFailure (NOT_CONNECTED, TIMEOUT or the app's code)."""
        from . import protocol as P

        conn = self.conn
        if conn is None:
            raise WireFailure("NOT_CONNECTED", "no React Native app is connected")
        if not conn.responsive(self.config.RN_HEARTBEAT_TIMEOUT_MS / 1000):
            silent = time.monotonic() - conn.last_rx
            raise WireFailure(
                "TIMEOUT",
                f"the app has not answered for {silent:.1f}s (JS thread stalled?)",
                {"silentForMs": int(silent * 1000)},
            )
        timeout_ms = timeout_ms or self.config.REQUEST_TIMEOUT_MS
        rid = f"r{next(self._ids)}"
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        conn.pending[rid] = fut
        try:
            try:
                await conn.ws.send(P.dump(P.Req(id=rid, method=method, params=params, timeoutMs=timeout_ms)))
            except ConnectionClosed:
                raise WireFailure("NOT_CONNECTED", "the app disconnected") from None
            try:
                async with asyncio.timeout(timeout_ms / 1000):
                    res: P.Res = await fut
            except TimeoutError:
                raise WireFailure(
                    "TIMEOUT", f"{method}: no answer from the app within {timeout_ms} ms", {"timeoutMs": timeout_ms}
                ) from None
        finally:
            conn.pending.pop(rid, None)
        if not res.ok:
            err = res.error or P.WireError(code="INTERNAL", message="the adapter failed without an error object")
            raise WireFailure(err.code, err.message or err.code, err.details)
        return res.result
