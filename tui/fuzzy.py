"""Fuzzy matching of file paths as a finder ranks them: the letters in order, best where they start words of the
file's name. Pure code (no Textual), so the benchmark times exactly what the finder runs."""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_RESULTS = 50


@dataclass(frozen=True)
class Match:
    path: str  # as listed (relative to the project, absolute, or a URL)
    score: float
    positions: tuple[int, ...]  # matched character offsets in `path`, for highlighting


def _pattern(query: str) -> re.Pattern[str]:
    return re.compile(".*?".join(re.escape(c) for c in query), re.IGNORECASE)


def _positions(low: str, query: str, start: int) -> list[int] | None:
    """Where `query`'s letters first appear in order in `low`, from `start`."""
    out, at = [], start
    for ch in query:
        found = low.find(ch, at)
        if found < 0:
            return None
        out.append(found)
        at = found + 1
    return out


def score(path: str, query: str) -> Match | None:
    """None when `query`'s letters do not all appear in order; else a score, higher is better."""
    low = path.lower()
    q = query.lower()
    name_at = low.rfind("/") + 1
    # Prefer the letters inside the file's own name, then anywhere in the path.
    positions = _positions(low, q, name_at) or _positions(low, q, 0)
    if positions is None:
        return None
    total = 0.0
    previous = -2
    for pos in positions:
        if pos == previous + 1:
            total += 5  # consecutive letters
        if pos == 0 or low[pos - 1] in "/._-" or (path[pos].isupper() and not path[pos - 1].isupper()):
            total += 8  # the start of a word
        if pos >= name_at:
            total += 2  # inside the file name
        previous = pos
    if q in low[name_at:]:
        total += 20 + (15 if low[name_at:].startswith(q) else 0)
    total -= (positions[-1] - positions[0]) * 0.2 + len(path) * 0.05  # compact, short paths first
    return Match(path, total, tuple(positions))


def rank(paths: list[str], query: str, limit: int = MAX_RESULTS) -> list[Match]:
    """The best `limit` paths for `query` (all, in listed order, for an empty query). A compiled regex drops the
    non-matches first, so only candidates are scored."""
    if not query:
        return [Match(p, 0.0, ()) for p in paths[:limit]]
    search = _pattern(query).search
    found = [m for p in paths if search(p) and (m := score(p, query)) is not None]
    found.sort(key=lambda m: -m.score)
    return found[:limit]
