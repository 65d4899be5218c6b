"""Command palette commands built from the action registry (plus themes and the MCP connection), and the small
prompt that asks for the arguments of actions that need some."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from textual.app import ComposeResult
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from pairdbg.backends.actions.registry import Action
from pairdbg.backends.samples import DEMO

if TYPE_CHECKING:
    from .app import PairDbgApp


def required_args(params: type[BaseModel]) -> dict[str, Any]:
    """A JSON template of an action's required arguments (session_id is filled in by the TUI)."""
    template: dict[str, Any] = {}
    for name, field in params.model_fields.items():
        if name == "session_id" or not field.is_required():
            continue
        kind = field.annotation
        template[name] = 1 if kind is int else [] if getattr(kind, "__origin__", None) is list else ""
    return template


class ArgsPrompt(ModalScreen[dict[str, Any] | None]):
    """Asks for an action's arguments as one line of JSON, pre-filled with a template of the required ones."""

    DEFAULT_CSS = """
    ArgsPrompt { align: center middle; }
    ArgsPrompt > Vertical { width: 80%; max-width: 100; height: auto; border: round $primary; background: $panel;
                            padding: 1 2; }
    ArgsPrompt Label { width: 100%; margin-bottom: 1; }
    ArgsPrompt #args-error { color: $error; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, action: Action, template: dict[str, Any]) -> None:
        super().__init__()
        self.action = action
        self.template = template

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"[b]{self.action.title or self.action.name}[/b]: {self.action.description}")
            yield Label("Arguments as JSON (enter runs it, escape cancels); session_id defaults to the selected one.")
            yield Input(json.dumps(self.template), id="args-input")
            yield Label("", id="args-error")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        try:
            args = json.loads(event.value or "{}")
            if not isinstance(args, dict):
                raise ValueError('give a JSON object, like {"line": 3}')
        except ValueError as exc:
            self.query_one("#args-error", Label).update(f"not valid: {exc}")
            return
        self.dismiss(args)

    def action_cancel(self) -> None:
        self.dismiss(None)


class LinePrompt(ModalScreen[str | None]):
    """Asks for one line of text: enter gives it (empty too), escape cancels."""

    DEFAULT_CSS = """
    LinePrompt { align: center middle; }
    LinePrompt > Vertical { width: 80%; max-width: 100; height: auto; border: round $primary; background: $panel;
                            padding: 1 2; }
    LinePrompt Label { width: 100%; margin-bottom: 1; }
    LinePrompt #line-error { color: $error; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self, title: str, hint: str, value: str = "", check: Callable[[str], str | None] | None = None
    ) -> None:
        super().__init__()
        self.title_text = title
        self.hint = hint
        self.value = value
        self.check = check  # returns what is wrong with a value, or None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, id="line-title", markup=False)
            yield Label(self.hint + "  (enter runs it, escape cancels)", id="line-hint", markup=False)
            yield Input(self.value, id="line-input", select_on_focus=False)
            yield Label("", id="line-error", markup=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        problem = self.check(event.value) if self.check else None
        if problem:
            self.query_one("#line-error", Label).update(problem)
            return
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class CommandList(Provider):
    """A palette provider over a plain list of (text, callback, help) commands; subclasses give `_commands()`."""

    def _commands(self) -> list[tuple[str, Any, str]]:
        raise NotImplementedError

    async def discover(self) -> Hits:
        for text, callback, help_text in self._commands():
            yield DiscoveryHit(text, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, callback, help_text in self._commands():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), callback, text=text, help=help_text)


class ActionCommands(CommandList):
    """Every registry action as a palette command: no-argument actions run at once, the others prompt."""

    @property
    def pairdbg(self) -> PairDbgApp:
        return self.app  # type: ignore[return-value]

    def _commands(self) -> list[tuple[str, Callable[[], None], str]]:
        app = self.pairdbg
        out: list[tuple[str, Callable[[], None], str]] = [
            ("Start debugging the demo (stop on entry)", app.start_demo, f"start_debugging {DEMO}"),
            ("Show how an agent connects (MCP)", app.show_connection, "endpoint URL and bearer token"),
            ("Toggle pairdbg theme (dark/light)", app.action_toggle_theme, "ctrl+t"),
        ]
        for name in app.theme_names():
            out.append((f"Theme: {name}", lambda n=name: app.set_theme(n), "switch the colour theme"))
        for action in app.registry.actions.values():
            title = action.title or action.name
            needs = required_args(action.params)
            help_text = action.description + ("  (asks for arguments)" if needs else "")
            out.append((f"{title}  ·  {action.name}", lambda a=action: app.palette_run(a), help_text))
        return out
