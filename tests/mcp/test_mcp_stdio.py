"""An agent alone, over stdio: `pairdbg --mcp` with a 2025-handshake client and a 2026 client."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import pytest
from mcp import Client, types

from support import pid_alive, require_debugpy, until
from support.core import RUN_MARK, marked_processes
from support.mcp import DEMO, DEMO_BP_LINE, INITIALIZE, ROOT, stdio_params, text


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_agent_debugs_demo_over_stdio(mode: str) -> None:
    async with Client(stdio_params(), mode=mode, cache=None) as client:
        assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"start_debugging", "step_over", "wait_for_stop", "get_variables", "get_output"} <= names

        started = await client.call_tool(
            "start_debugging", {"program": DEMO, "breakpoints": [{"file": DEMO, "line": DEMO_BP_LINE}]}
        )
        assert not started.is_error, text(started)
        stop = started.structured_content["stop"]
        assert started.structured_content["state"] == "paused"
        assert stop["location"]["line"] == DEMO_BP_LINE and stop["hit_breakpoints"] == ["BP1"]
        assert "> " not in text(started).split("\n")[0]
        assert f">{DEMO_BP_LINE:>5}|     total = price * qty" in text(started)

        stepped = await client.call_tool("step_over", {"session_id": "S1"})
        assert stepped.structured_content["stop"]["location"]["line"] == DEMO_BP_LINE + 1

        value = await client.call_tool("evaluate_expression", {"session_id": "S1", "expression": "price * qty"})
        assert not value.is_error and value.structured_content["value"] == "10.0"

        missing = await client.call_tool("step_over", {"session_id": "S7"})
        assert missing.is_error
        assert missing.structured_content["error"]["code"] == "SESSION_NOT_FOUND"
        assert "Next:" in text(missing)

        bad = await client.call_tool("get_variables", {"session_id": "S1"})
        assert bad.is_error and bad.structured_content["error"]["code"] == "INVALID_PARAMETERS"

        uris = {r.uri for r in (await client.list_resources()).resources}
        assert {"debug://sessions", "debug://sessions/S1", "debug://sessions/S1/output"} <= uris
        session = await client.read_resource("debug://sessions/S1")
        assert '"phase": "paused"' in session.contents[0].text

        prompt = await client.get_prompt("analyze_crash", {"session_id": "S1"})
        assert "apply_discount" in prompt.messages[0].content.text

        ended = await client.call_tool("continue_execution", {"session_id": "S1", "wait_s": 0})
        assert ended.structured_content["state"] in ("running", "paused")
        closed = await client.call_tool("close_debug_session", {"session_id": "S1"})
        assert not closed.is_error


@pytest.mark.asyncio
async def test_legacy_stdio_client_hears_resource_updates() -> None:
    updates: list[str] = []

    async def on_message(message) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.append(str(message.params.uri))

    async with Client(stdio_params(), mode="legacy", cache=None, message_handler=on_message) as client:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await client.subscribe_resource("debug://sessions")
        await client.call_tool("start_debugging", {"program": DEMO, "stop_on_entry": True, "wait_s": 5})
        for _ in range(100):
            if "debug://sessions" in updates:
                break
            await client.call_tool("list_debug_sessions", {})
        assert "debug://sessions" in updates
        await client.call_tool("close_debug_session", {"session_id": "S1"})


def test_headless_mcp_never_imports_textual() -> None:
    """`pairdbg --mcp` and the whole core must run without Textual (checked in a clean interpreter)."""
    code = (
        "import sys, pairdbg.cli, pairdbg.runtime, pairdbg.backends.actions, pairdbg.backends.hub\n"
        "import pairdbg.mcp_bridge.stdio, pairdbg.mcp_bridge.http, pairdbg.mcp_bridge.join\n"
        "import pairdbg.mcp_bridge.http_app\n"
        "from pairdbg.runtime import build_registry\n"
        "from pairdbg.backends.hub import Hub\n"
        "from pairdbg.mcp_bridge.server import build_server\n"
        "build_server(Hub(), build_registry(Hub()))\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=60)


def test_running_mcp_process_loads_no_textual() -> None:
    """The real `pairdbg --mcp` process answers `initialize`, and its import log names no textual module."""
    init = json.dumps(INITIALIZE)
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pairdbg", "--mcp"],
        input=init + "\n",
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    answer = json.loads(proc.stdout.splitlines()[0])
    assert answer["result"]["serverInfo"]["name"] == "pairdbg"
    assert "pairdbg.mcp_bridge.stdio" in proc.stderr, "the import log did not capture the server's imports"
    assert "textual" not in proc.stderr


def test_the_debug_adapter_starts_before_the_sdk_loads() -> None:
    """`pairdbg --mcp` keeps debugpy's adapter ready; its process starts before the MCP SDK is imported (~0.3 s),
    so it boots meanwhile and an agent's first call right after `initialize` does not wait for it
    (scripts/bench_tests.py, "MCP first call")."""
    code = (
        "import sys\n"
        "import pairdbg.backends.dap.spare as spare\n"
        "from pairdbg import cli\n"
        "real = spare.spawn\n"
        "async def spawn(argv, **kw):\n"
        "    print(f'started {argv[-1]} with the SDK loaded: {\"mcp\" in sys.modules}', file=sys.stderr, flush=True)\n"
        "    return await real(argv, **kw)\n"
        "spare.spawn = spawn\n"
        "sys.argv = ['pairdbg', '--mcp']\n"
        "sys.exit(cli.main())\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(INITIALIZE) + "\n",
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert json.loads(proc.stdout.splitlines()[0])["result"]["serverInfo"]["name"] == "pairdbg"
    assert "started " in proc.stderr and "adapter_boot.py with the SDK loaded: False" in proc.stderr, proc.stderr


@pytest.mark.asyncio
@pytest.mark.timeout(90)
async def test_a_stdio_server_keeps_a_debuggee_ready_and_the_agents_launch_becomes_it() -> None:
    """`pairdbg --mcp` starts a debuggee that has done debugpy's imports once its first answer is out; the agent's
    Python launch becomes that process (a program started for the launch would carry `--connect` on its command
    line), and nothing of it is left once the client goes."""
    require_debugpy()

    def spares() -> list[int]:
        return [pid for pid, line in marked_processes() if "pydevd_boot.py --spare" in line]

    params = stdio_params()
    params.env["PAIRDBG_TEST_RUN"] = RUN_MARK  # (the SDK passes on only a few variables): its processes are found
    async with Client(params, mode="auto", cache=None) as client:
        await until(lambda: spares(), "the server's spare debuggee running")
        (spare,) = spares()
        breakpoints = [{"file": DEMO, "line": DEMO_BP_LINE}]  # on the server's own interpreter, as its spare
        started = await client.call_tool(
            "start_debugging", {"program": DEMO, "breakpoints": breakpoints, "executable_path": sys.executable}
        )
        assert started.structured_content["stop"]["location"]["line"] == DEMO_BP_LINE, text(started)
        assert pid_alive(spare)
        assert not [line for _, line in marked_processes() if "pydevd_boot.py" in line and "--connect" in line]
        await until(lambda: [p for p in spares() if p != spare], "the next spare, started after the launch")
    await until(lambda: not spares(), "no spare left once the server ended", timeout=30)
