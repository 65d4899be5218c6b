"""What the person does to one value in the variables pane: set it (set_variable_value, through the registry so
agents see it), copy its whole text, read it whole, watch it, or stop (or log) when it changes
(set_data_breakpoint). The pane only says which value; this reads and writes through the core."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.widgets.tree import TreeNode

from pairdbg.backends import queries
from pairdbg.backends.errors import DebugError
from pairdbg.backends.models import VariableView

from .edit_prompt import EditPrompt
from .value_screen import ValueScreen
from .watches import WatchesPane

if TYPE_CHECKING:
    from .debugger_view import DebuggerView
    from .variables import VariablesTree, VarNode

HUMAN = "human"


def _debugger(tree: VariablesTree) -> DebuggerView:
    return tree.query_ancestor("DebuggerView")  # type: ignore[return-value]


def edit_value(tree: VariablesTree, node: TreeNode[VarNode], view: VariableView, container: str) -> None:
    """Ask for a new value (the old one to edit, unless it was cut); a value that does not parse or raises is said
    in the prompt, which keeps the text."""
    debugger = _debugger(tree)
    session_id = debugger.session_id or ""

    async def submit(text: str) -> str | None:
        if not text.strip():
            return "give a value (an expression in the program's language)"
        args = {"session_id": session_id, "name": view.name, "value": text, "ref": container}
        try:
            reply = await debugger.registry.run("set_variable_value", args, HUMAN)
        except DebugError as exc:
            return f"{exc.code}: {exc.message}"
        tree.relabel(node, VariableView.model_validate({k: v for k, v in reply.data.items() if k != "session_id"}))
        return None

    current = "" if view.truncated else view.value
    hint = "a new value: an expression in the program's language" + (" (the old one was cut)" if view.truncated else "")
    tree.app.push_screen(EditPrompt(f"Set {view.name}", hint, current, submit))


@work(group="value-text")
async def _whole(tree: VariablesTree, view: VariableView, container: str, then: str) -> None:
    debugger = _debugger(tree)
    session = debugger.session
    if session is None:
        return
    try:
        text, expression = await queries.value_text(session, container, view.name)
    except DebugError as exc:
        tree.notify(f"{exc.code}: {exc.message}", title=view.name, severity="error", timeout=6)
        return
    if then == "copy":
        tree.app.copy_to_clipboard(text)
        tree.notify(f"copied {view.name} ({len(text):,} characters) to the clipboard", title="Copy", timeout=3)
    elif then == "view":
        tree.app.push_screen(ValueScreen(view.name, text))
    elif then == "watch":
        for pane in debugger.query(WatchesPane):
            pane.ask_and_add(expression or view.name)


@work(group="data-breakpoint")
async def set_data_breakpoint(tree: VariablesTree, view: VariableView, container: str, log_only: bool) -> None:
    """A data breakpoint on the value's own expression (`cart.total`), in the selected frame, as the person; what
    came of it is one line in the pane (a refusal says why, e.g. a plain local that cannot be watched)."""
    debugger = _debugger(tree)
    session = debugger.session
    if session is None:
        return
    try:
        expression = await queries.value_expression(session, container, view.name) or view.name
        args = debugger.session_args(expression=expression, log_only=log_only, frame=debugger.frame)
        reply = await debugger.registry.run("set_data_breakpoint", args, HUMAN)
    except DebugError as exc:
        tree.post_message(tree.Said(f"✗ {exc.code}: {exc.message}", True))
        return
    what = "logs its changes" if log_only else "stops when it changes"
    tree.post_message(tree.Said(f"{reply.data['id']} on {expression}: {what}", False))


def copy_value(tree: VariablesTree, view: VariableView, container: str) -> None:
    _whole(tree, view, container, "copy")


def view_value(tree: VariablesTree, view: VariableView, container: str) -> None:
    _whole(tree, view, container, "view")


def watch_value(tree: VariablesTree, view: VariableView, container: str) -> None:
    _whole(tree, view, container, "watch")
