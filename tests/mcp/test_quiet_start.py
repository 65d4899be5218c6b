"""`pairdbg --mcp` starts quietly (issue 22 §6): the React Native and debug-bridge listeners open after the
`initialize` answer is handed to the transport, not on its path, are up and usable for the next call, and their
generated tokens never reach stderr (they are in get_bridge_info, mcp-config and the log). scripts/bench.py measures
the same with timestamps."""

from __future__ import annotations

import asyncio
import json
import os
import socket

from typing import Any

import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage

from support.core import free_port
from support.mcp import INITIALIZE, MCP_ARGV, python_pipes

from pairdbg.mcp_bridge.stdio import AnswerFirst

pytestmark = [pytest.mark.timeout(60)]


class Wire:
    """The transport's side of the server's write stream: what was handed to it, in order."""

    def __init__(self) -> None:
        self.sent: list[Any] = []

    async def send(self, message: SessionMessage) -> None:
        self.sent.append(message.message)


@pytest.mark.asyncio
async def test_the_listeners_open_only_once_the_initialize_answer_is_on_the_wire() -> None:
    """The order (pure logic): the first open comes after the initialize answer was handed to the transport, once;
    a message handled before the listeners are up (a 2026 client's first call) waits for them."""
    wire, opened = Wire(), []
    up = asyncio.Event()
    starting: list[asyncio.Task] = []

    def open_listeners() -> asyncio.Task:  # as Runtime.open_listeners: one start, the same task each call
        opened.append(list(wire.sent))
        if not starting:
            starting.append(asyncio.ensure_future(up.wait()))
        return starting[0]

    stream = AnswerFirst(wire, open_listeners)
    note = types.JSONRPCNotification(jsonrpc="2.0", method="notifications/message", params={"level": "info"})
    await stream.send(SessionMessage(note))
    assert opened == []  # nothing but the initialize answer opens them
    answer = types.JSONRPCResponse(
        jsonrpc="2.0", id=1, result={"protocolVersion": "2025-11-25", "serverInfo": {"name": "pairdbg"}}
    )
    await stream.send(SessionMessage(answer))
    assert len(opened) == 1 and opened[0][-1] is answer  # the answer was on the wire first
    opened[0:1] = []
    await stream.send(SessionMessage(answer))
    assert opened == []  # once

    class Call:
        method = "tools/call"

    async def handled(ctx: Any) -> str:
        return "handled"

    waiting = asyncio.ensure_future(stream.middleware(Call(), handled))
    await asyncio.sleep(0.05)
    assert not waiting.done()  # waits for the listeners
    up.set()
    assert await waiting == "handled"


def test_listeners_open_after_the_initialize_answer_and_tokens_stay_off_stderr() -> None:
    bridge_port, rn_port = free_port(), free_port()
    env = {**os.environ, "PAIRDBG_BRIDGE_PORT": str(bridge_port), "WS_PORT": str(rn_port)}
    for name in ("PAIRDBG_BRIDGE_TOKEN", "RN_DEBUG_TOKEN"):
        env.pop(name, None)  # generated for this run: the tokens that used to be printed
    proc = python_pipes(*MCP_ARGV, env=env)
    assert proc.stdin and proc.stdout and proc.stderr
    try:
        proc.stdin.write(json.dumps(INITIALIZE) + "\n")
        proc.stdin.flush()
        assert '"serverInfo"' in proc.stdout.readline()
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        for call_id, tool in ((2, "get_bridge_info"), (3, "debug_health_check")):
            call = {"jsonrpc": "2.0", "id": call_id, "method": "tools/call", "params": {"name": tool, "arguments": {}}}
            proc.stdin.write(json.dumps(call) + "\n")
        proc.stdin.flush()
        results = {}
        while len(results) < 2:
            message = json.loads(proc.stdout.readline())
            if "id" in message:
                results[message["id"]] = message["result"]["structuredContent"]
        bridge, rn = results[2], results[3]
        assert bridge["listening"] and rn["listening"]["up"], (bridge, rn)  # up for the first call after
        for port in (bridge_port, rn_port):
            with socket.create_connection(("127.0.0.1", port), timeout=5):
                pass
        token = bridge["token"]
    finally:
        proc.stdin.close()
        proc.wait(15)
    stderr = proc.stderr.read()
    proc.stderr.close()
    assert token and token not in stderr and "token for this run" not in stderr, stderr


# Runs `pairdbg --mcp` with a thread that reports on stderr whether the cyclic collector went off, whether it came
# back on (it gives up after 5 s) and how many start-up objects were frozen by then.
PROBED_SERVER = """
import gc, sys, threading, time
def probe():
    deadline = time.monotonic() + 5
    while gc.isenabled() and time.monotonic() < deadline:  # main turns it off as it starts serving stdio
        time.sleep(0.01)
    was_off = not gc.isenabled()
    while not gc.isenabled() and time.monotonic() < deadline:
        time.sleep(0.01)
    print(f"PROBE was_off={was_off} on={gc.isenabled()} frozen={gc.get_freeze_count()}", file=sys.stderr, flush=True)
from pairdbg.cli import main
threading.Thread(target=probe, daemon=True).start()  # started once main's module loaded, before it runs
sys.exit(main(["--mcp"]))
"""


def test_the_collector_is_held_off_while_loading_and_back_on_once_memory_settles() -> None:
    """`pairdbg --mcp` loads without cyclic collections (they were ~45 ms of the way to the initialize answer); the
    settling after the answer must turn the collector back on, or garbage cycles would pile up for the server's
    life."""
    env = {**os.environ, "PAIRDBG_BRIDGE_PORT": "0", "WS_PORT": "0"}
    proc = python_pipes("-c", PROBED_SERVER, env=env)
    assert proc.stdin and proc.stdout and proc.stderr
    try:
        proc.stdin.write(json.dumps(INITIALIZE) + "\n")
        proc.stdin.flush()
        assert '"serverInfo"' in proc.stdout.readline()
        probe = next(line for line in proc.stderr if line.startswith("PROBE"))
    finally:
        proc.stdin.close()
        proc.wait(15)
        proc.stdout.close()
        proc.stderr.close()
    fields = dict(part.split("=") for part in probe.split()[1:])
    assert fields["was_off"] == "True" and fields["on"] == "True", probe
    assert int(fields["frozen"]) > 10_000, probe  # the start-up objects, frozen by the settling collection
