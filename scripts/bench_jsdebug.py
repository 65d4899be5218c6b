"""js-debug (DAP) benchmark on Node: start_debugging -> first stop, step_over -> stop report and close_debug_session,
through the core.
Run: .venv/bin/python scripts/bench_jsdebug.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from figures import median_line  # scripts/figures.py

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pairdbg.runtime import build_registry
from pairdbg.backends.hub import Hub

PROGRAM = "function add(a, b) {\n  const sum = a + b;\n  return sum;\n}\nlet acc = 0;\n" \
          "for (let i = 0; i < 100000; i++) {\n  acc = add(acc, i);\n}\nconsole.log(acc);\n"


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    first, steps, closes = [], [], []
    with tempfile.TemporaryDirectory() as folder:
        program = str(Path(folder) / "bench.js")
        Path(program).write_text(PROGRAM)
        for _ in range(args.runs):
            hub = Hub()
            registry = build_registry(hub)
            try:
                start = time.perf_counter()
                reply = await registry.run("start_debugging", {
                    "program": program, "language": "javascript", "backend": "dap",
                    "breakpoints": [{"file": program, "line": 2}]}, "bench")
                assert reply.data["state"] == "paused", reply.text
                first.append((time.perf_counter() - start) * 1000)
                for _ in range(5):
                    start = time.perf_counter()
                    reply = await registry.run("step_over", {"session_id": "S1"}, "bench")
                    assert reply.data["state"] == "paused", reply.text
                    steps.append((time.perf_counter() - start) * 1000)
                start = time.perf_counter()
                await registry.run("close_debug_session", {"session_id": "S1"}, "bench")
                closes.append((time.perf_counter() - start) * 1000)
            finally:
                await hub.shutdown()
    print(f"pairdbg js-debug benchmark: {args.runs} runs, median (min-max), ms")
    for name, values in (
        ("start_debugging -> first stop", first),
        ("step_over -> stop report", steps),
        ("close_debug_session", closes),
    ):
        print(median_line(name, values, 32))


if __name__ == "__main__":
    asyncio.run(main())
