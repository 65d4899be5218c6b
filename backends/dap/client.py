"""A DAP client over any asyncio stream pair: Content-Length framing, seq correlation, events, reverse requests."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from ..errors import DebugError, ErrorCode
from ..tcp import ack_now, no_delay, tcp_socket

log = logging.getLogger(__name__)

EventHandler = Callable[[str, dict[str, Any]], None]
ReverseHandler = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any] | None]]

MAX_MESSAGE = 64 * 1024 * 1024


class DapClient:
    """Sends requests and awaits their responses; hands events and reverse requests to callbacks.

    The reader task is the only consumer of the stream. When the stream ends, every pending request fails with
    NOT_CONNECTED and `on_close` runs once, so no caller waits on a dead adapter.
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        on_event: EventHandler,
        on_reverse: ReverseHandler | None = None,
        on_close: Callable[[str], None] | None = None,
        name: str = "dap",
    ) -> None:
        self._reader = reader
        self._writer = writer
        # Over TCP, acknowledge every read at once: a Node peer (js-debug) writes with Nagle on, and a delayed
        # ACK then costs ~40 ms per message (the same stall the inspector client avoids).
        self._sock = tcp_socket(writer)
        no_delay(self._sock)
        self._on_event = on_event
        self._on_reverse = on_reverse
        self._on_close = on_close
        self._name = name
        self._seq = 0
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._closed_reason: str | None = None
        self._reverse_tasks: set[asyncio.Task[None]] = set()
        self._task = asyncio.create_task(self._read_loop(), name=f"{name}-reader")

    @property
    def closed(self) -> bool:
        return self._closed_reason is not None

    def send_request(self, command: str, arguments: dict[str, Any] | None = None) -> asyncio.Future[dict[str, Any]]:
        """Write a request now and return a future for its response body (raises on `success: false`)."""
        if self._closed_reason is not None:
            raise DebugError(ErrorCode.NOT_CONNECTED, f"debug adapter connection is closed ({self._closed_reason})")
        self._seq += 1
        seq = self._seq
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[seq] = fut
        # A caller that gave up (timeout) must not leave an unretrieved exception behind.
        fut.add_done_callback(lambda f: f.cancelled() or f.exception())
        msg: dict[str, Any] = {"seq": seq, "type": "request", "command": command}
        if arguments is not None:
            msg["arguments"] = arguments
        self._write(msg)
        return fut

    def send_event(self, event: str, body: dict[str, Any] | None = None) -> None:
        """Write an event (pairdbg in an adapter's client role only sends requests; as its launcher it sends these)."""
        if self._closed_reason is not None:
            return
        self._seq += 1
        msg: dict[str, Any] = {"seq": self._seq, "type": "event", "event": event}
        if body is not None:
            msg["body"] = body
        self._write(msg)

    async def request(
        self, command: str, arguments: dict[str, Any] | None = None, timeout: float = 10.0
    ) -> dict[str, Any]:
        fut = self.send_request(command, arguments)
        return await self.wait(fut, command, timeout)

    async def wait(self, fut: asyncio.Future[dict[str, Any]], command: str, timeout: float) -> dict[str, Any]:
        try:
            return await asyncio.wait_for(asyncio.shield(fut), timeout)
        except TimeoutError:
            raise DebugError(
                ErrorCode.TIMEOUT, f"the debug adapter did not answer '{command}' within {timeout:g}s"
            ) from None

    def _write(self, msg: dict[str, Any]) -> None:
        body = json.dumps(msg, separators=(",", ":")).encode()
        self._writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def _read_loop(self) -> None:
        reason = "adapter closed the connection"
        try:
            while True:
                msg = await self._read_message()
                if msg is None:
                    break
                self._dispatch(msg)
        except (ConnectionError, asyncio.IncompleteReadError) as exc:
            reason = f"connection lost: {exc.__class__.__name__}"
        except asyncio.CancelledError:
            reason = "client closed"
            raise
        except Exception as exc:  # a framing or JSON error makes the stream unusable
            log.exception("DAP reader failed")
            reason = f"protocol error: {exc}"
        finally:
            self._shutdown(reason)

    async def _read_message(self) -> dict[str, Any] | None:
        length = -1
        while True:
            line = await self._reader.readline()
            if not line:
                return None
            line = line.strip()
            if not line:
                if length >= 0:
                    break
                continue
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        if length > MAX_MESSAGE:
            raise ValueError(f"message of {length} bytes exceeds the {MAX_MESSAGE} byte limit")
        body = await self._reader.readexactly(length)
        ack_now(self._sock)
        return json.loads(body)

    def _dispatch(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "response":
            fut = self._pending.pop(msg.get("request_seq", -1), None)
            if fut is None or fut.done():
                return
            if msg.get("success"):
                fut.set_result(msg.get("body") or {})
            else:
                text = msg.get("message") or "request failed"
                err = (msg.get("body") or {}).get("error") or {}
                detail = err.get("format") if isinstance(err, dict) else None
                fut.set_exception(DebugError(ErrorCode.PROTOCOL_ERROR, detail or text, command=msg.get("command")))
        elif kind == "event":
            try:
                self._on_event(msg.get("event", ""), msg.get("body") or {})
            except Exception:
                log.exception("DAP event handler failed for %s", msg.get("event"))
        elif kind == "request":
            task = asyncio.create_task(self._answer_reverse(msg))
            self._reverse_tasks.add(task)  # keep a reference until it is done, or the loop may drop it
            task.add_done_callback(self._reverse_tasks.discard)

    async def _answer_reverse(self, msg: dict[str, Any]) -> None:
        command = msg.get("command", "")
        response: dict[str, Any] = {"type": "response", "request_seq": msg.get("seq"), "command": command}
        try:
            if self._on_reverse is None:
                raise DebugError(ErrorCode.CAPABILITY_UNSUPPORTED, f"reverse request '{command}' is not supported")
            body = await self._on_reverse(command, msg.get("arguments") or {})
            response.update(success=True, body=body or {})
        except Exception as exc:
            response.update(success=False, message=str(exc))
        if self._closed_reason is None:
            self._seq += 1
            response["seq"] = self._seq
            self._write(response)

    def _shutdown(self, reason: str) -> None:
        if self._closed_reason is not None:
            return
        self._closed_reason = reason
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(DebugError(ErrorCode.NOT_CONNECTED, f"debug adapter went away ({reason})"))
        self._pending.clear()
        if self._on_close is not None:
            self._on_close(reason)

    async def close(self) -> None:
        """Stop reading and close the transport; pending requests fail with NOT_CONNECTED."""
        self._task.cancel()
        try:
            await self._task
        except (asyncio.CancelledError, Exception):
            pass
        self._shutdown("client closed")
        self._writer.close()
        try:
            await asyncio.wait_for(self._writer.wait_closed(), 1.0)
        except (Exception, asyncio.CancelledError):
            pass
