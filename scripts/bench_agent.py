"""Four scripted "find the root cause" agent flows on bugs rooted in real libraries, through a real MCP stdio client.

Each flow is what an agent that knows only the tool names and the server instructions would send: no session_id,
breakpoints aimed by statement or by a library function's qualified name, the stop report read instead of extra
calls. Python flows run pinned tomli (installed into a venv under build/, like tests/support/library_venv.py); the
TypeScript flows run pinned semver (tests/js/tsproject's node_modules) on a tsc build of scripts/agent_flows/ts.
Prints per flow the calls, the characters of the replies' text and of their structured content, and whether the
flow saw its root cause (checked on the replies, not assumed). The goal (issue 22): <= 5 calls and <= 8,000
characters per flow. Needs debugpy (the .venv), Node and tests/js/tsproject's node_modules (scripts/setup-targets.sh).
Run: .venv/bin/python scripts/bench_agent.py [--json] [--show]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_tools import compact, params
from mcp import Client

from pairdbg.backends.runtimes import find_node

ROOT = Path(__file__).resolve().parent.parent
FLOWS = ROOT / "scripts" / "agent_flows"
TOMLI = {"tomli": "2.0.1"}
VENV = ROOT / "build" / f"venv-tomli-{TOMLI['tomli']}"
TS_SOURCES = FLOWS / "ts"
TS_BUILD = ROOT / "build" / "agent-flows-ts"
TS_MODULES = ROOT / "tests" / "js" / "tsproject" / "node_modules"  # semver 7 and typescript, pinned there


def tomli_python() -> str:
    """The venv's python with the pinned tomli, made once."""
    python = VENV / "bin" / "python"
    check = [str(python), "-c", "import importlib.metadata as m; print(m.version('tomli'))"]
    if python.exists() and subprocess.run(check, capture_output=True, text=True).stdout.strip() == TOMLI["tomli"]:
        return str(python)
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)], check=True)
    pins = [f"{name}=={version}" for name, version in TOMLI.items()]
    subprocess.run([str(python), "-m", "pip", "install", "-q", *pins], check=True, timeout=300)
    return str(python)


def ts_build() -> Path:
    """scripts/agent_flows/ts compiled by the fixture project's own tsc (with source maps), run against its semver."""
    tsc = TS_MODULES / "typescript" / "bin" / "tsc"
    if not (tsc.is_file() and (TS_MODULES / "semver").is_dir()):
        sys.exit("tests/js/tsproject has no node_modules: run scripts/setup-targets.sh")
    TS_BUILD.mkdir(parents=True, exist_ok=True)
    modules = TS_BUILD / "node_modules"
    if not modules.exists():
        modules.symlink_to(TS_MODULES)
    options = {
        "target": "ES2022",
        "module": "commonjs",
        "moduleResolution": "node10",
        "sourceMap": True,
        "strict": True,
        "skipLibCheck": True,
        "types": [],
        "rootDir": str(TS_SOURCES),
        "outDir": "dist",
    }
    (TS_BUILD / "tsconfig.json").write_text(json.dumps({"compilerOptions": options, "include": [str(TS_SOURCES)]}))
    subprocess.run([find_node(), str(tsc), "-p", str(TS_BUILD)], check=True)
    return TS_BUILD / "dist"


@dataclass
class Call:
    tool: str
    args: dict[str, Any] | Callable[[list[dict[str, Any]]], dict[str, Any]]  # a function reads earlier replies


@dataclass
class Flow:
    name: str
    bug: str
    calls: list[Call]
    #: True when the replies show the root cause (a check on what the agent read, so a broken surface shows here).
    found: Callable[[list[dict[str, Any]], str], bool]
    rows: list[tuple[str, int, int]] = field(default_factory=list)


def stop(reply: dict[str, Any]) -> dict[str, Any]:
    return reply.get("stop") or {}


def python_flows(python: str) -> list[Flow]:
    schedule = str(FLOWS / "schedule.py")
    ports = str(FLOWS / "ports.py")
    return [
        Flow(
            "python: exception raised in tomli",
            "a TOMLDecodeError about a 'newline' on a line holding a date; the real cause is month 13",
            [
                Call("start_debugging", {"program": schedule, "executable_path": python}),
                # the stop report shows tomli's raise site and its locals (src, pos); read the text at pos
                Call(
                    "evaluate_expression",
                    lambda r: {"frame": stop(r[0])["raise_site"]["handle"], "expression": "src[pos - 12 : pos + 4]"},
                ),
                Call("close_debug_session", {}),
            ],
            lambda replies, text: "raise_site" in stop(replies[0]) and "2024-13" in replies[1].get("value", ""),
        ),
        Flow(
            "python: function breakpoint in tomli",
            "server.port = 8080 is read but the server listens on 80: tomli nests dotted keys",
            [
                Call("start_debugging", {"program": ports, "executable_path": python, "stop_on_entry": True}),
                Call(
                    "set_breakpoint",
                    {"function": "tomli._parser.NestedDict.get_or_create_nest", "condition": "key"},
                ),
                Call("continue_execution", {}),
                Call("close_debug_session", {}),
            ],
            lambda replies, text: stop(replies[2]).get("location", {}).get("function") == "get_or_create_nest"
            and "('server',)" in text,
        ),
    ]


def ts_flows(dist: Path) -> list[Flow]:
    plugins = str(dist / "plugins.js")
    # The file Node loads: it resolves the node_modules link to its real path, and a breakpoint on the linked path
    # would stay pending (a project's own node_modules is a real folder; this build borrows the fixture's).
    range_js = str((TS_MODULES / "semver" / "classes" / "range.js").resolve())
    upgrades = str(dist / "upgrades.js")
    return [
        Flow(
            "typescript: exception thrown in semver",
            "TypeError: Invalid Version: 2.0 from a plugin manifest",
            [
                Call("start_debugging", {"program": plugins, "pause_on_exceptions": "uncaught"}),
                Call("evaluate_expression", {"frame": "@f1", "expression": "manifest.name"}),
                Call("close_debug_session", {}),
            ],
            lambda replies, text: stop(replies[0]).get("location", {}).get("function") == "SemVer"
            and "Invalid Version: 2.0" in text
            and "export" in replies[1].get("value", ""),
        ),
        Flow(
            "typescript: statement breakpoint in semver",
            "3.0.0-rc.2 is never offered for >=2.1.0: satisfies leaves prereleases out unless includePrerelease",
            [
                # function= is refused on JavaScript (no backend has function breakpoints), so the agent aims a
                # statement in the library's file, only for a prerelease, at launch
                Call(
                    "start_debugging",
                    {
                        "program": upgrades,
                        "breakpoints": [
                            {
                                "file": range_js,
                                "statement": "if (version.prerelease.length && !options.includePrerelease)",
                                "condition": "version.prerelease.length > 0",
                            }
                        ],
                    },
                ),
                Call("evaluate_expression", {"expression": "[version.version, options.includePrerelease]"}),
                Call("close_debug_session", {}),
            ],
            lambda replies, text: stop(replies[0]).get("location", {}).get("function") == "testSet"
            and "3.0.0-rc.2" in replies[1].get("value", "")
            and "undefined" in replies[1].get("value", ""),
        ),
    ]


async def run(flow: Flow, show: bool) -> tuple[bool, str]:
    """One flow in a fresh `pairdbg --mcp`; each reply's text and structured characters are recorded."""
    replies: list[dict[str, Any]] = []
    texts: list[str] = []
    async with Client(params(), cache=None) as client:
        for call in flow.calls:
            args = call.args(replies) if callable(call.args) else call.args
            result = await client.call_tool(call.tool, args)
            text = "".join(getattr(c, "text", "") for c in result.content)
            structured = result.structured_content or {}
            flow.rows.append((call.tool, len(text), len(compact(structured))))
            replies.append(structured)
            texts.append(text)
            if show:
                print(f"--- {call.tool} {compact(args)}\n{text}\n", file=sys.stderr)
            if result.is_error:
                return False, f"{call.tool} failed: {text.splitlines()[0] if text else '?'}"
    all_text = "\n".join(texts)
    return flow.found(replies, all_text), ""


async def lazy_host_view() -> tuple[int, int]:
    """What a host that loads schemas lazily gives the model before the first call: tool names and instructions."""
    async with Client(params(), cache=None) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        return len(names), len(", ".join(names)) + len(client.instructions or "")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--show", action="store_true", help="print every call and reply text on stderr")
    args = parser.parse_args()
    flows = python_flows(tomli_python()) + ts_flows(ts_build())
    tools, lazy = await lazy_host_view()
    figures = []
    for flow in flows:
        found, error = await run(flow, args.show)
        text = sum(r[1] for r in flow.rows)
        structured = sum(r[2] for r in flow.rows)
        figures.append(
            {
                "flow": flow.name,
                "bug": flow.bug,
                "calls": len(flow.rows),
                "text": text,
                "structured": structured,
                "root_cause_seen": found,
                "error": error or None,
                "per_call": [{"tool": n, "text": a, "structured": b} for n, a, b in flow.rows],
            }
        )
    if args.json:
        print(json.dumps({"lazy_host": {"tools": tools, "characters": lazy}, "flows": figures}, indent=1))
        return
    print(f"before any call, a lazy host shows {tools} tool names and the instructions: {lazy} characters\n")
    for f in figures:
        goal = "meets" if f["calls"] <= 5 and f["text"] + f["structured"] <= 8000 else "misses"
        print(f"{f['flow']}: {f['calls']} calls, text {f['text']}, structured {f['structured']} "
              f"(both {f['text'] + f['structured']}; {goal} <= 5 calls and <= 8,000); "
              f"root cause seen: {'yes' if f['root_cause_seen'] else 'NO'}"
              + (f"; {f['error']}" if f["error"] else ""))  # fmt: skip
        for call in f["per_call"]:
            print(f"    {call['tool']:<22} text {call['text']:5}  structured {call['structured']:5}")


if __name__ == "__main__":
    asyncio.run(main())
