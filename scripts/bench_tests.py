"""Debugging a test run: how long until a failing test's stop, under pairdbg (start_debugging of `python -m pytest`,
and debug_tests, which also picks the runner) and under `pytest --pdb` (driven through a pipe: the time until pdb's
prompt appears), on the same interpreter, suite and failing test. Target (issue 19): pairdbg <= 1.2x pytest --pdb.

Two suites: "small" is tests/programs/pytest_suite with its first failing test selected (-k); "big" is 501 tests
written into a temporary folder, 500 passing ones over an installed library (pydantic models, JSON) and one failing
test that runs last, so every passing test runs before the stop. Each pairdbg case runs twice: with no breakpoint
(the test loop runs untraced: see backends/dap/testhook.py), and with one user breakpoint on a line the run never
reaches before the failure (pydevd traces the test loop, as a breakpoint needs).
The "adapter ready" cases are the same calls made as a headless server (`pairdbg --mcp`) makes them: debugpy's
adapter and a debuggee that has done debugpy's imports were started beforehand (backends/dap/spare.py), SERVER_UP_S
before the call. (`pairdbg test` starts both as it starts, and its launch at once: its figure is
scripts/bench_tui.py --test.) The "MCP
first call" case is the real thing at its coldest: `pairdbg --mcp` started on stdio, and debug_tests sent the
moment the initialize answer is in (the server's own start is not counted, its first call's imports are).
The runs alternate, so load on the machine falls on all alike; the ratios are given for the wall-time medians and
minima, and for the CPU time every process involved spent until the stop (steadier on a busy machine, where the
wall time mostly measures the other load). The last figure is what any debugpy session costs before its
program runs (adapter, launcher, pydevd), for scale.
Run: .venv/bin/python scripts/bench_tests.py [--runs 5] [--suite small|big|both] [--only TEXT]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from figures import median_line  # scripts/figures.py

from pairdbg.backends.dap.python import SPARE_ADAPTER, SPARE_PROGRAM, start_spare_program
from pairdbg.backends.hub import Hub
from pairdbg.runtime import build_registry, launch_python

PROGRAMS = Path(__file__).resolve().parents[1] / "tests" / "programs"
CRASH = PROGRAMS / "crash.py"  # raises ZeroDivisionError at once
PROMPT = b"(Pdb) "

BIG_TESTS = """
import json

import pytest
from pydantic import BaseModel, ValidationError


class Order(BaseModel):
    id: int
    items: list[str]
    total: float


def build(n):
    return Order(id=n, items=[f"item{k}" for k in range(n % 7)], total=n * 1.5)


def never_called():
    return "a line the run never reaches"  # BREAKPOINT


@pytest.mark.parametrize("n", range(300))
def test_round_trip(n):
    order = build(n)
    assert Order.model_validate_json(order.model_dump_json()) == order


@pytest.mark.parametrize("n", range(100))
def test_bad_total_is_refused(n):
    with pytest.raises(ValidationError):
        Order(id=n, items=[], total="lots")


@pytest.mark.parametrize("n", range(100))
def test_json_keeps_every_key(n):
    data = {f"k{i}": i for i in range(n % 13)}
    assert json.loads(json.dumps(data, sort_keys=True)) == data


def test_zz_total_fails():
    order = build(4)
    assert order.total == 7.0, "four at 1.5 each"
"""


class Suite:
    """A folder of tests, the arguments that select the failing test, the test pairdbg must stop at, and a line the
    run never reaches before that stop (for the case with a user breakpoint)."""

    def __init__(self, name: str, folder: Path, args: list[str], test: str, unreached: tuple[Path, int]) -> None:
        self.name, self.folder, self.args, self.test, self.unreached = name, folder, args, test, unreached


def small_suite() -> Suite:
    folder = PROGRAMS / "pytest_suite"
    lines = (folder / "orders.py").read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "return depth(n + 1)" in text)  # deselected by -k
    return Suite("small", folder, ["-k", "test_discount_fails"], "test_orders.py::test_discount_fails",
                 (folder / "orders.py", line))  # fmt: skip


def big_suite(folder: Path) -> Suite:
    source = textwrap.dedent(BIG_TESTS).lstrip()
    (folder / "test_big.py").write_text(source)
    (folder / "pytest.ini").write_text("[pytest]\naddopts = -q -p no:cacheprovider\n")
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "# BREAKPOINT" in text)
    return Suite("big", folder, [], "test_big.py::test_zz_total_fails", (folder / "test_big.py", line))


TICK = os.sysconf("SC_CLK_TCK")


def processes() -> dict[int, tuple[int, float]]:
    """Every process of this machine: pid -> (parent pid, CPU seconds used so far, all its threads)."""
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rpartition(")")[2].split()
            except OSError:
                continue
            out[int(entry)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK)
    return out


def descendants_cpu() -> dict[int, float]:
    """CPU seconds of each process below this one (a session's adapter, launcher and program; pytest --pdb)."""
    table = processes()
    below, todo = {}, [os.getpid()]
    while todo:
        parent = todo.pop()
        for pid, (ppid, cpu) in table.items():
            if ppid == parent and pid not in below:
                below[pid] = cpu
                todo.append(pid)
    return below


class Cpu:
    """CPU time spent from here on by this process and every process below it: on a loaded machine a steadier
    figure than the wall time (the work is mostly one process waiting for the next), read when a case stops."""

    def __init__(self) -> None:
        self.own = time.process_time()
        self.before = descendants_cpu()

    def used(self) -> float:
        now = descendants_cpu()
        below = sum(cpu - self.before.get(pid, 0.0) for pid, cpu in now.items())
        return (time.process_time() - self.own + below) * 1000


CPU: dict[str, list[float]] = {}


async def pdb_stop(suite: Suite) -> float:
    """`python -m pytest --pdb`: ms until pdb's prompt is on its stdout (then it is told to quit)."""
    cpu = Cpu()
    start = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pytest", "--pdb", *suite.args,
        cwd=suite.folder, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert proc.stdout is not None and proc.stdin is not None
    seen = b""
    try:
        while PROMPT not in seen:
            chunk = await asyncio.wait_for(proc.stdout.read(4096), 120)
            if not chunk:
                raise RuntimeError(f"pytest --pdb ended without a prompt:\n{seen.decode(errors='replace')[-800:]}")
            seen += chunk
        elapsed = (time.perf_counter() - start) * 1000
        CPU["last"] = [cpu.used()]
        proc.stdin.write(b"q\n")
        await proc.stdin.drain()
        await asyncio.wait_for(proc.wait(), 30)
        return elapsed
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def pairdbg_stop(suite: Suite, action: str, breakpoint: bool, ready: bool = False) -> float:
    """ms from the action's call until its reply is the failing test's stop (the Hub is made before the clock);
    `ready`: as in a server that keeps debugpy's adapter ready (`pairdbg --mcp`, `pairdbg test`)."""
    args: dict = {"cwd": str(suite.folder), "args": suite.args}
    if action == "start_debugging":
        args.update(program="pytest", module=True, wait_s=120)
    if breakpoint:
        args["breakpoints"] = [{"file": str(suite.unreached[0]), "line": suite.unreached[1]}]
    elapsed, reply = await timed(action, args, ready)
    test = ((reply.data.get("stop") or {}).get("exception") or {}).get("test") or {}
    if test.get("test") != suite.test:
        raise RuntimeError(f"{action} did not stop at the failing test:\n{reply.text}")
    return elapsed


INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
}  # fmt: skip


async def mcp_first_call(suite: Suite) -> float:
    """ms from sending debug_tests to its reply, as the first call of a `pairdbg --mcp` just initialized."""
    env = {**os.environ, "PAIRDBG_BRIDGE_PORT": "0", "WS_PORT": "0"}  # free ports: a running pairdbg's do not matter
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pairdbg", "--mcp", cwd=suite.folder, env=env, limit=1 << 24,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict) -> None:
        proc.stdin.write((json.dumps(message) + "\n").encode())

    async def answer(request_id: int) -> dict:
        while True:
            line = await asyncio.wait_for(proc.stdout.readline(), 120)
            if not line:
                raise RuntimeError("pairdbg --mcp ended without answering")
            message = json.loads(line)
            if message.get("id") == request_id:
                return message

    try:
        send(INITIALIZE)
        await answer(1)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        args = {"cwd": str(suite.folder), "args": suite.args, "executable_path": sys.executable}
        cpu = Cpu()
        start = time.perf_counter()
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "debug_tests", "arguments": args}})
        reply = await answer(2)
        elapsed = (time.perf_counter() - start) * 1000
        CPU["last"] = [cpu.used()]
        text = "".join(part.get("text", "") for part in reply.get("result", {}).get("content", []))
        if suite.test not in text:
            raise RuntimeError(f"debug_tests did not stop at the failing test:\n{text or reply}")
        return elapsed
    finally:
        proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 30)
        except TimeoutError:
            proc.kill()
            await proc.wait()


async def session_cost() -> float:
    """What any debugpy session costs before its program does anything: a program that raises at its first line."""
    elapsed, reply = await timed("start_debugging", {"program": str(CRASH), "wait_s": 60})
    if reply.data.get("state") != "paused":
        raise RuntimeError(f"no stop:\n{reply.text}")
    return elapsed


#: How long a server has been up when the agent's call comes, at the least (a model reads the tool list first).
SERVER_UP_S = 0.5


async def timed(action: str, args: dict, ready: bool = False):
    hub = Hub()
    registry = build_registry(hub)
    try:
        if ready:  # as Runtime.keep_adapter_ready does for a server
            SPARE_ADAPTER.start()
            python = launch_python({"action": action, **args} if action == "debug_tests" else args)
            if python is not None:
                start_spare_program(python, args.get("cwd") or os.getcwd())
            await asyncio.sleep(SERVER_UP_S)
        cpu = Cpu()
        start = time.perf_counter()
        reply = await registry.run(action, args, "bench")
        elapsed = (time.perf_counter() - start) * 1000
        CPU["last"] = [cpu.used()]
        return elapsed, reply
    finally:
        await hub.shutdown()
        await asyncio.gather(SPARE_ADAPTER.close(), SPARE_PROGRAM.close())  # (ones the call did not take)


PDB = "pytest --pdb: start -> (Pdb) prompt"


def cases(suites: list[Suite]) -> dict:
    out = {}
    for s in suites:
        out[f"{s.name}: {PDB}"] = lambda s=s: pdb_stop(s)
        out[f"{s.name}: pairdbg start_debugging -> stop"] = lambda s=s: pairdbg_stop(s, "start_debugging", False)
        out[f"{s.name}:   same, one user breakpoint"] = lambda s=s: pairdbg_stop(s, "start_debugging", True)
        if s.name == "small":
            out[f"{s.name}: pairdbg debug_tests -> stop"] = lambda s=s: pairdbg_stop(s, "debug_tests", False)
        out[f"{s.name}: adapter ready: start_debugging"] = lambda s=s: pairdbg_stop(s, "start_debugging", False, True)
        out[f"{s.name}: adapter ready: + breakpoint"] = lambda s=s: pairdbg_stop(s, "start_debugging", True, True)
        if s.name == "small":
            out[f"{s.name}: adapter ready: debug_tests"] = lambda s=s: pairdbg_stop(s, "debug_tests", False, True)
            out[f"{s.name}: MCP first call: debug_tests"] = lambda s=s: mcp_first_call(s)
    out["(any debugpy session: crash.py -> its stop)"] = session_cost
    return out


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--suite", choices=["small", "big", "both"], default="both")
    parser.add_argument("--only", default=None, help="only the cases whose name holds this text (and pytest --pdb)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pairdbg-bench-tests-") as tmp:
        suites = [small_suite()] if args.suite != "big" else []
        if args.suite != "small":
            suites.append(big_suite(Path(tmp)))
        table = {
            name: case for name, case in cases(suites).items() if args.only is None or args.only in name or PDB in name
        }
        times: dict[str, list[float]] = {name: [] for name in table}
        cpu: dict[str, list[float]] = {name: [] for name in table}
        for case in table.values():  # one warm-up round each (imports, .pyc files), not counted
            await case()
        for _ in range(args.runs):
            for name, case in table.items():
                times[name].append(await case())
                cpu[name] += CPU.pop("last")
    width = max(map(len, table))
    print(f"time to a failing test's stop, {sys.executable} ({args.runs} runs, alternating), median (min-max), ms")
    for name, values in times.items():
        print(median_line(name, values, width))
    print("CPU time until the stop (this process and all below it), median (min-max), ms")
    for name, values in cpu.items():
        print(median_line(name, values, width))
    print("ratio to pytest --pdb on the same suite (target <= 1.2x): wall median, wall min, CPU median")
    for s in suites:
        pdb, pdb_cpu = times[f"{s.name}: {PDB}"], cpu[f"{s.name}: {PDB}"]
        for name in (n for n in table if n.startswith(f"{s.name}:") and PDB not in n):
            ratios = (
                statistics.median(times[name]) / statistics.median(pdb),
                min(times[name]) / min(pdb),
                statistics.median(cpu[name]) / statistics.median(pdb_cpu),
            )
            print(f"  {name:<{width}} " + "  ".join(f"{r:6.2f}x" for r in ratios))


if __name__ == "__main__":
    asyncio.run(main())
