"""The React Native view's event timeline (Line API: only visible rows are rendered) and its row formatting. It
only draws what it is given; rn_view.py fetches."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

MAX_ROWS = 20_000  # rows kept per stream; older ones are dropped (and can be paged in again)


def brief(value: Any, limit: int = 100) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe(ev: dict[str, Any]) -> str:
    """One readable line for an event of any stream (unknown types fall back to their data)."""
    data = ev.get("data") if isinstance(ev.get("data"), dict) else {}
    kind = ev.get("type", "?")
    if kind == "action" and isinstance(data.get("action"), dict):
        action = data["action"]
        payload = action.get("payload")
        return f"{action.get('type', '?')}" + (f"  {brief(payload, 80)}" if payload is not None else "")
    if kind == "route_change":
        return f"{data.get('from', '?')} → {data.get('to', '?')}" + (
            f"  {brief(data['params'], 60)}" if data.get("params") else ""
        )
    if kind in ("key_set", "key_delete"):
        where = f"{data.get('instance', '?')}.{data.get('key', '?')}"
        return where + (f" = {brief(data['value'], 60)}" if "value" in data else "")
    rest = {k: v for k, v in data.items() if k != "patch"}
    return brief(rest, 100) if rest else ""


@dataclass
class Row:
    seq: int
    ts: float | None
    kind: str
    text: str


class Timeline(ScrollView, can_focus=True):
    """A stream's events, oldest first. Holds compact rows, renders only the visible ones, follows new rows while
    the view is scrolled to the bottom, and asks for older pages when the cursor reaches the top."""

    COMPONENT_CLASSES = {"timeline--cursor", "timeline--mark", "timeline--seq", "timeline--dim"}
    DEFAULT_CSS = """
    Timeline { background: $surface; overflow-x: hidden; }
    Timeline > .timeline--cursor { background: $cursor-line-background; }
    Timeline:focus > .timeline--cursor { background: $primary 40%; }
    Timeline > .timeline--mark { color: $warning; text-style: bold; }
    Timeline > .timeline--seq { color: $text-muted; }
    Timeline > .timeline--dim { color: $text-muted; text-style: italic; }
    """
    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "move(-20)", "Page up", show=False),
        Binding("pagedown", "move(20)", "Page down", show=False),
        Binding("home", "move(-1000000000)", "Oldest", show=False),
        Binding("end", "move(1000000000)", "Newest", show=False),
        Binding("enter", "pick", "State at seq"),
        Binding("b", "mark('base')", "Diff base"),
        Binding("t", "mark('target')", "Diff target"),
        Binding("d", "diff_previous", "Diff with previous"),
    ]

    class Picked(Message):
        """The person chose an event: show the state right after it."""

        def __init__(self, seq: int) -> None:
            super().__init__()
            self.seq = seq

    class Marked(Message):
        """Base and target are both marked (or `d` asked for seq-1 → seq): show their diff."""

        def __init__(self, base: int, target: int) -> None:
            super().__init__()
            self.base = base
            self.target = target

    class NeedOlder(Message):
        """The cursor is at the oldest held row and older events may exist."""

        def __init__(self, before_seq: int) -> None:
            super().__init__()
            self.before_seq = before_seq

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rows: list[Row] = []
        self.cursor = 0
        self.base: int | None = None
        self.target: int | None = None
        self.picked: int | None = None
        self.oldest_available = 1  # the service's oldest seq for this stream: below it nothing can be paged in
        self.note = "no events yet: they appear when an app connects"

    # ----- data -----------------------------------------------------------------------------------------------

    def reset(self, note: str = "") -> None:
        self.rows, self.cursor, self.base, self.target, self.picked = [], 0, None, None, None
        self.note = note
        self._resize()
        self.scroll_to(0, 0, animate=False)

    @property
    def last_seq(self) -> int | None:
        return self.rows[-1].seq if self.rows else None

    @property
    def first_seq(self) -> int | None:
        return self.rows[0].seq if self.rows else None

    @property
    def at_bottom(self) -> bool:
        return self.scroll_y >= self.max_scroll_y - 0.5

    def append(self, events: list[dict[str, Any]]) -> int:
        """Add events newer than the last row; keeps following if the view was at the bottom."""
        last = self.last_seq or 0
        new = [self._row(e) for e in events if isinstance(e.get("seq"), int) and e["seq"] > last]
        if not new:
            return 0
        follow = self.at_bottom or not self.rows
        on_last = self.cursor >= len(self.rows) - 1
        self.rows.extend(new)
        cut = max(0, len(self.rows) - MAX_ROWS)
        if cut:
            del self.rows[:cut]
            self.cursor = max(0, self.cursor - cut)
        if follow and on_last:
            self.cursor = len(self.rows) - 1
        self._resize()
        if follow:
            self.call_after_refresh(self.scroll_end, animate=False, immediate=True)
        self.refresh()
        return len(new)

    def prepend(self, events: list[dict[str, Any]]) -> int:
        """Add an older page above the first row without moving what the person is looking at."""
        first = self.first_seq
        old = [self._row(e) for e in events if isinstance(e.get("seq"), int) and (first is None or e["seq"] < first)]
        if not old:
            return 0
        self.rows[:0] = old
        self.cursor += len(old)
        self._resize()
        self.scroll_to(y=self.scroll_y + len(old), animate=False, immediate=True)
        self.refresh()
        return len(old)

    @staticmethod
    def _row(ev: dict[str, Any]) -> Row:
        ts = ev.get("ts")
        return Row(
            ev["seq"], ts / 1000 if isinstance(ts, (int, float)) else None, str(ev.get("type", "?")), describe(ev)
        )

    def _resize(self) -> None:
        self.virtual_size = Size(self.size.width, max(1, len(self.rows)))

    def row_text(self, index: int) -> str:
        """The plain text of a row, as drawn (for tests and screen readers)."""
        return self._line(index).plain

    @property
    def lines_text(self) -> list[str]:
        return [self.row_text(i) for i in range(len(self.rows))]

    # ----- drawing --------------------------------------------------------------------------------------------

    def _line(self, index: int) -> Text:
        row = self.rows[index]
        marks = ("B" if row.seq == self.base else " ") + ("T" if row.seq == self.target else " ")
        marks += "▸" if row.seq == self.picked else " "
        mark_style = self.get_component_rich_style("timeline--mark", partial=True)
        seq_style = self.get_component_rich_style("timeline--seq", partial=True)
        text = Text(marks, style=mark_style)
        text.append(f"#{row.seq:<6}", style=seq_style)
        if row.ts:
            text.append(
                time.strftime("%H:%M:%S", time.localtime(row.ts)) + f".{int(row.ts * 1000) % 1000:03d} ",
                style=seq_style,
            )
        text.append(f"{row.kind:<13}", style="bold")
        text.append(row.text)
        return text

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        index = y + int(self.scroll_y)
        base = self.rich_style
        if not self.rows:
            if y == 0 and self.note:
                dim = self.get_component_rich_style("timeline--dim", partial=True)
                return Strip(list(Text(self.note, style=dim).render(self.app.console))).crop_extend(0, width, base)
            return Strip.blank(width, base)
        if index >= len(self.rows):
            return Strip.blank(width, base)
        text = self._line(index)
        text.truncate(width + int(self.scroll_x), overflow="ellipsis")
        style = base + (self.get_component_rich_style("timeline--cursor") if index == self.cursor else Style())
        segments = [Segment(s.text, style + s.style if s.style else style) for s in text.render(self.app.console)]
        strip = Strip(segments).crop_extend(int(self.scroll_x), int(self.scroll_x) + width, style)
        return strip

    def on_resize(self) -> None:
        self._resize()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.refresh()

    # ----- the person's moves ---------------------------------------------------------------------------------

    def action_move(self, delta: int) -> None:
        if not self.rows:
            return
        self.cursor = max(0, min(len(self.rows) - 1, self.cursor + delta))
        self.scroll_to_region_of_cursor()
        self.refresh()
        if self.cursor == 0 and self.rows[0].seq > self.oldest_available:
            self.post_message(self.NeedOlder(self.rows[0].seq))

    def scroll_to_region_of_cursor(self) -> None:
        top, height = int(self.scroll_y), self.scrollable_content_region.height
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def on_mouse_scroll_up(self) -> None:
        if self.scroll_y <= 0 and self.rows and self.rows[0].seq > self.oldest_available:
            self.post_message(self.NeedOlder(self.rows[0].seq))

    def on_click(self, event) -> None:
        offset = event.get_content_offset(self)
        if offset is None or not self.rows:
            return
        index = offset.y + int(self.scroll_y)
        if 0 <= index < len(self.rows):
            self.cursor = index
            self.action_pick()

    def select_seq(self, seq: int) -> bool:
        for i, row in enumerate(self.rows):
            if row.seq == seq:
                self.cursor = i
                self.scroll_to_region_of_cursor()
                self.refresh()
                return True
        return False

    def action_pick(self) -> None:
        if self.rows:
            self.picked = self.rows[self.cursor].seq
            self.refresh()
            self.post_message(self.Picked(self.picked))

    def action_mark(self, which: str) -> None:
        if not self.rows:
            return
        seq = self.rows[self.cursor].seq
        setattr(self, which, None if getattr(self, which) == seq else seq)
        self.refresh()
        if self.base is not None and self.target is not None:
            self.post_message(self.Marked(self.base, self.target))

    def action_diff_previous(self) -> None:
        if self.rows:
            seq = self.rows[self.cursor].seq
            self.post_message(self.Marked(seq - 1, seq))


def header_lines(status: dict[str, Any], health: dict[str, Any]) -> list[Text]:
    """The connection line and, when no app is connected, how to connect one."""
    if status.get("connected"):
        app, dev = status.get("app") or {}, status.get("device") or {}
        ok = status.get("responsive")
        line = Text("● connected  ", style="bold green")
        line.append(f"{app.get('name', '?')} {app.get('version', '')}", style="bold")
        line.append(
            f"  on {dev.get('platform', '?')} {dev.get('osVersion', '')}"
            f"{' ' + dev['model'] if dev.get('model') else ''}{' (simulator)' if dev.get('simulator') else ''}"
        )
        line.append("  ·  ")
        line.append(
            "responsive" if ok else "NOT RESPONDING (JS thread stalled or paused?)", style="green" if ok else "bold red"
        )
        line.append(f"  ·  session {status.get('session_id')}", style="dim")
        rtt = health.get("rttMs")
        second = Text(
            f"listening on {status.get('url')}" + (f"  ·  rtt {rtt} ms" if rtt is not None else ""), style="dim"
        )
        return [line, second]
    if not status.get("listening"):
        return [
            Text(
                f"✗ the React Native listener is not running: {status.get('error') or 'not started'}", style="bold red"
            ),
            Text("set WS_PORT/WS_HOST to usable values and restart pairdbg", style="dim"),
        ]
    line = Text("○ not connected", style="bold yellow")
    line.append(f" — no React Native app is connected; listening on {status.get('url')}")
    last, close = health.get("lastSession"), health.get("lastClose") or {}
    if close.get("at"):
        when = str(close["at"]).split("T")[-1][:8]
        line.append(f"  ·  the app disconnected at {when} UTC (code {close.get('code')})", style="dim")
    if last:
        ended = f"ended {last['endedAt']}" if last.get("endedAt") else "kept"
        line.append(f"  ·  last session {last.get('sessionId')} {ended}: its events stay browsable", style="dim")
    token = status.get("token") or ""
    how = Text("connect: createAdapter({ url: ", style="dim")
    how.append(f"'{status.get('url')}'", style="bold")
    how.append(", token: ", style="dim")
    how.append(f"'{token}'", style="bold")
    how.append(
        " }) in the app's dev build"
        + (" (token generated for this run; set RN_DEBUG_TOKEN to keep it)" if status.get("token_generated") else ""),
        style="dim",
    )
    return [line, how]
