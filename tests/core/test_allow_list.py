"""One allow-list for every backend that connects out (issue 13): loopback always, other hosts only when listed.

"Remote" here is a network namespace the test makes (support/netns.py), whose listener records every connection,
so a refusal is checked by what did not arrive, and no traffic leaves the machine even if a check were missing.
"""

from __future__ import annotations

import asyncio
import json
import socket

import pytest
from aiohttp import web
from support import expect_error
from support.netns import remote_host  # noqa: F401 (fixture)

from pairdbg.runtime import build_registry
from pairdbg.backends.errors import DebugError
from pairdbg.backends.hosts import check_host
from pairdbg.backends.hub import Hub
from pairdbg.backends.limits import Limits

pytestmark = pytest.mark.asyncio


async def serve(routes: dict[str, web.Response]) -> tuple[web.AppRunner, int]:
    """A loopback HTTP server answering fixed responses, like an inspector's discovery endpoint."""
    app = web.Application()
    for path, response in routes.items():

        async def answer(request: web.Request, response: web.Response = response) -> web.Response:
            return response

        app.router.add_get(path, answer)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, site._server.sockets[0].getsockname()[1]


async def test_python_attach_to_a_remote_host_is_refused_before_connecting(registry, remote_host):  # noqa: F811
    err = await expect_error(
        registry, "attach", {"target": f"{remote_host.address}:5678", "wait_s": 0}, "INVALID_PARAMETERS"
    )
    assert "not allowed" in err.message and "allowed_hosts" in (err.hint or ""), err.message
    assert remote_host.connections() == []


async def test_a_loopback_list_naming_a_remote_socket_is_refused(registry, remote_host):  # noqa: F811
    listing = [{"type": "node", "webSocketDebuggerUrl": f"ws://{remote_host.address}:9229/abc"}]
    runner, port = await serve({"/json/list": web.Response(text=json.dumps(listing))})
    try:
        err = await expect_error(
            registry,
            "attach",
            {"target": f"127.0.0.1:{port}", "language": "javascript", "wait_s": 0},
            "INVALID_PARAMETERS",
        )
        assert remote_host.address in err.message and "not allowed" in err.message, err.message
    finally:
        await runner.cleanup()
    assert remote_host.connections() == []


async def test_a_loopback_redirect_to_a_remote_host_is_not_followed(registry, remote_host):  # noqa: F811
    moved = web.Response(status=302, headers={"Location": f"http://{remote_host.address}:9229/json/list"})
    runner, port = await serve({"/json/list": moved})
    try:
        err = await expect_error(
            registry,
            "attach",
            {"target": f"127.0.0.1:{port}", "language": "javascript", "wait_s": 0},
            "CONNECTION_FAILED",
        )
        assert "does not follow" in err.message, err.message
    finally:
        await runner.cleanup()
    assert remote_host.connections() == []


async def test_an_allow_listed_host_is_reached(hub, remote_host):  # noqa: F811
    """The positive control: listed, the same attach does connect (the listener hangs up, so it then fails)."""
    listed = Hub(Limits(allowed_hosts=[remote_host.address]))
    try:
        await expect_error(
            build_registry(listed),
            "attach",
            {"target": f"{remote_host.address}:5678", "wait_s": 0},
            "CONNECTION_FAILED",
            "TIMEOUT",
            "PROTOCOL_ERROR",
            "NOT_CONNECTED",
        )
    finally:
        await listed.shutdown()
    assert remote_host.connections(), "the allow-listed host was never contacted"


# ----- every hop checked (issue 20): redirects on the WebSocket upgrade, resolved addresses -----------------------


async def redirecting_inspector(remote: str) -> tuple[web.AppRunner, int]:
    """A loopback "inspector" whose WebSocket upgrade at /x answers 302 to `remote`, and whose /json/list names
    its own /x socket: the redirect is the only way anything could reach the remote host."""
    app = web.Application()
    port_box: list[int] = []

    async def upgrade(request: web.Request) -> web.Response:
        return web.Response(status=302, headers={"Location": f"ws://{remote}:9229/x"})

    async def listing(request: web.Request) -> web.Response:
        entry = {"type": "node", "webSocketDebuggerUrl": f"ws://127.0.0.1:{port_box[0]}/x"}
        return web.Response(text=json.dumps([entry]))

    app.router.add_get("/x", upgrade)
    app.router.add_get("/json/list", listing)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port_box.append(site._server.sockets[0].getsockname()[1])
    return runner, port_box[0]


@pytest.mark.parametrize("route", ["connect_debugger", "attach ws://", "attach via /json/list"])
async def test_a_websocket_upgrade_redirect_to_a_remote_host_is_not_followed(registry, remote_host, route):  # noqa: F811
    runner, port = await redirecting_inspector(remote_host.address)
    action, args = {
        "connect_debugger": ("connect_debugger", {"websocket_url": f"ws://127.0.0.1:{port}/x", "wait_s": 0}),
        "attach ws://": ("attach", {"target": f"ws://127.0.0.1:{port}/x", "language": "javascript", "wait_s": 0}),
        "attach via /json/list": ("attach", {"target": f"127.0.0.1:{port}", "language": "javascript", "wait_s": 0}),
    }[route]
    try:
        err = await expect_error(registry, action, args, "CONNECTION_FAILED")
        assert "redirect" in err.message and remote_host.address in err.message, err.message
    finally:
        await runner.cleanup()
    assert remote_host.connections() == [], "pairdbg followed the redirect to the remote host"


@pytest.mark.parametrize(
    "host",
    ["0.0.0.0", "[::]", "::", "167772161", "012.0.0.1", "0xa.0.0.1", "::ffff:10.0.0.1", "[::ffff:a00:1]"],
)
async def test_other_spellings_of_a_non_loopback_address_are_refused(host):
    with pytest.raises(DebugError) as caught:
        check_host(host, [])
    assert caught.value.code == "INVALID_PARAMETERS" and "not allowed" in caught.value.message


@pytest.mark.parametrize("host", ["127.0.0.1", "2130706433", "0177.0.0.1", "0x7f.1", "::ffff:127.0.0.1", "[::1]"])
async def test_other_spellings_of_loopback_are_loopback(host):
    check_host(host, [])


async def test_an_allow_listed_address_matches_however_it_is_spelled():
    check_host("167772161", ["10.0.0.1"])
    check_host("::ffff:10.0.0.1", ["10.0.0.1"])


async def test_a_name_is_judged_by_the_address_it_resolves_to(registry, remote_host, monkeypatch):  # noqa: F811
    """`localhost` answered by a resolver with another host's address: the address is what is checked and what is
    connected to, so nothing reaches that host (for a debugpy attach and an inspector discovery alike)."""
    loop = asyncio.get_running_loop()
    real = loop.getaddrinfo

    async def lying_resolver(host, port, *args, **kwargs):
        if host == "localhost":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (remote_host.address, int(port or 0)))]
        return await real(host, port, *args, **kwargs)

    monkeypatch.setattr(loop, "getaddrinfo", lying_resolver)
    for args in ({"target": "localhost:5678"}, {"target": "localhost:9229", "language": "javascript"}):
        err = await expect_error(registry, "attach", {**args, "wait_s": 0}, "INVALID_PARAMETERS")
        assert remote_host.address in err.message and "not allowed" in err.message, err.message
    assert remote_host.connections() == []
