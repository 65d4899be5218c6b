"""Debugging a test run: how long until a failing test's stop, under pairdbg (start_debugging of `python -m pytest`,
and debug_tests, which also picks the runner) and under `pytest --pdb` (driven through a pipe: the time until pdb's
prompt appears), on the same interpreter, suite and test (tests/programs/pytest_suite, one failing test selected).
The runs alternate, so load on the machine falls on both alike. Target (issue 19): pairdbg <= 1.2x pytest --pdb.
The last figure is what any debugpy session costs before its program runs (adapter, launcher, pydevd), for scale.
Run: .venv/bin/python scripts/bench_tests.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

from figures import median_line  # scripts/figures.py

from pairdbg.backends.hub import Hub
from pairdbg.runtime import build_registry

PROGRAMS = Path(__file__).resolve().parents[1] / "tests" / "programs"
SUITE = PROGRAMS / "pytest_suite"
CRASH = PROGRAMS / "crash.py"  # raises ZeroDivisionError at once
SELECT = ["-k", "test_discount_fails"]
PROMPT = b"(Pdb) "


async def pdb_stop() -> float:
    """`python -m pytest --pdb`: ms until pdb's prompt is on its stdout (then it is told to quit)."""
    start = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pytest", "--pdb", *SELECT,
        cwd=SUITE, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert proc.stdout is not None and proc.stdin is not None
    seen = b""
    try:
        while PROMPT not in seen:
            chunk = await asyncio.wait_for(proc.stdout.read(4096), 60)
            if not chunk:
                raise RuntimeError(f"pytest --pdb ended without a prompt:\n{seen.decode(errors='replace')[-800:]}")
            seen += chunk
        elapsed = (time.perf_counter() - start) * 1000
        proc.stdin.write(b"q\n")
        await proc.stdin.drain()
        await asyncio.wait_for(proc.wait(), 30)
        return elapsed
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def pairdbg_stop(action: str) -> float:
    """ms from the action's call until its reply is the failing test's stop (the Hub is made before the clock)."""
    args = {"cwd": str(SUITE), "args": SELECT}
    if action == "start_debugging":
        args.update(program="pytest", module=True, wait_s=60)
    elapsed, reply = await timed(action, args)
    test = ((reply.data.get("stop") or {}).get("exception") or {}).get("test") or {}
    if test.get("test") != "test_orders.py::test_discount_fails":
        raise RuntimeError(f"{action} did not stop at the failing test:\n{reply.text}")
    return elapsed


async def session_cost() -> float:
    """What any debugpy session costs before its program does anything: a program that raises at its first line."""
    elapsed, reply = await timed("start_debugging", {"program": str(CRASH), "wait_s": 60})
    if reply.data.get("state") != "paused":
        raise RuntimeError(f"no stop:\n{reply.text}")
    return elapsed


async def timed(action: str, args: dict):
    hub = Hub()
    registry = build_registry(hub)
    try:
        start = time.perf_counter()
        reply = await registry.run(action, args, "bench")
        return (time.perf_counter() - start) * 1000, reply
    finally:
        await hub.shutdown()


CASES = {
    "pytest --pdb: start -> (Pdb) prompt": lambda: pdb_stop(),
    "pairdbg start_debugging(pytest): -> stop": lambda: pairdbg_stop("start_debugging"),
    "pairdbg debug_tests: -> stop": lambda: pairdbg_stop("debug_tests"),
    "(any debugpy session: crash.py -> its stop)": lambda: session_cost(),
}


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for case in CASES.values():  # one warm-up round each (imports, .pyc files), not counted
        await case()
    for _ in range(args.runs):
        for name, case in CASES.items():
            times[name].append(await case())
    print(f"time to a failing test's stop, {sys.executable} ({args.runs} runs, alternating), median (min-max), ms")
    for name, values in times.items():
        print(median_line(name, values, 42))
    pdb = statistics.median(times["pytest --pdb: start -> (Pdb) prompt"])
    for name in list(CASES)[1:3]:
        print(f"  {name:<42} {statistics.median(times[name]) / pdb:8.2f}x pytest --pdb (target <= 1.2x)")


if __name__ == "__main__":
    asyncio.run(main())
