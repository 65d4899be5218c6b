"""The one allow-list for every backend that connects out: loopback always, other hosts only when configured.

Judged on the address actually connected to, not on how it is spelled: a name is resolved and every address it
resolves to must pass, numeric spellings (`2130706433`, `0177.0.0.1`, `::ffff:10.0.0.1`) are read as the address
they are, and the unspecified addresses (`0.0.0.0`, `::`) are refused. Callers connect to the address that was
checked (`resolve`), so a resolver cannot answer differently between the check and the connection. Every hop is
checked: what discovery hands back (a /json/list entry's webSocketDebuggerUrl) is checked like the target the
caller named, and no HTTP or WebSocket redirect is followed.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from urllib.parse import urlparse

from .errors import DebugError, ErrorCode

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def literal_address(host: str) -> Address | None:
    """The address `host` spells, in any form a C library accepts (`2130706433`, `0x7f.1`, `[::1]`), else None."""
    text = host.strip().strip("[]").split("%", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        try:
            address = ipaddress.IPv4Address(socket.inet_aton(text))  # decimal, octal, hex and short forms
        except (OSError, UnicodeError):
            return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _address_allowed(address: Address, allowed: list[str]) -> bool:
    if address.is_unspecified:  # 0.0.0.0 / :: reach "this host" on whatever interface: never a target
        return False
    if address.is_loopback:
        return True
    return any(literal_address(entry) == address for entry in allowed)


def _refused(host: str, what: str, detail: str = "") -> DebugError:
    return DebugError(
        ErrorCode.INVALID_PARAMETERS,
        f"host {host[:100]!r}{detail} is not allowed: pairdbg only reaches loopback {what} unless the host is "
        "allow-listed",
        hint="debug through an SSH tunnel or port-forward to 127.0.0.1, or add the host to the allowed_hosts setting",
    )


def check_host(host: str, allowed: list[str], what: str = "debug targets") -> None:
    """Raise INVALID_PARAMETERS unless `host` is loopback or allow-listed, as far as its spelling tells.

    A name other than `localhost` or an allow-listed one is refused here; `localhost` is judged again by the address
    it resolves to in `resolve`, which every connection goes through (an allow-listed name is trusted whatever it
    resolves to: the person named it)."""
    if host in allowed:
        return
    address = literal_address(host)
    if address is None:
        if host == "localhost":
            return
        raise _refused(host, what)
    if not _address_allowed(address, allowed):
        shown = "" if str(address) == host.strip("[]") else f" ({address})"
        raise _refused(host, what, shown)


def check_url(url: str, allowed: list[str], what: str = "debug targets") -> None:
    host = urlparse(url).hostname
    if not host:
        raise DebugError(ErrorCode.PROTOCOL_ERROR, f"{url[:200]!r} names no host")
    check_host(host, allowed, what)


async def resolve(host: str, port: int, allowed: list[str], what: str = "debug targets") -> list[tuple[int, str]]:
    """(family, address) pairs `host` resolves to, each one checked; connect only to these.

    A name the user allow-listed is trusted whatever it resolves to; any other name (`localhost` included) must
    resolve to allowed addresses only, so a resolver that answers with another host is refused."""
    check_host(host, allowed, what)
    literal = literal_address(host)
    if literal is not None:
        return [(socket.AF_INET if literal.version == 4 else socket.AF_INET6, str(literal))]
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise DebugError(ErrorCode.CONNECTION_FAILED, f"cannot resolve {host[:100]!r}: {exc}") from None
    found: list[tuple[int, str]] = []
    for family, _, _, _, sockaddr in infos:
        address = literal_address(str(sockaddr[0]))
        if address is None:
            continue
        if host not in allowed and not _address_allowed(address, allowed):
            raise _refused(host, what, f" (it resolves to {address})")
        if (family, str(address)) not in found:
            found.append((family, str(address)))
    if not found:
        raise DebugError(ErrorCode.CONNECTION_FAILED, f"{host[:100]!r} resolves to no address")
    return found


async def resolve_one(host: str, port: int, allowed: list[str], what: str = "debug targets") -> str:
    """The first checked address of `host`, to connect to instead of the name."""
    return (await resolve(host, port, allowed, what))[0][1]
