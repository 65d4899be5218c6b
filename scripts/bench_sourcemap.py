"""Micro benchmark for backends/inspector/sourcemap.py: parse a ~1 MB synthetic map, then time lookups.

Run: .venv/bin/python scripts/bench_sourcemap.py [target_bytes]
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pairdbg.backends.inspector.sourcemap import SourceMap

_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _vlq(value: int) -> str:
    value = (-value << 1) | 1 if value < 0 else value << 1
    out = ""
    while True:
        digit, value = value & 31, value >> 5
        out += _DIGITS[digit | (32 if value else 0)]
        if not value:
            return out


def build_map(target_bytes: int, sources: int = 40, seed: int = 7) -> dict:
    """A bundle-like map: many generated lines, several segments each, jumping between sources now and then."""
    rng = random.Random(seed)
    lines: list[str] = []
    src = line = col = 0
    size = 0
    while size < target_bytes:
        gen_col = 0
        segments = []
        for _ in range(rng.randint(1, 12)):
            step = rng.randint(1, 40)
            new_src = rng.randrange(sources) if rng.random() < 0.02 else src
            new_line = max(0, line + rng.choice((0, 0, 0, 1, 1, 2, -1, 30)))
            new_col = max(0, rng.randint(0, 80))
            segments.append(_vlq(step) + _vlq(new_src - src) + _vlq(new_line - line) + _vlq(new_col - col))
            gen_col += step
            src, line, col = new_src, new_line, new_col
        text = ",".join(segments)
        lines.append(text)
        size += len(text) + 1
    return {
        "version": 3,
        "sources": [f"src/module{i}.ts" for i in range(sources)],
        "names": [],
        "mappings": ";".join(lines),
    }


def main() -> None:
    target = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    text = json.dumps(build_map(target))
    runs = []
    for _ in range(5):
        start = time.perf_counter()
        sm = SourceMap.parse(text, "/bench/dist/bundle.js.map", "/bench/dist/bundle.js")
        runs.append(time.perf_counter() - start)
    segments = len(sm._col_sums)
    print(f"map: {len(text) / 1e6:.2f} MB JSON, {sm.line_count} generated lines, {segments} segments")
    print(f"parse (JSON + VLQ + index): best {min(runs) * 1e3:.1f} ms, median {sorted(runs)[2] * 1e3:.1f} ms")

    rng = random.Random(1)
    queries = [(rng.randrange(sm.line_count), rng.randrange(200)) for _ in range(100_000)]
    start = time.perf_counter()
    for gen_line, gen_col in queries:
        sm.original_for(gen_line, gen_col)
    elapsed = time.perf_counter() - start
    print(f"original_for: {len(queries) / elapsed:,.0f} lookups/s")

    start = time.perf_counter()
    sm.generated_for(sm.sources[0], 0)
    print(f"reverse index (built on first generated_for): {(time.perf_counter() - start) * 1e3:.1f} ms")
    reverse = [(rng.choice(sm.sources), rng.randrange(3000)) for _ in range(100_000)]
    start = time.perf_counter()
    for source, orig_line in reverse:
        sm.generated_for(source, orig_line)
    elapsed = time.perf_counter() - start
    print(f"generated_for: {len(reverse) / elapsed:,.0f} lookups/s")


if __name__ == "__main__":
    main()
