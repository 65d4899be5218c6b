"""Helpers for the MCP tests: real clients over stdio and HTTP, and waiting on notifications."""

from __future__ import annotations

import subprocess
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "backends" / "samples" / "orders.py")
DEMO_BP_LINE = 13  # `total = price * qty` in apply_discount
# A 2025-handshake `initialize` request, for tests that speak the wire protocol by hand.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}


# Tests' servers declare outputSchemas (off by default, for the tool list's size): the SDK client then checks every
# structured result of every scenario against its tool's schema.
SCHEMAS_ON = {"PAIRDBG_MCP__OUTPUT_SCHEMAS": "true"}


MCP_ARGV = ("-m", "pairdbg", "--mcp")


def python_pipes(*argv: str, env: dict[str, str] | None = None, stderr: int = subprocess.PIPE) -> subprocess.Popen:
    """`python ARGV` from the checkout on text pipes (`pairdbg --mcp` is `*MCP_ARGV`), for tests that speak the wire
    protocol themselves or must decide how the server ends."""
    return subprocess.Popen(
        [sys.executable, *argv],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
    )


def stdio_params(*extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "pairdbg", "--mcp", *extra], cwd=str(ROOT), env=dict(SCHEMAS_ON)
    )


@asynccontextmanager
async def http_client(url: str, token: str | None, mode: str = "auto", **kw):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=120)) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode, cache=None, **kw) as client:
            yield client


async def call(client: Client, name: str, **args):
    result = await client.call_tool(name, args)
    return result


def text(result) -> str:
    return result.content[0].text


class RawServer:
    """`pairdbg --mcp` on raw pipes, for tests that must decide how it ends (stdin closed, SIGKILL) — which a client
    library would decide for them."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        import json

        self._json = json
        self.proc = python_pipes(*MCP_ARGV, env=env, stderr=subprocess.DEVNULL)
        self._next = 1
        self._send(INITIALIZE)
        self._answer(INITIALIZE["id"])
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, name: str, arguments: dict) -> dict:
        """A tools/call; returns its result (skipping notifications on the way)."""
        self._next += 1
        self._send(
            {
                "jsonrpc": "2.0",
                "id": self._next,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )
        return self._answer(self._next)["result"]

    def _send(self, message: dict) -> None:
        self.send_line(self._json.dumps(message))

    def send_line(self, text: str) -> None:
        """One raw frame, as written (it need not be JSON)."""
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def _answer(self, request_id: int) -> dict:
        while True:
            line = self.proc.stdout.readline()
            assert line, "pairdbg --mcp closed its output"
            answer = self._json.loads(line)
            if answer.get("id") == request_id:
                return answer

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):  # not left to the garbage collector
            if pipe is not None:
                pipe.close()
