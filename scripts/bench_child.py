"""Child processes of a Python program: how long from start_debugging until a child process's session is stopped at
a breakpoint (a Pool worker under fork and spawn, a `subprocess` Python), and a step in that child, through the core
against real debugpy.
Run: .venv/bin/python scripts/bench_child.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path
from figures import median_line  # scripts/figures.py

from pairdbg.backends.hub import Hub
from pairdbg.backends.models import Phase
from pairdbg.runtime import build_registry

PROGRAMS = Path(__file__).resolve().parents[1] / "tests" / "programs"


def line_of(name: str, marker: str) -> int:
    return next(n for n, text in enumerate((PROGRAMS / name).read_text().splitlines(), 1) if marker in text)


CASES = {
    "Pool worker (fork)": ("pool_job.py", ["fork"], "pool_job.py", "# worker line"),
    "Pool worker (spawn)": ("pool_job.py", ["spawn"], "pool_job.py", "# worker line"),
    "subprocess Python": ("run_child.py", [], "child_task.py", "# child line"),
}


async def first_child_stop(program: str, args: list[str], file: str, line: int) -> tuple[float, float]:
    hub = Hub()
    registry = build_registry(hub)
    try:
        start = time.perf_counter()
        await registry.run(
            "start_debugging",
            {"program": program, "args": args, "breakpoints": [{"file": file, "line": line}], "wait_s": 0},
            "bench",
        )
        while not any(s.parent is not None and s.phase == Phase.PAUSED for s in hub.sessions.values()):
            await asyncio.sleep(0.001)
        first = (time.perf_counter() - start) * 1000
        child = next(s for s in hub.sessions.values() if s.parent is not None and s.phase == Phase.PAUSED)
        start = time.perf_counter()
        reply = await registry.run("step_over", {"session_id": child.id}, "bench")
        step = (time.perf_counter() - start) * 1000
        assert reply.data["state"] == "paused", reply.text
        return first, step
    finally:
        await hub.shutdown()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"pairdbg child processes: {args.runs} runs, median (min-max), ms")
    for name, (program, argv, file, marker) in CASES.items():
        firsts, steps = [], []
        for _ in range(args.runs):
            first, step = await first_child_stop(
                str(PROGRAMS / program), argv, str(PROGRAMS / file), line_of(file, marker)
            )
            firsts.append(first)
            steps.append(step)
        for what, values in ((f"{name}: start -> child stopped", firsts), (f"{name}: step_over in the child", steps)):
            print(median_line(what, values, 45))


if __name__ == "__main__":
    asyncio.run(main())
