"""Times the TUI the way a person sees it: `pairdbg demo` in a real pseudo-terminal, its output fed to a terminal
emulator (pyte), the clock stopped when the emulated screen shows the change — not when the app has merely
rendered it, which is where the headless figure in bench.py stops.

Prints medians of: launch -> first paint, launch -> stopped screen (the source pane marks the breakpoint line with
▶), and F10 -> the ▶ marker on the next line. Run: .venv/bin/python scripts/bench_tui.py [--runs 3] [--steps 10]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.terminal import F10, Terminal, marked_line  # noqa: E402  (the test suite's terminal reader)

COLS, ROWS = 120, 40


def run_once(samples: dict[str, list[float]], steps: int, env: dict[str, str], cols: int, rows: int) -> None:
    start = time.perf_counter()
    term = Terminal([str(ROOT / ".venv" / "bin" / "pairdbg"), "demo"], env, cols, rows)
    try:
        painted = term.wait_for(lambda display: any(row.strip() for row in display))
        samples["launch -> first paint"].append((painted - start) * 1000)
        stopped = term.wait_for(lambda display: marked_line(display) is not None)
        samples["launch -> stopped screen (▶ on the breakpoint line)"].append((stopped - start) * 1000)
        time.sleep(1.0)  # let start-up work (frames, variables, settle_memory) finish before timing keys
        while term.pump(0.05):
            pass
        for _ in range(steps):
            before = marked_line(term.screen.display)
            t = time.perf_counter()
            term.send(F10)
            try:
                seen = term.wait_for(lambda display, b=before: marked_line(display) not in (None, b), 10)
            except TimeoutError:
                break  # the program ended, or the step stayed on the line
            samples["F10 -> next line marked on screen"].append((seen - t) * 1000)
            time.sleep(0.2)  # a person's pace; lets the frame and variables load finish too
            while term.pump(0.02):
                pass
    finally:
        term.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--size", default=f"{COLS}x{ROWS}", help="terminal COLSxROWS, e.g. 80x24")
    args = parser.parse_args()
    cols, rows = (int(n) for n in args.size.lower().split("x"))
    samples: dict[str, list[float]] = {
        "launch -> first paint": [],
        "launch -> stopped screen (▶ on the breakpoint line)": [],
        "F10 -> next line marked on screen": [],
    }
    with tempfile.TemporaryDirectory() as runtime:
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(cols), "LINES": str(rows)}
        env["XDG_RUNTIME_DIR"] = runtime  # the endpoint file of this TUI stays out of the user's
        for _ in range(args.runs):
            run_once(samples, args.steps, env, cols, rows)
    print(f"pairdbg TUI in a pseudo-terminal ({cols}x{rows}, pyte): {args.runs} runs, median (min-max), ms")
    for name, values in samples.items():
        if values:
            spread = f"({min(values):.0f}-{max(values):.0f}, n={len(values)})"
            print(f"  {name:<54} {statistics.median(values):8.1f}   {spread}")


if __name__ == "__main__":
    sys.exit(main())
