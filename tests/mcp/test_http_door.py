"""The HTTP door does not wait forever (issue 20): a connection that never finishes its request headers — trickling
a byte at a time, or silent — is closed after the header timeout, so 150 of them cannot hold the door open."""

from __future__ import annotations

import asyncio

import pytest

from pairdbg.mcp_bridge.http import HEADER_TIMEOUT_S, HttpMcpService

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(90)]

SLOW = 150


async def slow_client(port: int, closed: list[float], trickle: bool) -> None:
    """Opens a request and never finishes its headers; notes when the server hung up."""
    loop = asyncio.get_running_loop()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        if trickle:
            writer.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        while True:
            if trickle:
                writer.write(b"X")  # one byte of a header that never ends, every half second
                await writer.drain()
            try:
                data = await asyncio.wait_for(reader.read(1024), 0.5)
            except TimeoutError:
                continue
            if not data:
                closed.append(loop.time())
                return
    except (ConnectionError, OSError):
        closed.append(loop.time())
    finally:
        writer.close()


async def test_slow_header_connections_are_closed(hub, registry, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    service = HttpMcpService(hub, registry, "127.0.0.1", 0, publish_endpoint=False)
    await service.start()
    loop = asyncio.get_running_loop()
    closed: list[float] = []
    started = loop.time()
    clients = [asyncio.create_task(slow_client(service.port, closed, trickle=n % 2 == 0)) for n in range(SLOW)]
    try:
        done, pending = await asyncio.wait(clients, timeout=HEADER_TIMEOUT_S + 5)
        assert not pending, f"{len(pending)} of {SLOW} slow connections still open after {HEADER_TIMEOUT_S + 5:g}s"
        assert max(closed) - started <= HEADER_TIMEOUT_S + 5
        print(f"\n{len(closed)} of {SLOW} slow-header connections closed {max(closed) - started:.1f}s after opening")
    finally:
        for task in clients:
            task.cancel()
        await asyncio.gather(*clients, return_exceptions=True)
        await service.stop()
