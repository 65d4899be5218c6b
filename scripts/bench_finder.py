"""Times the finder (ctrl+o) on a 10,000-file project and what inline values cost a step.

Makes a temporary tree of 10,000 files (in a git repository, then without one, so both listings are timed), and
prints medians of: listing the project, the first fuzzy match over it, and both together (what the person waits
for before the first results). Then, on the demo program: parsing a file's outline (once per file, at its first
stop) and building the inline values of 40 visible lines (every step). Run: .venv/bin/python scripts/bench_finder.py
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # support.terminal: the test suite's terminal reader

from pairdbg.backends.models import VariableView  # noqa: E402
from pairdbg.backends.project import list_files  # noqa: E402
from pairdbg.backends.samples import DEMO  # noqa: E402
from pairdbg.backends.source import lines_of  # noqa: E402
from pairdbg.tui.fuzzy import rank  # noqa: E402
from pairdbg.tui.symbols import _outline, outline  # noqa: E402

FILES = 10_000
QUERIES = ["ordsvc", "models/user", "test_api", "zz9"]


def make_tree(root: Path, count: int) -> None:
    names = ["api", "models", "services", "utils", "views", "tests", "core", "handlers"]
    for n in range(count):
        folder = root / "src" / names[n % len(names)] / f"pkg{n % 97}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{names[(n // 7) % len(names)]}_{n}.py").write_text("x = 1\n")
    (root / "node_modules" / "dep").mkdir(parents=True)
    (root / "node_modules" / "dep" / "index.js").write_text("")
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    (root / "pyproject.toml").write_text("[project]\nname='big'\n")


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:8.2f} ms  (min {min(samples) * 1000:.2f}, n={len(samples)})"


def time_finder(root: Path, runs: int, label: str) -> None:
    listing_s, match_s, both_s = [], [], []
    for n in range(runs):
        t0 = time.perf_counter()
        listing = list_files(str(root))
        t1 = time.perf_counter()
        rank(listing.files, QUERIES[n % len(QUERIES)])
        t2 = time.perf_counter()
        listing_s.append(t1 - t0)
        match_s.append(t2 - t1)
        both_s.append(t2 - t0)
    print(f"{label}: {len(listing.files)} files listed ({listing.how})")
    print(f"  listing                          {median_ms(listing_s)}")
    print(f"  first fuzzy match                {median_ms(match_s)}")
    print(f"  ctrl+o -> first results          {median_ms(both_s)}")


def time_inline(runs: int) -> None:
    lines = lines_of(DEMO)
    cold = []
    for _ in range(runs):
        _outline.cache_clear()
        t0 = time.perf_counter()
        outline(DEMO, lines)
        cold.append(time.perf_counter() - t0)
    values = {v.name: v.value for v in [VariableView(name=f"v{i}", value="x" * 40) for i in range(20)]}
    values |= {"price": "2.5", "qty": "10", "total": "25.0", "orders": "{'ada': [...]}"}
    warm = []
    for _ in range(runs * 10):
        t0 = time.perf_counter()
        names = outline(DEMO, lines).names
        for line in range(1, min(len(lines), 40) + 1):
            parts = [f"{n} = {values[n][:24]}" for n in names.get(line, ()) if n in values]
            ", ".join(parts)
        warm.append(time.perf_counter() - t0)
    print(f"inline values ({os.path.basename(DEMO)}, {len(lines)} lines)")
    print(f"  outline parse (first stop in a file) {median_ms(cold)}")
    print(f"  notes for 40 visible lines (a step)  {median_ms(warm)}")


async def time_step_render(runs: int) -> None:
    """A step's work in the source pane, headless: move the stop marker and render every visible row, without and
    with the inline values (set from the stop's locals, as the app does on each stop)."""
    from textual.app import App

    from pairdbg.tui.source_view import SourceView

    from pairdbg import themes

    class One(App[None]):
        def get_theme_variable_defaults(self) -> dict[str, str]:
            return dict(themes.VARIABLE_DEFAULTS)  # the colours pairdbg's themes define (breakpoints, lines)

        def compose(self):
            yield SourceView(id="source")

    lines = lines_of(DEMO)
    values = [VariableView(name=n, value=v) for n, v in [("price", "2.5"), ("qty", "10"), ("total", "25.0")]]
    app = One()
    async with app.run_test(size=(120, 40)) as pilot:
        source = app.query_one(SourceView)
        source.show(DEMO, 11)
        await pilot.pause()
        height = source.scrollable_content_region.height

        def step(n: int, inline: bool) -> float:
            line = 11 + n % 3
            t0 = time.perf_counter()
            source.show(DEMO, line)
            if inline:
                source.set_inline_values(DEMO, line, values if n % 2 else values[:2])
            for y in range(height):
                source.render_line(y)
            return time.perf_counter() - t0

        plain = [step(n, False) for n in range(runs * 20)]
        inline = [step(n, True) for n in range(runs * 20)]
    print(f"a step in the source pane ({len(lines)}-line file, {height} rows rendered)")
    print(f"  without inline values            {median_ms(plain)}")
    print(f"  with inline values               {median_ms(inline)}")
    extra = statistics.median(inline) - statistics.median(plain)
    print(f"  inline values add                {extra * 1000:8.2f} ms")


def time_finder_on_screen(root: Path, runs: int) -> None:
    """ctrl+o in `pairdbg` in a real pseudo-terminal (read through pyte, as bench_tui.py does): from the key to the
    finder's results on screen, for a program in this project."""
    from support.terminal import Terminal, marked_line

    program = root / "src" / "main.py"
    program.write_text("x = 1\nprint(x)\n")
    env = {**os.environ, "TERM": "xterm-256color"}
    env.pop("COLUMNS", None), env.pop("LINES", None)
    argv = [str(ROOT / ".venv" / "bin" / "pairdbg"), "--no-http", "-b", f"{program}:2", str(program)]
    term = Terminal(argv, env, 120, 40)
    samples = []
    try:
        term.wait_for(lambda d: marked_line(d) == 2, 30)
        term.settle()
        for _ in range(runs):
            t0 = time.perf_counter()
            term.send(b"\x0f")  # ctrl+o
            shown = term.wait_for(lambda d: any(" files · " in row for row in d), 10)
            samples.append(shown - t0)
            term.settle(0.2)
            term.send(b"\x1b")  # escape closes it
            term.wait_for(lambda d: not any(" files · " in row for row in d), 10)
            term.settle(0.2)
    finally:
        term.close()
    print(f"  ctrl+o in pairdbg -> on screen   {median_ms(samples)}  (a real terminal)")
    print("    each open, ms: " + " ".join(f"{x * 1000:.0f}" for x in samples))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="pairdbg-finder-"))
    try:
        make_tree(folder, FILES)
        time_finder(folder, args.runs, "walk (no git)")
        if shutil.which("git"):
            subprocess.run(["git", "init", "-q", str(folder)], check=True)
            time_finder(folder, args.runs, "git ls-files (untracked, not ignored)")
            subprocess.run(["git", "-C", str(folder), "add", "-A"], check=True)
            time_finder(folder, args.runs, "git ls-files (tracked)")
            time_finder_on_screen(folder, args.runs)
        time_inline(args.runs)
        asyncio.run(time_step_render(args.runs))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
