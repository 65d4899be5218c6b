"""A one-line prompt whose answer runs an action before it closes: a failure is said under the text, which stays
for editing (a value that does not parse, a watch expression the debugger refuses)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

#: Runs the typed text; returns what went wrong (one line) or None when it was done.
Submit = Callable[[str], Awaitable[str | None]]


class EditPrompt(ModalScreen[bool]):
    """Enter runs the text through `submit`; the prompt closes only when that worked. Escape cancels."""

    DEFAULT_CSS = """
    EditPrompt { align: center middle; }
    EditPrompt > Vertical { width: 80%; max-width: 100; height: auto; border: round $primary; background: $panel;
                            padding: 1 2; }
    EditPrompt Label { width: 100%; text-wrap: nowrap; text-overflow: ellipsis; }
    EditPrompt #edit-hint { color: $text-muted; margin-bottom: 1; }
    EditPrompt #edit-error { color: $error; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, hint: str, value: str, submit: Submit) -> None:
        super().__init__()
        self.title_text = title
        self.hint = hint
        self.value = value
        self.submit = submit
        self.error_text = ""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, id="edit-title", markup=False)
            yield Label(self.hint + "  (enter: apply · escape: cancel)", id="edit-hint", markup=False)
            yield Input(self.value, id="edit-input", select_on_focus=False)
            yield Label("", id="edit-error", markup=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#edit-error", Label).update("…")
        self.run_submit(event.value)

    @work(exclusive=True)
    async def run_submit(self, text: str) -> None:
        problem = await self.submit(text)
        if problem:
            self.error_text = problem.strip().splitlines()[0] if problem.strip() else problem
            self.query_one("#edit-error", Label).update(self.error_text)
            return
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
