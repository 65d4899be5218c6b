"""The whole text of one value (a long string, a big container's text), to read, scroll and copy."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea


class ValueScreen(ModalScreen[None]):
    """y copies the whole text to the clipboard; escape (or q) closes."""

    DEFAULT_CSS = """
    ValueScreen { align: center middle; }
    ValueScreen > Vertical { width: 90%; height: 80%; border: round $primary; background: $panel; padding: 0 1; }
    ValueScreen Label { width: 100%; text-wrap: nowrap; text-overflow: ellipsis; }
    ValueScreen #value-hint { color: $text-muted; }
    ValueScreen TextArea { height: 1fr; }
    """
    BINDINGS = [
        Binding("escape,q", "close", "Close"),
        Binding("y", "copy_value", "Copy"),
    ]

    def __init__(self, name: str, text: str) -> None:
        super().__init__()
        self.value_name = name
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"{self.value_name}  ({len(self.text):,} characters)", id="value-title", markup=False)
            yield Label("y copies it · escape closes", id="value-hint", markup=False)
            yield TextArea(self.text, read_only=True, soft_wrap=True, show_line_numbers=False, id="value-text")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_copy_value(self) -> None:
        self.app.copy_to_clipboard(self.text)
        self.notify(f"copied {self.value_name} ({len(self.text):,} characters) to the clipboard", timeout=3)

    def action_close(self) -> None:
        self.dismiss(None)
