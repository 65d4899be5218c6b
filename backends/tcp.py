"""Socket options that keep loopback debug traffic from stalling: TCP_NODELAY on our writes, TCP_QUICKACK on reads.

Node peers (its inspector, js-debug) write small messages in two segments with Nagle's algorithm on; the second
waits for our ACK of the first, which Linux delays by ~40 ms. Acknowledging at once removes that stall. QUICKACK is
not sticky, so callers set it again after every read. Both are best effort: a socket that refuses is left as it is.
"""

from __future__ import annotations

import contextlib
import socket

QUICKACK = getattr(socket, "TCP_QUICKACK", None)  # Linux only


def tcp_socket(transport_or_writer) -> socket.socket | None:
    """The TCP socket under an asyncio transport or stream writer, or None (pipes, Unix sockets)."""
    sock = transport_or_writer.get_extra_info("socket")
    return sock if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6) else None


def no_delay(sock: socket.socket | None) -> None:
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def ack_now(sock: socket.socket | None) -> None:
    if sock is not None and QUICKACK is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, QUICKACK, 1)
