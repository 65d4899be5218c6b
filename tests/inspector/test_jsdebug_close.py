"""Closing js-debug sessions leaves nothing behind, also when the agent host just goes away (issue 11, item 5).

js-debug's adapter is a server that never exits after `disconnect`; pairdbg used to wait 2 s for it on every close,
longer than an MCP host's shutdown grace, so a host closing its stdio server left the adapter orphaned.
"""

from __future__ import annotations

import subprocess

import pytest
from support.mcp import RawServer

pytestmark = [pytest.mark.timeout(60)]
HOST_GRACE_S = 2.0  # what MCP hosts give a stdio server between closing its stdin and killing it


def test_an_agent_host_closing_pairdbg_leaves_no_adapter(proc_guard, tmp_path):
    """A host's shutdown, step by step: close stdin, wait the grace, SIGKILL. proc_guard then fails the test if the
    adapter or the program (both started under this test's mark) is still alive."""
    program = tmp_path / "app.js"
    program.write_text("let x = 1;\nx += 1;\nconsole.log(x);\n")
    server = RawServer()
    try:
        started = server.call(
            "start_debugging",
            {"program": str(program), "language": "javascript", "backend": "dap", "stop_on_entry": True},
        )
        assert started["structuredContent"]["state"] == "paused", started
        server.proc.stdin.close()
        try:
            server.proc.wait(HOST_GRACE_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"pairdbg needed more than the host's {HOST_GRACE_S:g} s to shut down")
    finally:
        server.kill()
