"""The change log beside the console: each write a log-only data breakpoint recorded (Shift+B in Variables, or an
agent's set_data_breakpoint with log_only), one row as it arrives (time, old → new, file:line, function, thread).
The console and the log take turns in one pane (a ContentSwitcher); once there is a log, the pane's title names both
and F4 or a click on the title switches. The pane keeps the newest MAX_ROWS rows; the core keeps the whole log
(get_output category "changes"). Its table (and the DataTable module) is built on the first logged change or the first
time the tab is shown, so a run without a change log never pays for it."""

from __future__ import annotations

import os
import time
from collections import deque
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import ContentSwitcher, Static

from .panes import ConsolePane

if TYPE_CHECKING:
    from textual.widgets import DataTable

    from pairdbg.backends.models import DataChange

MAX_ROWS = 1000
COLUMNS = ("time", "change", "where", "function", "thread")  # old → new early: a narrow pane still shows it


def stamp(at: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(at)) + f".{int(at * 1000) % 1000:03d}"


def change_cells(change: DataChange, session_id: str, many: bool) -> tuple[str, ...]:
    """One row's cells; with several sessions the change names its session, as console lines do."""
    where = f"{os.path.basename(change.file)}:{change.line}" if change.file else "?"
    what = f"{change.breakpoint_id} {change.expression}: {change.old} → {change.new}"
    if many:
        what = f"{session_id}│ {what}"
    if change.stopped:
        what += "  (stopped)"
    if change.note:
        what += f"  ({change.note})"
    return stamp(change.at), what, where, change.function or "?", change.thread or "?"


class ChangesPane(Vertical):
    """The change log's rows, newest last; a note says how to start one while it is empty."""

    DEFAULT_CSS = """
    ChangesPane { height: 1fr; }
    ChangesPane > #changes-note { height: auto; padding: 0 1; color: $text-muted; }
    ChangesPane > #changes-note.-hidden { display: none; }
    ChangesPane > DataTable { height: 1fr; background: $surface; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.count = 0  # changes seen in this run, dropped rows included
        self.rows_text: list[str] = []  # plain rows as shown (for tests)
        self._keys: deque[str] = deque()
        self._table: DataTable | None = None

    def compose(self) -> ComposeResult:
        yield Static(
            "no change logged yet: Shift+B on a value in Variables logs its writes here (b stops on them)",
            id="changes-note",
        )

    def table(self) -> DataTable:
        """The rows' table, mounted below the note the first time it is needed."""
        if self._table is None:
            from textual.widgets import DataTable

            self._table = DataTable(cursor_type="row", id="changes-table")
            self._table.add_columns(*COLUMNS)
            self.mount(self._table)
        return self._table

    def add(self, items: list[tuple[str, DataChange | None, str]], many: bool) -> None:
        """(session id, the change's fields, its log line) per write; a change without fields shows its line."""
        table = self.table()
        for session_id, change, line in items:
            self.count += 1
            cells = change_cells(change, session_id, many) if change else ("", line.rstrip("\n"), "", "", "")
            key = str(self.count)
            table.add_row(*cells, key=key)
            self._keys.append(key)
            self.rows_text.append("  ".join(cells))
        while len(self._keys) > MAX_ROWS:
            table.remove_row(self._keys.popleft())
        del self.rows_text[:-MAX_ROWS]
        self.query_one("#changes-note").set_class(self.count > 0, "-hidden")
        if table.row_count:
            table.move_cursor(row=table.row_count - 1)  # follow the newest, as the console does


class LogTabs(ContentSwitcher):
    """The console and the change log in one pane, one shown at a time."""

    DEFAULT_CSS = "LogTabs { height: 1fr; }"
    title_text = "Console"

    def compose(self) -> ComposeResult:
        yield ConsolePane(id="console")
        yield ChangesPane(id="changes")

    def on_mount(self) -> None:
        self.show_title()

    @property
    def changes(self) -> ChangesPane:
        return self.query_one(ChangesPane)

    def add_changes(self, items: list[tuple[str, DataChange | None, str]], many: bool) -> None:
        self.changes.add(items, many)
        self.show_title()

    def toggle(self) -> None:
        self.show("changes" if self.current == "console" else "console")

    def show(self, name: str) -> None:
        """`console` or `changes`, focused."""
        self.current = name
        self.show_title()
        if name == "changes":
            self.changes.table().focus()
        else:
            self.query_one("#console-input").focus()

    def show_title(self) -> None:
        """The console's name alone until there is a change log (or the person opened it); then both, the shown
        one bright."""
        count = self.changes.count
        if not count and self.current != "changes":
            title = Text("Console")
        else:
            console, changes = self.current != "changes", self.current == "changes"
            title = Text.assemble(
                ("Console", "" if console else "dim"),
                (" │ ", "dim"),
                (f"Changes {count}", "" if changes else "dim"),
            )
        self.title_text = title.plain  # for tests (border_title reads back as markup)
        self.border_title = title

    def on_click(self, event: events.Click) -> None:
        if event.y == 0:  # the title row: the tabs' names
            self.toggle()
