"""Socket options for debug connections: TCP_NODELAY on our writes, TCP_QUICKACK on reads, TCP keepalive.

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


def keep_alive(sock: socket.socket | None, idle_s: int = 15, interval_s: int = 5, probes: int = 3) -> None:
    """Let the kernel find a peer that vanished (a remote host behind a tunnel, a pulled cable): after `idle_s` quiet
    seconds it probes, and the connection fails after `probes` unanswered probes (~30 s). Nothing reaches the peer's
    protocol, which matters for Node: its inspector closes the WebSocket when it receives a WebSocket ping."""
    if sock is None:
        return
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        for name, value in (("TCP_KEEPIDLE", idle_s), ("TCP_KEEPINTVL", interval_s), ("TCP_KEEPCNT", probes)):
            option = getattr(socket, name, None)
            if option is not None:
                sock.setsockopt(socket.IPPROTO_TCP, option, value)
