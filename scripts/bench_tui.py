"""Times the TUI the way a person sees it: `pairdbg demo` in a real pseudo-terminal, its output fed to a terminal
emulator (pyte), the clock stopped when the emulated screen shows the change — not when the app has merely
rendered it, which is where the headless figure in bench.py stops.

Prints medians of: launch -> first paint, launch -> stopped screen (the source pane marks the breakpoint line with
▶), and F10 -> the ▶ marker on the next line (each run's first F10 also apart).
Run: .venv/bin/python scripts/bench_tui.py [--runs 3] [--steps 10]
`--test` times `pairdbg test` instead (issue 19: its failing-test stop should cost <= 1.2x `pytest --pdb`): on
tests/programs/pytest_suite with its first failing test selected, launch -> first paint and launch -> the failing
assertion marked with ▶, against `pytest --pdb` in the same pseudo-terminal (launch -> `(Pdb)` on screen); the two
alternate, on the same interpreter.
`--tmux` times the same in a tmux window instead (its pane read with capture-pane every 5 ms, so figures are up
to ~5 ms late plus one capture's run, and the captures themselves take some of a small machine's CPU).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.terminal import F10, Terminal, marked_line  # noqa: E402  (the test suite's terminal reader)

COLS, ROWS = 120, 40
SUITE = ROOT / "tests" / "programs" / "pytest_suite"
SELECT_FAILING = ["-k", "test_discount_fails"]
PDB = "pytest --pdb: launch -> (Pdb) on screen"
TEST_STOP = "pairdbg test: launch -> ▶ on the failing assertion"
POLL_S = 0.005  # tmux: between captures (each capture is a process start, ~5 ms of one core)


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
        for step in range(steps):
            before = marked_line(term.screen.display)
            t = time.perf_counter()
            term.send(F10)
            try:
                seen = term.wait_for(lambda display, b=before: marked_line(display) not in (None, b), 10)
            except TimeoutError:
                break  # the program ended, or the step stayed on the line
            samples["F10 -> next line marked on screen"].append((seen - t) * 1000)
            if step == 0:
                samples["  of which the first F10 after the stop"].append((seen - t) * 1000)
            time.sleep(0.2)  # a person's pace; lets the frame and variables load finish too
            while term.pump(0.02):
                pass
    finally:
        term.close()


def failing_line() -> int:
    lines = (SUITE / "test_orders.py").read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if "assert price == 180" in text)


def run_test_once(samples: dict[str, list[float]], env: dict[str, str], cols: int, rows: int) -> None:
    """One `pytest --pdb` and one `pairdbg test` on the same failing test, each in a new pseudo-terminal."""
    start = time.perf_counter()
    term = Terminal([sys.executable, "-m", "pytest", "--pdb", *SELECT_FAILING], env, cols, rows, cwd=str(SUITE))
    try:
        prompt = term.wait_for(lambda display: any("(Pdb)" in row for row in display), 60)
        samples[PDB].append((prompt - start) * 1000)
        term.send(b"q\n")
        term.proc.wait(10)
    finally:
        term.close()
    line = failing_line()
    argv = [str(ROOT / ".venv" / "bin" / "pairdbg"), "--python", sys.executable, "test", *SELECT_FAILING]
    start = time.perf_counter()
    term = Terminal(argv, env, cols, rows, cwd=str(SUITE))
    try:
        painted = term.wait_for(lambda display: any(row.strip() for row in display))
        samples["pairdbg test: launch -> first paint"].append((painted - start) * 1000)
        stopped = term.wait_for(lambda display: marked_line(display) == line, 60)
        samples[TEST_STOP].append((stopped - start) * 1000)
    finally:
        term.close()


class TmuxWindow:
    """`pairdbg demo` in a detached tmux session on a private server, read with capture-pane."""

    runs = 0

    def __init__(self, argv: list[str], env: dict[str, str], cols: int, rows: int) -> None:
        TmuxWindow.runs += 1  # a server of its own each run: the last one may still be exiting
        self.server = ["tmux", "-L", f"pairdbg-bench-{os.getpid()}-{TmuxWindow.runs}", "-f", os.devnull]
        command = " ".join(f"'{a}'" for a in argv)
        subprocess.run(
            [*self.server, "new-session", "-d", "-s", "bench", "-x", str(cols), "-y", str(rows), command],
            env=env,
            check=True,
        )

    def display(self) -> list[str]:
        out = subprocess.run([*self.server, "capture-pane", "-p", "-t", "bench"], capture_output=True, text=True)
        return out.stdout.splitlines()

    def wait_for(self, predicate, timeout: float = 30.0) -> float:
        deadline = time.perf_counter() + timeout
        while not predicate(self.display()):
            if time.perf_counter() > deadline:
                raise TimeoutError("tmux never showed what was awaited:\n" + "\n".join(self.display()))
            time.sleep(POLL_S)
        return time.perf_counter()

    def send(self, key: str) -> None:
        subprocess.run([*self.server, "send-keys", "-t", "bench", key], check=True)

    def close(self) -> None:
        subprocess.run([*self.server, "kill-server"], capture_output=True)


def run_in_tmux(samples: dict[str, list[float]], steps: int, env: dict[str, str], cols: int, rows: int) -> None:
    start = time.perf_counter()
    window = TmuxWindow([str(ROOT / ".venv" / "bin" / "pairdbg"), "demo"], env, cols, rows)
    try:
        painted = window.wait_for(lambda display: any(row.strip() for row in display))
        samples["launch -> first paint"].append((painted - start) * 1000)
        stopped = window.wait_for(lambda display: marked_line(display) is not None)
        samples["launch -> stopped screen (▶ on the breakpoint line)"].append((stopped - start) * 1000)
        time.sleep(1.0)
        for step in range(steps):
            before = marked_line(window.display())
            t = time.perf_counter()
            window.send("F10")
            try:
                seen = window.wait_for(lambda display, b=before: marked_line(display) not in (None, b), 10)
            except TimeoutError:
                break
            samples["F10 -> next line marked on screen"].append((seen - t) * 1000)
            if step == 0:
                samples["  of which the first F10 after the stop"].append((seen - t) * 1000)
            time.sleep(0.2)
    finally:
        window.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--size", default=f"{COLS}x{ROWS}", help="terminal COLSxROWS, e.g. 80x24")
    parser.add_argument("--tmux", action="store_true", help="run in a tmux window instead of a pty read by pyte")
    parser.add_argument("--test", action="store_true", help="time `pairdbg test` against `pytest --pdb` instead")
    args = parser.parse_args()
    if args.tmux and shutil.which("tmux") is None:
        sys.exit("bench_tui: --tmux needs tmux on PATH")
    cols, rows = (int(n) for n in args.size.lower().split("x"))
    if args.test:
        samples = {PDB: [], "pairdbg test: launch -> first paint": [], TEST_STOP: []}
    else:
        samples = {
            "launch -> first paint": [],
            "launch -> stopped screen (▶ on the breakpoint line)": [],
            "F10 -> next line marked on screen": [],
            "  of which the first F10 after the stop": [],
        }
    with tempfile.TemporaryDirectory() as runtime:
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(cols), "LINES": str(rows)}
        env["XDG_RUNTIME_DIR"] = runtime  # the endpoint file of this TUI stays out of the user's
        # An installed pairdbg runs from bytecode. With PYTHONDONTWRITEBYTECODE set (some shells and CI do) and stale
        # or no .pyc files, every launch compiled ~90 modules first (~0.3 s): not what a person waits for.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        for _ in range(args.runs):
            if args.test:
                run_test_once(samples, env, cols, rows)
            else:
                (run_in_tmux if args.tmux else run_once)(samples, args.steps, env, cols, rows)
    where = "a tmux window" if args.tmux else "a pseudo-terminal"
    load = open("/proc/loadavg").read().split()[0] if os.path.exists("/proc/loadavg") else "?"
    print(f"pairdbg TUI in {where} ({cols}x{rows}): {args.runs} runs, median (min-max), ms; load average {load}")
    for name, values in samples.items():
        if values:
            spread = f"({min(values):.0f}-{max(values):.0f}, n={len(values)})"
            print(f"  {name:<54} {statistics.median(values):8.1f}   {spread}")
    if args.test and samples[PDB]:
        pdb, stop = samples[PDB], samples[TEST_STOP]
        median, least = statistics.median(stop) / statistics.median(pdb), min(stop) / min(pdb)
        print(f"  ratio to pytest --pdb (target <= 1.2x): median {median:.2f}x, min {least:.2f}x")


if __name__ == "__main__":
    sys.exit(main())
