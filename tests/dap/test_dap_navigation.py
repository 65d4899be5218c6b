"""What the person's finder reads of a Python session it did not launch: an attached program looks a module name up
with its own interpreter (evaluated while paused), and lists the files it loaded (debugpy's `modules`)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pairdbg.backends import queries
from pairdbg.backends.errors import DebugError
from support import free_port, line_of, prog, until
from support.core import require_debugpy

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]
TICK = line_of("sleeper.py", "return n + 1")


def listening(port: int) -> bool:
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = open(table).read().splitlines()[1:]
        except OSError:
            continue
        if any(r.split()[1].endswith(f":{port:04X}") and r.split()[3] == "0A" for r in rows):  # 0A = LISTEN
            return True
    return False


@pytest.fixture
def listener():
    require_debugpy()
    port = free_port()
    argv = [sys.executable, "-m", "debugpy", "--listen", f"127.0.0.1:{port}", "--wait-for-client", prog("sleeper.py")]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        yield port, proc
    finally:
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:
            pass
        proc.wait(5)


async def test_an_attached_program_resolves_modules_itself(registry, hub, listener) -> None:
    port, proc = listener
    await until(lambda: listening(port) or proc.poll() is not None, f"debugpy to listen on {port}", timeout=15)
    reply = await registry.run("attach", {"target": f"127.0.0.1:{port}", "wait_s": 0}, "human")
    session = hub.sessions[reply.data["session_id"]]
    with pytest.raises(DebugError) as refused:  # running, and no interpreter pairdbg started
        await queries.resolve_module(session, "json.decoder")
    assert "does not know its program's interpreter" in refused.value.message and "pause it" in refused.value.hint
    await registry.run("set_breakpoint", {"session_id": session.id, "file": prog("sleeper.py"), "line": TICK}, "human")
    await registry.run("wait_for_stop", {"session_id": session.id, "timeout_s": 10}, "human")

    found = await queries.resolve_module(session, "json.decoder")
    assert found.endswith("json/decoder.py") and os.path.isfile(found)
    with pytest.raises(DebugError, match="no module named nosuch for the program's interpreter"):
        await queries.resolve_module(session, "nosuch.mod")
    assert prog("sleeper.py") in await queries.loaded_sources(session)
