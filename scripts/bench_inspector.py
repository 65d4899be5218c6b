"""Inspector backend benchmarks against real Node and Bun (figures, not pass/fail).

For each runtime: start_debugging -> first stop (connect + breakpoints + release), step_over -> stop report, and
evaluate round trips three ways in the same run: a raw `websockets` loop on the same program (its own
process: Bun serves one client at a time), pairdbg's core (the action registry in process), and pairdbg through
a real MCP stdio client. Run: .venv/bin/python scripts/bench_inspector.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcp import Client, StdioServerParameters
from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # support.*: the test suite's rigs (fake adapter, browser launchers)

from pairdbg.runtime import build_registry  # noqa: E402
from pairdbg.backends.hub import Hub  # noqa: E402
from pairdbg.backends.inspector.rpc import QuickAckConnection  # noqa: E402

PROGRAM = """\
function add(a, b) {
  const sum = a + b;
  return sum;
}
let acc = 0;
for (let i = 0; i < 1000000; i++) {
  acc = add(acc, i);
}
console.log(acc);
"""
BP_LINE = 2


def ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


async def raw_evaluate(runtime: str, program: str, n: int) -> list[float]:
    """A bare client: start the runtime paused, release it to the breakpoint by hand, then time
    Debugger.evaluateOnCallFrame (what pairdbg sends). QUICKACK as pairdbg uses it, or Node's ~40 ms
    delayed-ACK stall would dominate and the comparison would mean nothing. (Bun serves one client at a time,
    so this is its own process of the same program, in the same run.)"""
    from pairdbg.backends.inspector.process import RuntimeProcess
    from support.targets import find_bun, find_node, free_port

    if runtime == "bun":
        argv = [find_bun(), f"--inspect-brk=127.0.0.1:{free_port()}/raw", program]
    else:
        argv = [find_node(), "--inspect-brk=127.0.0.1:0", program]
    process = await RuntimeProcess.spawn(argv, None, None)
    out: list[float] = []
    try:
        async with connect(process.ws_url, compression=None, proxy=None, create_connection=QuickAckConnection) as ws:
            next_id = 0
            paused: dict = {}

            async def call(method: str, params: dict | None = None) -> dict:
                nonlocal next_id, paused
                next_id += 1
                await ws.send(json.dumps({"id": next_id, "method": method, "params": params or {}}))
                while True:
                    message = json.loads(await ws.recv())
                    if message.get("method") == "Debugger.paused":
                        paused = message["params"]
                    if message.get("id") == next_id:
                        return message

            if runtime == "bun":
                for method in ("Inspector.enable", "Runtime.enable", "Debugger.enable"):
                    await call(method)
                await call("Debugger.setBreakpointsActive", {"active": True})
                await call("Debugger.setPauseOnDebuggerStatements", {"enabled": True})  # stop at the entry
                await call("Inspector.initialized")
            else:
                await call("Runtime.enable")
                await call("Debugger.enable")
                await call("Runtime.runIfWaitingForDebugger")
            while not paused:
                message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if message.get("method") == "Debugger.paused":
                    paused = message["params"]
            frame = paused["callFrames"][0]["callFrameId"]
            for i in range(n + 1):
                start = time.perf_counter()
                await call("Debugger.evaluateOnCallFrame", {"callFrameId": frame, "expression": "1+2"})
                if i:
                    out.append(ms(start))
    finally:
        await process.stop()
    return out


async def run_core(runtime: str, program: str, samples: dict[str, list[float]]) -> None:
    hub = Hub()
    registry = build_registry(hub)
    try:
        start = time.perf_counter()
        reply = await registry.run("start_debugging", {
            "program": program, "language": "javascript", "runtime": runtime,
            "breakpoints": [{"file": program, "line": BP_LINE}]}, "bench")
        assert reply.data["state"] == "paused", reply.text
        samples[f"{runtime}: start_debugging -> first stop"].append(ms(start))
        for _ in range(5):
            start = time.perf_counter()
            reply = await registry.run("step_over", {"session_id": "S1"}, "bench")
            assert reply.data["state"] == "paused", reply.text
            samples[f"{runtime}: step_over -> stop report (core)"].append(ms(start))
        for _ in range(10):
            start = time.perf_counter()
            await registry.run("evaluate_expression", {"session_id": "S1", "expression": "1+2"}, "bench")
            samples[f"{runtime}: evaluate (pairdbg core)"].append(ms(start))
    finally:
        await hub.shutdown()


async def run_mcp(runtime: str, program: str, samples: dict[str, list[float]]) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "pairdbg", "--mcp"], cwd=str(ROOT))
    async with Client(params, mode="legacy", cache=None) as client:
        reply = await client.call_tool("start_debugging", {
            "program": program, "language": "javascript", "runtime": runtime,
            "breakpoints": [{"file": program, "line": BP_LINE}]})
        assert reply.structured_content["state"] == "paused", reply
        for _ in range(5):
            start = time.perf_counter()
            await client.call_tool("step_over", {"session_id": "S1"})
            samples[f"{runtime}: step_over -> stop report (MCP stdio)"].append(ms(start))
        for _ in range(10):
            start = time.perf_counter()
            await client.call_tool("evaluate_expression", {"session_id": "S1", "expression": "1+2"})
            samples[f"{runtime}: evaluate (MCP stdio)"].append(ms(start))


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    samples: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        program = str(Path(folder) / "bench.js")
        Path(program).write_text(PROGRAM)
        for runtime in ("node", "bun"):
            for key in ("start_debugging -> first stop", "step_over -> stop report (core)",
                        "step_over -> stop report (MCP stdio)", "evaluate (raw websockets, same program)",
                        "evaluate (pairdbg core)", "evaluate (MCP stdio)"):
                samples[f"{runtime}: {key}"] = []
            for _ in range(args.runs):
                await run_core(runtime, program, samples)
                samples[f"{runtime}: evaluate (raw websockets, same program)"].extend(
                    await asyncio.wait_for(raw_evaluate(runtime, program, 10), 30))
            await run_mcp(runtime, program, samples)
    print(f"pairdbg inspector benchmark: {args.runs} runs, median (min-max), ms")
    for name, values in samples.items():
        if values:
            spread = f"({min(values):.2f}-{max(values):.2f}, n={len(values)})"
            print(f"  {name:<52} {statistics.median(values):8.2f}   {spread}")
    for runtime in ("node", "bun"):
        raw = samples[f"{runtime}: evaluate (raw websockets, same program)"]
        for via in ("pairdbg core", "MCP stdio"):
            ours = samples[f"{runtime}: evaluate ({via})"]
            if raw and ours:
                ratio = statistics.median(ours) / statistics.median(raw)
                print(f"  {runtime}: evaluate ratio {via} / raw = {ratio:.1f}x")


if __name__ == "__main__":
    asyncio.run(main())
