"""The debugger view's centre: the source and variables (`top`), or instead the React Native app view (`rn`) or the
selected debug-bridge session's page view (`page`), one at a time in a ContentSwitcher. The person's keys (ctrl+r,
ctrl+b) and the selected session decide which; the left column, the console and the activity stay.

Only `top` is composed up front: the RN and page views are mounted the first time they are shown, so neither delays
the first paint (until then the centre itself tells of an RN app connecting)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual import on
from textual.widgets import ContentSwitcher

from .messages import PageChanged, RnChanged
from .page_view import PageView, is_bridge
from .rn_view import RnView, announce_connect
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
        self.page_view: PageView | None = None  # mounted when first shown
        self.rn_view: RnView | None = None  # mounted when first shown, in a run with the RN service
        self._page_mounting = False
        self._page_mounted = asyncio.Event()
        self._rn_connected = False  # an RN app's connection, as announced before the RN view was mounted

    async def mount_rn_view(self) -> RnView:
        if self.rn_view is None:
            service = self.debugger.rn_service
            self.rn_view = RnView(service, self.debugger.registry, connected=self._rn_connected, id="rn")
            self.rn_view.display = False
            # Before the page view, wherever that is already: the panes' order (F1 lists their keys in it) stays.
            await self.mount(self.rn_view, before=self.page_view)
        return self.rn_view

    async def mount_views(self) -> None:
        """Every view this run can show, hidden (F1 lists their keys)."""
        if self.debugger.rn_service is not None:
            await self.mount_rn_view()
        await self.mount_page_view()

    async def mount_page_view(self) -> PageView:
        if self.page_view is None:
            self.page_view = PageView(self.debugger.hub, self.debugger.registry, id="page")
            await self.add_content(self.page_view)
            self._page_mounted.set()
        await self._page_mounted.wait()  # another caller may be mounting it
        return self.page_view

    async def _mount_page_view_then_sync(self) -> None:
        await self.mount_page_view()
        self._page_mounting = False
        self.sync_page_view()

    # The bridge posts these here; a view not mounted yet reads the service or the page when it is.

    @on(PageChanged)
    def forward_page_changed(self, message: PageChanged) -> None:
        if self.page_view is not None and self.page_view.is_mounted:
            self.page_view.handle_page_changed(message)

    @on(RnChanged)
    def forward_rn_changed(self) -> None:
        if self.rn_view is not None:
            if self.rn_view.is_mounted:
                self.rn_view.handle_rn_changed()
            return
        status = self.debugger.rn_service.status()
        announce_connect(self.app, status, self._rn_connected)
        self._rn_connected = bool(status.get("connected"))

    def show(self, name: str) -> None:
        """`top`, `rn` or `page`. The RN app view takes the left column's room too (the debugger view's -rn)."""
        self.current = name
        self.debugger.set_class(name == "rn", "-rn")

    async def toggle_rn(self) -> None:
        """Switch between the debugger's panes and the React Native app view (same console and activity)."""
        if self.debugger.rn_service is None:
            self.notify("no React Native service in this run", title="React Native", severity="warning")
            return
        view = await self.mount_rn_view()
        self.screen.remove_class("-side")
        if self.current != "rn":
            self.show("rn")
            view.update_from_service()
            view.query_one(Timeline).focus()
            return
        self.show("top")
        self.sync_page_view()  # back to the page view if a debug-bridge session is selected
        if self.current == "page" and self.page_view is not None:
            self.page_view.focus_tree()
        else:
            self.query_one(SourceView).focus()

    def sync_page_view(self) -> None:
        """While a debug-bridge session is selected its page view replaces source and variables (unless the person
        switched it off for that session with ctrl+b, or the RN view is up)."""
        if self.current == "rn":
            return
        session_id = self.debugger.session_id
        show = is_bridge(self.debugger.session) and self.page_off != session_id
        view = self.page_view
        if view is None or not view.is_mounted:
            if show and not self._page_mounting:
                self._page_mounting = True
                self.call_later(self._mount_page_view_then_sync)
            return  # nothing to show or hide yet
        if (self.current == "page") != show:
            focused = self.screen.focused
            focus_was_inside = focused is not None and view in focused.ancestors_with_self
            self.show("page" if show else "top")
            if show and (focused is None or isinstance(focused, SourceView | VariablesTree)):
                view.focus_tree()
            elif not show and focus_was_inside:
                self.query_one(SourceView).focus()
        view.show_session(session_id if show else None)

    async def toggle_page(self) -> None:
        """Switch between the page view of a debug-bridge session and the debugger's panes."""
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
        view = await self.mount_page_view()
        if self.current == "rn":
            self.show("top")
        self.page_off = None
        if session.id != debugger.session_id:
            debugger.select_session(session.id)  # its page view follows
        else:
            self.sync_page_view()
        view.focus_tree()
