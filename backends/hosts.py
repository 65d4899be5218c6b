"""The one allow-list for every backend that connects out: loopback always, other hosts only when configured.

Checked on every address actually connected to — the target the caller named, and also what discovery hands back
(a /json/list entry's webSocketDebuggerUrl) — and HTTP redirects are not followed, so a loopback answer cannot send
pairdbg to another host.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlparse

from .errors import DebugError, ErrorCode


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host == "localhost"


def check_host(host: str, allowed: list[str], what: str = "debug targets") -> None:
    """Raise INVALID_PARAMETERS unless `host` is loopback or allow-listed."""
    if is_loopback(host) or host in allowed:
        return
    raise DebugError(
        ErrorCode.INVALID_PARAMETERS,
        f"host {host[:100]!r} is not allowed: pairdbg only reaches loopback {what} unless the host is allow-listed",
        hint="debug through an SSH tunnel or port-forward to 127.0.0.1, or add the host to the allowed_hosts setting",
    )


def check_url(url: str, allowed: list[str], what: str = "debug targets") -> None:
    host = urlparse(url).hostname
    if not host:
        raise DebugError(ErrorCode.PROTOCOL_ERROR, f"{url[:200]!r} names no host")
    check_host(host, allowed, what)
