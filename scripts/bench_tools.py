"""What an agent reads: the tools/list it pays for on every turn, and the characters of a standard Python session.

Through a real MCP stdio client (`pairdbg --mcp` on this interpreter) against real debugpy. Prints the tools/list
size in compact JSON and the tool count, by default and with `--tools all`; the bytes of each tool, largest first;
and for the scenario (start_debugging tests/programs/loop.py with a breakpoint, get_local_variables,
evaluate_expression, step_over x3, continue_execution to the end) the characters of each reply's text and of its
structured content, with the tool list and the server instructions added for the total an agent reads.
Run: .venv/bin/python scripts/bench_tools.py [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = str(ROOT / "tests" / "programs" / "loop.py")
BP_LINE = 11  # `big_list = list(range(300))`, after the loop: acc and i are set
# Listeners on free ports, so a running pairdbg's default ports do not matter.
QUIET_LISTENERS = {"PAIRDBG_BRIDGE_PORT": "0", "WS_PORT": "0"}


def params(*extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "pairdbg", "--mcp", *extra],
        cwd=str(ROOT),
        env={**os.environ, **QUIET_LISTENERS},
    )


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


async def tool_list(*extra: str) -> tuple[list[dict[str, Any]], str]:
    """The tools as the client received them, and the server instructions."""
    async with Client(params(*extra), cache=None) as client:
        tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in (await client.list_tools()).tools]
        return tools, client.instructions or ""


async def scenario() -> tuple[list[tuple[str, int, int]], list[dict[str, Any]], str]:
    """The standard Python session; per call (tool, text characters, structured-content characters)."""
    calls = [
        ("start_debugging", {"program": PROGRAM, "breakpoints": [{"file": PROGRAM, "line": BP_LINE}]}),
        ("get_local_variables", {"session_id": "S1"}),
        ("evaluate_expression", {"session_id": "S1", "expression": "acc * 2 + i"}),
        ("step_over", {"session_id": "S1"}),
        ("step_over", {"session_id": "S1"}),
        ("step_over", {"session_id": "S1"}),
        ("continue_execution", {"session_id": "S1"}),
    ]
    rows = []
    async with Client(params(), cache=None) as client:
        tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in (await client.list_tools()).tools]
        for name, args in calls:
            result = await client.call_tool(name, args)
            text = "".join(getattr(c, "text", "") for c in result.content)
            if result.is_error:
                raise SystemExit(f"{name} failed: {text}")
            rows.append((name, len(text), len(compact(result.structured_content or {}))))
        await client.call_tool("close_debug_session", {"session_id": "S1"})
        return rows, tools, client.instructions or ""


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args()
    default, _ = await tool_list()
    try:
        everything, _ = await tool_list("--tools", "all")
    except Exception as exc:  # an older pairdbg without --tools lists everything by default
        print(f"(--tools all failed: {exc.__class__.__name__}; using the default list)", file=sys.stderr)
        everything = default
    rows, tools, instructions = await scenario()
    listed = len(compact(tools))
    text = sum(r[1] for r in rows)
    structured = sum(r[2] for r in rows)
    figures = {
        "default": {"tools": len(default), "bytes": len(compact(default))},
        "all": {"tools": len(everything), "bytes": len(compact(everything))},
        "per_tool": {t["name"]: len(compact(t)) for t in sorted(everything, key=lambda t: -len(compact(t)))},
        "scenario": {
            "calls": [{"tool": n, "text": a, "structured": b} for n, a, b in rows],
            "tool_list": listed,
            "instructions": len(instructions),
            "replies_text": text,
            "replies_structured": structured,
            "agent_reads_text": listed + len(instructions) + text,
            "agent_reads_all": listed + len(instructions) + text + structured,
            # hosts send the tool list with every model turn: one turn per call here
            "list_every_turn": listed * len(rows) + len(instructions) + text,
        },
    }
    if args.json:
        print(json.dumps(figures, indent=1))
        return
    shown = {t["name"] for t in default}
    print(f"tools/list, default:      {figures['default']['tools']:3} tools  {figures['default']['bytes']:6} bytes")
    print(f"tools/list, --tools all:  {figures['all']['tools']:3} tools  {figures['all']['bytes']:6} bytes")
    print("\nbytes per tool, largest first (* = in the default list):")
    for name, size in figures["per_tool"].items():
        print(f"  {size:6}  {'*' if name in shown else ' '} {name}")
    s = figures["scenario"]
    print("\nscenario: loop.py, breakpoint, locals, evaluate, step_over x3, continue to the end")
    for call in s["calls"]:
        print(f"  {call['tool']:<22} text {call['text']:5}  structured {call['structured']:5}")
    print(f"  tool list {s['tool_list']} + instructions {s['instructions']} + reply text {s['replies_text']}")
    print(f"  characters an agent reads: {s['agent_reads_text']} (text replies), {s['agent_reads_all']} "
          f"(with structured content: +{s['replies_structured']})")  # fmt: skip
    print(f"  with the tool list sent on each of the {len(s['calls'])} turns: {s['list_every_turn']}")
    ratio = s["replies_structured"] / max(1, s["replies_text"])
    print(f"  structured content / reply text: {ratio:.2f}x (goal <= 1.0x)")


if __name__ == "__main__":
    asyncio.run(main())
