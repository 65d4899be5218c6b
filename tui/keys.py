"""F1: every key, read from the bindings themselves (the app's, then each pane's), so the list cannot drift from
what the keys do; the app's notes on how the keys combine come after. A scrollable screen, so it fits 80x24."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Label, Static


def _terminal_alias(key: str) -> bool:
    """f13-f24: how many terminals send shift+f1-f12; bound beside the shift form, never what a person presses."""
    name = key.rsplit("+", 1)[-1]
    return name.startswith("f") and name[1:].isdigit() and 13 <= int(name[1:]) <= 24


def key_names(binding: Binding, app: App) -> str:
    keys = [key.strip() for key in binding.key.split(",")]
    keys = [key for key in keys if not _terminal_alias(key)] or keys
    return " / ".join(app.get_key_display(Binding(key, "")) for key in keys)


def keys_text(app: App, notes: str) -> Text:
    """The app's keys, each pane's (under its title), then `notes`."""
    text = Text()
    sections: list[tuple[str, list[Binding]]] = [("Everywhere", [b for b in app.BINDINGS if isinstance(b, Binding)])]
    seen: set[type] = set()
    for widget in app.screen.query("*"):
        kind = type(widget)
        if kind in seen or not isinstance(widget, Widget):
            continue
        seen.add(kind)
        own = [b for b in kind.__dict__.get("BINDINGS", []) if isinstance(b, Binding) and b.description]
        if own:
            sections.append((str(widget.border_title or kind.__name__), own))
    for title, bindings in sections:
        text.append(f"{title}\n", style="bold")
        listed: set[str] = set()
        for binding in bindings:
            if not binding.description or binding.description in listed:
                continue
            listed.add(binding.description)
            text.append(f"  {key_names(binding, app):<22}", style="bold")
            text.append(f" {binding.description}\n")
    text.append("\n")
    text.append(notes)
    return text


class KeysScreen(ModalScreen[None]):
    """escape, q or F1 closes."""

    DEFAULT_CSS = """
    KeysScreen { align: center middle; }
    KeysScreen > Vertical { width: 90%; max-width: 110; height: 90%; border: round $primary; background: $panel;
                            padding: 0 1; }
    KeysScreen Label { width: 100%; color: $text-muted; }
    """
    BINDINGS = [Binding("escape,q,f1", "close", "Close")]

    def __init__(self, text: Text) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Keys (escape closes; the footer shows those that matter now)", markup=False)
            with VerticalScroll():
                yield Static(self.text, id="keys-text")

    def action_close(self) -> None:
        self.dismiss(None)
