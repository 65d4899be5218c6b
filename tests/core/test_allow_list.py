"""One allow-list for every backend that connects out (issue 13): loopback always, other hosts only when listed.

"Remote" here is a network namespace the test makes (support/netns.py), whose listener records every connection,
so a refusal is checked by what did not arrive, and no traffic leaves the machine even if a check were missing.
"""

from __future__ import annotations

import json

import pytest
from aiohttp import web
from support import expect_error
from support.netns import remote_host  # noqa: F401 (fixture)

from pairdbg.runtime import build_registry
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
