"""The debugger's own exception filters (debugpy: raised, uncaught, user-unhandled; JavaScript: caught, uncaught;
an adapter profile's), each with what it means. Space switches one through set_exception_filters; an agent's
set_pause_on_exceptions or set_exception_filters shows here too."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option


class ExceptionFiltersPane(OptionList):
    """space / enter switches the highlighted filter; its meaning shows at the end of its line and as a tooltip."""

    BINDINGS = [Binding("space,enter", "switch", "On/off")]

    class FiltersChosen(Message):
        """The person switched a filter: `filters` are the ids to have on, `said` what that one means."""

        def __init__(self, filters: list[str], said: str) -> None:
            super().__init__()
            self.filters = filters
            self.said = said

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.filters: list[dict[str, Any]] = []
        self._shown: tuple = ()

    def on_mount(self) -> None:
        self.show([])

    def show(self, filters: list[dict[str, Any]]) -> None:
        shown = tuple(tuple(sorted(f.items())) for f in filters)
        if shown == self._shown and self.option_count:
            return
        self._shown = shown
        keep = self.highlighted
        self.filters = list(filters)
        self.clear_options()
        for f in filters:
            label = Text("☑ " if f["enabled"] else "☐ ", style="bold" if f["enabled"] else "dim")
            label.append(f["label"])
            if f.get("description"):
                label.append(f" · {f['description']}", style="dim italic")
            self.add_option(Option(label, id=f["id"]))
        if not filters:
            self.add_option(Option(Text("none: the session's debugger has no filters", style="dim italic")))
            self.get_option_at_index(0).disabled = True
        self.tooltip = "\n".join(f"{f['label']}: {f.get('description') or f['id']}" for f in filters) or None
        if keep is not None and keep < len(filters):
            self.highlighted = keep

    def action_switch(self) -> None:
        if self.highlighted is None or self.highlighted >= len(self.filters):
            return
        chosen = self.filters[self.highlighted]
        on = [f["id"] for f in self.filters if f["enabled"] != (f["id"] == chosen["id"])]
        state = "off" if chosen["enabled"] else "on"
        said = f"{chosen['label']} {state}" + (f": {chosen['description']}" if chosen.get("description") else "")
        self.post_message(self.FiltersChosen(on, said))
