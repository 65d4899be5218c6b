"""PairDbgApp: the shell around the debugger view (debugger_view.py): the keys people know, the header, the palette,
themes, the hub bridge, and the embedded MCP endpoint's start and stop."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.theme import Theme

from pairdbg import themes
from pairdbg.backends.actions import Registry
from pairdbg.backends.actions.registry import Action, Reply
from pairdbg.backends.focus import HUMAN
from pairdbg.backends.hub import Hub
from pairdbg.backends.policy import MODE_SAYS, AgentMode, AgentModeChanged
from pairdbg.backends.samples import DEMO
from pairdbg.backends.session import Session
from pairdbg.mcp_bridge.agents import AgentsChanged

from .bridge import HubBridge
from .changes import LogTabs
from .commands import ActionCommands, LinePrompt, asks_for, json_args
from .console import ConsoleInput
from .debugger_view import DebuggerView
from .early import EarlyEvents
from .endpoint import DeferredEndpoint
from .footer import FittingFooter
from .keys import KeysScreen, keys_text
from .messages import (
    ActivityReady,
    AgentLooked,
    HeaderChanged,
    HubChanged,
    OutputReady,
    PageChanged,
    RnChanged,
    StatusChanged,
)
from .panes import StatusBar
from .rn_view import RnCommands, find_rn_service
from .source_view import SourceView

log = logging.getLogger(__name__)

NARROW = 100  # columns below which the side panes take turns
SHORT = 20  # rows below which the console and activity give their rows to the source


class PairDbgApp(App[None]):
    """The shell around the debugger view: app-wide keys, the header, the palette, themes, the hub bridge and the
    embedded MCP endpoint's start and stop."""

    TITLE = "pairdbg"
    CSS_PATH = Path(__file__).with_name("app.tcss")
    COMMANDS = App.COMMANDS | {ActionCommands, RnCommands}
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
        Binding("f4", "toggle_changes", "Changes", show=False, priority=True),
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
        "F4 console ⇄ change log: each write a log-only data breakpoint saw (or click the pane's title)\n"
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
        self,
        hub: Hub,
        registry: Registry,
        http: Any = None,
        *,
        launch: dict | None = None,
        theme: str | None = None,
        launched: asyncio.Task[Reply] | None = None,
        early: EarlyEvents | None = None,
        on_drawn: Callable[[], None] | None = None,
    ) -> None:
        """`launch`: start_debugging's arguments, or {"action": name, ...}, run once the app is up, unless
        `launched` is its run already under way (run_tui starts it before the app loads); `early`: what the Hub
        said before the app listened; `on_drawn`: called once the first frame is on screen."""
        super().__init__()
        self.hub = hub
        self.registry = registry
        self.http = http
        self.endpoint = DeferredEndpoint(http, self.endpoint_failed)
        self.launch = launch
        self.launched = launched
        self.early = early
        self.on_drawn = on_drawn
        self.bridge = HubBridge(hub)
        self.rn_service = find_rn_service(hub)
        self.agents_connected = 0  # from AgentsChanged
        for spec in themes.load_themes().values():
            self.register_theme(spec.theme)
        self.theme = themes.check_name(theme, list(self.available_themes)) if theme else themes.DEFAULT_DARK

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(themes.VARIABLE_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        yield DebuggerView(self.hub, self.registry, self.bridge, self.rn_service, id="main")
        yield FittingFooter()

    @property
    def debugger(self) -> DebuggerView:
        return self.query_one(DebuggerView)

    # The person's selection, as the debugger view keeps it (the palette, the header and tests read it here).

    @property
    def session_id(self) -> str | None:
        return self.debugger.session_id

    @property
    def frame(self) -> str:
        return self.debugger.frame

    @property
    def session(self) -> Session | None:
        return self.debugger.session

    # ----- lifecycle --------------------------------------------------------------------------------------------

    async def on_mount(self) -> None:
        debugger = self.debugger
        routes = {
            HubChanged: debugger,
            OutputReady: debugger,
            ActivityReady: debugger,
            AgentLooked: debugger,
            HeaderChanged: self,
            PageChanged: debugger.centre,  # the centre hands them to its views once mounted
        }
        if self.rn_service is not None:
            routes[RnChanged] = debugger.centre
        self.bridge.attach(routes, self.early)  # first what happened while the app loaded (the launch's start)
        self.early = None
        self.theme_changed_signal.subscribe(self, self._on_theme_changed)
        self._on_theme_changed(self.current_theme)
        self.query_one(SourceView).focus()
        if self.launch:
            args = dict(self.launch)
            name = args.pop("action", "start_debugging")
            if self.launched is None:  # (run_tui starts it before the app loads; an app given only `launch`: now)
                self.launched = asyncio.create_task(self.registry.run(name, args, HUMAN), name=f"pairdbg-{name}")
            debugger.follow(name, self.launched)
        if self.http is not None:
            # Its port already listens, so its address is shown now; it starts serving once the first frame is up,
            # or with a program launching, once the launch has answered (tui/endpoint.py).
            self.show_connection()
            if self.launched is not None:
                self.endpoint.begin_after(self.launched)
            else:
                self.call_after_refresh(self.endpoint.begin)
        self.show_bridge()
        self.refresh_status()

    def on_ready(self) -> None:
        if self.on_drawn is not None:
            self.on_drawn()

    async def on_unmount(self) -> None:
        self.bridge.detach()
        await self.endpoint.stop()  # also after a failed start: its port is closed

    def endpoint_failed(self, exc: Exception) -> None:
        """The MCP endpoint did not start: the debugger stays useful without it."""
        self.notify(f"MCP endpoint did not start: {exc}", title="MCP", severity="error", timeout=10)
        self.debugger.say(f"✗ MCP endpoint did not start: {exc}", "bold red")
        self.http = None
        self.refresh_status()

    # ----- the header -------------------------------------------------------------------------------------------

    @on(StatusChanged)
    def refresh_status(self) -> None:
        url = getattr(self.http, "url", None) if self.http is not None else None
        session = self.debugger.session if self.query(DebuggerView) else None
        for bar in self.query(StatusBar):  # none while the app is being torn down (a late timer or hub event)
            bar.show(session, url, self.agents_connected, self.hub.policy.mode.value)

    @on(HeaderChanged)
    def handle_header_changed(self, message: HeaderChanged) -> None:
        event = message.event
        if isinstance(event, AgentsChanged):
            self.agents_connected = len(event.names)
        elif isinstance(event, AgentModeChanged):
            self.notify(f"agents: {event.mode} ({MODE_SAYS[AgentMode(event.mode)]})", title="Agent mode", timeout=4)
        self.refresh_status()

    # ----- key actions: the debugger view does them -------------------------------------------------------------

    def action_control(self, name: str) -> None:
        self.debugger.control(name)

    def action_unready_key(self, name: str) -> None:
        self.debugger.unready_key(name)

    def action_stop_session(self) -> None:
        self.debugger.stop_session()

    def action_restart_session(self) -> None:
        self.debugger.restart_session()

    def action_toggle_breakpoint(self) -> None:
        self.debugger.toggle_breakpoint()

    def action_finder(self, query: str) -> None:
        self.debugger.navigator.open_finder(query)

    def action_breakpoint_form(self) -> None:
        self.debugger.navigator.breakpoint_form()

    def action_run_to_cursor(self) -> None:
        self.debugger.navigator.run_to_cursor()

    def action_goto_cursor(self) -> None:
        self.debugger.navigator.goto_cursor()

    def action_toggle_side(self) -> None:
        self.debugger.toggle_side()

    def action_follow_agent(self) -> None:
        self.debugger.agent_marks.toggle_follow()

    def action_hand_focus(self) -> None:
        self.debugger.agent_marks.hand_over()

    def action_reveal_secrets(self) -> None:
        self.debugger.reveal_secrets()

    async def action_toggle_rn(self) -> None:
        await self.debugger.centre.toggle_rn()

    async def action_toggle_page(self) -> None:
        await self.debugger.centre.toggle_page()

    def action_toggle_changes(self) -> None:
        self.debugger.query_one(LogTabs).toggle()

    def action_focus_console(self) -> None:
        self.debugger.query_one(LogTabs).show("console")

    def action_agent_mode(self) -> None:
        """Cycle what agents may do; the registry enforces it and the header shows it."""
        modes = list(AgentMode)
        current = self.hub.policy.mode
        self.debugger.perform("set_agent_mode", {"mode": modes[(modes.index(current) + 1) % len(modes)].value})

    async def action_keys(self) -> None:
        if not isinstance(self.screen, KeysScreen):
            # The views mounted when first shown, and the change log's table, have keys to list too.
            await self.debugger.centre.mount_views()
            self.debugger.query_one(LogTabs).changes.table()
            self.push_screen(KeysScreen(keys_text(self, self.KEYS_HELP)))

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "toggle_side":  # only a narrow layout has side panes that take turns
            return self.screen.has_class("-narrow")
        if action == "focus_next" and isinstance(self.focused, ConsoleInput) and self.focused.wants_tab():
            return False  # tab completes the name before the console's cursor
        if action in ("control", "stop_session", "restart_session", "unready_key"):
            return self.debugger.key_shown(action, parameters)
        return super().check_action(action, parameters)

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
            self.debugger.perform(action.name, args)

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
        self.debugger.perform("start_debugging", {"program": DEMO, "stop_on_entry": True})

    def show_connection(self) -> None:
        say = self.debugger.say
        if self.http is None:
            say("MCP over HTTP is off in this run (pairdbg --mcp serves agents over stdio).", "dim")
            return
        say(f"MCP endpoint: {self.http.url}", "bold")
        token = getattr(self.http, "token", None)
        if token:
            say(f"  header  Authorization: Bearer {token}")

    def show_bridge(self) -> None:
        """Where web pages connect (the debug-bridge service), if it listens in this run."""
        from pairdbg.backends.bridge.service import BridgeService

        service = self.hub.service(BridgeService)
        if service is None or service.server.port is None:
            return
        info = service.info()
        say = self.debugger.say
        say(f"Web pages: import {info['sdk_url']}", "bold")
        say(f'  createDebugBridge({{token: "{info["token"]}"}}).connect()  (get_bridge_info has the snippet)')
