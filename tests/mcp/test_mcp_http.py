"""Agents over Streamable HTTP: the token, Host checks, both protocol generations, and hearing the person."""

from __future__ import annotations

import asyncio
import os
import socket
import stat
import warnings

import httpx2
import pytest
from mcp import types
from mcp.client.subscriptions import ResourceUpdated

from pairdbg.mcp_bridge import http as http_module
from pairdbg.mcp_bridge.http import HttpMcpService, endpoint_file, read_endpoint
from support import until
from support.mcp import DEMO, DEMO_BP_LINE, http_client

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture
def served(hub, registry, mcp_service):
    return hub, registry, mcp_service


@pytest.mark.asyncio
async def test_http_requires_token_and_loopback_host(served) -> None:
    hub, registry, service = served
    async with httpx2.AsyncClient(timeout=10) as http:
        anonymous = await http.post(service.url, json=INIT, headers=ACCEPT)
        assert anonymous.status_code == 401
        assert anonymous.json()["error"] == "unauthorized"
        wrong = await http.post(service.url, json=INIT, headers={**ACCEPT, "Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        auth = {**ACCEPT, "Authorization": f"Bearer {service.token}"}
        rebinding = await http.post(service.url, json=INIT, headers={**auth, "Host": "evil.example:80"})
        assert rebinding.status_code in (403, 421)
        foreign = await http.post(service.url, json=INIT, headers={**auth, "Origin": "http://evil.example"})
        assert foreign.status_code == 403
        ok = await http.post(service.url, json=INIT, headers=auth)
        assert ok.status_code == 200
    assert service.sock.getsockname()[0] == "127.0.0.1"


@pytest.mark.asyncio
async def test_endpoint_file_is_private_and_removed(served) -> None:
    hub, registry, service = served
    path = endpoint_file()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert read_endpoint()["token"] == service.token
    await service.stop()
    assert not path.exists()


@pytest.mark.asyncio
async def test_modern_agent_sees_the_persons_step(served) -> None:
    hub, registry, service = served
    async with http_client(service.url, service.token) as agent:
        assert agent.protocol_version == "2026-07-28"
        started = await agent.call_tool(
            "start_debugging", {"program": DEMO, "breakpoints": [{"file": DEMO, "line": DEMO_BP_LINE}]}
        )
        assert started.structured_content["stop"]["location"]["line"] == DEMO_BP_LINE
        async with agent.listen(resource_subscriptions=["debug://sessions/S1"]) as stream:
            await registry.run("step_over", {"session_id": "S1"}, "human")
            event = await asyncio.wait_for(anext(aiter(stream)), 10)
            assert isinstance(event, ResourceUpdated) and event.uri == "debug://sessions/S1"
        waited = await agent.call_tool("wait_for_stop", {"session_id": "S1", "timeout_s": 1})
        assert waited.structured_content["stop"]["location"]["line"] == DEMO_BP_LINE + 1


@pytest.mark.asyncio
async def test_legacy_agent_hears_the_person_on_its_stream(served) -> None:
    hub, registry, service = served
    heard: list[str] = []
    activity = hub.bus.subscribe()

    async def on_message(message) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            heard.append(str(message.params.uri))

    async with http_client(service.url, service.token, mode="legacy", message_handler=on_message) as agent:
        assert agent.protocol_version == "2025-11-25"
        caps = agent.server_capabilities
        assert caps.resources and caps.resources.subscribe and caps.resources.list_changed
        await agent.call_tool("start_debugging", {"program": DEMO, "stop_on_entry": True})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await agent.subscribe_resource("debug://sessions/S1")
        await registry.run("step_over", {"session_id": "S1"}, "human")
        await until(lambda: "debug://sessions/S1" in heard, "resources/updated for S1")
        assert len(service.notifier.agents) == 1
        actors = []
        while not activity.queue.empty():
            event = activity.queue.get_nowait()
            if getattr(event, "action", None) in ("start_debugging", "step_over"):
                actors.append((event.action, event.actor))
        agent_name = next(iter(service.notifier.agents.names.values()))
        assert actors == [("start_debugging", f"agent:{agent_name}"), ("step_over", "human")]


@pytest.mark.asyncio
async def test_an_existing_endpoint_file_is_made_private(hub, registry, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    folder = tmp_path / "pairdbg"
    folder.mkdir(mode=0o755)
    (folder / "endpoint.json").write_text("{}")
    os.chmod(folder / "endpoint.json", 0o644)
    service = HttpMcpService(hub, registry, "127.0.0.1", 0)
    await service.start()
    try:
        assert stat.S_IMODE(os.stat(folder / "endpoint.json").st_mode) == 0o600
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    finally:
        await service.stop()


@pytest.mark.asyncio
async def test_an_agent_that_connects_before_the_server_is_built_is_served(hub, registry, tmp_path, monkeypatch):
    """The TUI binds its port at once and builds the MCP server after its first frame: a request sent in between
    waits in the listening socket's backlog and is answered once the server is up, and a service stopped without
    ever starting closes its port."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    service = HttpMcpService(hub, registry, "127.0.0.1", 0)
    auth = {**ACCEPT, "Authorization": f"Bearer {service.token}"}
    try:
        async with httpx2.AsyncClient(timeout=30) as http:
            early = asyncio.create_task(http.post(service.url, json=INIT, headers=auth))
            await asyncio.sleep(0.2)
            assert not early.done()  # connected and waiting: nothing serves it yet
            await service.start()
            assert (await early).status_code == 200
    finally:
        await service.stop()
    unstarted = HttpMcpService(hub, registry, "127.0.0.1", 0)
    await unstarted.stop()
    assert unstarted.sock.fileno() == -1


@pytest.mark.asyncio
async def test_a_port_another_process_listens_on_first_is_left_for_a_free_one(hub, registry, monkeypatch) -> None:
    """Two pairdbg starting at once may both bind the default port (SO_REUSEADDR lets them); the one that listens
    second is refused then. It serves on a free port, as when the port was taken before it started. (The other
    process is a socket here that listens right after this service's bind: the order two processes may take.)"""
    other = socket.socket()
    other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    other.bind(("127.0.0.1", 0))
    port = other.getsockname()[1]

    class OtherListensFirst(socket.socket):
        def bind(self, address) -> None:
            super().bind(address)
            if address[1] == port:
                other.listen()

    monkeypatch.setattr(http_module.socket, "socket", OtherListensFirst)
    try:
        service = HttpMcpService(hub, registry, "127.0.0.1", port, publish_endpoint=False)
    finally:
        monkeypatch.undo()
    try:
        assert service.port != port
        with socket.create_connection(("127.0.0.1", service.port), timeout=5):
            pass  # listening
    finally:
        await service.stop()
        other.close()
