"""Inspector failures answered with a clear code: unreachable or malformed targets, hosts that are not allowed (refused
before any traffic), a protocol error from a real target, and the session limit with 5 Node + 5 Bun sessions live.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from support import targets
from support import expect_error, free_port, stop_of
from test_inspector_node import FLOW, js, launch, line, need_runtime, run, where

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]


async def test_unreachable_url(hub, registry):
    port = free_port()  # nothing listens there
    err = await expect_error(
        registry, "connect_debugger", {"websocket_url": f"ws://127.0.0.1:{port}/nobody"}, "CONNECTION_FAILED"
    )
    assert f"127.0.0.1:{port}" in err.message
    err = await expect_error(
        registry, "attach", {"target": f"127.0.0.1:{port}", "language": "javascript"}, "CONNECTION_FAILED"
    )
    assert "no inspector answers" in err.message
    assert hub.sessions == {}, "a failed connect must not leave a session behind"


@pytest.mark.parametrize(
    "url", ["ftp://127.0.0.1:9229/x", "file:///tmp/x", "127.0.0.1", "ws://127.0.0.1/nopport", "not a url at all"]
)
async def test_wrong_scheme_or_shape(hub, registry, url):
    err = await expect_error(registry, "connect_debugger", {"websocket_url": url}, "INVALID_PARAMETERS")
    assert err.hint or err.message
    assert hub.sessions == {}


@pytest.mark.parametrize("host", ["10.1.2.3", "192.168.1.100", "example.com", "[2001:db8::1]"])
async def test_host_not_allowed_is_refused_before_any_traffic(hub, registry, monkeypatch, host):
    """A non-loopback host is refused from its name alone: no DNS, no TCP, no HTTP (10.1.2.3 would hang for seconds)."""
    import socket

    import aiohttp

    from pairdbg.backends.inspector import rpc

    touched: list[str] = []

    def no_traffic(what):
        def refuse(*args, **kwargs):
            touched.append(what)
            raise AssertionError(f"{what} was called for a host that is not allowed")

        return refuse

    # Tripwires, not mocks: if the refusal works, none of these is ever reached.
    monkeypatch.setattr(socket, "getaddrinfo", no_traffic("getaddrinfo"))
    monkeypatch.setattr(aiohttp.ClientSession, "_request", no_traffic("http"))
    monkeypatch.setattr(rpc, "connect", no_traffic("websocket"))
    started = time.monotonic()
    for action, args in (
        ("connect_debugger", {"websocket_url": f"ws://{host}:9229/abc"}),
        ("attach", {"target": f"{host}:9229", "language": "javascript"}),
        ("attach", {"target": f"http://{host}:9229", "language": "javascript"}),
    ):
        err = await expect_error(registry, action, args, "INVALID_PARAMETERS")
        assert "not allowed" in err.message and "allowed_hosts" in (err.hint or ""), err.message
    assert touched == [] and time.monotonic() - started < 1.0
    assert hub.sessions == {}


@pytest.mark.parametrize("limits", [{"allowed_hosts": ["10.1.2.3"]}], indirect=True)
async def test_allow_listed_host_is_tried(hub, registry):
    """With the host allow-listed, pairdbg does try it (and reports the failure as a connection failure)."""
    err = await expect_error(
        registry, "connect_debugger", {"websocket_url": "ws://10.1.2.3:1/x"}, "CONNECTION_FAILED", "TIMEOUT"
    )
    assert "10.1.2.3" in err.message


@pytest.fixture
def limits(request):
    from pairdbg.backends.limits import Limits

    return Limits(**getattr(request, "param", {}))


async def test_protocol_error_from_the_target(hub, registry):
    """A real target refusing a request: Bun's inspector has no page for a wrong path (HTTP 404 on the upgrade), and
    Node rejects a malformed wire request with a protocol error that names the method."""
    bun = need_runtime("bun")
    port = targets.free_port()
    proc = await targets.spawn([bun, f"--inspect=127.0.0.1:{port}/right", js("server.js")])
    try:
        await targets.read_ws_url(proc.stderr, timeout=10)
        err = await expect_error(
            registry, "connect_debugger", {"websocket_url": f"ws://127.0.0.1:{port}/wrong"}, "CONNECTION_FAILED"
        )
        assert "/wrong" in err.message
        err = await expect_error(
            registry, "attach", {"target": f"127.0.0.1:{port}", "language": "javascript"}, "CONNECTION_FAILED"
        )
        assert "Bun" in err.message and "ws://" in (err.hint or ""), err.message
    finally:
        await targets.stop_process_group(proc)

    sid, reply = await launch(registry, "node", FLOW, (FLOW, line(FLOW, "ADD_BODY")))
    stop_of(reply)
    from pairdbg.backends.errors import DebugError, ErrorCode

    backend = hub.sessions[sid].backend
    with pytest.raises(DebugError) as info:
        await backend._send("Debugger.setBreakpointByUrl", {"lineNumber": 1})  # neither url nor urlRegex
    assert info.value.code == ErrorCode.PROTOCOL_ERROR and "setBreakpointByUrl" in info.value.message
    # A protocol error surfacing through a tool: a value the engine cannot set is INVALID_PARAMETERS with its reason.
    err = await expect_error(
        registry,
        "set_variable_value",
        {"session_id": sid, "name": "b", "value": "undefinedName"},
        "INVALID_PARAMETERS",
    )
    assert "undefinedName" in err.message, err.message
    # The session survived both.
    assert where(stop_of(await run(registry, "step_over", session_id=sid)))[1] == line(FLOW, "ADD_RETURN")


async def test_ten_sessions_then_limit(hub, registry):
    """5 Node + 5 Bun sessions, each stopped at its breakpoint; the 11th start is LIMIT_EXCEEDED at once."""
    need_runtime("node")
    need_runtime("bun")
    add_body = line(FLOW, "ADD_BODY")
    replies = await asyncio.gather(
        *(launch(registry, runtime, FLOW, (FLOW, add_body)) for runtime in ["node", "bun"] * 5)
    )
    assert len(hub.sessions) == 10
    for _sid, reply in replies:
        stop = stop_of(reply)
        assert where(stop) == (FLOW, add_body, "add"), reply.text
    pids = {hub.sessions[sid].backend.pid for sid, _ in replies}
    assert len(pids) == 10
    started = time.monotonic()
    for runtime in ("node", "bun"):
        await expect_error(
            registry,
            "start_debugging",
            {"program": js(FLOW), "language": "javascript", "runtime": runtime},
            "LIMIT_EXCEEDED",
        )
    await expect_error(registry, "attach", {"target": "127.0.0.1:1", "language": "javascript"}, "LIMIT_EXCEEDED")
    await expect_error(registry, "connect_debugger", {"websocket_url": "ws://127.0.0.1:1/x"}, "LIMIT_EXCEEDED")
    assert time.monotonic() - started < 1.0 and len(hub.sessions) == 10
    # Every session is still independent and usable: step one of each runtime.
    for sid, _ in replies[:2]:
        assert stop_of(await run(registry, "step_over", session_id=sid))["location"]["line"] == add_body + 1
    # Closing one frees a slot.
    await run(registry, "close_debug_session", session_id=replies[0][0])
    sid, reply = await launch(registry, "node", FLOW, (FLOW, add_body))
    assert where(stop_of(reply)) == (FLOW, add_body, "add")
