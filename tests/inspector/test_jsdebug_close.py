"""Closing js-debug sessions leaves nothing behind, also when the agent host just goes away (issue 11, item 5).

js-debug's adapter is a server that never exits after `disconnect`; pairdbg used to wait 2 s for it on every close,
longer than an MCP host's shutdown grace, so a host closing its stdio server left the adapter orphaned.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from support.mcp import INITIALIZE, ROOT

pytestmark = [pytest.mark.timeout(60)]
HOST_GRACE_S = 2.0  # what MCP hosts give a stdio server between closing its stdin and killing it


def test_an_agent_host_closing_pairdbg_leaves_no_adapter(proc_guard, tmp_path):
    """A host's shutdown, step by step: close stdin, wait the grace, SIGKILL. proc_guard then fails the test if the
    adapter or the program (both started under this test's mark) is still alive."""
    program = tmp_path / "app.js"
    program.write_text("let x = 1;\nx += 1;\nconsole.log(x);\n")
    server = subprocess.Popen(
        [sys.executable, "-m", "pairdbg", "--mcp"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "start_debugging",
                "arguments": {
                    "program": str(program),
                    "language": "javascript",
                    "backend": "dap",
                    "stop_on_entry": True,
                },
            },
        }
        for message in (INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"}, call):
            server.stdin.write(json.dumps(message) + "\n")
            server.stdin.flush()
        answer: dict = {}
        while answer.get("id") != 2:  # skip the initialize answer and any notification
            answer = json.loads(server.stdout.readline())
        assert answer["result"]["structuredContent"]["state"] == "paused", answer
        server.stdin.close()
        try:
            server.wait(HOST_GRACE_S)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
            pytest.fail(f"pairdbg needed more than the host's {HOST_GRACE_S:g} s to shut down")
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
