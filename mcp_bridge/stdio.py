"""Headless MCP over stdio (`pairdbg --mcp`): the same Hub and actions, no TUI, no Textual import.

Every frame the agent writes gets an answer: the SDK silently drops a line it cannot read (not JSON, a batch, a
request without `jsonrpc`, params that are not an object), so `FrameGate` reads stdin first, passes on what the SDK
can read and answers the rest itself with a JSON-RPC error (its id when it has a usable one, else null). A frame
over MAX_FRAME is skipped unread past the limit and answered too, so one line cannot fill pairdbg's memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, BinaryIO

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from pairdbg.backends.actions.registry import Registry
from pairdbg.backends.hub import Hub

from .server import build_server

# Tool arguments are bounded well below this (limits.max_expression, max_path, max_argument_items).
MAX_FRAME = 16 * 1024 * 1024


def judge(line: str) -> tuple[Any, int, str] | None:
    """None for a frame the SDK reads; else (id to answer with, JSON-RPC error code, message)."""
    try:
        frame = json.loads(line)
    except ValueError:
        return None, -32700, "Parse error: the frame is not JSON"
    if isinstance(frame, list):
        return None, -32600, "Invalid Request: batches are not supported; send one message per line"
    if not isinstance(frame, dict):
        return None, -32600, "Invalid Request: a frame must be a JSON object"
    frame_id = frame.get("id")
    usable = isinstance(frame_id, str) or (isinstance(frame_id, int) and not isinstance(frame_id, bool))
    try:
        types.jsonrpc_message_adapter.validate_python(frame, by_name=False)
        if usable or "id" not in frame:  # a request with an id of another kind would read as a notification
            return None
    except ValueError:
        pass
    return (
        frame_id if usable else None,
        -32600,
        'Invalid Request: not a JSON-RPC 2.0 request, notification or response ("jsonrpc": "2.0", a string or '
        "integer id, a method, params as an object)",
    )


class FrameGate:
    """stdin for the SDK's transport: yields the lines it can read, answers the others through `write`."""

    def __init__(self, source: BinaryIO) -> None:
        self.source = source
        self.write: Any = None  # the transport's write stream, set once it exists
        self._ready = anyio.Event()

    def attach(self, write: Any) -> None:
        self.write = write
        self._ready.set()

    def _read_frame(self) -> tuple[bytes, bool] | None:
        """(line, too_large), or None at end of input; a line over MAX_FRAME is read past without keeping it."""
        line = self.source.readline(MAX_FRAME + 1)
        if not line:
            return None
        if len(line) <= MAX_FRAME or line.endswith(b"\n"):
            return line, False
        while line and not line.endswith(b"\n"):
            line = self.source.readline(1024 * 1024)
        return b"", True

    async def __aiter__(self) -> AsyncIterator[str]:
        while True:
            read = await anyio.to_thread.run_sync(self._read_frame, abandon_on_cancel=True)
            if read is None:
                return
            raw, too_large = read
            if too_large:
                await self._answer(None, -32600, f"Invalid Request: the frame is over {MAX_FRAME} bytes")
                continue
            line = raw.decode("utf-8", errors="replace")
            if not line.strip():
                continue  # an empty line is no frame
            problem = judge(line)
            if problem is None:
                yield line
            else:
                await self._answer(*problem)

    async def _answer(self, frame_id: Any, code: int, message: str) -> None:
        await self._ready.wait()
        error = types.JSONRPCError(jsonrpc="2.0", id=frame_id, error=types.ErrorData(code=code, message=message))
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self.write.send(SessionMessage(error))


class AnswerFirst:
    """The transport's write stream, and the listeners kept off the path to the `initialize` answer: they open once
    that answer has been handed to the stdout writer; any other message a client sends first (a 2026 client never
    initializes) waits for them once (~1 ms) before it is handled, so every tool finds them up."""

    def __init__(self, write: Any, open_listeners: Callable[[], Awaitable[None]]) -> None:
        self.write = write
        self.open_listeners = open_listeners
        self.answered = False

    async def send(self, message: SessionMessage) -> None:
        await self.write.send(message)
        frame = message.message
        if not self.answered and isinstance(frame, types.JSONRPCResponse) and "serverInfo" in (frame.result or {}):
            self.answered = True
            self.open_listeners()  # started, not awaited: the answer is already on its way

    async def middleware(self, ctx: Any, call_next: Any) -> Any:
        if ctx.method != "initialize":
            await asyncio.shield(self.open_listeners())
        return await call_next(ctx)

    def __getattr__(self, name: str) -> Any:  # the rest of the stream's interface (close, clone, statistics)
        return getattr(self.write, name)

    async def __aenter__(self) -> AnswerFirst:
        await self.write.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self.write.__aexit__(*exc)


@contextlib.contextmanager
def claimed_stdin() -> Any:
    """The wire on a private descriptor while fd 0 reads /dev/null (so nothing pairdbg starts reads the agent's
    frames); fd 0 is restored after. The private descriptor and its reader are never closed: a worker thread may
    still be blocked reading them when serving ends (closing the reader would wait for that thread's lock and freeze
    the loop, and a closed descriptor's number could be reused under it)."""
    wire = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        yield os.fdopen(wire, "rb", closefd=False)
    finally:
        with contextlib.suppress(OSError):
            os.dup2(wire, 0)


async def serve_stdio(
    hub: Hub,
    registry: Registry,
    tools: str | None = None,
    profile: str | None = None,
    open_listeners: Callable[[], Awaitable[None]] | None = None,
    output_schemas: bool = False,
) -> None:
    """Serve MCP on stdin/stdout until the agent goes away; the caller starts and shuts down the Hub. `tools`: the
    tool groups listed from the start (see build_server); `profile`: a seed server's surface instead;
    `open_listeners`: the runtime's listeners, opened once `initialize` is answered (AnswerFirst);
    `output_schemas`: declare the tools' outputSchemas."""
    server, notifier = build_server(hub, registry, tools=tools, profile=profile, output_schemas=output_schemas)
    try:
        with claimed_stdin() as source:
            gate = FrameGate(source)
            async with stdio_server(stdin=gate) as (read, write):  # type: ignore[arg-type]
                gate.attach(write)
                if open_listeners is not None:
                    write = AnswerFirst(write, open_listeners)
                    server.middleware.append(write.middleware)
                await server.run(read, write, server.create_initialization_options())
    finally:
        notifier.close()
