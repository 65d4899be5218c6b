"""PairDbgApp: composes the panes, binds the keys people know, and starts/stops the embedded MCP endpoint."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.theme import Theme

from pairdbg import themes
from pairdbg.backends.actions import Registry
from pairdbg.backends.actions.registry import Action
from pairdbg.backends.events import Stopped
from pairdbg.backends.hub import Hub
from pairdbg.backends.policy import AgentMode
from pairdbg.backends.samples import DEMO

from .agent_marks import AgentLooked, AgentMarks
from .bridge import HubBridge
from .commands import ActionCommands, LinePrompt, asks_for, json_args
from .console import ConsoleInput
from .endpoint import DeferredEndpoint
from .exception_filters import ExceptionFiltersPane
from .footer import FittingFooter
from .keys import KeysScreen, keys_text
from .controller import Controller, after_teardown_ignored
from .messages import HubChanged
from .navigation import Navigator
from .page_view import PageView, is_bridge
from .panes import (
    ActivityLog,
    BreakpointsPane,
    ConsolePane,
    ExceptionBanner,
    SessionsPane,
    StatusBar,
    pane,
)
from .rn_view import RnCommands, RnView, find_rn_service
from .rn_widgets import Timeline
from .source_view import SourceView
from .stack import StackPane
from .variables import VariablesTree
from .watches import WatchesPane

log = logging.getLogger(__name__)

NARROW = 100  # columns below which the side panes take turns
SHORT = 20  # rows below which the console and activity give their rows to the source


class PairDbgApp(Controller):
    TITLE = "pairdbg"
    CSS_PATH = Path(__file__).with_name("app.tcss")
    COMMANDS = Controller.COMMANDS | {ActionCommands, RnCommands}
    # Footer order: the keys people press most first, so a narrow footer still shows them.
    BINDINGS = [
        Binding("f10", "control('step_over')", "Over", priority=True),
        Binding("f11", "control('step_into')", "Into", priority=True),
        Binding("shift+f11", "control('step_out')", "Out", key_display="⇧f11", priority=True),
        Binding("f5", "control('continue_execution')", "Continue", priority=True),
        Binding("f9", "toggle_breakpoint", "Breakpoint", priority=True),
        Binding("f2", "toggle_side", "Stack", priority=True),
        Binding("ctrl+o", "finder('')", "Open", priority=True),
        Binding("ctrl+l", "finder(':')", "Go to line", show=False, priority=True),
        Binding("f21,shift+f9", "breakpoint_form", "Options", key_display="⇧f9", show=False, priority=True),
        Binding("ctrl+f10", "run_to_cursor", "Run to cursor", show=False, priority=True),
        Binding("ctrl+f22,ctrl+shift+f10", "goto_cursor", "Set next statement", show=False, priority=True),
        Binding("f6", "control('pause_execution')", "Pause", priority=True),
        Binding("shift+f5", "stop_session", "Stop", key_display="⇧f5", priority=True),
        Binding("ctrl+shift+f5", "restart_session", "Restart", key_display="^⇧f5", priority=True),
        # The control keys when the footer hides them (tried after the shown ones: see key_shown).
        Binding("f10", "unready_key('step_over')", show=False, priority=True),
        Binding("f11", "unready_key('step_into')", show=False, priority=True),
        Binding("shift+f11", "unready_key('step_out')", show=False, priority=True),
        Binding("f5", "unready_key('continue_execution')", show=False, priority=True),
        Binding("f6", "unready_key('pause_execution')", show=False, priority=True),
        Binding("ctrl+e", "focus_console", "Console"),
        Binding("f1", "keys", "Keys", priority=True),
        Binding("tab", "app.focus_next", "Pane", priority=True),
        Binding("shift+tab", "app.focus_previous", "Previous pane", show=False, priority=True),
        Binding("ctrl+t", "toggle_theme", "Theme"),
        Binding("ctrl+r", "toggle_rn", "RN app", priority=True),
        Binding("ctrl+b", "toggle_page", "Page", priority=True),
        Binding("ctrl+g", "agent_mode", "Agent mode", priority=True),
        Binding("f7", "follow_agent", "Follow agent", show=False, priority=True),
        Binding("f8", "hand_focus", "Hand focus to agent", show=False, priority=True),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]
    KEYS_HELP = (
        "F5 continue · F6 pause · F10 step over · F11 step into · shift+F11 step out\n"
        "F9 breakpoint at the source cursor (or click its gutter) · shift+F9 condition / hit count / log message\n"
        "  gutter: ● bound · ○ pending (reason after the line) · ◌ disabled; in Breakpoints: d/delete removes,"
        " space on/off, c condition\n"
        "ctrl+o open a project file, a loaded file or a module (json.decoder) · esc in Source: back to the stop\n"
        "in Source: : or ctrl+l line · / search, n / N next and previous · @ function or class\n"
        "ctrl+F10 run to the cursor · ctrl+shift+F10 set next statement (where the adapter can)\n"
        "F2 on a narrow terminal: switch the side panes (sessions, call stack, breakpoints ⇄ variables)\n"
        "shift+F5 stop (ends the program) · ctrl+shift+F5 restart (same program, breakpoints, watches)\n"
        "tab / shift+tab move between panes · ctrl+e console (evaluate in the selected frame; :note TEXT for agents)\n"
        "Console: enter runs · shift+enter or ctrl+j new line (a line ending in : or \\ continues; an empty\n"
        "  line ends a block) · up/down history (kept across runs) · tab completes from the debugger\n"
        "Watches: a add · e/enter edit · d remove (◆ an agent's) · Variables: e/enter set · y copy · v whole value\n"
        "  · w watch it · b stop when it changes (B: log its changes) · Breakpoints: space on an exception filter\n"
        "  switches it · Call stack: l lists the library frames the debugger hides\n"
        "ctrl+p command palette (every action) · ctrl+t theme · ctrl+b web page · ctrl+r RN app\n"
        "ctrl+g what agents may do (inspect → control → full) · s in Variables shows or masks secrets\n"
        "◆ name: where an agent looks (source line, frame, variable; fades after a minute) · F7 follow the agent\n"
        "  (your panes go where it looks) · F8 hand your selection to the agents (they read it with get_focus)\n"
        "ctrl+q quit"
    )

    def __init__(
        self, hub: Hub, registry: Registry, http: Any = None, *, launch: dict | None = None, theme: str | None = None
    ) -> None:
        super().__init__()
        self.hub = hub
        self.registry = registry
        self.http = http
        self.endpoint = DeferredEndpoint(http, self.endpoint_failed)
        self.launch = launch
        self.bridge = HubBridge(hub, self)
        self.navigator = Navigator(self)
        self.agent_marks = AgentMarks(self)
        self.rn_service = find_rn_service(hub)
        self.page_off: str | None = None  # the bridge session the person switched the page view off for (ctrl+b)
        for spec in themes.load_themes().values():
            self.register_theme(spec.theme)
        self.theme = themes.check_name(theme, list(self.available_themes)) if theme else themes.DEFAULT_DARK

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(themes.VARIABLE_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Vertical(id="main"):
            with Horizontal(id="upper"):
                with Vertical(id="left"):
                    yield pane(SessionsPane(id="sessions"), "Sessions")
                    yield pane(StackPane(id="stack"), "Call stack")
                    yield pane(BreakpointsPane(id="breakpoints"), "Breakpoints")
                    yield pane(ExceptionFiltersPane(id="exception-filters"), "Pause on exceptions")
                with Vertical(id="center"):
                    yield ExceptionBanner(id="exception")
                    with Horizontal(id="top"):
                        yield pane(SourceView(id="source"), "Source")
                        with Vertical(id="values"):
                            yield pane(VariablesTree(id="variables"), "Variables")
                            yield pane(WatchesPane(id="watches"), "Watches")
                    if self.rn_service is not None:
                        yield RnView(self.rn_service, self.registry, id="rn")
                    yield PageView(self.hub, self.registry, id="page")
            with Horizontal(id="bottom"):
                yield pane(ConsolePane(id="console"), "Console")
                yield pane(ActivityLog(id="activity"), "Activity (◆ agent · ● you)")
        yield FittingFooter()

    # ----- lifecycle --------------------------------------------------------------------------------------------

    async def on_mount(self) -> None:
        self.bridge.attach()
        self.theme_changed_signal.subscribe(self, self._on_theme_changed)
        self._on_theme_changed(self.current_theme)
        self.query_one(SourceView).focus()
        self.refresh_sessions()
        self.refresh_breakpoints()
        self.show_session_state()
        if self.launch:
            # `launch` is start_debugging's arguments, or {"action": name, ...} for another starting action. Started
            # before the MCP endpoint: the program's start is the longer wait, and neither needs the other.
            args = dict(self.launch)
            self.perform(args.pop("action", "start_debugging"), args)
        if self.http is not None:
            # Its port already listens, so its address is shown now; it starts serving once the first frame is up.
            self.show_connection()
            self.call_after_refresh(self.endpoint.begin)
        self.show_bridge()
        self.refresh_status()

    async def on_unmount(self) -> None:
        self.bridge.detach()
        await self.endpoint.stop()  # also after a failed start: its port is closed

    def endpoint_failed(self, exc: Exception) -> None:
        """The MCP endpoint did not start: the debugger stays useful without it."""
        self.notify(f"MCP endpoint did not start: {exc}", title="MCP", severity="error", timeout=10)
        self.query_one(ConsolePane).add(f"✗ MCP endpoint did not start: {exc}", "bold red")
        self.http = None
        self.refresh_status()

    # ----- key actions ------------------------------------------------------------------------------------------

    def action_control(self, name: str) -> None:
        self.perform(name, self.session_args())

    def action_unready_key(self, name: str) -> None:
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

    def action_stop_session(self) -> None:
        """Shift+F5, as in VS Code: end the program and close its session."""
        if self.session is not None:
            self.perform("close_debug_session", self.session_args(terminate=True))

    def action_restart_session(self) -> None:
        """Ctrl+Shift+F5: the same program again, with its breakpoints and watches (restart_debugging)."""
        if self.session is not None:
            self.notify(f"restarting {self.session.name}…", title=self.session.id, timeout=3)
            self.perform("restart_debugging", self.session_args())

    def action_toggle_breakpoint(self) -> None:
        self.toggle_breakpoint()

    def action_finder(self, query: str) -> None:
        self.navigator.open_finder(query)

    def action_breakpoint_form(self) -> None:
        self.navigator.breakpoint_form()

    def action_run_to_cursor(self) -> None:
        self.navigator.run_to_cursor()

    def action_goto_cursor(self) -> None:
        self.navigator.goto_cursor()

    def on_source_view_gutter_clicked(self, message: SourceView.GutterClicked) -> None:
        self.toggle_breakpoint(message.line)

    @on(HubChanged)
    def warm_finder(self, message: HubChanged) -> None:
        if isinstance(message.event, Stopped):
            self.navigator.warm()

    def on_resize(self, event: events.Resize) -> None:
        """Below NARROW columns the side panes take turns (F2) so the source keeps a readable width."""
        narrow = event.size.width < NARROW
        self.screen.set_class(event.size.height < SHORT, "-short")
        if narrow != self.screen.has_class("-narrow"):
            self.screen.set_class(narrow, "-narrow")
            self.refresh_bindings()
        for footer in self.query(FittingFooter):
            footer.compact = narrow
            footer.show_command_palette = not narrow  # ctrl+p still works; F1 lists it

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "toggle_side":  # only a narrow layout has side panes that take turns
            return self.screen.has_class("-narrow")
        if action == "focus_next" and isinstance(self.focused, ConsoleInput) and self.focused.wants_tab():
            return False  # tab completes the name before the console's cursor
        if action in ("control", "stop_session", "restart_session", "unready_key"):
            return self.key_shown(action, parameters)
        return super().check_action(action, parameters)

    def action_toggle_side(self) -> None:
        self.screen.toggle_class("-side")
        if self.screen.has_class("-side"):
            self.query_one(StackPane).focus()
        elif self.focused is None or not self.focused.display:
            self.query_one(SourceView).focus()

    def action_agent_mode(self) -> None:
        """Cycle what agents may do; the registry enforces it and the header shows it."""
        modes = list(AgentMode)
        current = self.hub.policy.mode
        self.perform("set_agent_mode", {"mode": modes[(modes.index(current) + 1) % len(modes)].value})

    def action_follow_agent(self) -> None:
        self.agent_marks.toggle_follow()

    def action_hand_focus(self) -> None:
        self.agent_marks.hand_over()

    @on(AgentLooked)
    @after_teardown_ignored
    def handle_agent_looked(self, message: AgentLooked) -> None:
        self.agent_marks.agent_looked(message.actor)

    @after_teardown_ignored
    def show_agent_marks(self) -> None:
        """A mark dims or goes (agent_marks' timer); dropped while the app quits."""
        self.agent_marks.show()

    def action_reveal_secrets(self) -> None:
        """Show or mask, for the selected session, the values agents get redacted."""
        sid = self.session_id
        if sid is None:
            return
        self.revealed ^= {sid}
        self.query_one(VariablesTree).set_reveal(sid in self.revealed)
        self.notify("secrets shown" if sid in self.revealed else "secrets masked", title=sid, timeout=3)

    def action_keys(self) -> None:
        if not isinstance(self.screen, KeysScreen):
            self.push_screen(KeysScreen(keys_text(self, self.KEYS_HELP)))

    def action_focus_console(self) -> None:
        self.query_one(ConsoleInput).focus()

    def action_toggle_rn(self) -> None:
        """Switch between the debugger's panes and the React Native app view (same console and activity)."""
        views = list(self.query(RnView))
        if not views:
            self.notify("no React Native service in this run", title="React Native", severity="warning")
            return
        view = views[0]
        showing = not view.display
        view.display = showing
        self.screen.set_class(showing, "-rn")
        self.screen.remove_class("-side")
        self.query_one("#top").display = not showing
        self.query_one(PageView).display = False
        if showing:
            view.update_from_service()
            view.query_one(Timeline).focus()
        else:
            self.sync_page_view()  # back to the page view if a debug-bridge session is selected
            page = self.query_one(PageView)
            if page.display:
                page.focus_tree()
            else:
                self.query_one(SourceView).focus()

    def sync_page_view(self) -> None:
        """While a debug-bridge session is selected its page view replaces source and variables (unless the person
        switched it off for that session with ctrl+b, or the RN view is up)."""
        if any(v.display for v in self.query(RnView)):
            return
        view = self.query_one(PageView)
        session = self.session
        show = is_bridge(session) and self.page_off != self.session_id
        if view.display != show:
            focus_was_inside = self.focused is not None and view in self.focused.ancestors_with_self
            view.display = show
            self.query_one("#top").display = not show
            if show and (self.focused is None or isinstance(self.focused, SourceView | VariablesTree)):
                view.focus_tree()
            elif not show and focus_was_inside:
                self.query_one(SourceView).focus()
        view.show_session(self.session_id if show else None)

    def action_toggle_page(self) -> None:
        """Switch between the page view of a debug-bridge session and the debugger's panes."""
        view = self.query_one(PageView)
        if view.display:
            self.page_off = self.session_id
            self.sync_page_view()
            return
        session = self.session
        if not is_bridge(session):
            pages = [s for s in self.hub.sessions.values() if is_bridge(s)]
            live = [s for s in pages if not s.phase.ended]
            session = (live or pages or [None])[-1]
        if session is None:
            self.notify(
                "no web page is connected to the debug-bridge (get_bridge_info shows how to connect one)",
                title="Page",
                severity="warning",
            )
            return
        for rn in self.query(RnView):
            if rn.display:
                rn.display = False
                self.screen.remove_class("-rn")
        self.page_off = None
        if session.id != self.session_id:
            self.select_session(session.id)
        else:
            self.sync_page_view()
        view.focus_tree()

    def on_console_input_submitted(self, event: ConsoleInput.Submitted) -> None:
        lines = event.text.split("\n")
        console = self.query_one(ConsolePane)
        for n, line in enumerate(lines):
            console.add(f"{'>>>' if n == 0 else '...'} {line}", "bold")
        expression = event.text if len(lines) > 1 else event.text.strip()
        if expression == ":note" or expression.startswith(":note "):
            self.post_note(expression[len(":note") :].strip())
            return
        self.focus.look(expression=expression)
        self.evaluate(expression)

    def post_note(self, text: str) -> None:
        """`:note TEXT` in the console: a note for the agents on the line under the source cursor (else the
        session); they read it in debug://notes and in their next stop report."""
        if not text:
            self.query_one(ConsolePane).add("usage: :note TEXT  (on the source cursor's line)", "dim")
            return
        source = self.query_one(SourceView)
        on = f"{source.path}:{source.cursor_line}" if source.path else None
        self.perform("post_note", self.session_args(text=text, on=on))

    # ----- themes -----------------------------------------------------------------------------------------------

    def theme_names(self) -> list[str]:
        return list(themes.load_themes())

    def set_theme(self, name: str) -> bool:
        """Switch theme by name; an unknown name is a notification listing the known ones, not an exception."""
        try:
            self.theme = themes.check_name(name, list(self.available_themes))
        except themes.UnknownThemeError as exc:
            self.notify(str(exc), title="Theme", severity="error", timeout=8)
            return False
        return True

    def action_toggle_theme(self) -> None:
        self.set_theme(themes.DEFAULT_LIGHT if self.theme == themes.DEFAULT_DARK else themes.DEFAULT_DARK)

    def _on_theme_changed(self, theme: Theme) -> None:
        self.query_one(SourceView).set_syntax_style(themes.syntax_style(theme.name, theme.dark))

    # ----- palette ------------------------------------------------------------------------------------------------

    def palette_run(self, action: Action) -> None:
        """Run a registry action from the palette; first ask for its main arguments, one line each."""
        asks = asks_for(action, self.query_one(SourceView).path)
        wants_session = "session_id" in action.params.model_fields

        def run(args: dict[str, Any]) -> None:
            if wants_session:
                args.setdefault("session_id", self.session_id or "")
            self.perform(action.name, args)

        def ask(index: int, args: dict[str, Any]) -> None:
            if index == len(asks):
                run(args)
                return
            current = asks[index]

            def problem(text: str) -> str | None:
                try:
                    if index == 0 and json_args(text) is not None:
                        return None
                    current.parse(text)
                except ValueError as exc:
                    return f"not valid: {exc}"
                return None

            def answered(text: str | None) -> None:
                if text is None:
                    return
                every = json_args(text) if index == 0 else None
                if every is not None:
                    run(every)
                else:
                    ask(index + 1, {**args, **current.parse(text)})

            hint = current.hint + ("; {…} JSON sets every argument" if index == 0 else "")
            self.push_screen(LinePrompt(current.title, hint, check=problem), answered)

        ask(0, {})

    def start_demo(self) -> None:
        self.perform("start_debugging", {"program": DEMO, "stop_on_entry": True})

    def show_connection(self) -> None:
        console = self.query_one(ConsolePane)
        if self.http is None:
            console.add("MCP over HTTP is off in this run (pairdbg --mcp serves agents over stdio).", "dim")
            return
        console.add(f"MCP endpoint: {self.http.url}", "bold")
        token = getattr(self.http, "token", None)
        if token:
            console.add(f"  header  Authorization: Bearer {token}")

    def show_bridge(self) -> None:
        """Where web pages connect (the debug-bridge service), if it listens in this run."""
        from pairdbg.backends.bridge.service import BridgeService

        service = self.hub.service(BridgeService)
        if service is None or service.server.port is None:
            return
        info = service.info()
        console = self.query_one(ConsolePane)
        console.add(f"Web pages: import {info['sdk_url']}", "bold")
        console.add(f'  createDebugBridge({{token: "{info["token"]}"}}).connect()  (get_bridge_info has the snippet)')
