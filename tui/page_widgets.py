"""Parts of the "Page" view (page_view.py) that only draw what they are given: the UI-tree list, the one-line
text prompt, and the formatting of the header, tree rows, recent errors and app state from the Page mirror."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from pairdbg.backends.bridge import uitree
from pairdbg.backends.models import Phase

MAX_ROWS = 5000  # rows listed; a larger tree ends with a line saying how many more (find and scope reach them)
STATE_CHARS = 4000
ERRORS_SHOWN = 10


class TreeRows(OptionList):
    """The page's elements, one row each. A mouse click only highlights a row: acting on the page is Enter."""

    async def _on_click(self, event: events.Click) -> None:
        event.prevent_default()
        clicked: int | None = event.style.meta.get("option")
        if clicked is not None and not self.options[clicked].disabled:
            self.highlighted = clicked


class TextPrompt(ModalScreen[str | None]):
    """Asks for one line of text (enter submits, escape cancels)."""

    DEFAULT_CSS = """
    TextPrompt { align: center middle; }
    TextPrompt > Vertical { width: 80%; max-width: 100; height: auto; border: round $primary; background: $panel;
                            padding: 1 2; }
    TextPrompt Label { width: 100%; margin-bottom: 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, value: str = "", placeholder: str = "") -> None:
        super().__init__()
        self.title_text, self.value, self.placeholder = title, value, placeholder

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(self.title_text, style="bold"))
            yield Label("enter runs it, escape cancels", classes="hint")
            yield Input(self.value, placeholder=self.placeholder, id="prompt-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


# ----- formatting ---------------------------------------------------------------------------------------------------


def connection(page: Any, session: Any) -> tuple[str, str]:
    """('● connected' | '◌ reconnecting…' | '○ disconnected', style)."""
    if page.connected:
        return "● connected", "bold green"
    if session is not None and session.phase == Phase.RECONNECTING:
        leaving = f" (loading {page.unloading})" if page.unloading else ""
        return f"◌ reconnecting…{leaving}", "bold yellow"
    return "○ disconnected", "bold red"


def header(page: Any, session: Any, hidden: int = 0) -> Text:
    text = Text()
    text.append(f"{session.id if session else page.hub_id} ", style="bold")
    status, style = connection(page, session)
    text.append(status, style=style)
    text.append(f"  {page.url or '(no url)'}")
    if page.title:
        title = " ".join(page.title.split())
        text.append(f'  "{title[:59] + "…" if len(title) > 60 else title}"', style="italic")
    text.append("\n")
    text.append(f"{len(page.tree)} elements" + (f" ({hidden} hidden)" if hidden else ""), style="dim")
    text.append(f" · console {page.console_count}", style="dim")
    text.append(f" · errors {page.error_count}", style="bold red" if page.error_count else "dim")
    dropped = f", {page.mutations_dropped} dropped" if page.mutations_dropped else ""
    text.append(f" · mutations {page.mutation_records}{dropped}", style="dim")
    if page.loads > 1:
        text.append(f" · load {page.loads}", style="dim")
    return text


def tree_rows(items: list[dict[str, Any]]) -> tuple[list[Option], list[str | None]]:
    """Options (indented by depth, hidden elements dimmed) and each option's element ref (None: no element)."""
    base = min((int(it.get("depth") or 0) for it in items), default=0)
    options: list[Option] = []
    refs: list[str | None] = []
    for item in items[:MAX_ROWS]:
        indent = "  " * max(0, int(item.get("depth") or 0) - base)
        style = "dim" if item.get("visible") is False else ("bold" if item.get("role") == "heading" else "")
        options.append(Option(Text(indent + uitree.line(item), style=style)))
        ref = item.get("ref")
        refs.append(str(ref) if ref else None)
    if len(items) > MAX_ROWS:
        more = f"… {len(items) - MAX_ROWS} more elements (f finds one by its text)"
        options.append(Option(Text(more, style="dim italic"), disabled=True))
        refs.append(None)
    if not items:
        options.append(
            Option(Text("no elements yet (r asks the page for its tree)", style="dim italic"), disabled=True)
        )
        refs.append(None)
    return options, refs


def errors_text(page: Any) -> Text:
    errors = list(page.recent_errors)[-ERRORS_SHOWN:]
    if not errors:
        return Text("no errors", style="dim italic")
    text = Text()
    for i, err in enumerate(reversed(errors)):  # newest first
        lines = str(err.get("text") or "").splitlines() or [""]
        if i:
            text.append("\n")
        text.append(lines[0][:300], style="red")
        if len(lines) > 1:
            text.append("\n  " + lines[1].strip()[:200], style="dim")
    if page.error_count > len(errors):
        text.append(f"\n… {page.error_count - len(errors)} older (get_output has them)", style="dim italic")
    return text


def state_text(page: Any, redactor: Any) -> Text:
    if not page.state:
        return Text("the app reported no state (getCustomState)", style="dim italic")
    value = redactor.redact(page.state) if redactor is not None else page.state
    raw = json.dumps(value, ensure_ascii=False, indent=1, default=str)
    if len(raw) > STATE_CHARS:
        raw = raw[:STATE_CHARS] + f"\n… cut at {STATE_CHARS} of {len(raw)} characters (get_app_state for all)"
    return Text(raw)


def first_handle(matches: list[str]) -> str | None:
    """The handle of find_element's first match line: `- role "name" … @e12   in …` -> 'e12'."""
    for match in matches:
        ref = uitree.parse_handle(match.split("   in ")[0].rsplit(" ", 1)[-1])
        if ref:
            return ref
    return None
