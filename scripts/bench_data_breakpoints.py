"""What a data breakpoint costs a debugpy or Node program (issue 23): a hot loop writes an attribute N times (default
1,000,000), timed by the program itself, under pairdbg's debugger, in two runs of the same program:
- without any data breakpoint (the baseline),
- with `bench.target.total` watched (condition `value < 0`, never true, so it never stops: every write is caught,
  compared and its condition evaluated).
Each run times three loops: an object of a class nothing watches, another instance of the watched class, and the
watched instance. Target: the watched instance's loop <= 3x the baseline's; the unwatched class unchanged (<= 2 %).
With --dict the Python loops write an item of built-in dicts instead (`bench.target["total"]` watched: CPython's dict
watchers, Python 3.12+; a 3.11 program refuses the watch).
Run: .venv/bin/python scripts/bench_data_breakpoints.py [--writes 1000000] [--runs 3] [--python python3.12] [--dict]
     .venv/bin/python scripts/bench_data_breakpoints.py --node   (the same loops in Node, under the inspector backend)
     .venv/bin/python scripts/bench_data_breakpoints.py --js-debug   (the same loops in Node, under js-debug)
     .venv/bin/python scripts/bench_data_breakpoints.py --bun   (the same loops in Bun, under the inspector backend)
Each JavaScript loop is timed as the fastest of 5 in a run (a single 1,000,000-write loop takes ~1 ms: one timing is
mostly noise and compile time), in CPU time of the process (on a loaded machine a long loop is preempted more often
than a short one, which skews wall-clock ratios).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from pathlib import Path

from pairdbg.backends.hub import Hub
from pairdbg.runtime import build_registry

PROGRAM = """
import json, sys, time

class Plain:
    pass

class Cart:
    pass

def loop(obj, n):
    start = time.perf_counter()
    for i in range(n):
        obj.total = i
    return time.perf_counter() - start

def loop_items(d, n):
    start = time.perf_counter()
    for i in range(n):
        d["total"] = i
    return time.perf_counter() - start

def main(n, items):
    plain, other, target = Plain(), Cart(), Cart()
    plain.total = other.total = target.total = 0
    if items:
        plain, other, target = {"total": 0}, {"total": 0}, {"total": 0}
    ready = True  # watch here
    if items:
        names, run = ("a dict", "another dict", "watched dict"), loop_items
    else:
        names, run = ("unwatched class", "other instance", "watched instance"), loop
    times = {name: run(obj, n) for name, obj in zip(names, (plain, other, target))}
    print("TIMES " + json.dumps(times), flush=True)

main(int(sys.argv[1]), sys.argv[2:] == ["items"])
"""
NODE_PROGRAM = """
class Plain {}
class Cart {}

function loop(obj, n) {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) obj.total = i;
  const spent = process.cpuUsage(start);
  return (spent.user + spent.system) / 1e6;
}

function best(obj, n) {
  let fastest = Infinity;
  for (let r = 0; r < 5; r++) fastest = Math.min(fastest, loop(obj, n));
  return fastest;
}

function main(n) {
  const plain = new Plain(), other = new Cart(), target = new Cart();
  plain.total = other.total = target.total = 0;
  const ready = true; // watch here
  const times = {
    "unwatched class": best(plain, n), "other instance": best(other, n), "watched instance": best(target, n),
  };
  console.log("TIMES " + JSON.stringify(times));
}

main(Number(process.argv[2]));
"""
ME = "human"


async def one_run(
    folder: Path, writes: int, watched: bool, python: str | None, js: str = "node", items: bool = False
) -> dict[str, float]:
    """One run of the Python program (under `python`, writing dict items with `items`) or, with python None, of the
    JavaScript one: `js` is "node" (the inspector backend), "js-debug" or "bun"."""
    source, name, marker = (
        (PROGRAM, "bench_writes.py", "    ready = True  # watch here")
        if python
        else (NODE_PROGRAM, "bench_writes.js", "  const ready = true; // watch here")
    )
    program = folder / name
    program.write_text(source)
    line = source.splitlines().index(marker) + 1
    runtime: dict[str, str] = (
        {"executable_path": python}
        if python
        else {"language": "javascript", "backend": "dap"}
        if js == "js-debug"
        else {"runtime": js}
    )
    hub = Hub()
    registry = build_registry(hub)
    try:
        started = await registry.run(
            "start_debugging",
            {
                "program": str(program),
                "args": [str(writes), *(["items"] if items else [])],
                "stop_on_entry": True,
                **runtime,
            },
            ME,
        )
        sid = started.data["session_id"]
        bp = await registry.run("set_breakpoint", {"session_id": sid, "file": str(program), "line": line}, ME)
        stop = await registry.run("continue_execution", {"session_id": sid}, ME)
        assert stop.data["state"] == "paused", stop.text
        # Removed before the loops run, so pydevd traces no line of this file in either run.
        await registry.run("remove_breakpoint", {"session_id": sid, "breakpoint_id": bp.data["id"]}, ME)
        if watched:
            reply = await registry.run(
                "set_data_breakpoint",
                {
                    "session_id": sid,
                    "expression": 'target["total"]' if items else "target.total",
                    "condition": "value < 0",
                },
                ME,
            )
            assert reply.data["verified"], reply.text
        end = await registry.run("continue_execution", {"session_id": sid, "wait_s": 300}, ME)
        assert end.data["state"] == "terminated", end.text
        out = await registry.run("get_output", {"session_id": sid, "category": "stdout", "limit": 1000}, ME)
        text = "".join(e["text"] for e in out.data["entries"])
        return json.loads(text.split("TIMES ", 1)[1].splitlines()[0])
    finally:
        await hub.shutdown()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--writes", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--python", default=sys.executable, help="the program's interpreter (3.12+: sys.monitoring)")
    parser.add_argument("--node", action="store_true", help="time the loops in Node instead (the inspector backend)")
    parser.add_argument("--js-debug", action="store_true", help="time the loops in Node under js-debug")
    parser.add_argument("--bun", action="store_true", help="time the loops in Bun (the inspector backend)")
    parser.add_argument("--dict", action="store_true", help="write built-in dicts' items (Python 3.12+: dict watchers)")
    args = parser.parse_args()
    js = "js-debug" if args.js_debug else "bun" if args.bun else "node"
    python = None if args.node or args.js_debug or args.bun else args.python
    base: dict[str, list[float]] = {}
    watch: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.runs):  # alternating, so load on the machine falls on both alike
            for watched, into in ((False, base), (True, watch)):
                for name, seconds in (await one_run(Path(folder), args.writes, watched, python, js, args.dict)).items():
                    into.setdefault(name, []).append(seconds)
    target = python or {"node": "node", "js-debug": "node under js-debug", "bun": "bun"}[js]
    kind = "dict item" if args.dict and python else "attribute"
    print(f"{args.writes:,} {kind} writes under the debugger, median of {args.runs} runs ({target}):")
    for name in base:
        b, w = statistics.median(base[name]), statistics.median(watch[name])
        runs = " ".join(f"{x / y:.2f}" for x, y in zip(watch[name], base[name], strict=True))
        print(
            f"  {name:17} no watch {b * 1000:8.1f} ms   with the watch {w * 1000:8.1f} ms   ({w / b:.2f}x; "
            f"run by run {runs})"
        )


if __name__ == "__main__":
    asyncio.run(main())
