"""The `pairdbg` command line: arguments, mcp-config, and clear refusals before anything starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from pairdbg import cli as pairdbg
from pairdbg.backends.factory import language_of
from support.mcp import DEMO, INITIALIZE, MCP_ARGV, ROOT, python_pipes


def run_cli(*args: str, runtime_dir) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime_dir)}
    return subprocess.run(
        [sys.executable, "-m", "pairdbg", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def test_program_arguments_and_breakpoints_parse_like_a_debugger(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prog.py").write_text("")
    (tmp_path / "other.py").write_text("")
    args = pairdbg.parse(["-b", "13", "-b", "other.py:7", "prog.py", "--verbose", "-b", "x"])
    assert args.program == "prog.py" and args.args == ["--verbose", "-b", "x"]  # after PROGRAM: the program's
    bps = pairdbg._breakpoints(args.breaks, os.path.abspath("prog.py"))
    assert bps == [{"file": os.path.abspath("prog.py"), "line": 13}, {"file": os.path.abspath("other.py"), "line": 7}]
    with pytest.raises(SystemExit, match="FILE:LINE"):
        pairdbg._breakpoints(["prog.py:x"], None)
    with pytest.raises(SystemExit, match="no such file"):  # a typo would otherwise never stop
        pairdbg._breakpoints(["oter.py:7"], None)


def test_demo_stops_at_the_first_line_of_main() -> None:
    launch = pairdbg._demo_launch()
    line = launch["breakpoints"][0]["line"]
    with open(DEMO) as fh:
        lines = fh.read().splitlines()
    assert lines[line - 2] == "def main():" and lines[line - 1].strip()


def test_mcp_config_without_a_running_tui(tmp_path) -> None:
    result = run_cli("mcp-config", runtime_dir=tmp_path)
    assert result.returncode == 0
    blocks = [b for b in result.stdout.split("\n\n") if "{" in b]
    stdio = json.loads(blocks[0][blocks[0].index("{") :])
    assert stdio["mcpServers"]["pairdbg"]["args"][-1] == "--mcp"
    assert "No pairdbg TUI is running" in result.stdout and "7391" in result.stdout


def test_mcp_config_gives_the_running_endpoint(tmp_path) -> None:
    folder = tmp_path / "pairdbg"
    folder.mkdir()
    (folder / "endpoint.json").write_text(
        json.dumps({"url": "http://127.0.0.1:9/mcp", "token": "T0K", "pid": os.getpid()})
    )
    result = run_cli("mcp-config", runtime_dir=tmp_path)
    assert '"Authorization": "Bearer T0K"' in result.stdout and "http://127.0.0.1:9/mcp" in result.stdout


def test_missing_program_and_unknown_theme_are_refused(tmp_path) -> None:
    missing = run_cli("no_such_program.py", runtime_dir=tmp_path)
    assert missing.returncode == 2 and "no such program" in missing.stderr
    theme = run_cli("--theme", "no-such-theme", "--no-http", runtime_dir=tmp_path)
    assert theme.returncode == 2 and "unknown theme 'no-such-theme'" in theme.stderr and "pairdbg-dark" in theme.stderr


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("mode", [[], ["--http", "--port", "0"]])
def test_sigterm_ends_the_headless_server_and_its_programs(tmp_path, mode) -> None:
    """Agent hosts stop servers with SIGTERM; the debuggee and adapter must not be orphaned."""
    import signal
    import time

    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path)}
    proc = python_pipes(*MCP_ARGV, *mode, env=env)
    try:
        if mode:  # HTTP: learn the endpoint from stderr, then talk to it with a real client
            lines = iter(proc.stderr.readline, "")
            url = next(line for line in lines if line.startswith("pairdbg MCP at ")).split(" at ")[1].strip()
            token = next(lines).split("Bearer ")[1].strip()
            import asyncio

            from support.mcp import http_client

            async def start() -> str:
                async with http_client(url, token, mode="legacy") as client:
                    reply = await client.call_tool("start_debugging", {"program": DEMO, "stop_on_entry": True})
                    return reply.content[0].text

            text = asyncio.run(start())
        else:  # stdio: the wire protocol by hand

            def send(message: dict) -> None:
                proc.stdin.write(json.dumps(message) + "\n")
                proc.stdin.flush()

            send(INITIALIZE)
            proc.stdout.readline()
            send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            send(
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "tools/call",
                    "params": {"name": "start_debugging", "arguments": {"program": DEMO, "stop_on_entry": True}},
                }
            )
            answer = json.loads(proc.stdout.readline())
            while answer.get("id") != 2:  # notifications (resource changes) may come first
                answer = json.loads(proc.stdout.readline())
            text = answer["result"]["content"][0]["text"]
        pid = int(text.split("pid ")[1].split(")")[0])
        assert _alive(pid)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid), "the debuggee outlived pairdbg"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_http_mcp_refuses_a_non_loopback_bind(tmp_path) -> None:
    result = run_cli("--mcp", "--http", "--host", "0.0.0.0", "--port", "0", runtime_dir=tmp_path)
    assert result.returncode == 2 and "refusing to serve MCP on 0.0.0.0" in result.stderr


def test_the_language_follows_the_program_extension() -> None:
    assert language_of("a/b.py") == "python"
    assert language_of("app.mjs") == "javascript" and language_of("x.ts") == "typescript"
