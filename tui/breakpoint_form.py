"""Shift+F9: one small form for a line breakpoint's condition, hit count and log message. It runs the breakpoint
action itself, so a refusal is shown in the form with what was typed kept."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from pairdbg.backends.breakpoints import parse_hit_condition
from pairdbg.backends.errors import DebugError


@dataclass(frozen=True)
class FormValues:
    condition: str = ""
    hit_condition: str = ""
    log_message: str = ""


def check_condition(text: str, language: str) -> str | None:
    """What is wrong with a condition, where pairdbg can tell before the program evaluates it (Python's own parser;
    other languages' conditions are checked by their target when it evaluates them)."""
    if not text.strip() or language != "python":
        return None
    try:
        compile(text, "<condition>", "eval")
    except SyntaxError as exc:
        return f"the condition does not parse: {exc.msg}"
    return None


class BreakpointForm(ModalScreen[bool]):
    DEFAULT_CSS = """
    BreakpointForm { align: center middle; }
    BreakpointForm > Vertical { width: 90%; max-width: 90; height: auto; border: round $primary;
                                background: $panel; padding: 0 1; }
    BreakpointForm Label { width: 100%; text-wrap: nowrap; text-overflow: ellipsis; }
    BreakpointForm #bp-error { color: $error; }
    BreakpointForm Input { margin-bottom: 0; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        title: str,
        values: FormValues,
        language: str,
        submit: Callable[[dict[str, Any]], Awaitable[Any]],
    ) -> None:
        super().__init__()
        self.title_text = title
        self.values = values
        self.language = language
        self.submit = submit  # runs set_breakpoint / update_breakpoint with these fields; raises DebugError

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, id="bp-title", markup=False)
            yield Label("Condition (stop only when true)", markup=False)
            yield Input(self.values.condition, id="bp-condition", select_on_focus=False)
            yield Label("Hit count (3, >=3, %3 …)", markup=False)
            yield Input(self.values.hit_condition, id="bp-hit", select_on_focus=False)
            yield Label("Log message (log instead of stopping; {expr} is evaluated)", markup=False)
            yield Input(self.values.log_message, id="bp-log", select_on_focus=False)
            yield Label("enter saves · escape cancels · empty fields clear", id="bp-error", markup=False)

    def on_mount(self) -> None:
        self.query_one("#bp-condition", Input).focus()

    def fields(self) -> dict[str, str]:
        return {
            "condition": self.query_one("#bp-condition", Input).value.strip(),
            "hit_condition": self.query_one("#bp-hit", Input).value.strip(),
            "log_message": self.query_one("#bp-log", Input).value,
        }

    def problem(self, values: dict[str, str]) -> str | None:
        found = check_condition(values["condition"], self.language)
        if found:
            return found
        if values["hit_condition"]:
            try:
                parse_hit_condition(values["hit_condition"])
            except DebugError as exc:
                return f"{exc.message}: {exc.hint}"
        return None

    @on(Input.Submitted)
    def handle_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        values = self.fields()
        problem = self.problem(values)
        if problem:
            self.say(problem)
            return
        self.save(values)

    def say(self, text: str) -> None:
        self.query_one("#bp-error", Label).update(text)

    @work(group="breakpoint-form", exclusive=True)
    async def save(self, values: dict[str, str]) -> None:
        try:
            await self.submit(values)
        except DebugError as exc:
            self.say(f"{exc.code}: {exc.message}")
            return
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)


def form_title(path: str, line: int, existing: str | None) -> str:
    where = f"{os.path.basename(path)}:{line}"
    return f"Breakpoint {existing} at {where}" if existing else f"New breakpoint at {where}"
