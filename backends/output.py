"""A bounded ring of program output with cursors, so readers page with `since` and learn what was dropped."""

from __future__ import annotations

from collections import deque

from .models import DataChange, OutputEntry


class OutputRing:
    """Bounded by entries and by bytes: the oldest entries go first when either cap is passed."""

    def __init__(self, capacity: int = 5000, max_bytes: int = 4 * 1024 * 1024) -> None:
        self._entries: deque[OutputEntry] = deque()
        self._capacity = max(1, capacity)
        self.max_bytes = max(1, max_bytes)
        self._next_seq = 1
        self.size = 0  # bytes held (UTF-8)
        self.dropped = 0  # entries dropped so far

    def __len__(self) -> int:
        return len(self._entries)

    def shrink(self, target_bytes: int) -> int:
        """Drop the oldest entries until at most `target_bytes` are held (an ended session's share); returns how
        many went. The ring's own cap is unchanged, for a target that comes back."""
        return self._evict(min(self.max_bytes, max(0, target_bytes)))

    def _evict(self, max_bytes: int | None = None) -> int:
        limit = self.max_bytes if max_bytes is None else max_bytes
        gone = 0
        while self._entries and (len(self._entries) > self._capacity or self.size > limit):
            self.size -= _size(self._entries.popleft().text)
            gone += 1
        self.dropped += gone
        return gone

    @property
    def cursor(self) -> int:
        """The seq the next entry will get; `since=cursor` returns only what comes after now."""
        return self._next_seq

    def append(self, category: str, text: str, change: DataChange | None = None) -> OutputEntry:
        size = _size(text)
        if size > self.max_bytes:  # one chunk larger than the whole budget keeps its end, the newest output
            keep = max(0, self.max_bytes // 4 - 64)
            note = f"[… {len(text) - keep} characters cut: output beyond the session's buffer]\n"
            text = note + (text[-keep:] if keep else "")
            size = _size(text)
        entry = OutputEntry(seq=self._next_seq, category=category, text=text, change=change)
        self._next_seq += 1
        self._entries.append(entry)
        self.size += size
        self._evict()
        return entry

    def read(
        self, since: int = 0, limit: int = 100, category: str | None = None, max_chars: int = 16_000
    ) -> tuple[list[OutputEntry], int, bool, int]:
        """Entries with seq >= since: (entries, next_since, has_more, how many before them were dropped).

        At most `limit` entries and about `max_chars` characters: adapters sometimes deliver hundreds of lines as
        one entry, so the character budget is what keeps a reply small. A single entry larger than the budget is
        cut, and says so.
        """
        oldest = self._entries[0].seq if self._entries else self._next_seq
        dropped = oldest - max(since, 1) if max(since, 1) < oldest else 0
        out: list[OutputEntry] = []
        used = 0
        for entry in self._entries:
            if entry.seq < since or (category and entry.category != category):
                continue
            if len(out) == limit or (out and used + len(entry.text) > max_chars):
                return out, out[-1].seq + 1, True, dropped
            if len(entry.text) > max_chars:
                cut = len(entry.text) - max_chars
                entry = entry.model_copy(update={"text": entry.text[:max_chars] + f"\n[… {cut} more characters cut]\n"})
            out.append(entry)
            used += len(entry.text)
        return out, self._next_seq, False, dropped

    def tail_text(self, since: int, max_lines: int = 10, line_chars: int = 300) -> list[str]:
        """The last lines of output since a cursor, for stop reports.

        Adapters send output in arbitrary chunks (debugpy sends `print("a", 1)` as "a", " ", "1", "\n"), so chunks
        are joined into whole lines per category; a line still being written comes last.
        """
        lines: list[str] = []
        partial: dict[str, str] = {}
        for entry in self._entries:
            if entry.seq < since or entry.category in ("telemetry", "changes"):  # the change log is read on its own
                continue
            *done, rest = (partial.pop(entry.category, "") + entry.text).split("\n")
            lines.extend(line.rstrip("\r") for line in done)
            if rest:
                partial[entry.category] = rest
        lines.extend(rest.rstrip("\r") for rest in partial.values())
        return [
            line if len(line) <= line_chars else line[: line_chars - 1] + f"… ({len(line) - line_chars + 1} more)"
            for line in lines[-max_lines:]
        ]


def _size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "replace"))
