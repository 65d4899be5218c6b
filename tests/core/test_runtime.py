"""The composition root: the Runtime starts the services, serves, and shuts everything down once serving ends or a
SIGTERM/SIGHUP arrives (a closed terminal ends pairdbg like a stop from a service manager)."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from pairdbg.backends.bridge.service import BridgeService
from pairdbg.backends.dap.python import SPARE_ADAPTER
from pairdbg.backends.rn.service import RnService
from pairdbg import runtime as runtime_module
from pairdbg.backends.events import Stopped
from pairdbg.backends.hub import Hub
from pairdbg.runtime import Runtime
from pairdbg.settings import Settings
from support import until
from support.core import require_debugpy
from support.mcp import DEMO, DEMO_BP_LINE

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


async def test_a_python_launch_gets_the_adapter_started_before_the_front_end_came_up():
    """`prepare` starts debugpy's adapter for the launch the front end will make; that session runs on it."""
    require_debugpy()
    rt = runtime()
    rt.prepare({"program": DEMO, "breakpoints": [{"file": DEMO, "line": DEMO_BP_LINE}]})
    assert SPARE_ADAPTER.waiting
    await until(lambda: SPARE_ADAPTER.pid is not None, "the spare adapter running")
    spare_pid = SPARE_ADAPTER.pid

    async def serve() -> int:
        reply = await rt.registry.run(
            "start_debugging", {"program": DEMO, "breakpoints": [{"file": DEMO, "line": DEMO_BP_LINE}]}, "human"
        )
        assert reply.data["stop"]["location"]["line"] == DEMO_BP_LINE
        return rt.hub.sessions[reply.data["session_id"]].backend.proc.pid

    assert await rt.run(serve) == spare_pid
    assert not SPARE_ADAPTER.waiting


async def test_a_spare_adapter_nobody_took_is_ended_at_shutdown():
    require_debugpy()
    rt = runtime()
    rt.prepare({"program": DEMO})
    await until(lambda: SPARE_ADAPTER.pid is not None, "the spare adapter running")
    spare_pid = SPARE_ADAPTER.pid

    async def serve() -> None:
        os.kill(spare_pid, 0)  # alive while serving

    await rt.run(serve)
    with pytest.raises(ProcessLookupError):
        os.kill(spare_pid, 0)
    assert not SPARE_ADAPTER.waiting


async def test_no_spare_adapter_for_other_launches(tmp_path):
    (tmp_path / "package.json").write_text('{"scripts": {"test": "node --test"}}')
    rt = runtime()
    node_tests = {"action": "debug_tests", "args": [], "cwd": str(tmp_path)}
    for launch in (None, {"program": "app.js", "language": "javascript"}, node_tests):
        rt.prepare(launch)
        assert not SPARE_ADAPTER.waiting

    async def serve() -> None:
        return None

    await rt.run(serve)  # stops the reaper prepare started


async def test_a_python_projects_tests_get_the_adapter_started_early(tmp_path):
    """`pairdbg test` on a Python project: its tests run on debugpy, whose adapter starts before the TUI is up."""
    require_debugpy()
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert 1 == 2\n")
    rt = runtime()
    rt.prepare({"action": "debug_tests", "args": [], "cwd": str(tmp_path)})
    assert SPARE_ADAPTER.waiting

    async def serve() -> int:
        await until(lambda: SPARE_ADAPTER.pid is not None, "the spare adapter running")
        spare_pid = SPARE_ADAPTER.pid
        reply = await rt.registry.run("debug_tests", {"cwd": str(tmp_path)}, "human")
        assert reply.data["stop"]["exception"]["test"]["test"] == "test_one.py::test_one"
        assert rt.hub.sessions[reply.data["session_id"]].backend.proc.pid == spare_pid
        return spare_pid

    spare_pid = await rt.run(serve)
    with pytest.raises(ProcessLookupError):
        os.kill(spare_pid, 0)  # the session's adapter ended with it
    assert not SPARE_ADAPTER.waiting


async def test_a_headless_server_keeps_an_adapter_ready_for_each_session(monkeypatch):
    """The next adapter starts a while after a session took the last one; none is left running after shutdown."""
    require_debugpy()
    from pairdbg.backends.dap import spare

    monkeypatch.setattr(spare, "REFILL_AFTER_S", 0.05)
    rt = runtime()
    taken: list[int] = []

    async def serve() -> int:
        rt.keep_adapter_ready()
        for _ in range(2):
            await until(lambda: SPARE_ADAPTER.pid is not None, "a spare adapter running")
            spare_pid = SPARE_ADAPTER.pid
            reply = await rt.registry.run(
                "start_debugging", {"program": DEMO, "breakpoints": [{"file": DEMO, "line": DEMO_BP_LINE}]}, "human"
            )
            assert rt.hub.sessions[reply.data["session_id"]].backend.proc.pid == spare_pid
            taken.append(spare_pid)
        await until(lambda: SPARE_ADAPTER.pid is not None, "the next spare adapter running")
        return SPARE_ADAPTER.pid

    left = await rt.run(serve)
    assert len(set(taken)) == 2 and left not in taken
    with pytest.raises(ProcessLookupError):
        os.kill(left, 0)  # the one nobody took ended at shutdown
    assert not SPARE_ADAPTER.waiting


async def test_memory_is_settled_once_soon_after_the_first_stop_not_on_a_fixed_timer(monkeypatch):
    """The settling collection pauses the loop; after the first stop it lands before a person's first key."""
    settled: list[float] = []
    loop = asyncio.get_running_loop()
    monkeypatch.setattr(runtime_module, "settle_memory", lambda: settled.append(loop.time()))
    hub = Hub()
    runtime_module.settle_when_quiet(hub, after_s=30.0)
    await asyncio.sleep(0.05)
    assert settled == []
    stopped_at = loop.time()
    hub.bus.publish(Stopped("S1"))
    await until(lambda: settled, "the settle after the first stop")
    assert settled[0] - stopped_at >= runtime_module.SETTLE_AFTER_STOP_S - 0.01
    hub.bus.publish(Stopped("S1"))
    await asyncio.sleep(runtime_module.SETTLE_AFTER_STOP_S + 0.1)
    assert len(settled) == 1  # once
    runtime_module.settle_when_quiet(hub, after_s=0.05)  # no stop: the timer settles
    await until(lambda: len(settled) == 2, "the settle on the timer")


async def test_a_stop_before_the_front_ends_first_frame_settles_only_after_that_frame(monkeypatch):
    """The TUI's launch starts while the app loads and may stop first: the settle (a loop pause, and the freeze of
    what is alive) waits for the first frame, then comes SETTLE_AFTER_STOP_S after it; the timer waits too."""
    settled: list[float] = []
    loop = asyncio.get_running_loop()
    monkeypatch.setattr(runtime_module, "settle_memory", lambda: settled.append(loop.time()))
    hub = Hub()
    shown = loop.create_future()
    runtime_module.settle_when_quiet(hub, after_s=0.05, shown=shown)
    hub.bus.publish(Stopped("S1"))
    await asyncio.sleep(runtime_module.SETTLE_AFTER_STOP_S + 0.1)
    assert settled == []  # neither the stop nor the timer settled before the frame
    drawn_at = loop.time()
    shown.set_result(None)
    await until(lambda: settled, "the settle after the first frame")
    assert settled[0] - drawn_at >= runtime_module.SETTLE_AFTER_STOP_S - 0.01
    await asyncio.sleep(runtime_module.SETTLE_AFTER_STOP_S + 0.1)
    assert len(settled) == 1  # once


async def test_two_closes_at_once_both_wait_for_the_spare_to_be_gone():
    """A SIGTERM's clean-up and the front end's own shut down side by side: neither may go on (and the process
    exit) while the spare adapter is still being stopped."""
    require_debugpy()
    SPARE_ADAPTER.start()
    await until(lambda: SPARE_ADAPTER.pid is not None, "the spare adapter running")
    pid = SPARE_ADAPTER.pid
    gone_when_returned: list[bool] = []

    async def close() -> None:
        await SPARE_ADAPTER.close()
        try:
            os.kill(pid, 0)
            gone_when_returned.append(False)
        except ProcessLookupError:
            gone_when_returned.append(True)

    await asyncio.gather(close(), close())
    assert gone_when_returned == [True, True]
