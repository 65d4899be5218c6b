"""The composition root: the Runtime starts the services, serves, and shuts everything down once serving ends or a
SIGTERM/SIGHUP arrives (a closed terminal ends pairdbg like a stop from a service manager)."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from pairdbg.backends.bridge.service import BridgeService
from pairdbg.backends.rn.service import RnService
from pairdbg.runtime import Runtime
from pairdbg.settings import Settings

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(30)]


def runtime() -> Runtime:
    return Runtime(Settings(rn={"WS_PORT": 0}, bridge={"port": 0}))


async def test_services_listen_while_serving_and_stop_after():
    rt = runtime()
    rn, bridge = rt.hub.service(RnService), rt.hub.service(BridgeService)
    assert rn is not None and bridge is not None
    assert "get_bridge_info" in rt.registry.actions and "start_debugging" in rt.registry.actions
    seen = {}

    async def serve() -> str:
        seen["ports"] = (rn.server.port, bridge.server.port)
        for port in seen["ports"]:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
        return "served"

    assert await rt.run(serve) == "served"
    for port in seen["ports"]:  # shut down: nothing listens any more
        with pytest.raises(OSError):
            await asyncio.open_connection("127.0.0.1", port)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
async def test_an_end_signal_calls_the_front_ends_quit(sig):
    rt = runtime()
    quit_asked = asyncio.Event()

    async def serve() -> None:
        os.kill(os.getpid(), sig)
        await asyncio.wait_for(quit_asked.wait(), 5)

    try:
        await rt.run(serve, on_signal=quit_asked.set)
    finally:
        loop = asyncio.get_running_loop()
        for s in (signal.SIGTERM, signal.SIGHUP):
            loop.remove_signal_handler(s)
    assert quit_asked.is_set()
