"""First stop on a TypeScript breakpoint given at launch, on each JavaScript path: the inspector on Node, the
inspector on Bun and js-debug. The program is tests/js/tsproject compiled by its own tsc (scripts/setup-targets.sh
installs it); the breakpoints are on src/main.ts (the entry) and src/helper.ts (a module that runs as it loads).
Run: .venv/bin/python scripts/bench_ts.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from pairdbg.backends.hub import Hub
from pairdbg.backends.runtimes import find_node
from pairdbg.runtime import build_registry

ROOT = Path(__file__).resolve().parent.parent

PROJECT = ROOT / "tests" / "js" / "tsproject"
PATHS = {"node": {"runtime": "node"}, "bun": {"runtime": "bun"}, "js-debug": {"backend": "dap"}}


def line_of(path: Path, marker: str) -> int:
    return next(n for n, text in enumerate(path.read_text().splitlines(), 1) if marker in text)


def build() -> None:
    tsc = PROJECT / "node_modules" / "typescript" / "bin" / "tsc"
    if not tsc.is_file():
        sys.exit("tests/js/tsproject has no typescript: run scripts/setup-targets.sh")
    shutil.rmtree(PROJECT / "dist", ignore_errors=True)
    subprocess.run([find_node(), str(tsc), "-p", str(PROJECT)], check=True)


async def first_stop(path: str, marker_file: Path, marker: str) -> float:
    hub = Hub()
    registry = build_registry(hub)
    try:
        start = time.perf_counter()
        reply = await registry.run(
            "start_debugging",
            {
                "program": str(PROJECT / "dist" / "main.js"),
                "language": "javascript",
                "breakpoints": [{"file": str(marker_file), "line": line_of(marker_file, marker)}],
                "wait_s": 20,
                **PATHS[path],
            },
            "bench",
        )
        elapsed = (time.perf_counter() - start) * 1000
        stop = reply.data.get("stop") or {}
        assert stop.get("location", {}).get("file") == str(marker_file), reply.text
        return elapsed
    finally:
        await hub.shutdown()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    build()
    cases = [("src/main.ts", PROJECT / "src" / "main.ts", "MAIN_DESCRIBE"),
             ("src/helper.ts (runs at load)", PROJECT / "src" / "helper.ts", "HELPER_TOP")]
    print(f"pairdbg .ts first-stop benchmark: start_debugging -> stop report, {args.runs} runs, median (min-max), ms")
    for path in PATHS:
        for label, file, marker in cases:
            values = [await first_stop(path, file, marker) for _ in range(args.runs)]
            print(f"  {path:<9} {label:<30} {statistics.median(values):8.1f}   ({min(values):.1f}-{max(values):.1f})")


if __name__ == "__main__":
    asyncio.run(main())
