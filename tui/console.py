"""The console's prompt: multi-line input, history kept across runs, and Tab completion from the debugger.

Enter runs the text, unless it reads as unfinished: a line ending in `:` or `\\`, an open bracket or string, or a
block being typed (more than one line: an empty last line runs it, as in Python's own prompt). Shift+Enter (or
ctrl+j, for terminals that do not tell Shift+Enter apart) always starts a new line. Up/Down on the first/last line
walk the history; Tab completes the name before the cursor with what the debugger offers in the selected frame.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs
from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

from pairdbg.backends import queries
from pairdbg.backends.base import Completion
from pairdbg.backends.errors import DebugError

if TYPE_CHECKING:
    from .debugger_view import DebuggerView

log = logging.getLogger(__name__)
HISTORY_ENTRIES = 500  # kept in the file; older ones are dropped
HISTORY_CHARS = 4000  # an entry longer than this is not kept
MAX_SHOWN_COMPLETIONS = 12


def history_path() -> Path:
    """The user's data folder (XDG_DATA_HOME on Linux), so history survives pairdbg and its checkouts."""
    return Path(platformdirs.user_data_dir("pairdbg", appauthor=False)) / "console_history.jsonl"


class ConsoleHistory:
    """Entries typed at the console, oldest first, one JSON string a line (entries may span lines), bounded."""

    def __init__(self, path: Path | None = None, limit: int = HISTORY_ENTRIES) -> None:
        self.path = path or history_path()
        self.limit = limit
        self.entries: list[str] = self._load()
        self.position = len(self.entries)  # len(entries): the line being typed, not a history entry
        self.draft = ""

    def _load(self) -> list[str]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return []
        entries = []
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a torn last line (a crash while writing): the rest is still good
            if isinstance(entry, str) and entry:
                entries.append(entry)
        return entries[-self.limit :]

    def add(self, entry: str) -> None:
        self.position = len(self.entries)
        if not entry.strip() or len(entry) > HISTORY_CHARS:
            return
        if self.entries and self.entries[-1] == entry:
            self.position = len(self.entries)
            return
        self.entries.append(entry)
        del self.entries[: -self.limit]
        self.position = len(self.entries)
        self._save()

    def _save(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_suffix(".tmp")
            temporary.write_text("".join(json.dumps(e) + "\n" for e in self.entries), encoding="utf-8")
            os.replace(temporary, self.path)
        except OSError as exc:  # history is a convenience: a read-only home must not break the console
            log.warning("console history not saved to %s: %s", self.path, exc)

    def back(self, current: str) -> str | None:
        """The entry before the one shown (the typed draft is kept to come back to); None at the oldest."""
        if self.position == 0:
            return None
        if self.position == len(self.entries):
            self.draft = current
        self.position -= 1
        return self.entries[self.position]

    def forward(self) -> str | None:
        """The entry after the one shown, then the draft; None when the draft is shown already."""
        if self.position >= len(self.entries):
            return None
        self.position += 1
        return self.draft if self.position == len(self.entries) else self.entries[self.position]


def unfinished(text: str) -> bool:
    """Whether Enter should continue the text on a new line rather than run it."""
    if "\n" in text:
        return text.split("\n")[-1].strip() != ""  # a block ends with an empty line
    stripped = text.rstrip()
    if stripped.endswith((":", "\\")):
        return True
    depth, quote = 0, ""
    for ch in stripped:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'`":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
    return depth > 0 or bool(quote)


def common_prefix(words: list[str]) -> str:
    if not words:
        return ""
    first, last = min(words), max(words)
    n = 0
    while n < len(first) and n < len(last) and first[n] == last[n]:
        n += 1
    return first[:n]


class ConsoleInput(TextArea):
    """The console's prompt (see the module's docstring for its keys)."""

    DEFAULT_CSS = """
    ConsoleInput { height: auto; min-height: 3; max-height: 7; border: tall $border-blurred; padding: 0 1; }
    ConsoleInput:focus { border: tall $border; }
    ConsoleInput .text-area--cursor-line { background: transparent; }
    """
    BINDINGS = [
        Binding("enter", "submit", "Run", show=False, priority=True),
        Binding("shift+enter,ctrl+j", "newline", "New line", show=False, priority=True),
        Binding("up", "history(-1)", "History", show=False),
        Binding("down", "history(1)", "History", show=False),
        Binding("tab", "complete", "Complete", show=False),
    ]

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, console_history: ConsoleHistory | None = None, **kwargs: Any) -> None:
        super().__init__(
            "", soft_wrap=True, show_line_numbers=False, tab_behavior="focus", highlight_cursor_line=False, **kwargs
        )
        self.console_history = console_history if console_history is not None else ConsoleHistory()
        self.placeholder = "evaluate in the selected frame (F1: keys)"
        self.completion_note = ""  # the last thing Tab said (for tests and screen readers)

    @property
    def debugger(self) -> DebuggerView:
        return self.query_ancestor("DebuggerView")  # type: ignore[return-value]

    # ----- running and new lines --------------------------------------------------------------------------------

    def action_submit(self) -> None:
        if unfinished(self.text):
            self.action_newline()
            return
        text = self.text.strip("\n")
        if not text.strip():
            return
        self.console_history.add(text)
        self.load_text("")
        self.post_message(self.Submitted(text))

    def action_newline(self) -> None:
        self.insert("\n")

    # ----- history ------------------------------------------------------------------------------------------------

    def action_history(self, step: int) -> None:
        row = self.cursor_location[0]
        if step < 0 and row > 0:
            self.move_cursor_relative(rows=-1)
            return
        if step > 0 and row < self.document.line_count - 1:
            self.move_cursor_relative(rows=1)
            return
        entry = self.console_history.back(self.text) if step < 0 else self.console_history.forward()
        if entry is not None:
            self.load_text(entry)
            self.move_cursor(self.document.end)

    # ----- completion --------------------------------------------------------------------------------------------

    def wants_tab(self) -> bool:
        """Tab completes when a name (or `obj.`) is before the cursor; otherwise it moves to the next pane."""
        before = self._before_cursor()
        return bool(before) and (before[-1].isalnum() or before[-1] in "_$.")

    def _before_cursor(self) -> str:
        return self.get_text_range((0, 0), self.cursor_location)

    def action_complete(self) -> None:
        if self.wants_tab():
            self.complete(self.text, len(self._before_cursor()))

    @work(group="complete", exclusive=True)
    async def complete(self, text: str, cursor: int) -> None:
        app = self.debugger
        session = app.session
        if session is None:
            self.say("no session to complete from")
            return
        try:
            found = await queries.completions(session, text, cursor, app.frame)
        except DebugError as exc:
            self.say(f"no completions: {exc.message}")
            return
        if self.text != text:
            return  # the person typed on meanwhile
        if found is None:
            self.say(f"no completions from this debugger while the program is {session.phase.value}")
            return
        self.apply(text, cursor, found)

    def apply(self, text: str, cursor: int, found: list[Completion]) -> None:
        if not found:
            self.say("no completions")
            return
        start, length = found[0].start, found[0].length
        same_range = all((c.start, c.length) == (start, length) for c in found)
        insert = found[0].text if len(found) == 1 else common_prefix([c.text for c in found]) if same_range else ""
        if insert and len(insert) >= length:
            new = text[:start] + insert + text[start + length :]
            self.load_text(new)
            self.move_cursor(self.document.get_location_from_index(start + len(insert)))
        if len(found) > 1:
            names = [c.label for c in found[:MAX_SHOWN_COMPLETIONS]]
            more = f" … {len(found) - len(names)} more" if len(found) > len(names) else ""
            self.say("  ".join(names) + more)
        else:
            self.completion_note = found[0].label

    def say(self, note: str) -> None:
        """A completion note goes to the console log, one dim line."""
        self.completion_note = note
        add = getattr(self.parent, "add", None)
        if add is not None:
            add(Text(note, style="dim"))
