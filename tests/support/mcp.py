"""Helpers for the MCP tests: real clients over stdio and HTTP, and waiting on notifications."""

from __future__ import annotations

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


def stdio_params(*extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "pairdbg", "--mcp", *extra], cwd=str(ROOT))


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
