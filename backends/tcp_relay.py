"""A loopback TCP relay that acknowledges at once, for peers that stall each other with Nagle + delayed ACK.

Node's inspector writes replies in two small segments with Nagle's algorithm on; a Node client (js-debug) delays
its ACK of the first by ~40 ms, so every request pays that. Put between them, this relay ACKs each read at once
(TCP_QUICKACK), writes with TCP_NODELAY, and forwards bytes unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket

from .tcp import ack_now, no_delay, tcp_socket


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, ack: socket.socket | None) -> None:
    try:
        while data := await reader.read(65536):
            ack_now(ack)
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


class TcpRelay:
    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.server: asyncio.Server | None = None
        self.port = 0
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self.port

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        down, up = tcp_socket(writer), tcp_socket(up_writer)
        no_delay(down)
        no_delay(up)
        for task in (
            asyncio.create_task(_pump(reader, up_writer, down)),
            asyncio.create_task(_pump(up_reader, writer, up)),
        ):
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.server.wait_closed(), 2)
        for task in list(self._tasks):
            task.cancel()
