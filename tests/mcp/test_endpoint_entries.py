"""Endpoint entries: one per serving pairdbg, removed on SIGTERM, never another's overwritten; no token in the log
(issues 13 and 15)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import subprocess
import sys

import pytest
from mcp import Client, StdioServerParameters

from pairdbg.mcp_bridge.http import HttpMcpService, read_endpoint, state_dir
from support.mcp import ROOT

pytestmark = pytest.mark.asyncio


def cli_env(runtime_dir) -> dict[str, str]:
    return {**os.environ, "XDG_RUNTIME_DIR": str(runtime_dir), "PAIRDBG_MCP__PORT": "0"}


def entries() -> list[dict]:
    found = []
    for path in state_dir().glob("endpoint*.json"):
        with contextlib.suppress(ValueError, OSError):
            found.append(json.loads(path.read_text()))
    return found


def mcp_config(runtime_dir) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "pairdbg", "mcp-config"],
        env=cli_env(runtime_dir),
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_two_tuis_each_have_an_entry_and_quitting_one_leaves_the_other_findable(
    hub, registry, tmp_path, monkeypatch
):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    first = HttpMcpService(hub, registry, "127.0.0.1", 0)
    second = HttpMcpService(hub, registry, "127.0.0.1", 0)
    await first.start()
    await second.start()
    try:
        await second.stop()  # the newer TUI quits
        assert read_endpoint()["url"] == first.url
        config = mcp_config(tmp_path)
        assert first.url in config and first.token in config and "No pairdbg TUI is running" not in config
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "pairdbg", "--mcp", "--join"], cwd=str(ROOT), env=cli_env(tmp_path)
        )
        async with Client(params, cache=None) as agent:
            listed = await agent.call_tool("list_debug_sessions", {})
            assert not listed.is_error, listed.content[0].text
    finally:
        await first.stop()
        await second.stop()
    assert read_endpoint() is None and "No pairdbg TUI is running" in mcp_config(tmp_path)


async def test_headless_http_keeps_its_own_entry_and_removes_it_on_sigterm(hub, registry, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    tui = HttpMcpService(hub, registry, "127.0.0.1", 0)
    await tui.start()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pairdbg", "--mcp", "--http"],
        env=cli_env(tmp_path),
        cwd=str(ROOT),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        banner = await asyncio.wait_for(asyncio.to_thread(proc.stderr.readline), 30)
        while "pairdbg MCP at" not in banner:
            banner = await asyncio.wait_for(asyncio.to_thread(proc.stderr.readline), 30)
        assert read_endpoint()["token"] == tui.token, "a running TUI's endpoint is preferred, never overwritten"
        theirs = [e for e in entries() if e.get("pid") == proc.pid]
        assert len(theirs) == 1 and theirs[0]["kind"] == "http", entries()
        proc.send_signal(signal.SIGTERM)
        proc.wait(20)
        assert not [e for e in entries() if e.get("pid") == proc.pid], "SIGTERM left the headless entry behind"
        assert read_endpoint()["token"] == tui.token
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
        await tui.stop()


async def test_tokens_never_reach_pairdbg_log(tmp_path, monkeypatch):
    from pairdbg import cli
    from pairdbg.runtime import Runtime

    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setenv("PAIRDBG_RN__WS_PORT", "0")
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    root.handlers = []
    try:
        cli._setup_logging(headless=False)  # the TUI's log file
        runtime = Runtime()
        await runtime.hub.start_services()  # the services log their generated tokens as warnings
        try:
            logging.getLogger("pairdbg.test").warning("Authorization: Bearer %s", "s3cr3t-t0ken-value-123")
        finally:
            await runtime.hub.shutdown()
        for handler in root.handlers:
            handler.flush()
        log_text = (state_dir() / "pairdbg.log").read_text()
        assert "token for this run: <hidden>" in log_text and "Bearer <hidden>" in log_text, log_text
        from pairdbg.backends.bridge.service import BridgeService
        from pairdbg.backends.rn.service import RnService

        secrets = ["s3cr3t-t0ken-value-123"]
        for kind in (RnService, BridgeService):
            service = runtime.hub.service(kind)
            if service is not None:
                secrets.append(service.config.token)
        for secret in secrets:
            assert secret not in log_text, f"a token reached pairdbg.log:\n{log_text}"
    finally:
        for handler in root.handlers:
            handler.close()
        root.handlers, root.level = saved
