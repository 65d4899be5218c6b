"""Finding an inspector endpoint: launch a runtime, or discover a running target from host:port or a ws:// URL.

Node and Chromium list targets at /json/list; Bun answers only /json/version (its ws path is in its banner);
WebKitGTK's inspector server lists pages in an HTML page at `/` whose sockets are /socket/<conn>/<target>/<kind>.
Only loopback hosts are reachable unless the configured allow-list names others.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
from urllib.parse import urlparse

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult

from ..errors import DebugError, ErrorCode
from ..hosts import check_host, check_url, resolve
from .backend import Endpoint
from .dialect import Dialect

WEBKIT_SOCKET = re.compile(r"/socket/\d+/\d+/\w+")


def split_target(target: str) -> tuple[str, int, str]:
    """(scheme, host, port, path) parts of host:port, http://host:port or ws://host:port/path."""
    text = target.strip()
    if "://" not in text:
        text = "http://" + text
    parsed = urlparse(text)
    if parsed.scheme not in ("http", "https", "ws", "wss") or not parsed.hostname:
        raise DebugError(
            ErrorCode.INVALID_PARAMETERS,
            f"{target!r} is not host:port, http://host:port or ws://…",
            hint="e.g. 127.0.0.1:9229 or ws://127.0.0.1:6499/pairdbg",
        )
    if parsed.port is None:
        raise DebugError(ErrorCode.INVALID_PARAMETERS, f"{target!r} has no port")
    return parsed.hostname, parsed.port, parsed.path or ""



class CheckedResolver(AbstractResolver):
    """aiohttp's name lookup through the allow-list: every connection an HTTP client makes is checked, whatever
    URL led to it. (aiohttp skips the resolver for literal addresses; `http_client` checks those per request.)"""

    def __init__(self, allowed: list[str], what: str) -> None:
        self.allowed = list(allowed)
        self.what = what

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET):
        results: list[ResolveResult] = []
        for fam, address in await resolve(host, port, self.allowed, self.what):
            if family in (socket.AF_UNSPEC, fam):
                results.append(
                    ResolveResult(
                        hostname=host, host=address, port=port, family=fam, proto=0, flags=socket.AI_NUMERICHOST
                    )
                )
        if not results:
            raise OSError(f"{host} has no address of the family asked for")
        return results

    async def close(self) -> None:
        return None


def http_client(allowed: list[str], what: str, timeout: float) -> aiohttp.ClientSession:
    """An HTTP client whose every connection passes the allow-list (no proxy from the environment, no DNS cache).

    Callers still pass allow_redirects=False and call `check_url` before each request, for literal addresses."""
    connector = aiohttp.TCPConnector(resolver=CheckedResolver(allowed, what), use_dns_cache=False)
    return aiohttp.ClientSession(
        connector=connector, timeout=aiohttp.ClientTimeout(total=timeout), trust_env=False
    )


async def _get(session: aiohttp.ClientSession, url: str, allowed: list[str]) -> tuple[int, str]:
    # Redirects are not followed: a loopback answer must not send pairdbg to a host the allow-list refuses. The
    # session's resolver checks every name it connects to; a literal address is checked here.
    check_url(url, allowed, "inspectors")
    async with session.get(url, allow_redirects=False) as response:
        if 300 <= response.status < 400:
            raise DebugError(
                ErrorCode.CONNECTION_FAILED,
                f"{url} redirects to {response.headers.get('Location', '?')[:200]!r}; pairdbg does not follow "
                "inspector redirects",
                hint="attach to the address the inspector really listens on",
            )
        return response.status, await response.text()


async def discover(target: str, allowed: list[str]) -> Endpoint:
    """The debuggable target behind host:port (or an http:// URL): Node/Chromium, WebKitGTK, or a clear error."""
    if target.strip().startswith(("ws://", "wss://")):
        return await endpoint_for_ws(target, allowed)
    host, port, _ = split_target(target)
    check_host(host, allowed, "inspectors")
    base = f"http://{_netloc(host, port)}"
    try:
        async with http_client(allowed, "inspectors", 5) as session:
            status, body = await _get(session, base + "/json/list", allowed)
            if status == 200:
                return _pick_cdp_target(body, target, allowed)
            status, body = await _get(session, base + "/json/version", allowed)
            if status == 200 and '"Bun"' in body:
                raise DebugError(
                    ErrorCode.CONNECTION_FAILED,
                    f"{target} is a Bun inspector, which lists no targets over HTTP",
                    hint="pass the ws:// URL from Bun's banner (`Listening: ws://…`) to connect_debugger",
                )
            status, body = await _get(session, base + "/", allowed)
            match = WEBKIT_SOCKET.search(body) if status == 200 else None
            if match:
                socket_url = f"ws://{_netloc(host, port)}{match.group(0)}"
                return Endpoint(socket_url, Dialect("jsc"), wrapped=True, page=True, allowed=allowed)
    except (aiohttp.ClientError, TimeoutError, OSError) as exc:
        raise DebugError(
            ErrorCode.CONNECTION_FAILED,
            f"no inspector answers at {base} ({exc.__class__.__name__})",
            hint="start the target with --inspect (Node/Bun) or --remote-debugging-port (Chromium)",
        ) from None
    raise DebugError(
        ErrorCode.CONNECTION_FAILED,
        f"{base} answers HTTP but offers no debuggable target (is it the page's web server?)",
        hint="attach to the browser's debugging port instead (chromium --remote-debugging-port=N, or "
        "WEBKIT_INSPECTOR_HTTP_SERVER=127.0.0.1:N for WebKitGTK), or to node/bun --inspect",
    )


def _pick_cdp_target(body: str, target: str, allowed: list[str]) -> Endpoint:
    try:
        targets = json.loads(body)
    except ValueError:
        raise DebugError(ErrorCode.PROTOCOL_ERROR, f"{target}/json/list did not return JSON") from None
    for kind in ("page", "node", "other"):
        for entry in targets:
            if entry.get("type") == kind and entry.get("webSocketDebuggerUrl"):
                check_url(entry["webSocketDebuggerUrl"], allowed, "inspectors")  # what the list names, not just where
                endpoint = Endpoint(entry["webSocketDebuggerUrl"], Dialect("v8"), page=kind == "page", allowed=allowed)
                return _described(endpoint, entry)
    raise DebugError(
        ErrorCode.CONNECTION_FAILED,
        f"{target} lists no page or node target to debug",
        hint="open a page in the browser first",
    )


async def endpoint_for_ws(url: str, allowed: list[str]) -> Endpoint:
    """Which dialect a ws:// inspector speaks, from its path and its /json/version."""
    host, port, path = split_target(url)
    check_host(host, allowed, "inspectors")
    if WEBKIT_SOCKET.fullmatch(path):
        return Endpoint(url, Dialect("jsc"), wrapped=True, page=True, allowed=allowed)
    browser, listed = "", ""
    try:
        async with http_client(allowed, "inspectors", 3) as session:
            status, body = await _get(session, f"http://{_netloc(host, port)}/json/version", allowed)
            if status == 200:
                browser = body
            if '"Bun"' not in browser:  # the target's title and URL (a redirect here only loses them)
                with contextlib.suppress(DebugError):
                    status, body = await _get(session, f"http://{_netloc(host, port)}/json/list", allowed)
                    listed = body if status == 200 else ""
    except (aiohttp.ClientError, TimeoutError, OSError):
        pass
    if '"Bun"' in browser:
        return Endpoint(url, Dialect("jsc"), allowed=allowed)
    endpoint = Endpoint(url, Dialect("v8"), page="/devtools/page/" in path, allowed=allowed)
    return _described(endpoint, _listed_entry(listed, path))


def _netloc(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _listed_entry(body: str, path: str) -> dict:
    """The /json/list entry whose socket has this path ({} when the list does not name it)."""
    try:
        entries = json.loads(body) if body else []
    except ValueError:
        return {}
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and urlparse(str(entry.get("webSocketDebuggerUrl", ""))).path == path:
            return entry
    return {}


def _described(endpoint: Endpoint, entry: dict) -> Endpoint:
    """`endpoint` with the title and URL the target's list gives (kept None where it gives none)."""
    title, url = entry.get("title"), entry.get("url")
    endpoint.title = title if isinstance(title, str) and title else None
    endpoint.target_url = url if isinstance(url, str) and url else None
    return endpoint


async def find_again(endpoint: Endpoint, allowed: list[str]) -> Endpoint:
    """The target a ws:// endpoint named, after it went away: a Node or Chromium target that restarts on the same
    port comes back under a new id (a new URL), so its host's /json/list is asked for the same program (the same
    script or page URL, else the only one of its kind). Where nothing lists targets (Bun, WebKitGTK) or the old URL is
    listed again, the old URL it is."""
    host, port, path = split_target(endpoint.url)
    if endpoint.dialect.is_jsc:
        return endpoint
    try:
        async with http_client(allowed, "inspectors", 3) as session:
            status, body = await _get(session, f"http://{_netloc(host, port)}/json/list", allowed)
        entries = json.loads(body) if status == 200 else None
    except (aiohttp.ClientError, TimeoutError, OSError, ValueError):
        entries = None
    if not isinstance(entries, list):  # not back yet (or lists nothing): the caller tries again later
        raise DebugError(ErrorCode.CONNECTION_FAILED, f"no inspector lists targets at {host}:{port} yet")
    listed = [e for e in entries if isinstance(e, dict) and e.get("webSocketDebuggerUrl")]
    if any(urlparse(str(e["webSocketDebuggerUrl"])).path == path for e in listed):
        return endpoint
    kind = "page" if endpoint.page else "node"
    same_kind = [e for e in listed if e.get("type") == kind]
    same_program = [e for e in same_kind if endpoint.target_url and e.get("url") == endpoint.target_url]
    chosen = same_program or (same_kind if len(same_kind) == 1 else [])
    if not chosen:
        raise DebugError(
            ErrorCode.CONNECTION_FAILED,
            f"{host}:{port} lists {len(same_kind)} {kind} targets, none of them {endpoint.target_url or 'known'}",
        )
    url = str(chosen[0]["webSocketDebuggerUrl"])
    check_url(url, allowed, "inspectors")  # what the list names, not just where it was asked
    return _described(Endpoint(url, endpoint.dialect, page=endpoint.page, allowed=allowed), chosen[0])
