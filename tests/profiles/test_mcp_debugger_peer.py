"""A client flow written for mcp-debugger 0.24.2 (mcp_debugger_flow.py) replayed against the real peer (its npm
package run on Node over stdio, debugging Python through debugpy) and against `pairdbg --mcp --profile
mcp-debugger`, on the same Python programs: call by call, the result shapes (keys and JSON types; never values such
as paths, ids or timings) must agree, except for the differences listed below with their reason."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from typing import Any

import pytest
from mcp import Client, MCPError, StdioServerParameters
from support import until
from support.core import missing_target, require_debugpy
from support.mcp import ROOT, stdio_params

from profiles.mcp_debugger_flow import FLOW, WAIT, substitute

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(240)]

PEER = ROOT / ".tools" / "node_modules" / "@debugmcp" / "mcp-debugger"
PEER_VERSION = "0.24.2"

#: (tool, path) -> why pairdbg's shape differs from 0.24.2's there. A difference not listed fails the test, and so
#: does a listed one that no longer happens.
KNOWN = {
    ("list_supported_languages", ".languages[].version: only peer"): "pairdbg's backends have no adapter version",
    ("list_supported_languages", ".languages[].installed: only ours"): "per language, as seed 002 documents",
    ("list_supported_languages", ".languages[].backends: only ours"): "which pairdbg backend debugs it, and why not",
    ("set_breakpoint", ".warning: only peer"): "expectedContent 'a = b' on 'a = b  # Bug...': the peer warns of a "
    "substring match though its schema says trailing comments are ignored; pairdbg ignores them, an exact match",
    ("get_scopes", ".scopes[].expensive: only peer"): "pairdbg's scope views do not carry DAP's expensive flag",
    ("get_scopes", ".scopes[].presentationHint: only peer"): "nor DAP's presentationHint",
    ("get_scopes", ".scopes[].source: only peer"): "nor debugpy's empty source object",
    ("evaluate_expression", ".presentationHint: only peer"): "pairdbg's values carry no DAP presentationHint",
    ("evaluate_expression", ".error: only ours"): "an expression that raises is success:false with the error, as "
    "seed 002 documents; 0.24.2 on debugpy answers success:true with the exception's repr as the result",
    ("evaluate_expression", ".result: only peer"): "the same raising expression",
    ("evaluate_expression", ".type: only peer"): "the same raising expression",
    ("evaluate_expression", ".variablesReference: only peer"): "the same raising expression",
    ("expose_session", ".error: only ours"): "pairdbg has no DAP mirror: 0.24.2's failed-expose shape "
    "(success:false, state, error) instead of host/port/token",
    ("expose_session", ".host: only peer"): "no mirror endpoint",
    ("expose_session", ".port: only peer"): "no mirror endpoint",
    ("expose_session", ".token: only peer"): "no mirror endpoint",
    ("expose_session", ".message: only peer"): "no mirror endpoint",
    ("get_output", ".entries[].timestamp: only peer"): "pairdbg's output entries carry no arrival time",
    ("get_stack_trace", ".lastStop.exceptionInfo.details.stackTrace: only peer"): "pairdbg keeps no formatted "
    "traceback; the frames are in stackFrames",
}


def shape(value: Any) -> Any:
    """Keys and JSON types: a dict's keys with their shapes, a list as the union of its items' shapes."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, list):
        merged: Any = {}
        for item in value:
            s = shape(item)
            merged = {**merged, **s} if isinstance(s, dict) and isinstance(merged, dict) else s
        return [merged] if value else []
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "string"


def differences(peer: Any, ours: Any, path: str = "") -> list[str]:
    if isinstance(peer, dict) and isinstance(ours, dict):
        out = []
        for key in sorted(set(peer) | set(ours)):
            if key not in ours:
                out.append(f"{path}.{key}: only peer")
            elif key not in peer:
                out.append(f"{path}.{key}: only ours")
            else:
                out += differences(peer[key], ours[key], f"{path}.{key}")
        return out
    if isinstance(peer, list) and isinstance(ours, list):
        return differences(peer[0], ours[0], path + "[]") if peer and ours else []
    return [] if peer == ours else [f"{path}: peer {peer}, ours {ours}"]


async def replay(params: StdioServerParameters) -> list[dict[str, Any]]:
    """Run FLOW; one record per call: the JSON answer and isError, or the protocol error's code; and its time."""
    records = []
    ids: dict[str, Any] = {}
    async with Client(params, cache=None) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        records.append({"tool": "tools/list", "names": sorted(names)})
        for tool, args, *keeper in FLOW:
            args = substitute(args, ids)
            if tool == WAIT:

                async def reached(args=args) -> bool:
                    answer = await client.call_tool("list_debug_sessions", {})
                    rows = json.loads(answer.content[0].text)["sessions"]
                    return any(r["id"] == args["sessionId"] and r["state"] == args["state"] for r in rows)

                await until(reached, f"session to be {args['state']}", timeout=30)
                continue
            began = time.monotonic()
            try:
                answer = await client.call_tool(tool, args)
                record = {"payload": json.loads(answer.content[0].text), "is_error": bool(answer.is_error)}
            except MCPError as exc:
                record = {"protocol_error": exc.error.code}
            record.update(tool=tool, ms=(time.monotonic() - began) * 1000)
            if keeper and "payload" in record:
                keeper[0](record["payload"], ids)
            records.append(record)
    return records


def peer_params() -> StdioServerParameters:
    node = shutil.which("node")
    if node is None:
        missing_target("node is not installed (the mcp-debugger peer runs on Node)")
    package = PEER / "package.json"
    if not package.is_file():
        missing_target(f"@debugmcp/mcp-debugger is not installed in {PEER.parent.parent} (scripts/setup-targets.sh)")
    version = json.loads(package.read_text())["version"]
    assert version == PEER_VERSION, f"the peer is {version}; this flow was written for {PEER_VERSION}"
    # The peer's Python adapter runs `python` from PATH with debugpy: this interpreter's.
    env = {**os.environ, "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}
    return StdioServerParameters(command=node, args=[str(PEER / "dist" / "cli.mjs"), "stdio"], env=env, cwd=str(ROOT))


async def test_a_0_24_2_client_flow_gets_the_peers_shapes() -> None:
    require_debugpy()
    peer = await replay(peer_params())
    ours = await replay(stdio_params("--profile", "mcp-debugger"))

    assert ours[0]["names"] == peer[0]["names"], "the 28 tools of 0.24.2"
    assert len(peer[0]["names"]) == 28
    seen = set()
    unexpected = []
    for theirs, mine in zip(peer[1:], ours[1:], strict=True):
        tool = theirs["tool"]
        assert "is_error" not in mine or mine["is_error"] == theirs["is_error"] is False, (tool, mine)
        if "protocol_error" in theirs or "protocol_error" in mine:
            assert theirs.get("protocol_error") == mine.get("protocol_error"), (tool, theirs, mine)
            continue
        for found in differences(shape(theirs["payload"]), shape(mine["payload"])):
            seen.add((tool, found))
            if (tool, found) not in KNOWN:
                unexpected.append(f"{tool}: {found}")
    assert not unexpected, "shapes that differ from 0.24.2:\n" + "\n".join(unexpected)
    assert not set(KNOWN) - seen, f"listed differences that no longer happen: {sorted(set(KNOWN) - seen)}"

    # continue_execution answers at once on both (the program then runs on to its end or next stop)
    for mine in ours[1:]:
        if mine["tool"] == "continue_execution":
            assert mine["ms"] < 1000, f"continue_execution took {mine['ms']:.0f} ms"
    # the flow's values where they are the program's, not the server's: the same on both
    by_step = list(zip(peer[1:], ours[1:], strict=True))
    steps = [(t["payload"], m["payload"]) for t, m in by_step if t["tool"].startswith("step_")]
    for theirs, mine in steps:
        if "location" in theirs:
            assert mine["location"]["line"] == theirs["location"]["line"], (theirs, mine)
            assert mine["context"]["lineContent"] == theirs["context"]["lineContent"]
    traces = [
        (t["payload"], m["payload"])
        for t, m in by_step
        if t["tool"] == "get_stack_trace" and "stackFrames" in t["payload"]
    ]
    for theirs, mine in traces:
        assert [f["name"] for f in mine["stackFrames"]] == [f["name"] for f in theirs["stackFrames"]]
        assert [f["line"] for f in mine["stackFrames"]] == [f["line"] for f in theirs["stackFrames"]]
        assert mine["stopReason"] == theirs["stopReason"]
    exception = traces[-1][1]["lastStop"]
    assert exception["reason"] == "exception" and exception["exceptionInfo"]["exceptionId"] == "ZeroDivisionError"
