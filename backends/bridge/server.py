"""The debug-bridge listener (PROTOCOL.md): serves the SDK at /debug-bridge.js and the relay at /debug.

Apps (`role=app`) pass the Origin check at the upgrade and the token in their `hello`; agents (`role=agent`) pass
a bearer token at the upgrade. App messages update the Page mirror through the `Hooks` (the service) and are
relayed to the session's agents; agent commands go to the session's current app. A bad frame is answered with an
`error` message and never ends the loop; every other session keeps being served.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import deque
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import parse_qs, urlsplit

from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from ..listener import ListenerServer, loopback_origin
from .config import BridgeConfig
from .page import AppConn, Page

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

log = logging.getLogger(__name__)

SDK_PATH = Path(__file__).with_name("sdk") / "debug-bridge.js"
WS_PATH = "/debug"
JS_PATH = "/debug-bridge.js"
COMMANDS = {"click", "type", "navigate", "evaluate", "request_ui_tree", "request_dom_snapshot", "request_state"}
APP_TYPES = {
    "hello",
    "capabilities",
    "dom_snapshot",
    "dom_mutations",
    "ui_tree",
    "console",
    "error",
    "unhandledrejection",
    "state_update",
    "navigation",
    "command_result",
}
MALFORMED_LIMIT = 20
AGENT_QUEUE_BYTES = 16 * 1024 * 1024  # what a slow relay agent may have waiting before the oldest is dropped

# Close codes (PROTOCOL.md §3)
CLOSE_ENDED = 4000
CLOSE_UNAUTHORIZED = 4001
CLOSE_VERSION = 4002
CLOSE_NO_HELLO = 4003
CLOSE_REPLACED = 4004
CLOSE_TOO_LARGE = 4005
CLOSE_MALFORMED = 4006
CLOSE_LIMIT = 4008


class Reject(Exception):
    """The service refuses an app's hello: close with `close` after an error message."""

    def __init__(self, close: int, code: str, message: str) -> None:
        super().__init__(message)
        self.close, self.code, self.message = close, code, message


class Hooks(Protocol):
    async def app_hello(self, page: Page, hello: dict[str, Any]) -> dict[str, Any]: ...
    def app_message(self, page: Page, msg: dict[str, Any]) -> dict[str, Any]: ...
    def app_closed(self, page: Page, code: int | None, reason: str) -> None: ...
    def agent_command(self, page: Page, msg: dict[str, Any], agent: str) -> None: ...


class AgentConn:
    """A plain WebSocket agent on the relay, with a bounded send queue so a slow reader never stalls the app."""

    def __init__(self, ws: ServerConnection, name: str, session_id: str) -> None:
        self.ws = ws
        self.name = name
        self.session_id = session_id
        self.queue: deque[str] = deque()
        self.queued = 0  # characters waiting
        self.dropped = 0  # not yet reported to the agent
        self._ready = asyncio.Event()
        self.task = asyncio.create_task(self._writer())

    def push(self, text: str) -> None:
        self.queue.append(text)
        self.queued += len(text)
        while self.queued > AGENT_QUEUE_BYTES and len(self.queue) > 1:
            self.queued -= len(self.queue.popleft())
            self.dropped += 1
        self._ready.set()

    async def _writer(self) -> None:
        with contextlib.suppress(ConnectionClosed, asyncio.CancelledError):
            while True:
                await self._ready.wait()
                self._ready.clear()
                while self.queue:
                    if self.dropped:
                        n, self.dropped = self.dropped, 0
                        note = f"{n} relayed messages were dropped: this agent read slower than the page sent"
                        await self.ws.send(envelope(self.session_id, "error", code="DROPPED", message=note, count=n))
                    text = self.queue.popleft()
                    self.queued -= len(text)
                    await self.ws.send(text)


def envelope(session_id: str, kind: str, origin: str = "server", **fields: Any) -> str:
    return json.dumps(
        {"sessionId": session_id, "timestamp": int(time.time() * 1000), "origin": origin, "type": kind, **fields},
        ensure_ascii=False,
    )


class BridgeServer(ListenerServer):
    SERVE_OPTIONS = {"max_queue": 64, "compression": None}
    config: BridgeConfig

    def __init__(self, config: BridgeConfig, hooks: Hooks) -> None:
        super().__init__(config, log)
        self.hooks = hooks
        self.pages: dict[str, Page] = {}
        self.malformed = 0
        self._sdk: bytes | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    # ----- lifecycle ----------------------------------------------------------------------------------------------

    async def start(self) -> None:
        await super().start()
        log.info("debug-bridge listening on %s", self.url)

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await super().stop()
        self.port = None

    @property
    def url(self) -> str:
        return f"ws://{self.config.host}:{self.port or self.config.port}{WS_PATH}"

    @property
    def http_url(self) -> str:
        return f"http://{self.config.host}:{self.port or self.config.port}"

    def forget_if_idle(self, page: Page) -> None:
        """Drop a Page nobody uses any more (no app, no relay agent, no session waiting), so ids do not pile up."""
        if page.app is None and not page.agents and not page.has_session and self.pages.get(page.session_id) is page:
            del self.pages[page.session_id]

    def page(self, session_id: str) -> Page:
        page = self.pages.get(session_id)
        if page is None:
            page = self.pages[session_id] = Page(session_id)
        return page

    # ----- HTTP: the SDK file, the upgrade checks -----------------------------------------------------------------

    def origin_allowed(self, origin: str | None) -> bool:
        if origin is None:
            return False
        origin = origin.rstrip("/")
        return origin in self.config.origins or loopback_origin(origin, ("http", "https"))

    def _check_request(self, ws: ServerConnection, request: Request) -> Response | None:
        parts = urlsplit(request.path)
        origin = request.headers.get("Origin")
        if parts.path == JS_PATH:
            return self._serve_sdk(ws, origin)
        if parts.path != WS_PATH:
            self.count("path")
            return ws.respond(HTTPStatus.NOT_FOUND, f"debug-bridge serves {WS_PATH} and {JS_PATH}\n")
        query = parse_qs(parts.query)
        role = (query.get("role") or ["app"])[0]
        if role not in ("app", "agent"):
            self.count("role")
            return ws.respond(HTTPStatus.BAD_REQUEST, f"role must be app or agent, not {role!r}\n")
        if origin is not None and not self.origin_allowed(origin):
            self.count("origin")
            log.warning("debug-bridge refused an upgrade from Origin %r", origin)
            return ws.respond(HTTPStatus.FORBIDDEN, f"Origin {origin} may not connect (PAIRDBG_BRIDGE_ORIGINS)\n")
        if role == "app" and origin is None:
            self.count("origin")
            return ws.respond(HTTPStatus.FORBIDDEN, "role=app needs a browser Origin; tools connect as role=agent\n")
        if role == "agent":
            auth = request.headers.get("Authorization") or ""
            token = auth[7:].strip() if auth[:7].lower() == "bearer " else (query.get("token") or [""])[0]
            if not self.token_ok(token):
                self.count("UNAUTHORIZED")
                return ws.respond(HTTPStatus.UNAUTHORIZED, "bad or missing token (Authorization: Bearer ...)\n")
        return None

    def _serve_sdk(self, ws: ServerConnection, origin: str | None) -> Response:
        if self._sdk is None:
            try:
                self._sdk = SDK_PATH.read_bytes()
            except OSError as exc:
                log.error("the debug-bridge SDK file cannot be read: %s", exc)
                return ws.respond(HTTPStatus.INTERNAL_SERVER_ERROR, f"SDK file missing: {SDK_PATH.name}\n")
        response = ws.respond(HTTPStatus.OK, "")
        response.body = self._sdk
        headers = response.headers
        del headers["Content-Type"], headers["Content-Length"]
        headers["Content-Type"] = "text/javascript; charset=utf-8"
        headers["Content-Length"] = str(len(self._sdk))
        headers["Cache-Control"] = "no-cache"
        if origin is not None and self.origin_allowed(origin):
            headers["Access-Control-Allow-Origin"] = origin
            headers["Vary"] = "Origin"
        return response

    # ----- connections --------------------------------------------------------------------------------------------

    async def _handle(self, ws: ServerConnection) -> None:
        query = parse_qs(urlsplit(ws.request.path).query) if ws.request else {}
        session_id = ((query.get("sessionId") or ["default"])[0] or "default")[:200]
        if (query.get("role") or ["app"])[0] == "agent":
            await self._agent(ws, session_id)
        else:
            await self._app(ws, session_id)

    async def _error(self, ws: ServerConnection, session_id: str, code: str, message: str, **extra: Any) -> None:
        with contextlib.suppress(ConnectionClosed):
            await ws.send(envelope(session_id, "error", code=code, message=message, **extra))

    async def _refuse(self, ws: ServerConnection, session_id: str, close: int, code: str, message: str) -> None:
        self.count(code)
        log.warning("debug-bridge refused an app (%s): %s", code, message)
        await self._error(ws, session_id, code, message)
        await ws.close(close, message[:120])

    def _parse(self, frame: str | bytes) -> dict[str, Any] | str:
        """The message, or why it is not one."""
        if self.too_large(frame):
            return f"TOO_LARGE:{len(frame)}"
        try:
            msg = json.loads(frame)
        except (ValueError, UnicodeDecodeError) as exc:
            return f"MALFORMED:not JSON ({exc})"
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            return "MALFORMED:a message is a JSON object with a string `type`"
        return msg

    async def _app(self, ws: ServerConnection, session_id: str) -> None:
        try:
            async with asyncio.timeout(self.config.hello_timeout_s):
                frame = await ws.recv()
        except TimeoutError:
            await self._refuse(ws, session_id, CLOSE_NO_HELLO, "BAD_REQUEST", "no hello within 5 s of connecting")
            return
        except ConnectionClosed:
            return
        hello = self._parse(frame)
        if isinstance(hello, str):
            close = CLOSE_TOO_LARGE if hello.startswith("TOO_LARGE") else CLOSE_NO_HELLO
            await self._refuse(ws, session_id, close, "BAD_REQUEST", f"the first frame must be hello ({hello})")
            return
        if hello["type"] != "hello":
            await self._refuse(ws, session_id, CLOSE_NO_HELLO, "BAD_REQUEST", f"first frame was {hello['type']!r}")
            return
        if not self.token_ok(hello.get("token")):
            await self._refuse(ws, session_id, CLOSE_UNAUTHORIZED, "UNAUTHORIZED", "bad or missing token in hello")
            return
        if hello.get("protocolVersion") != 1:
            await self._refuse(
                ws,
                session_id,
                CLOSE_VERSION,
                "UNSUPPORTED_VERSION",
                f"this server speaks protocolVersion 1, the app sent {hello.get('protocolVersion')!r}",
            )
            return
        page = self.page(session_id)
        async with page.lock:  # one hello at a time per session id: no two Hub sessions, no lost replacement
            app = await self._admit(ws, page, hello)
        if app is None:
            return
        code, reason = None, ""
        try:
            await ws.send(envelope(session_id, "welcome", protocolVersion=1, **app.welcome))
            self._relay(page, hello_for_agents(hello), None)
            async for frame in ws:
                if not await self._app_frame(page, app, frame):
                    break
        except ConnectionClosed:
            pass
        finally:
            if ws.close_code is not None:
                code, reason = ws.close_code, ws.close_reason or ""
            if page.app is app:
                page.detach(app, code, reason)
                self.hooks.app_closed(page, code, reason)
                self.forget_if_idle(page)

    async def _admit(self, ws: ServerConnection, page: Page, hello: dict[str, Any]) -> AppConn | None:
        """Decide on an authenticated hello: refuse it, or make it the page's current app (replacing an older
        connection, which is closed in the background so a half-dead peer cannot hold the session up)."""
        sid = page.session_id
        previous = page.app
        if (
            previous is not None
            and hello.get("sessionIdAuto")
            and not page.same_load(hello)
            and not page.unloading
            and previous.ws.close_code is None
        ):
            # Another live page load holds this generated id: a duplicated tab copied it from sessionStorage.
            # The newcomer splits off (the SDK makes a fresh id on 4004); the original keeps its session.
            await self._refuse(ws, sid, CLOSE_REPLACED, "DUPLICATE", "another tab is connected with this sessionId")
            return None
        try:
            welcome = await self.hooks.app_hello(page, hello)
        except Reject as exc:
            await self._refuse(ws, sid, exc.close, exc.code, exc.message)
            self.forget_if_idle(page)
            return None
        except Exception as exc:
            log.exception("debug-bridge could not open a session for %s", sid)
            await self._refuse(ws, sid, 1011, "INTERNAL", f"pairdbg could not open a session: {exc}")
            self.forget_if_idle(page)
            return None
        app = AppConn(ws, hello, str(hello.get("loadId") or ""), int(welcome.get("refBase") or 0))
        app.welcome = {**welcome, "maxMessageBytes": self.config.max_message}
        if previous is not None:
            page.detach(previous, CLOSE_REPLACED, "replaced by a newer connection")
            self._spawn(previous.ws.close(CLOSE_REPLACED, "replaced by a newer connection with this sessionId"))
        page.attach(app)
        return app

    def _spawn(self, coro) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.debug("debug-bridge background task failed: %s", task.exception())

    async def _app_frame(self, page: Page, app: AppConn, frame: str | bytes) -> bool:
        if page.app is not app:
            return False  # replaced: its frames no longer speak for the page
        msg = self._parse(frame)
        if isinstance(msg, str):
            kind, _, why = msg.partition(":")
            if kind == "TOO_LARGE":  # dropped, said, and the page stays connected (4x the limit closes it: 1009)
                self.count("TOO_LARGE")
                await self._error(
                    app.ws,
                    page.session_id,
                    "PAYLOAD_TOO_LARGE",
                    f"a frame of {why} characters was dropped (maxMessageBytes {self.config.max_message})",
                )
                return True
            self.malformed += 1
            app.malformed_in_a_row += 1
            await self._error(app.ws, page.session_id, "MALFORMED", why)
            if app.malformed_in_a_row >= MALFORMED_LIMIT:
                await app.ws.close(CLOSE_MALFORMED, "too many malformed frames")
                return False
            return True
        app.malformed_in_a_row = 0
        if msg["type"] not in APP_TYPES:
            self.malformed += 1
            await self._error(app.ws, page.session_id, "UNKNOWN_TYPE", f"unknown message type {msg['type']!r}")
            return True
        try:
            relayed = self.hooks.app_message(page, msg)
        except Exception:  # a bug in handling one message must not end the page's connection
            log.exception("debug-bridge could not handle a %s message", msg["type"])
            return True
        if page.agents and relayed is not None:
            self._relay(page, relayed, frame if relayed is msg else None)
        return True

    def _relay(self, page: Page, msg: dict[str, Any], raw: str | bytes | None) -> None:
        if not page.agents:
            return
        if msg.get("type") == "command_result" or raw is None:
            text = json.dumps(msg, ensure_ascii=False)
        else:
            text = raw if isinstance(raw, str) else raw.decode("utf-8", "replace")
        for agent in page.agents:
            agent.push(text)

    async def _agent(self, ws: ServerConnection, session_id: str) -> None:
        page = self.page(session_id)
        name = f"ws-agent@{ws.remote_address[0] if ws.remote_address else '?'}"
        agent = AgentConn(ws, name, session_id)
        page.agents.add(agent)
        try:
            if page.app is not None:
                agent.push(json.dumps(hello_for_agents(page.hello), ensure_ascii=False))
            async for frame in ws:
                msg = self._parse(frame)
                if isinstance(msg, str):
                    self.malformed += 1
                    kind, _, why = msg.partition(":")
                    agent.push(
                        envelope(session_id, "error", code="MALFORMED" if kind != "TOO_LARGE" else kind, message=why)
                    )
                    continue
                await self._agent_message(page, agent, msg)
        except ConnectionClosed:
            pass
        finally:
            page.agents.discard(agent)
            agent.task.cancel()
            self.forget_if_idle(page)

    async def _agent_message(self, page: Page, agent: AgentConn, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        rid = msg.get("requestId")

        def result(code: str, error: str) -> None:
            agent.push(
                envelope(
                    page.session_id,
                    "command_result",
                    requestType=kind,
                    requestId=rid,
                    success=False,
                    errorCode=code,
                    error=error,
                )
            )

        if kind not in COMMANDS:
            result("UNKNOWN_COMMAND", f"unknown command {kind!r}; commands: {', '.join(sorted(COMMANDS))}")
            return
        if kind == "evaluate" and not self.config.allow_eval:
            result("EVAL_DISABLED", "the server did not opt in to evaluate (PAIRDBG_BRIDGE_EVAL=1)")
            return
        if isinstance(rid, str) and rid.startswith("p-"):
            result("BAD_REQUEST", "requestIds starting with p- are pairdbg's own")
            return
        if page.app is None:
            result("NOT_CONNECTED", f"no app is connected with sessionId {page.session_id!r}")
            return
        out = {**msg, "sessionId": page.session_id, "origin": "agent", "timestamp": int(time.time() * 1000)}
        self.hooks.agent_command(page, out, agent.name)
        try:
            await page.app.ws.send(json.dumps(out, ensure_ascii=False))
        except ConnectionClosed:
            result("NOT_CONNECTED", "the app disconnected")

    async def command(self, page: Page, kind: str, fields: dict[str, Any], rid: str, timeout: float) -> dict[str, Any]:
        """Send one of pairdbg's commands to the page's app and wait for its command_result."""
        app = page.app
        if app is None:
            raise ConnectionError("no app")
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        page.pending[rid] = fut
        try:
            try:
                await app.ws.send(envelope(page.session_id, kind, origin="agent", requestId=rid, **fields))
            except ConnectionClosed:
                raise ConnectionError("the app's socket closed") from None
            async with asyncio.timeout(timeout):
                return await fut
        finally:
            page.pending.pop(rid, None)

    async def end(self, page: Page, reason: str) -> None:
        """pairdbg ended this session: close its app so the SDK does not reconnect."""
        app = page.app
        if app is not None:
            with contextlib.suppress(Exception):
                await app.ws.close(CLOSE_ENDED, reason[:120])


def hello_for_agents(hello: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in hello.items() if k != "token"}
