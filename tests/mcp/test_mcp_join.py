"""`pairdbg --mcp --join`: a stdio agent relayed into a running instance's live session, and clean exits."""

from __future__ import annotations

import asyncio
import os
import sys
import warnings

import pytest
from mcp import Client, StdioServerParameters, types

from support import until
from support.mcp import DEMO, DEMO_BP_LINE, ROOT, http_client, stdio_params


@pytest.fixture
def live(hub, registry, mcp_service, tmp_path):
    return hub, registry, mcp_service, tmp_path


def join_params(runtime_dir) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "pairdbg", "--mcp", "--join"],
        cwd=str(ROOT),
        env={**os.environ, "XDG_RUNTIME_DIR": str(runtime_dir)},
    )


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_stdio_agent_joins_the_running_session(live, mode) -> None:
    hub, registry, service, runtime = live
    await registry.run(
        "start_debugging", {"program": DEMO, "breakpoints": [{"file": DEMO, "line": DEMO_BP_LINE}]}, "human"
    )
    heard: list[str] = []

    async def on_message(message) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            heard.append(str(message.params.uri))

    async with Client(join_params(runtime), mode=mode, cache=None, message_handler=on_message) as agent:
        listed = await agent.call_tool("list_debug_sessions", {})
        assert "S1" in listed.content[0].text and "paused" in listed.content[0].text
        stepped = await agent.call_tool("step_over", {"session_id": "S1"})
        assert stepped.structured_content["stop"]["location"]["line"] == DEMO_BP_LINE + 1
        assert hub.sessions["S1"].last_stop.location.line == DEMO_BP_LINE + 1  # the person sees it
        failed = await agent.call_tool("step_over", {"session_id": "nope"})
        assert failed.is_error and "SESSION_NOT_FOUND" in failed.content[0].text
        if mode == "legacy":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                await agent.subscribe_resource("debug://sessions/S1")
            await registry.run("step_over", {"session_id": "S1"}, "human")
            await until(lambda: "debug://sessions/S1" in heard, "relayed resources/updated")
        else:
            async with agent.listen(resource_subscriptions=["debug://sessions/S1"]) as stream:
                await registry.run("step_over", {"session_id": "S1"}, "human")
                event = await asyncio.wait_for(anext(aiter(stream)), 10)
                assert event.uri == "debug://sessions/S1"


@pytest.mark.asyncio
async def test_join_without_a_running_instance_says_so(tmp_path) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "pairdbg",
        "--mcp",
        "--join",
        cwd=ROOT,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "XDG_RUNTIME_DIR": str(tmp_path)},
    )
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 2
    message = err.decode()
    assert "no running pairdbg to join" in message and str(tmp_path) in message
    # every option it names is one pairdbg has
    assert "`pairdbg --mcp --http`" in message and "--url" not in message and "--token" not in message


@pytest.mark.asyncio
async def test_agent_disconnecting_mid_wait_leaves_the_server_working(live) -> None:
    hub, registry, service, _ = live
    sleeper = str(ROOT / "tests" / "programs" / "sleeper.py")
    started = await registry.run("start_debugging", {"program": sleeper, "wait_s": 0}, "human")
    assert started.data["state"] == "running"

    async def impatient() -> None:
        async with http_client(service.url, service.token, mode="legacy") as agent:
            await agent.call_tool("wait_for_stop", {"session_id": "S1", "timeout_s": 60})

    task = asyncio.create_task(impatient())
    await until(lambda: len(service.notifier.agents) >= 1, "the agent's first request")
    await asyncio.sleep(0.3)  # let the wait begin on the server
    task.cancel()
    with pytest.raises((asyncio.CancelledError, Exception)):
        await task
    async with http_client(service.url, service.token) as other:
        listed = await other.call_tool("list_debug_sessions", {})
        assert not listed.is_error and "S1" in listed.content[0].text and "running" in listed.content[0].text
        paused = await other.call_tool("pause_execution", {"session_id": "S1"})
        assert paused.structured_content["state"] == "paused"


@pytest.mark.asyncio
async def test_stdio_agent_leaving_ends_its_programs() -> None:
    async with Client(stdio_params(), mode="legacy", cache=None) as agent:
        started = await agent.call_tool("start_debugging", {"program": DEMO, "stop_on_entry": True})
        pid = started.structured_content["stop"] and int(started.content[0].text.split("pid ")[1].split(")")[0])
        assert os.path.exists(f"/proc/{pid}")

    def gone() -> bool:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                return fh.read().split(")")[1].split()[0] == "Z"
        except OSError:
            return True

    await until(gone, f"debuggee {pid} to exit after the agent left", timeout=15)
