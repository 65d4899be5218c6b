"""Nothing pairdbg started outlives it, even a SIGKILL (issue 13): adapters, runtimes, programs and their children.

pairdbg cannot run any cleanup when it is killed; its reaper (backends/process.py) can, from the outside.
"""

from __future__ import annotations

import os
import time

import pytest
from support import line_of, prog
from support.core import marked_processes, wait_gone
from support.mcp import RawServer

pytestmark = pytest.mark.timeout(90)
JS = "let n = 0;\nsetInterval(() => { n += 1; }, 50);\n"


def listening_ports(pids: list[int]) -> set[int]:
    """TCP ports in LISTEN state owned by any of `pids` (from /proc/net/tcp and the processes' fds)."""
    inodes = set()
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            continue
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as fh:
            for row in fh.read().splitlines()[1:]:
                cols = row.split()
                if cols[3] == "0A" and cols[9] in inodes:
                    ports.add(int(cols[1].rsplit(":", 1)[1], 16))
    return ports


def test_sigkill_of_pairdbg_takes_every_debuggee_along(proc_guard, tmp_path):
    program = tmp_path / "ticker.js"
    program.write_text(JS)
    server = RawServer(env={**os.environ, "PAIRDBG_RN__WS_PORT": "0", "PAIRDBG_BRIDGE__PORT": "0"})
    try:
        bp = {"file": prog("loop.py"), "line": line_of("loop.py", "total")}
        python = server.call("start_debugging", {"program": prog("loop.py"), "breakpoints": [bp]})
        assert python["structuredContent"]["state"] == "paused", python
        node = server.call("start_debugging", {"program": str(program), "stop_on_entry": True})
        assert node["structuredContent"]["state"] == "paused", node
        children = [pid for pid, _ in marked_processes() if pid != server.proc.pid]
        assert len(children) >= 4, children  # adapter, launcher, python program, node (and the reaper)
        ports = listening_ports(children)
        assert ports, "the debuggees' inspector/debug ports should be listening before the kill"
    finally:
        server.kill()  # SIGKILL: pairdbg runs no cleanup of its own
    started = time.monotonic()
    left = wait_gone(marked_processes, 10.0)
    assert not left, f"left after SIGKILL: {left}"
    print(
        f"\nall {len(children)} children gone {time.monotonic() - started:.2f}s after the SIGKILL; ports were {ports}"
    )
    assert not listening_ports(children)
