"""Times the finder (ctrl+o) on a 10,000-file project and what inline values cost a step.

Makes a temporary tree of 10,000 files (in a git repository, then without one, so both listings are timed), and
prints medians of: listing the project, the first fuzzy match over it, and both together (what the person waits
for before the first results). Then, on the demo program: parsing a file's outline (once per file, at its first
stop) and building the inline values of 40 visible lines (every step). Run: .venv/bin/python scripts/bench_finder.py
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
sys.path.insert(0, str(ROOT / "scripts"))

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
        time_inline(args.runs)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
