"""The "Page" view: a web app connected through the debug-bridge (a Hub session whose backend is the bridge's), shown
instead of the source and variables while such a session is selected. A header (connection, URL, title, counts), the
UI tree with a row per element, and the page's recent errors and app state beside it.

Data flow: the bridge turns the debug-bridge service's ResourceChanged events into `PageChanged` for this view (queued
ones coalesce); the view then re-reads the Page mirror on the UI's turn (no action calls, and the list is rebuilt only
when the tree's version changed). A slow tick refreshes the counts, which console floods change without a resource
event. What the person does (enter clicks, t types, n navigates, f finds, r refreshes) runs through `registry.run(...,
"human")` in workers, so it shows in the activity pane like the agent's actions; failures become notifications.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import OptionList, Static

from pairdbg.backends import queries
from pairdbg.backends.bridge import uitree
from pairdbg.backends.errors import DebugError

from .messages import ActionFailed, PageActed, PageChanged
from .page_widgets import TextPrompt, TreeRows, errors_text, first_handle, header, state_text, tree_rows
from .panes import pane

if TYPE_CHECKING:
    from pairdbg.backends.actions import Registry
    from pairdbg.backends.bridge.page import Page
    from pairdbg.backends.hub import Hub
    from pairdbg.backends.session import Session

HUMAN = "human"
TICK_S = 0.5


is_bridge = queries.is_page


class PageView(Vertical):
    """What the selected debug-bridge session's page shows and lets the person do."""

    DEFAULT_CSS = """
    PageView { height: 2fr; }
    PageView #page-header { height: auto; max-height: 3; padding: 0 1; background: $panel; }
    PageView #page-note { height: auto; max-height: 3; padding: 0 1; }
    PageView #page-note.-empty { display: none; }
    PageView #page-body { height: 1fr; }
    PageView #page-tree { width: 1fr; height: 1fr; max-height: 100%; }
    PageView #page-side { width: 38%; min-width: 30; }
    PageView #page-errors { height: 1fr; max-height: 40%; }
    PageView #page-state { height: 1fr; }
    PageView #page-errors > Static, PageView #page-state > Static { width: 1fr; }
    """
    BINDINGS = [
        Binding("t", "type_text", "Type"),
        Binding("n", "navigate", "Navigate"),
        Binding("f", "find", "Find"),
        Binding("r", "refresh_tree", "Refresh"),
    ]

    def __init__(self, hub: Hub, registry: Registry, **kwargs) -> None:
        super().__init__(**kwargs)
        self.hub = hub
        self.registry = registry
        self.session_id: str | None = None
        self.refs: list[str | None] = []  # element ref of each row (None: a note row)
        self.rows_text: list[str] = []  # plain row texts, for tests
        self.header_text = ""
        self.note_text = ""
        self.rebuilds = 0  # how often the list was rebuilt (tests check floods do not rebuild it)
        self._tree_key: tuple[Any, ...] | None = None
        self._side_key: tuple[Any, ...] | None = None
        self._hidden = 0  # hidden elements in the listed tree

    def compose(self) -> ComposeResult:
        yield Static(id="page-header")
        yield Static(id="page-note", classes="-empty")
        with Horizontal(id="page-body"):
            yield pane(TreeRows(id="page-tree"), "Page (enter: click · t: type · n: navigate · f: find · r: refresh)")
            with Vertical(id="page-side"):
                with pane(VerticalScroll(id="page-errors"), "Recent errors"):
                    yield Static(id="page-errors-text")
                with pane(VerticalScroll(id="page-state"), "App state (redacted)"):
                    yield Static(id="page-state-text")

    def on_mount(self) -> None:
        self.set_interval(TICK_S, self._tick)

    # ----- what is shown ------------------------------------------------------------------------------------------

    @property
    def session(self) -> Session | None:
        session = self.hub.sessions.get(self.session_id) if self.session_id else None
        return session if is_bridge(session) else None

    @property
    def page(self) -> Page | None:
        view = queries.page_view(self.session)
        return view.page if view is not None else None

    def show_session(self, session_id: str | None) -> None:
        if session_id != self.session_id:
            self.session_id = session_id
            self._tree_key = self._side_key = None
            self.set_note("")
        self.update_from_page()

    def focus_tree(self) -> None:
        self.query_one(TreeRows).focus()

    def _tick(self) -> None:
        if self.display:
            self.update_from_page()

    @on(PageChanged)
    def handle_page_changed(self, message: PageChanged) -> None:
        if self.session_id in message.pages:
            self.update_from_page()

    def update_from_page(self) -> None:
        """Re-read the Page mirror (cheap: nothing is asked of the page). Called on PageChanged, hub events and a
        slow tick; the list is rebuilt only for a new tree, the side panel only when errors or state changed."""
        if not self.display:
            return
        session = self.session
        view = queries.page_view(session)
        if session is None or view is None:
            self._set_header(Text("no debug-bridge session selected", style="dim italic"))
            return
        page = view.page
        key = (session.id, page.tree_version, page.loads)
        if key != self._tree_key:
            self._tree_key = key
            self._rebuild(page)
        self._set_header(header(page, session, self._hidden, view.reconnecting))
        side = (
            session.id,
            page.error_count,
            len(page.recent_errors),
            len(page.state),
            max(page.state_at.values(), default=0),
        )
        if side != self._side_key:
            self._side_key = side
            self.query_one("#page-errors-text", Static).update(errors_text(page))
            self.query_one("#page-errors").border_title = f"Recent errors ({page.error_count})"
            self.query_one("#page-state-text", Static).update(state_text(page, view.redactor))

    def _set_header(self, text: Text) -> None:
        if text.plain != self.header_text:
            self.header_text = text.plain
            self.query_one("#page-header", Static).update(text)

    def _rebuild(self, page: Page) -> None:
        rows = self.query_one(TreeRows)
        keep = self.highlighted_ref()
        index = rows.highlighted
        y = rows.scroll_y
        options, refs = tree_rows(page.tree)
        rows.set_options(options)
        self.refs = refs
        self.rows_text = [str(o.prompt.plain if isinstance(o.prompt, Text) else o.prompt) for o in options]
        self.rebuilds += 1
        self._hidden = sum(1 for it in page.tree if it.get("visible") is False)
        rows.scroll_to(y=y, animate=False, immediate=True)
        if keep is not None and keep in refs:
            rows.highlighted = refs.index(keep)
        elif refs and refs[0] is not None:
            rows.highlighted = min(index or 0, len(refs) - 1)

    def highlighted_ref(self) -> str | None:
        index = self.query_one(TreeRows).highlighted
        return self.refs[index] if index is not None and 0 <= index < len(self.refs) else None

    def highlight(self, ref: str) -> bool:
        if ref not in self.refs:
            return False
        self.query_one(TreeRows).highlighted = self.refs.index(ref)
        return True

    def set_note(self, text: str | Text, style: str = "") -> None:
        line = text if isinstance(text, Text) else Text(text, style=style)
        self.note_text = line.plain
        note = self.query_one("#page-note", Static)
        note.update(line)
        note.set_class(not line.plain, "-empty")

    # ----- the person's actions -----------------------------------------------------------------------------------

    def _args(self, **extra: Any) -> dict[str, Any]:
        return {"session_id": self.session_id or "", **extra}

    def _element(self, what: str) -> str | None:
        ref = self.highlighted_ref()
        if ref is None:
            self.app.notify(f"highlight an element to {what} first", title="Page", severity="warning", timeout=4)
        return ref

    @on(OptionList.OptionSelected, "#page-tree")
    def handle_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        ref = self.refs[event.option_index] if event.option_index < len(self.refs) else None
        if ref is not None:
            self.set_note(f"clicking @{ref}…", "dim")
            self.act("click", self._args(element=f"@{ref}"), ref)

    def action_type_text(self) -> None:
        ref = self._element("type into")
        page = self.page
        if ref is None or page is None:
            return
        item = next((it for it in page.tree if it.get("ref") == ref), {})
        value = item.get("value")

        def typed(text: str | None) -> None:
            if text is not None:
                self.set_note(f"typing into @{ref}…", "dim")
                self.act("type_text", self._args(element=f"@{ref}", text=text), ref)

        title = f"Type into {uitree.line(item) if item else '@' + ref} (replaces its value)"
        self.app.push_screen(TextPrompt(title, str(value) if isinstance(value, str) else ""), typed)

    def action_navigate(self) -> None:
        page = self.page
        if page is None:
            return

        def go(url: str | None) -> None:
            if url and url.strip():
                self.set_note(f"navigating to {url.strip()}…", "dim")
                self.act("navigate", self._args(url=url.strip()))

        self.app.push_screen(TextPrompt("Navigate the page to (absolute URL or a path)", page.url), go)

    def action_find(self) -> None:
        if self.session is None:
            return

        def find(text: str | None) -> None:
            if text and text.strip():
                self.act("find_element", self._args(text=text.strip()))

        self.app.push_screen(TextPrompt("Find an element by its text, label, value or test id", ""), find)

    def action_refresh_tree(self) -> None:
        if self.session is not None:
            self.act("get_ui_tree", self._args())

    @work(group="page-actions")
    async def act(self, name: str, args: dict[str, Any], ref: str | None = None) -> None:
        try:
            reply = await self.registry.run(name, args, HUMAN)
        except DebugError as exc:
            self.post_message(ActionFailed(name, str(exc.code), exc.message, exc.hint))
            self.post_message(PageActed(name, None, ref))
            return
        self.post_message(PageActed(name, reply, ref))

    @on(PageActed)
    def handle_acted(self, message: PageActed) -> None:
        message.stop()
        self.update_from_page()
        reply = message.reply
        if reply is None:
            self.set_note(f"✗ {message.action} failed (see the notification)", "red")
            return
        lines = reply.text.splitlines()
        if message.action == "find_element":
            ref = first_handle(reply.data.get("matches") or [])
            if ref is None:
                self.set_note(lines[0] if lines else "no match", "yellow")
            elif self.highlight(ref):
                self.set_note(Text.assemble(("✓ ", "green"), lines[0], "  → highlighted @", ref))
            else:
                self.set_note(f"{lines[0]}; @{ref} is not in the list (r refreshes it)", "yellow")
            return
        if message.action == "get_ui_tree":
            self.set_note(
                Text.assemble(("✓ ", "green"), f"tree refreshed: {len(self.page.tree) if self.page else 0} elements")
            )
            return
        effects = [line.strip() for line in lines[1:] if line.strip() and line.strip() != "ui changes:"][:2]
        self.set_note(
            Text.assemble(("✓ ", "green"), lines[0] if lines else message.action, *(f"\n{e}" for e in effects))
        )
