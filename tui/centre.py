"""The debugger view's centre: the source and variables (`top`), or instead the React Native app view (`rn`) or the
selected debug-bridge session's page view (`page`), one at a time in a ContentSwitcher. The person's keys (ctrl+r,
ctrl+b) and the selected session decide which; the left column, the console and the activity stay."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import ContentSwitcher

from .page_view import PageView, is_bridge
from .rn_view import RnView
from .rn_widgets import Timeline
from .source_view import SourceView
from .variables import VariablesTree

if TYPE_CHECKING:
    from .debugger_view import DebuggerView


class Centre(ContentSwitcher):
    def __init__(self, debugger: DebuggerView, **kwargs) -> None:
        super().__init__(initial="top", **kwargs)
        self.debugger = debugger
        self.page_off: str | None = None  # the bridge session the person switched the page view off for (ctrl+b)

    def show(self, name: str) -> None:
        """`top`, `rn` or `page`. The RN app view takes the left column's room too (the debugger view's -rn)."""
        self.current = name
        self.debugger.set_class(name == "rn", "-rn")

    def toggle_rn(self) -> None:
        """Switch between the debugger's panes and the React Native app view (same console and activity)."""
        views = list(self.query(RnView))
        if not views:
            self.notify("no React Native service in this run", title="React Native", severity="warning")
            return
        view = views[0]
        self.screen.remove_class("-side")
        if self.current != "rn":
            self.show("rn")
            view.update_from_service()
            view.query_one(Timeline).focus()
            return
        self.show("top")
        self.sync_page_view()  # back to the page view if a debug-bridge session is selected
        if self.current == "page":
            self.query_one(PageView).focus_tree()
        else:
            self.query_one(SourceView).focus()

    def sync_page_view(self) -> None:
        """While a debug-bridge session is selected its page view replaces source and variables (unless the person
        switched it off for that session with ctrl+b, or the RN view is up)."""
        if self.current == "rn":
            return
        view = self.query_one(PageView)
        session_id = self.debugger.session_id
        show = is_bridge(self.debugger.session) and self.page_off != session_id
        if (self.current == "page") != show:
            focused = self.screen.focused
            focus_was_inside = focused is not None and view in focused.ancestors_with_self
            self.show("page" if show else "top")
            if show and (focused is None or isinstance(focused, SourceView | VariablesTree)):
                view.focus_tree()
            elif not show and focus_was_inside:
                self.query_one(SourceView).focus()
        view.show_session(session_id if show else None)

    def toggle_page(self) -> None:
        """Switch between the page view of a debug-bridge session and the debugger's panes."""
        view = self.query_one(PageView)
        debugger = self.debugger
        if self.current == "page":
            self.page_off = debugger.session_id
            self.sync_page_view()
            return
        session = debugger.session
        if not is_bridge(session):
            pages = [s for s in debugger.hub.sessions.values() if is_bridge(s)]
            live = [s for s in pages if not s.phase.ended]
            session = (live or pages or [None])[-1]
        if session is None:
            self.notify(
                "no web page is connected to the debug-bridge (get_bridge_info shows how to connect one)",
                title="Page",
                severity="warning",
            )
            return
        if self.current == "rn":
            self.show("top")
        self.page_off = None
        if session.id != debugger.session_id:
            debugger.select_session(session.id)  # its page view follows
        else:
            self.sync_page_view()
        view.focus_tree()
