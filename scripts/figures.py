"""How the benchmark scripts print a figure: `  name   median   (min-max, n=N)`, times in ms."""

from __future__ import annotations

import statistics


def median_line(name: str, values: list[float], width: int) -> str:
    spread = f"({min(values):.1f}-{max(values):.1f}, n={len(values)})"
    return f"  {name:<{width}} {statistics.median(values):8.1f}   {spread}"
