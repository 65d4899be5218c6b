"""The person's moves around the code: the finder (ctrl+o, `:`, `@`, `/`), breakpoints on any line of any opened
file (F9, a click in the gutter, Shift+F9's form), run to cursor (ctrl+F10) and set next statement
(ctrl+shift+F10). Reads go through the core's queries and writes through the registry, as the agent's do."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pairdbg.backends import queries
from pairdbg.backends.errors import ErrorCode
from pairdbg.backends.project import Listing, list_files, project_root
from pairdbg.backends.source import is_url

from .messages import ActionFailed
from .source_view import SourceView

if TYPE_CHECKING:
    from .debugger_view import DebuggerView
    from .finder import FinderSources, Jump

HUMAN = "human"


class Navigator:
    """Runs the navigation keys for the debugger view (the app binds them); keeps only the last project listing."""

    def __init__(self, view: DebuggerView) -> None:
        self.view = view
        self._listings: dict[str, Listing] = {}  # the last listing of each project: the finder shows it at once
        self._warming: set[str] = set()

    def _remember(self, listing: Listing) -> None:
        if listing.root:
            self._listings[listing.root] = listing

    def warm(self) -> None:
        """List the selected session's project in the background once, so the first ctrl+o shows results at once."""
        session = self.view.session
        root = queries.project_folder(session) if session is not None else None
        if root is None or root in self._listings or root in self._warming:
            return
        self._warming.add(root)  # once: the finder lists again each time it opens anyway

        def list_now() -> None:
            listing = list_files(root)
            self.view.app.call_from_thread(self._remember, listing)

        self.view.run_worker(list_now, thread=True, group="finder-warm", exclusive=True)

    @property
    def source(self) -> SourceView:
        return self.view.query_one(SourceView)

    # ----- the finder -----------------------------------------------------------------------------------------

    def sources(self) -> FinderSources:
        from .finder import FinderSources  # the finder's code loads at its first use, not before the first paint

        session = self.view.session
        source = self.source
        shown = source.path

        root = queries.project_folder(session) if session is not None else None
        if root is None and shown and not is_url(shown):
            root = project_root(shown)

        def project() -> Listing:
            return list_files(root) if root else Listing("", [], "none")

        async def loaded() -> list[str]:
            return await queries.loaded_sources(session) if session is not None else []

        async def module(name: str) -> str:
            assert session is not None
            return await queries.resolve_module(session, name)

        return FinderSources(
            shown,
            source.lines,
            project,
            loaded,
            module if session is not None else None,
            cached=self._listings.get(root or ""),
            remember=self._remember,
        )

    def open_finder(self, query: str = "") -> None:
        from .finder import Finder

        def jumped(jump: Jump | None) -> None:
            if jump is None:
                return
            source = self.source
            source.open_file(jump.path, jump.line)
            if jump.search is not None:
                source.set_search(jump.search)
            self.view.refresh_breakpoints()  # the gutter of the file now shown
            source.focus()

        self.view.app.push_screen(Finder(self.sources(), query), jumped)

    # ----- breakpoints, run to cursor, set next statement ----------------------------------------------------

    def _where(self, action: str) -> tuple[Any, str, int] | None:
        """The selected session and the source cursor's file and line; a failure message when there is none."""
        source, session = self.source, self.view.session
        if session is None or not source.path:
            self.view.post_message(
                ActionFailed(
                    action,
                    str(ErrorCode.INVALID_PARAMETERS),
                    "no session or no source file is shown",
                    "start a session (ctrl+p → Start debugging), or open a file with ctrl+o",
                )
            )
            return None
        return session, source.path, source.cursor_line

    def breakpoint_form(self) -> None:
        from .breakpoint_form import BreakpointForm, FormValues, form_title

        where = self._where("set_breakpoint")
        if where is None:
            return
        session, path, line = where
        existing = next(
            (
                bp
                for bp in session.breakpoints.values()
                if bp.kind == "line" and bp.file == path and line in (bp.line, bp.state.line)
            ),
            None,
        )
        values = (
            FormValues(existing.condition or "", existing.hit_condition or "", existing.log_message or "")
            if existing
            else FormValues()
        )

        async def submit(fields: dict[str, str]) -> Any:
            args: dict[str, Any] = {"session_id": session.id}
            if existing is not None:
                args |= {"breakpoint_id": existing.id, **fields}  # "" clears a field
                return await self.view.registry.run("update_breakpoint", args, HUMAN)
            args |= {"file": path, "line": line, **{k: v for k, v in fields.items() if v}}
            return await self.view.registry.run("set_breakpoint", args, HUMAN)

        title = form_title(path, line, existing.id if existing else None)
        self.view.app.push_screen(BreakpointForm(title, values, session.language, submit))

    def run_to_cursor(self) -> None:
        where = self._where("run_to_line")
        if where is not None:
            session, path, line = where
            self.view.perform("run_to_line", {"session_id": session.id, "file": path, "line": line})

    def goto_cursor(self) -> None:
        where = self._where("goto_line")
        if where is not None:
            session, path, line = where
            self.view.perform("goto_line", {"session_id": session.id, "file": path, "line": line})
