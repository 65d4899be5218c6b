"""Command palette commands built from the action registry (plus themes and the MCP connection), and the one-line
prompts that ask for an action's main arguments."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args, get_origin

from pydantic.fields import FieldInfo
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


@dataclass
class Ask:
    """One argument the palette asks for on one line: `parse` turns the text into arguments or raises ValueError."""

    name: str
    title: str
    hint: str
    parse: Callable[[str], dict[str, Any]]


def _choices(annotation: Any) -> tuple[Any, ...]:
    return get_args(annotation) if get_origin(annotation) is Literal else ()


def field_ask(action: Action, name: str, field: FieldInfo) -> Ask:
    choices = _choices(field.annotation)
    hint = field.description or name
    if choices:
        hint += f"; one of: {', '.join(map(str, choices))}"

    def parse(text: str) -> dict[str, Any]:
        value = text.strip()
        if not value:
            raise ValueError(f"{name} is needed")
        if choices and value not in choices:
            raise ValueError(f"{name} is one of: {', '.join(map(str, choices))}")
        if field.annotation is int:
            try:
                return {name: int(value)}
            except ValueError:
                raise ValueError(f"{name} is a whole number") from None
        return {name: value}

    return Ask(name, f"{action.title or action.name}: {name}", hint, parse)


def location_ask(action: Action, source_path: str | None) -> Ask:
    """set_breakpoint's main argument: `file:line`, a line of the file shown, or a function name."""

    def parse(text: str) -> dict[str, Any]:
        value = text.strip()
        file, _, line = value.rpartition(":")
        if value.isdigit():
            if not source_path:
                raise ValueError("no file is shown: give file:line")
            return {"file": source_path, "line": int(value)}
        if file and line.isdigit():
            return {"file": file, "line": int(line)}
        if value and value.replace(".", "").replace("_", "").replace("$", "").isalnum():
            return {"function": value}
        raise ValueError("give file:line, a line number of the file shown, or a function name")

    hint = "file:line, a line number of the file shown, or a function name"
    return Ask("where", f"{action.title or action.name}: where", hint, parse)


def asks_for(action: Action, source_path: str | None) -> list[Ask]:
    """What the palette asks before running an action: its main argument(s), one line each (session_id is the
    selected session). Actions without required arguments run at once."""
    if action.name == "set_breakpoint":
        return [location_ask(action, source_path)]
    return [
        field_ask(action, name, field)
        for name, field in action.params.model_fields.items()
        if name != "session_id" and field.is_required()
    ]


def json_args(text: str) -> dict[str, Any] | None:
    """`{…}` typed at a prompt sets every argument at once (the optional ones too); None if it is not that."""
    if not text.lstrip().startswith("{"):
        return None
    args = json.loads(text)
    if not isinstance(args, dict):
        raise ValueError('give a JSON object, like {"line": 3}')
    return args


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
            needs = asks_for(action, None)
            help_text = action.description + (f"  (asks for {', '.join(a.name for a in needs)})" if needs else "")
            out.append((f"{title}  ·  {action.name}", lambda a=action: app.palette_run(a), help_text))
        return out
