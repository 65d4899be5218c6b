"""DebuggerView: the debugger's panes (sessions, call stack, breakpoints, source, variables, watches, console,
activity) and what they do. Hub events and the person's requests become pane refreshes in message handlers, on the
UI's own turn, and background work in workers that only read or call actions, then post a message with the result.
The centre (centre.py) shows the source and variables, or instead the RN app view or a web page's view."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.widget import Widget

from pairdbg.backends import queries
from pairdbg.backends.actions.render import where
from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.backends.events import BreakpointsChanged, PhaseChanged, SessionAdded, SessionRemoved, Stopped
from pairdbg.backends.focus import TOP_FRAME, Focus, FramePlace, VariableLook
from pairdbg.backends.models import Phase, StopReport
from pairdbg.backends.notes import Note, NoteAdded
from pairdbg.backends.session import Session

from .agent_marks import AgentMarks
from .centre import Centre
from .changes import LogTabs
from .commands import LinePrompt
from .exception_filters import ExceptionFiltersPane
from .messages import (
    ActionDone,
    ActionFailed,
    ActivityReady,
    AgentLooked,
    ChildrenLoaded,
    FrameFailed,
    FrameLoaded,
    HubChanged,
    OutputReady,
    StatusChanged,
)
from .navigation import Navigator
from .panes import (
    ActivityLog,
    BreakpointsPane,
    ConsolePane,
    ExceptionBanner,
    SessionsPane,
    activity_line,
    exception_text,
    pane,
)
from .source_view import SourceView, gutter_marks
from .stack import StackPane
from .variables import VariablesTree, VarNode
from .watches import WATCH_ACTIONS, WatchesPane

if TYPE_CHECKING:
    from pairdbg.backends.actions import Registry
    from pairdbg.backends.actions.registry import Reply
    from pairdbg.backends.hub import Hub

    from .bridge import HubBridge

log = logging.getLogger(__name__)
HUMAN = "human"
MAX_FRAMES = 100
RUNNING_GRACE_S = 0.15
OUTPUT_PER_TURN = 500  # output entries written per UI turn (~20 ms); a flood's rest follows after pending keys

Handler = TypeVar("Handler", bound=Callable[..., Any])


def after_teardown_ignored(handler: Handler) -> Handler:
    """A worker's result or a hub event can arrive while the app is quitting, when its panes are already gone:
    that message is dropped instead of crashing the exit with NoMatches. A missing pane at any other time is a bug
    and still raises."""

    @functools.wraps(handler)
    def guarded(self: Widget, *args: Any, **kwargs: Any) -> Any:
        try:
            return handler(self, *args, **kwargs)
        except NoMatches:
            app = self.app
            if app._exit or app._closing or app._closed or not app.screen_stack:
                log.debug("%s dropped during teardown", handler.__name__)
                return None
            raise

    return guarded  # type: ignore[return-value]


class DebuggerView(Vertical):
    """The debugger's panes and their behaviour; the app around it keeps the keys, the header and the hub bridge."""

    def __init__(
        self, hub: Hub, registry: Registry, bridge: HubBridge, rn_service: Any | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.hub = hub
        self.registry = registry
        self.bridge = bridge
        self.rn_service = rn_service
        self.navigator = Navigator(self)
        self.agent_marks = AgentMarks(self)
        self._exceptions_announced: set[tuple[str, int]] = set()  # (session, stop) whose exception was printed
        self._frames_shown: tuple[str, int] | None = None  # (session, stop) whose frames the stack pane lists
        self.revealed: set[str] = set()  # sessions whose secrets the person chose to see unmasked
        self._keys_phase: Phase | None = None  # the phase the footer's keys were chosen for
        self.library_frames_shown = False  # l in the call stack lists the frames justMyCode hides

    def compose(self) -> ComposeResult:
        with Horizontal(id="upper"):
            with Vertical(id="left"):
                yield pane(SessionsPane(id="sessions"), "Sessions")
                yield pane(StackPane(id="stack"), "Call stack")
                yield pane(BreakpointsPane(id="breakpoints"), "Breakpoints")
                yield pane(ExceptionFiltersPane(id="exception-filters"), "Pause on exceptions")
            with Vertical(id="center"):
                yield ExceptionBanner(id="exception")
                with Centre(self, id="views"):
                    with Horizontal(id="top"):
                        yield pane(SourceView(id="source"), "Source")
                        with Vertical(id="values"):
                            yield pane(VariablesTree(id="variables"), "Variables")
                            yield pane(WatchesPane(id="watches"), "Watches")
        with Horizontal(id="bottom"):
            yield pane(LogTabs(id="logs", initial="console"), "Console")
            yield pane(ActivityLog(id="activity"), "Activity (◆ agent · ● you)")

    def on_mount(self) -> None:
        self.refresh_sessions()
        self.refresh_breakpoints()
        self.show_session_state()

    # ----- selection: the person's Focus, kept in the core like each agent's ---------------------------------------

    @property
    def person(self) -> Focus:
        return self.hub.focus.of(HUMAN)

    @property
    def session_id(self) -> str | None:
        return self.person.session_id

    @property
    def frame(self) -> str:
        return self.person.frame

    @property
    def session(self) -> Session | None:
        return self.hub.sessions.get(self.session_id) if self.session_id else None

    def key_shown(self, action: str, parameters: tuple) -> bool:
        """The footer shows the keys that matter in the selected session's phase (as last shown, so a step's brief
        run does not flicker them). A control key that is hidden falls through to `unready_key`, which says why."""
        phase = self._keys_phase
        if action == "restart_session":
            return phase is not None
        if action == "stop_session":
            return phase is not None and not phase.ended
        if action == "unready_key":
            return not self.key_shown("control", parameters)
        if phase is None or phase.ended:
            return False
        if parameters and parameters[0] == "pause_execution":
            return phase == Phase.RUNNING
        return phase == Phase.PAUSED

    def show_keys_for(self, session: Session | None) -> None:
        phase = session.phase if session is not None else None
        if phase != self._keys_phase:
            self._keys_phase = phase
            self.refresh_bindings()

    def refresh_watches(self) -> None:
        for watches in self.query(WatchesPane):
            watches.refresh_values()

    def select_session(self, session_id: str | None) -> None:
        self.person.select(session_id)
        self.refresh_sessions()
        self.refresh_breakpoints()
        self.show_session_state()
        self.sync_page_view()

    def show_session_state(self) -> None:
        """Bring stack, source and variables in line with the selected session's phase."""
        session = self.session
        source = self.query_one(SourceView)
        stack = self.query_one(StackPane)
        variables = self.query_one(VariablesTree)
        self.show_exception(session)
        self.show_keys_for(session)
        if session is None:
            self.refresh_watches()
            stack.show_note("no session")
            variables.reset([], "no session")
            source.show(None, None)
            return
        if session.phase == Phase.PAUSED and session.last_stop is not None:
            self.load_frame(session, self.frame)
            return
        ended = session.phase.value + (f": exit code {session.exit_code}" if session.exit_code is not None else "")
        note = {Phase.STARTING: "starting…", Phase.RUNNING: "running… (F6 pauses)"}.get(session.phase, ended)
        code = queries.debugs_code(session)
        if session.phase == Phase.RUNNING and not code:
            note = "a web page: ctrl+b shows it"
        stack.show_note(note)
        variables.reset([], note)
        self.refresh_watches()
        program = queries.program(session) if code else None  # else a URL
        source.show(source.path or program, None, move_cursor=False)

    def show_exception(self, session: Session | None) -> None:
        """The exception the selected session is stopped on, over the source; gone once it runs on."""
        stop = session.last_stop if session is not None and session.phase == Phase.PAUSED else None
        self.query_one(ExceptionBanner).show_exception(stop.exception if stop is not None else None)

    def announce_exception(self, session_id: str, report: StopReport) -> None:
        """Once per stop, the console says which exception stopped the program, and where."""
        key = (session_id, report.stop_number)
        if report.exception is None or key in self._exceptions_announced:
            return
        self._exceptions_announced.add(key)
        loc = report.location
        place = f"  at {where(loc.file, loc.line)} in {loc.function or '?'}" if loc.line else ""
        prefix = f"{session_id}│ " if len(self.hub.sessions) > 1 else ""
        self.query_one(ConsolePane).add(f"{prefix}✗ {exception_text(report.exception)}{place}", "bold red")

    # ----- hub events -------------------------------------------------------------------------------------------

    @on(HubChanged)
    @after_teardown_ignored
    def handle_hub_changed(self, message: HubChanged) -> None:
        event = message.event
        if isinstance(event, SessionAdded):
            current = self.session
            if current is None or current.phase.ended:
                self.select_session(event.session_id)
            else:
                self.refresh_sessions()
        elif isinstance(event, SessionRemoved):
            if event.session_id == self.session_id:
                live = [s.id for s in self.hub.sessions.values() if not s.phase.ended]
                self.select_session(live[-1] if live else next(reversed(self.hub.sessions), None))
            else:
                self.refresh_sessions()
        elif isinstance(event, PhaseChanged):
            if event.session_id == self.session_id and event.phase == Phase.RUNNING:
                # A step runs for a few milliseconds: showing "running" for it would cost a repaint, a flicker and
                # (Textual paints at most once a frame) delay the stop's own repaint by up to a frame. Show it
                # only if the program is still running a moment later.
                self.set_timer(RUNNING_GRACE_S, self._show_if_still_running)
                return
            self.refresh_sessions()
            if event.session_id == self.session_id and event.phase != Phase.PAUSED:
                self.show_session_state()
        elif isinstance(event, Stopped):
            if event.report is not None:  # any session's: the console names the session when there are several
                self.announce_exception(event.session_id, event.report)
            if self.session_id is None:
                self.person.select(event.session_id)
            if event.session_id == self.session_id:
                report = event.report
                if report is not None:
                    self.person.stopped(report)
                else:
                    self.person.look(frame=TOP_FRAME, frame_place=None, variable=None)
                if report is not None and report.location.line:
                    # The report already says where: show the line now, frames and variables follow.
                    source = self.query_one(SourceView)
                    source.show(report.location.file, report.location.line)
                    source.set_inline_values(report.location.file, report.location.line, report.locals)
                    self.look_at_source()
                self.show_session_state()
            self.refresh_sessions()
            self.navigator.warm()  # the finder lists the program's project before the person's first ctrl+o
        elif isinstance(event, BreakpointsChanged) and event.session_id == self.session_id:
            self.refresh_breakpoints()
        elif isinstance(event, NoteAdded) and event.note is not None:
            variables = self.app.theme_variables
            styles = variables.get("agent-color", "yellow"), variables.get("human-color", "cyan")
            self.query_one(ActivityLog).add(note_line(event.note, *styles))
        if event.session_id == self.session_id:
            self.sync_page_view()  # e.g. the page disconnected: its header says so
        self.post_message(StatusChanged())

    @on(OutputReady)
    @after_teardown_ignored
    def handle_output_ready(self) -> None:
        items, dropped = self.bridge.drain_output(OUTPUT_PER_TURN)
        console = self.query_one(ConsolePane)
        if dropped:
            console.add(f"… {dropped} output lines dropped (the program printed faster than the screen)", "dim")
        many = len(self.hub.sessions) > 1
        changes = [(sid, entry.change, entry.text) for sid, entry in items if entry.category == "changes"]
        with console.batch():
            for session_id, entry in items:
                if entry.category not in ("telemetry", "changes"):  # the change log has its own tab
                    console.output(session_id, entry.category, entry.text, many)
        if changes:
            self.query_one(LogTabs).add_changes(changes, many)

    @on(ActivityReady)
    @after_teardown_ignored
    def handle_activity(self, message: ActivityReady) -> None:
        variables = self.app.theme_variables
        agent, human = variables.get("agent-color", "yellow"), variables.get("human-color", "cyan")
        line = activity_line(message.event, agent, human)
        self.query_one(ActivityLog).add(line)
        event = message.event
        if event.session_id == self.session_id and event.ok:
            if event.action in WATCH_ACTIONS:
                self.refresh_watches()
            if event.action in ("set_pause_on_exceptions", "set_exception_filters"):
                self.refresh_breakpoints()

    @on(AgentLooked)
    @after_teardown_ignored
    def handle_agent_looked(self, message: AgentLooked) -> None:
        self.agent_marks.agent_looked(message.actor)

    @after_teardown_ignored
    def show_agent_marks(self) -> None:
        """A mark dims or goes (agent_marks' timer); dropped while the app quits."""
        self.agent_marks.show()

    @after_teardown_ignored
    def _show_if_still_running(self) -> None:
        session = self.session
        if session is not None and session.phase == Phase.RUNNING:
            self.refresh_sessions()
            self.show_session_state()
            self.sync_page_view()
            self.post_message(StatusChanged())

    # ----- pane refreshes ---------------------------------------------------------------------------------------

    def refresh_sessions(self) -> None:
        self.query_one(SessionsPane).show(self.hub.sessions, self.session_id)

    def refresh_breakpoints(self) -> None:
        session = self.session
        views = [bp.view() for bp in session.breakpoints.values()] if session else []
        self.query_one(BreakpointsPane).show(views)
        for exceptions in self.query(ExceptionFiltersPane):
            exceptions.show(
                queries.exception_filters(session) if session is not None and session.phase.reachable else []
            )
        source = self.query_one(SourceView)
        source.set_breakpoints(gutter_marks(views, source.path))

    # ----- frames and variables ---------------------------------------------------------------------------------

    @work(group="frame", exclusive=True)
    async def load_frame(self, session: Session, frame: str) -> None:
        """Read one frame's stack, scopes and first scope's values through the core's read-only query (not an
        action, so not announced) and post them; a newer stop or frame cancels this one."""
        number = session.stop_number
        try:
            data = await queries.frame_view(session, frame, MAX_FRAMES, include_library=self.library_frames_shown)
        except DebugError as exc:  # usually the program moved on meanwhile and the next event redraws
            log.debug("frame load for stop %s dropped: %s", number, exc)
            self.post_message(FrameFailed(session.id, number, f"{exc.code}: {exc.message}"))
            return
        if data is not None:
            self.post_message(FrameLoaded(data))

    @on(FrameLoaded)
    @after_teardown_ignored
    def handle_frame_loaded(self, message: FrameLoaded) -> None:
        data = message.data
        session = self.session
        if session is None or session.id != data.session_id or session.stop_number != data.stop_number:
            return
        stack = self.query_one(StackPane)
        key = (data.session_id, data.stop_number)
        new_stop = stack.stop_key != key
        stack.for_stop(key, session.last_stop.thread_id if session.last_stop else None, session.language == "python")
        stack.show(data.frames, data.total, data.frame, data.hidden)
        if new_stop:
            stack.load_threads(session)
        self._frames_shown = (data.session_id, data.stop_number)
        chosen = next((f for f in data.frames if f.handle == data.frame), None) or stack.frame_view(data.frame)
        place = FramePlace(chosen.function, chosen.file, chosen.line) if chosen is not None else None
        self.person.look(frame=data.frame, frame_place=place)
        if chosen is not None:
            source = self.query_one(SourceView)
            # The stop line was shown as soon as the stop arrived; leave the person's cursor alone if it still is.
            shown = source.path == chosen.file and source.current_line == chosen.line
            source.show(chosen.file, chosen.line, top=data.frame == TOP_FRAME, move_cursor=not shown)
            source.set_inline_values(chosen.file, chosen.line, data.first_scope_children)
            self.look_at_source()
        self.refresh_breakpoints()
        tree = self.query_one(VariablesTree)
        tree.reveal = data.session_id in self.revealed
        tree.reset(data.scopes)
        first = tree.scope_node(0)
        if first is not None and first.data is not None:
            first.data.loaded = True
            tree.fill(first.id, tree.generation, data.first_scope_children, data.first_scope_total)
            first.expand()
        self.refresh_watches()
        self.agent_marks.show()  # the new rows' agent marks (the tree's handles are new)

    @on(FrameFailed)
    @after_teardown_ignored
    def handle_frame_failed(self, message: FrameFailed) -> None:
        session = self.session
        if session is None or session.id != message.session_id or session.stop_number != message.stop_number:
            return
        if session.phase != Phase.PAUSED:
            return  # it ran on: the next event redraws
        if self._frames_shown == (session.id, session.stop_number):
            # The stack is on screen; only the chosen frame failed: keep the list to pick another one.
            self.notify(message.text, title="frame", severity="error", timeout=6)
            return
        note = f"could not read this stop's frames ({message.text})"  # rather than keep "starting…"
        self.query_one(StackPane).show_note(note)
        self.query_one(VariablesTree).reset([], note)

    @on(StackPane.OptionHighlighted, "#stack")
    def handle_frame_highlighted(self, event: StackPane.OptionHighlighted) -> None:
        session = self.session
        handle = event.option.id
        if handle and handle != self.frame and session is not None and session.phase == Phase.PAUSED:
            thread = event.option_list.thread_of(handle)  # type: ignore[attr-defined]
            # the place follows when it loads
            self.person.look(frame=handle, thread_id=thread, frame_place=None, variable=None)
            self.load_frame(session, handle)

    @on(StackPane.LibraryToggled)
    def handle_library_toggled(self, message: StackPane.LibraryToggled) -> None:
        """l in the call stack: read the stop's stack again with (or without) the library frames it hides. A hidden
        library frame the person had selected gives way to the stop's own frame."""
        self.library_frames_shown = message.shown
        session = self.session
        if session is None or session.phase != Phase.PAUSED:
            return
        frame = self.frame
        if not message.shown and any(mark in frame.removeprefix("@f") for mark in "+-"):  # @f0+1, @f0-2
            frame = TOP_FRAME
            self.person.look(frame=frame, frame_place=None, variable=None)
        self.load_frame(session, frame)

    @on(StackPane.TaskChosen)
    @after_teardown_ignored
    def handle_task_chosen(self, message: StackPane.TaskChosen) -> None:
        """An asyncio task's row: its source where it awaits (its frames are not the debugger's to inspect)."""
        if message.file and message.line:
            self.query_one(SourceView).show(message.file, message.line, top=False)

    # ----- the person's focus beyond the frame: what agents read with get_focus ---------------------------------

    @on(SourceView.CursorMoved)
    @after_teardown_ignored  # the source view posts it while it is being removed at exit
    def handle_cursor_moved(self) -> None:
        self.look_at_source()

    def look_at_source(self) -> None:
        source = self.query_one(SourceView)
        self.person.look(file=source.path, line=source.cursor_line if source.path else None)

    @on(VariablesTree.NodeHighlighted, "#variables")  # not the RN view's or the page's trees
    def handle_variable_highlighted(self, event: VariablesTree.NodeHighlighted) -> None:
        data = event.node.data
        view = data.view if isinstance(data, VarNode) else None
        session = self.session
        if view is None or session is None:
            self.person.look(variable=None)  # a scope, a bucket or a message
            return
        stop = session.stop_number if session.phase == Phase.PAUSED else None
        self.person.look(variable=VariableLook(view.name, view.value, view.type, view.handle, stop))

    @on(StackPane.OptionSelected, "#stack")
    def handle_frame_chosen(self, event: StackPane.OptionSelected) -> None:
        """Enter on a frame shows its source again (after the person opened another file)."""
        session = self.session
        handle = event.option.id
        if handle and session is not None and session.phase == Phase.PAUSED:
            thread = event.option_list.thread_of(handle)  # type: ignore[attr-defined]
            self.person.look(frame=handle, thread_id=thread)
            self.load_frame(session, handle)

    @on(SessionsPane.OptionSelected, "#sessions")
    def handle_session_chosen(self, event: SessionsPane.OptionSelected) -> None:
        if event.option.id and event.option.id != self.session_id:
            self.select_session(event.option.id)

    @on(VariablesTree.LoadRequested)
    def handle_load_requested(self, message: VariablesTree.LoadRequested) -> None:
        self.load_children(message)

    @work(group="children")
    async def load_children(self, request: VariablesTree.LoadRequested) -> None:
        """Expanding a node is the person's action, so it goes through the registry and shows in the activity."""
        args = {
            "session_id": self.session_id or "",
            "ref": request.handle,
            "start": request.start,
            "count": request.count,
        }
        try:
            reply = await self.registry.run("get_variables", args, HUMAN)
        except DebugError as exc:
            self.post_message(ChildrenLoaded(request.node_id, request.generation, [], -1))
            self.post_message(ActionFailed("get_variables", str(exc.code), exc.message, exc.hint))
            return
        from pairdbg.backends.models import VariableView

        views = [VariableView.model_validate(v) for v in reply.data.get("variables", [])]
        self.post_message(ChildrenLoaded(request.node_id, request.generation, views, reply.data.get("total", 0)))

    @on(ChildrenLoaded)
    @after_teardown_ignored
    def handle_children_loaded(self, message: ChildrenLoaded) -> None:
        tree = self.query_one(VariablesTree)
        if message.total < 0:
            tree.fail(message.node_id, message.generation, "(could not load: see the console)")
        else:
            tree.fill(message.node_id, message.generation, message.views, message.total)
            self.agent_marks.show()

    # ----- actions the person runs ------------------------------------------------------------------------------

    def session_args(self, **extra: Any) -> dict[str, Any]:
        return {"session_id": self.session_id or "", **extra}

    @work(group="actions")
    async def perform(self, name: str, args: dict[str, Any]) -> None:
        await self._reply_of(name, self.registry.run(name, args, HUMAN))

    @work(group="actions")
    async def follow(self, name: str, running: asyncio.Task[Reply]) -> None:
        """The reply of the person's action started apart (the launch, which run_tui starts before the app is up),
        shown as perform shows one. Quitting cancels it, as it cancels perform's."""
        await self._reply_of(name, running)

    async def _reply_of(self, name: str, running: Awaitable[Reply]) -> None:
        try:
            reply = await running
        except DebugError as exc:
            self.post_message(ActionFailed(name, str(exc.code), exc.message, exc.hint))
            return
        self.post_message(ActionDone(name, reply.text, reply.data))

    @on(ActionDone)
    @after_teardown_ignored
    def handle_action_done(self, message: ActionDone) -> None:
        if message.action in ("start_debugging", "debug_tests") and message.data.get("session_id"):
            if message.data["session_id"] != self.session_id:  # already shown from its first event: no reload
                self.select_session(message.data["session_id"])
            self.say_interpreter(message.data)
        elif message.action in ("restart_debugging", "close_debug_session"):
            self.notify(message.text.splitlines()[0], title="Restart" if "restart" in message.action else "Stop")
        elif message.action in (
            "get_call_stack",
            "list_debug_sessions",
            "list_breakpoints",
            "get_output",
            "list_threads",
            "get_source_context",
            "list_supported_languages",
            "get_scopes",
            "get_local_variables",
            "get_variables",
            "add_watch",
        ):
            self.query_one(ConsolePane).add(Text(message.text))

    def say_interpreter(self, data: dict[str, Any]) -> None:
        """Which Python the program runs on and why; if it could not import a module, how to pick another."""
        python = data.get("interpreter")
        if not python:
            return
        console = self.query_one(ConsolePane)
        console.add(f"{data['session_id']} runs on {python['path']} ({python['chosen_by']})", "dim")
        if python.get("missing_module"):
            console.add(
                f"✗ {python['path']} has no module {python['missing_module']!r}: restart with "
                "pairdbg --python PATH, or activate the virtualenv that has it before starting pairdbg",
                "bold red",
            )

    @on(ActionFailed)
    @after_teardown_ignored
    def handle_action_failed(self, message: ActionFailed) -> None:
        text = f"{message.message}" + (f"\nNext: {message.hint}" if message.hint else "")
        self.notify(text, title=f"{message.action}: {message.code}", severity="error", timeout=6)
        console = self.query_one(ConsolePane)
        console.add(f"✗ {message.action}: {message.code}: {message.message}", "bold red")
        if message.hint:
            console.add(f"  next: {message.hint}", "red")

    @on(BreakpointsPane.Edit)
    def handle_breakpoint_edit(self, message: BreakpointsPane.Edit) -> None:
        session = self.session
        bp = session.breakpoints.get(message.breakpoint_id) if session is not None else None
        if bp is None:
            return
        if message.what == "remove":
            self.perform("remove_breakpoint", self.session_args(breakpoint_id=bp.id))
        elif message.what == "toggle":
            self.perform("update_breakpoint", self.session_args(breakpoint_id=bp.id, enabled=not bp.enabled))
        elif message.what == "condition":

            def run(condition: str | None) -> None:
                if condition is not None and condition.strip() != (bp.condition or ""):
                    args = self.session_args(breakpoint_id=bp.id, condition=condition.strip())
                    self.perform("update_breakpoint", args)

            title = f"Condition for {bp.id} ({bp.function or f'line {bp.line}'})"
            hint = "stop only when this is true; empty removes it"
            self.app.push_screen(LinePrompt(title, hint, bp.condition or ""), run)

    @on(ExceptionFiltersPane.FiltersChosen)
    def handle_filters_chosen(self, message: ExceptionFiltersPane.FiltersChosen) -> None:
        self.notify(message.said, title="Pause on exceptions", timeout=4)
        self.perform("set_exception_filters", self.session_args(filters=message.filters))

    def toggle_breakpoint(self, line: int | None = None) -> None:
        source = self.query_one(SourceView)
        session = self.session
        if session is None or not source.path:
            self.post_message(
                ActionFailed(
                    "set_breakpoint",
                    str(ErrorCode.INVALID_PARAMETERS),
                    "no session or no source file is shown",
                    "start a session (ctrl+p → Start debugging) and wait for its source",
                )
            )
            return
        line = line or source.cursor_line
        for bp in session.breakpoints.values():
            if bp.kind == "line" and bp.file == source.path and line in (bp.line, bp.state.line):
                self.perform("remove_breakpoint", self.session_args(breakpoint_id=bp.id))
                return
        self.perform("set_breakpoint", self.session_args(file=source.path, line=line))

    # ----- the person's keys (the app binds them) ------------------------------------------------------------

    def control(self, name: str) -> None:
        self.perform(name, self.session_args())

    def unready_key(self, name: str) -> None:
        """A control key the footer does not show now. With no program, or an ended one, it says so in a person's
        words and what to do; otherwise the action runs and its answer says why it cannot (NOT_PAUSED, …)."""
        session = self.session
        if session is None:
            text, title = "No program is being debugged. Start one with ctrl+p → Start debugging.", "pairdbg"
        elif session.phase.ended:
            how = f" (exit code {session.exit_code})" if session.exit_code is not None else ""
            text, title = f"The program has ended{how}. Restart it with ctrl+shift+F5.", session.id
        else:
            self.perform(name, self.session_args())
            return
        self.notify(text, title=title, severity="warning", timeout=6)

    def stop_session(self) -> None:
        """Shift+F5, as in VS Code: end the program and close its session."""
        if self.session is not None:
            self.perform("close_debug_session", self.session_args(terminate=True))

    def restart_session(self) -> None:
        """Ctrl+Shift+F5: the same program again, with its breakpoints and watches (restart_debugging)."""
        if self.session is not None:
            self.notify(f"restarting {self.session.name}…", title=self.session.id, timeout=3)
            self.perform("restart_debugging", self.session_args())

    def on_source_view_gutter_clicked(self, message: SourceView.GutterClicked) -> None:
        self.toggle_breakpoint(message.line)

    def toggle_side(self) -> None:
        """F2 on a narrow screen: the left column and the variables take turns."""
        screen = self.screen
        screen.toggle_class("-side")
        if screen.has_class("-side"):
            self.query_one(StackPane).focus()
        elif screen.focused is None or not screen.focused.display:
            self.query_one(SourceView).focus()

    def reveal_secrets(self) -> None:
        """Show or mask, for the selected session, the values agents get redacted."""
        sid = self.session_id
        if sid is None:
            return
        self.revealed ^= {sid}
        self.query_one(VariablesTree).set_reveal(sid in self.revealed)
        self.notify("secrets shown" if sid in self.revealed else "secrets masked", title=sid, timeout=3)

    # ----- the centre: source and variables, the RN app or a web page ------------------------------------------

    @property
    def centre(self) -> Centre:
        return self.query_one(Centre)

    def sync_page_view(self) -> None:
        self.centre.sync_page_view()

    # ----- console (ConsolePane evaluates; these are its lines of pairdbg's own and its notes) -----------------

    def post_note(self, text: str) -> None:
        """`:note TEXT` in the console: a note for the agents on the line under the source cursor (else the
        session); they read it in debug://notes and in their next stop report."""
        if not text:
            self.say("usage: :note TEXT  (on the source cursor's line)", "dim")
            return
        source = self.query_one(SourceView)
        on = f"{source.path}:{source.cursor_line}" if source.path else None
        self.perform("post_note", self.session_args(text=text, on=on))

    def say(self, text: str | Text, style: str = "") -> None:
        """A line of pairdbg's own in the console (where agents connect, where pages connect)."""
        self.query_one(ConsolePane).add(text, style)


def note_line(note: Note, agent_style: str, human_style: str) -> Text:
    """`12:03:04 ✎ agent:x  note [S1]  orders.py:14  N1: total is discounted twice` in the activity pane."""
    is_agent = note.author.startswith("agent")
    stamp = time.strftime("%H:%M:%S", time.localtime(note.at or time.time()))
    text = Text(stamp + " ", style="dim")
    text.append(f"✎ {note.author}", style=f"bold {agent_style if is_agent else human_style}")
    text.append("  note", style="bold")
    text.append(f" [{note.session_id}]", style="dim")
    text.append(f"  {note.place()}  ")
    text.append(f"{note.id}: {note.text}", style="italic")
    return text
