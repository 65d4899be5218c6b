"""Python in library code: step_over and evaluate_expression while stopped in the stdlib's json encoder (a library
frame that justMyCode hides from stepping), through the core against real debugpy.
Run: .venv/bin/python scripts/bench_library.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json.encoder
import tempfile
import time
from pathlib import Path
from figures import median_line  # scripts/figures.py

from pairdbg.backends.hub import Hub
from pairdbg.runtime import build_registry

PROGRAM = "import json\n\nfor n in range(50):\n    json.dumps({'n': n, 'items': list(range(n))})\n"


def encode_line() -> tuple[str, int]:
    lines, first = inspect.getsourcelines(json.encoder.JSONEncoder.encode)
    body = next(i for i, text in enumerate(lines) if text.strip().startswith("if isinstance(o, str)"))
    return inspect.getsourcefile(json.encoder.JSONEncoder.encode), first + body


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    file, line = encode_line()
    first, steps, evals = [], [], []
    with tempfile.TemporaryDirectory() as folder:
        program = str(Path(folder) / "uses_json.py")
        Path(program).write_text(PROGRAM)
        for _ in range(args.runs):
            hub = Hub()
            registry = build_registry(hub)
            try:
                start = time.perf_counter()
                reply = await registry.run(
                    "start_debugging", {"program": program, "breakpoints": [{"file": file, "line": line}]}, "bench"
                )
                assert reply.data["state"] == "paused", reply.text
                first.append((time.perf_counter() - start) * 1000)
                for _ in range(5):  # at each hit of the breakpoint in encode(): evaluate, one step, then the next hit
                    start = time.perf_counter()
                    value = await registry.run("evaluate_expression", {"session_id": "S1", "expression": "o"}, "bench")
                    evals.append((time.perf_counter() - start) * 1000)
                    assert value.data.get("value"), value.text
                    start = time.perf_counter()
                    reply = await registry.run("step_over", {"session_id": "S1"}, "bench")
                    steps.append((time.perf_counter() - start) * 1000)
                    assert reply.data["stop"]["location"]["file"] == file, reply.text  # still in the library
                    reply = await registry.run("continue_execution", {"session_id": "S1"}, "bench")
                    assert reply.data["state"] == "paused", reply.text
            finally:
                await hub.shutdown()
    print(f"pairdbg in library code (json.encoder): {args.runs} runs, median (min-max), ms")
    for name, values in (
        ("start_debugging -> stop in the library", first),
        ("step_over in a library frame", steps),
        ("evaluate_expression in a library frame", evals),
    ):
        print(median_line(name, values, 40))


if __name__ == "__main__":
    asyncio.run(main())
