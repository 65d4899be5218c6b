"""The watches pane: the session's one watch list (the person's and agents' alike, each marked with who added
it), valued in the selected frame at every stop. Adding, editing and removing go through the registry, so agents
see them in their activity; values are read through the core's query."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from pairdbg.backends import queries
from pairdbg.backends.errors import DebugError
from pairdbg.backends.models import WatchView

from .edit_prompt import EditPrompt

if TYPE_CHECKING:
    from .debugger_view import DebuggerView

HUMAN = "human"
#: Actions after which the list is read again, whoever ran them (an agent's add_watch shows at once).
WATCH_ACTIONS = frozenset({"add_watch", "edit_watch", "remove_watch", "set_variable_value", "restart_debugging"})


def watch_label(view: WatchView) -> Text:
    """`● qty * 2 = 8  *` — the changed mark, and who added it when it was not the person."""
    label = Text()
    label.append("◆ " if view.added_by.startswith("agent") else "● ", style="bold" if view.changed else "dim")
    label.append(view.expression, style="bold")
    label.append(" = ")
    if view.error:
        label.append(view.value, style="italic red")
    else:
        label.append(view.value, style="bold yellow" if view.changed else "")
    if view.changed:
        label.append("  changed", style="yellow italic")
    if view.added_by != HUMAN:
        label.append(f"  ({view.added_by})", style="dim")
    return label


class WatchesPane(OptionList):
    """a adds, e / enter edits, d / delete removes; values follow the frame selected in the call stack."""

    BINDINGS = [
        Binding("a", "add", "Add watch"),
        Binding("e,enter", "edit", "Edit"),
        Binding("delete,d", "remove", "Remove"),
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.views: list[WatchView] = []
        self._shown: tuple = ()

    @property
    def debugger(self) -> DebuggerView:
        return self.query_ancestor("DebuggerView")  # type: ignore[return-value]

    # ----- showing -------------------------------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.show([])

    def show(self, views: list[WatchView]) -> None:
        shown = tuple((v.id, v.expression, v.value, v.changed, v.error, v.added_by) for v in views)
        if shown == self._shown and self.option_count:
            return  # read at every stop: no repaint when nothing changed
        self._shown = shown
        keep = self.selected_id()
        self.views = list(views)
        self.clear_options()
        for view in views:
            self.add_option(Option(watch_label(view), id=view.id))
        if not views:
            self.add_option(Option(Text("none: a adds one (w in Variables watches a value)", style="dim italic")))
            self.get_option_at_index(0).disabled = True
        ids = [v.id for v in views]
        if keep in ids:
            self.highlighted = ids.index(keep)

    def selected_id(self) -> str | None:
        if self.highlighted is None or self.highlighted >= len(self.views):
            return None
        return self.views[self.highlighted].id

    @work(group="watches", exclusive=True)
    async def refresh_values(self) -> None:
        """Read the watches in the person's selected frame (a read, not an action: nothing is announced)."""
        app = self.debugger
        session = app.session
        if session is None:
            self.show([])
            return
        try:
            views = await queries.watches(session, app.frame)
        except DebugError as exc:  # the program moved on meanwhile: the next stop reads them again
            views = [
                WatchView(id=w.id, expression=w.expression, value=exc.message, error=True, added_by=w.added_by)
                for w in session.watches.values()
            ]
        if app.session is session:
            self.show(views)

    # ----- changing ------------------------------------------------------------------------------------------------

    def action_add(self) -> None:
        self.ask_and_add("")

    def ask_and_add(self, expression: str) -> None:
        """Ask for an expression (starting from `expression`) and add it as the person's watch."""
        self.app.push_screen(
            EditPrompt("Add watch", "an expression, valued in the selected frame at every stop", expression, self._add)
        )

    async def _add(self, text: str) -> str | None:
        return await self._run("add_watch", {"expression": text})

    def action_edit(self) -> None:
        watch_id = self.selected_id()
        if watch_id is None:
            self.action_add()
            return
        view = next(v for v in self.views if v.id == watch_id)
        session = self.debugger.session
        current = session.watches[watch_id].expression if session and watch_id in session.watches else view.expression

        async def edit(text: str) -> str | None:
            return await self._run("edit_watch", {"watch_id": watch_id, "expression": text})

        self.app.push_screen(EditPrompt(f"Edit watch {watch_id}", "the new expression", current, edit))

    def action_remove(self) -> None:
        watch_id = self.selected_id()
        if watch_id is not None:
            self.remove_watch(watch_id)

    @work(group="watch-edit")
    async def remove_watch(self, watch_id: str) -> None:
        problem = await self._run("remove_watch", {"watch_id": watch_id})
        if problem:
            self.notify(problem, title="remove_watch", severity="error", timeout=6)

    async def _run(self, action: str, args: dict[str, Any]) -> str | None:
        """Run a watch action as the person; what went wrong as one line, else None (the list is read again when
        the action's activity arrives, for everyone's changes alike)."""
        app = self.debugger
        try:
            await app.registry.run(action, {"session_id": app.session_id or "", **args}, HUMAN)
        except DebugError as exc:
            return f"{exc.code}: {exc.message}"
        return None
