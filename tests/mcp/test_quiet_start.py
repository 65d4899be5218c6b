"""`pairdbg --mcp` starts quietly (issue 22 §6): the React Native and debug-bridge listeners open after the
`initialize` answer, not on its path, are up and usable for the next call, and their generated tokens never reach
stderr (they are in get_bridge_info, mcp-config and the log)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import pytest

from support.core import free_port
from support.mcp import INITIALIZE, ROOT

pytestmark = [pytest.mark.timeout(60)]


def test_listeners_open_after_the_initialize_answer_and_tokens_stay_off_stderr() -> None:
    bridge_port, rn_port = free_port(), free_port()
    env = {**os.environ, "PAIRDBG_BRIDGE_PORT": str(bridge_port), "WS_PORT": str(rn_port)}
    for name in ("PAIRDBG_BRIDGE_TOKEN", "RN_DEBUG_TOKEN"):
        env.pop(name, None)  # generated for this run: the tokens that used to be printed
    proc = subprocess.Popen(
        [sys.executable, "-m", "pairdbg", "--mcp"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin and proc.stdout and proc.stderr
    try:
        proc.stdin.write(json.dumps(INITIALIZE) + "\n")
        proc.stdin.flush()
        assert '"serverInfo"' in proc.stdout.readline()
        answered = time.time()  # the listeners open once the client says it has this answer
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
        assert bridge["listening_since"] >= answered and rn["listening"]["since"] >= answered
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
