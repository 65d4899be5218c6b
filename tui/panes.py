"""The smaller panes: status line, sessions, call stack, breakpoints, activity feed and console."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import OptionList, RichLog, Static
from textual.widgets.option_list import Option

from pairdbg.backends import queries
from pairdbg.backends.actions.render import where
from pairdbg.backends.errors import DebugError, program_exception
from pairdbg.backends.events import ActionPerformed
from pairdbg.backends.models import BreakpointView, ExceptionInfo, Phase
from pairdbg.backends.session import Session

from .console import ConsoleInput
from .messages import EvaluationDone

if TYPE_CHECKING:
    from .debugger_view import DebuggerView

HUMAN = "human"


def pane(widget, title: str):
    """A bordered pane with its title in the top border (the `pane` class in app.tcss draws it)."""
    widget.add_class("pane")
    widget.border_title = title
    return widget


PHASE_MARK = {
    Phase.STARTING: "◌",
    Phase.RUNNING: "▶",
    Phase.PAUSED: "⏸",
    Phase.RECONNECTING: "◌",
    Phase.TERMINATED: "■",
    Phase.DISCONNECTED: "✕",
    Phase.ERROR: "✕",
}


class StatusBar(Static):
    """One line: the selected session and its phase, the MCP endpoint and how many agents are connected.

    On a narrow terminal the line drops words from the least needed part first; the MCP URL is kept whole."""

    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; color: $foreground; padding: 0 1; }
    """

    _last: tuple = (None, None, 0, "full")

    def show(self, session: Session | None, mcp_url: str | None, agents: int, agent_mode: str = "full") -> None:
        self._last = (session, mcp_url, agents, agent_mode)
        width = self.content_region.width or 10_000  # not laid out yet: the full line
        variants = status_variants(session, mcp_url, agents, agent_mode)
        text = next((t for t in variants if t.cell_len <= width), variants[-1])
        self.text_plain = text.plain  # what the line says, for tests and screen readers
        self.update(text)

    def on_resize(self) -> None:
        self.show(*self._last)


def status_variants(session: Session | None, mcp_url: str | None, agents: int, agent_mode: str = "full") -> list[Text]:
    """The status line from longest to shortest: the first that fits the terminal is shown."""
    with_python: Text | None = None
    if session is None:
        states = [Text("no session", style="dim")]
    else:
        mark = PHASE_MARK.get(session.phase, "?")
        stop = session.last_stop
        if session.phase == Phase.PAUSED and stop is not None:
            at = where(stop.location.file, stop.location.line)
            long, short = f"{mark} {session.phase.value} ({stop.reason}) at {at}", f"{mark} {stop.reason} {at}"
            tiny = f"{mark} {at}"
        elif session.phase.ended and session.exit_code is not None:
            long = f"{mark} {session.phase.value} (exit code {session.exit_code})"
            short = tiny = f"{mark} exit {session.exit_code}"
        else:
            long = short = tiny = f"{mark} {session.phase.value}"
        python = queries.interpreter(session)
        if python is not None:  # the widest line also names the interpreter the program runs on
            on = f"on {python[0].replace(os.path.expanduser('~'), '~', 1)} "
            with_python = Text.assemble((f"{session.id} {session.name} ", "bold"), (on, "dim"), long)
        states = [
            Text.assemble((f"{session.id} {session.name} ", "bold"), long),
            Text.assemble((f"{session.id} ", "bold"), short),
            Text.assemble((f"{session.id} ", "bold"), tiny),
        ]
    mcp = Text(f"MCP {mcp_url}") if mcp_url else Text("MCP off", style="dim")
    plural = "s" if agents != 1 else ""
    mode_style = "bold" if agent_mode != "full" else ""
    agents_long = Text.assemble(f"{agents} agent{plural} connected · ", (f"agents may: {agent_mode}", mode_style))
    agents_short = Text.assemble(f"{agents} agent{plural} · ", (f"may: {agent_mode}", mode_style))
    sep = "  │  "
    variants = [Text.assemble(("pairdbg", "bold"), sep, states[0], sep, mcp, sep, agents_long)]
    if with_python is not None:
        variants.insert(0, Text.assemble(("pairdbg", "bold"), sep, with_python, sep, mcp, sep, agents_long))
    variants += [Text.assemble(state, sep, mcp, sep, agents_long) for state in states]
    variants += [Text.assemble(state, " │ ", mcp, " │ ", agents_short) for state in states]
    return variants


def exception_text(info: ExceptionInfo) -> str:
    """`ZeroDivisionError: division by zero` (the break mode only when it says something, e.g. `unhandled`), after
    the test's name when a test run stopped at its failure."""
    text = f"{info.type}: {info.message}" if info.message else info.type
    if info.break_mode and info.break_mode not in ("always", "userUnhandled"):
        text += f"  ({info.break_mode})"
    if info.test is not None:  # a test run stopped where a test failed
        text = f"test {info.test.test} failed: {text}"
    return text


class ExceptionBanner(Static):
    """One line over the source while the selected session is stopped on an exception; hidden otherwise."""

    DEFAULT_CSS = """
    ExceptionBanner { height: auto; max-height: 3; background: $error 25%; color: $text-error; text-style: bold;
                      padding: 0 1; display: none; }
    """

    text_plain: str = ""

    def show_exception(self, info: ExceptionInfo | None) -> None:
        text = f"✗ {exception_text(info)}" if info is not None else ""
        if text == self.text_plain:
            return  # called on every stop and phase change: no relayout when nothing changed
        self.text_plain = text
        self.display = info is not None
        self.update(Text(text))


class SessionsPane(OptionList):
    _shown: tuple = ()

    def show(self, sessions: dict[str, Session], selected: str | None) -> None:
        labels = tuple(
            (
                s.id,
                f"{s.id} {s.name}{f' (child of {s.parent.id})' if s.parent else ''}  "
                f"{PHASE_MARK.get(s.phase, '?')} {s.phase.value}",
            )
            for s in sessions.values()
        )
        if [i for i, _ in labels] == [i for i, _ in self._shown]:
            # Same sessions: relabel in place (a phase flips twice per step; a rebuild costs a layout pass).
            for (session_id, label), (_, old) in zip(labels, self._shown, strict=True):
                if label != old:
                    self.replace_option_prompt(session_id, label)
            self._shown = labels
        else:
            self._shown = labels
            self.clear_options()
            for session_id, label in labels:
                self.add_option(Option(label, id=session_id))
        if selected in sessions and self.highlighted != list(sessions).index(selected):
            self.highlighted = list(sessions).index(selected)


class BreakpointsPane(OptionList):
    """The selected session's breakpoints; delete/d removes, space turns on/off, c edits the condition."""

    BINDINGS = [
        Binding("delete,d", "edit('remove')", "Delete"),
        Binding("space", "edit('toggle')", "On/off"),
        Binding("c", "edit('condition')", "Condition"),
    ]

    class Edit(Message):
        """The person asked to change the highlighted breakpoint (`remove`, `toggle` or `condition`)."""

        def __init__(self, what: str, breakpoint_id: str) -> None:
            super().__init__()
            self.what = what
            self.breakpoint_id = breakpoint_id

    _shown: tuple = ()

    def show(self, breakpoints: list[BreakpointView]) -> None:
        shown = tuple(breakpoints)
        if shown == self._shown and self.option_count:
            return  # refreshed on every stop: no repaint when nothing changed
        self._shown = shown
        keep = self.selected_id()
        self.clear_options()
        for bp in breakpoints:
            mark = "◌" if not bp.enabled else "●" if bp.verified else "○"
            label = Text(f"{mark} {bp.id} {breakpoint_target(bp)}", style="" if bp.enabled else "dim")
            if bp.kind == "data":
                label.append("  logs changes" if bp.log_only else "  stops on write", style="dim italic")
                if bp.access == "read_write":
                    label.append(" and read", style="dim italic")
                if bp.hits:
                    label.append(f"  {bp.hits} hit{'s' if bp.hits != 1 else ''}", style="yellow")
            if bp.condition:
                label.append(f" if {bp.condition}", style="italic")
            if bp.hit_condition:
                label.append(f" hit {bp.hit_condition}", style="italic")
            if not bp.enabled:
                label.append("  off", style="dim italic")
            if bp.set_by != "human":
                label.append(f"  ({bp.set_by})", style="dim")
            self.add_option(Option(label, id=bp.id))
        if not breakpoints:
            self.add_option(Option(Text("none: F9 sets one at the source cursor", style="dim italic"), disabled=True))
        ids = [bp.id for bp in breakpoints]
        if keep in ids:
            self.highlighted = ids.index(keep)

    def selected_id(self) -> str | None:
        if self.highlighted is None or self.highlighted >= self.option_count:
            return None
        return self.get_option_at_index(self.highlighted).id

    def action_edit(self, what: str) -> None:
        bp_id = self.selected_id()
        if bp_id:
            self.post_message(self.Edit(what, bp_id))


def breakpoint_target(bp: BreakpointView) -> str:
    """What a breakpoint is on: `cart.py:14`, `function total`, or a data breakpoint's watched value."""
    if bp.kind == "function":
        return f"function {bp.function}"
    if bp.kind == "data":
        return bp.expression or bp.watching or "(a value)"
    return where(bp.file, bp.actual_line or bp.line)


def activity_line(event: ActionPerformed, agent_style: str, human_style: str) -> Text:
    """`12:03:04 ◆ agent:x  step_over  wait_s=2  ✓ S1 paused: step …` (agent lines marked ◆ and coloured)."""
    is_agent = event.actor.startswith("agent")
    stamp = time.strftime("%H:%M:%S", time.localtime(event.at or time.time()))
    text = Text(stamp + " ", style="dim")
    text.append(("◆ " if is_agent else "● ") + event.actor, style=f"bold {agent_style if is_agent else human_style}")
    text.append(f"  {event.action}", style="bold")
    if event.session_id:
        text.append(f" [{event.session_id}]", style="dim")
    if event.summary:
        text.append(f"  {event.summary}")
    text.append("  ✓ " if event.ok else "  ✗ ", style="green" if event.ok else "bold red")
    text.append(event.outcome, style="" if event.ok else "red")
    return text


class ActivityLog(RichLog):
    def __init__(self, **kwargs) -> None:
        super().__init__(max_lines=1000, wrap=True, markup=False, auto_scroll=True, min_width=20, **kwargs)
        self.lines_text: list[str] = []  # plain copies of the last lines, for tests and the agent-visible record

    def add(self, line: Text) -> None:
        self.write(line)
        self.lines_text.append(line.plain)
        del self.lines_text[:-1000]


class ConsolePane(Vertical):
    """Program output above, an expression prompt below that evaluates in the selected frame (through the
    registry, as the person: the activity shows it) or sends a `:note` to the agents."""

    DEFAULT_CSS = """
    ConsolePane { height: 1fr; }
    ConsolePane > RichLog { height: 1fr; background: $surface; }
    """

    def compose(self) -> ComposeResult:
        yield RichLog(max_lines=5000, wrap=True, markup=False, auto_scroll=True, min_width=20, id="console-log")
        yield ConsoleInput(id="console-input")

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.lines_text: list[str] = []  # plain copies of the last lines, for tests
        self._partial: dict[tuple[str, str], str] = {}
        self._flush_timer: Timer | None = None
        self._pending: list[Text] | None = None  # inside batch(): lines waiting for one write

    def add(self, text: Text | str, style: str = "") -> None:
        line = text if isinstance(text, Text) else Text(text, style=style)
        if self._pending is not None:
            self._pending.append(line)
        else:
            self.query_one("#console-log", RichLog).write(line)
        self.lines_text.append(line.plain)
        del self.lines_text[:-5000]

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Lines added inside are written to the log at once: one render and one scroll for a burst of output,
        where a write per line costs ~2.5x as much (floods of 10,000 lines/s would keep the UI busy)."""
        self._pending = []
        try:
            yield
        finally:
            lines, self._pending = self._pending, None
            if lines:
                self.query_one("#console-log", RichLog).write(Text("\n").join(lines))

    @property
    def debugger(self) -> DebuggerView:
        return self.query_ancestor("DebuggerView")  # type: ignore[return-value]

    def on_console_input_submitted(self, event: ConsoleInput.Submitted) -> None:
        lines = event.text.split("\n")
        for n, line in enumerate(lines):
            self.add(f"{'>>>' if n == 0 else '...'} {line}", "bold")
        expression = event.text if len(lines) > 1 else event.text.strip()
        if expression == ":note" or expression.startswith(":note "):
            self.debugger.post_note(expression[len(":note") :].strip())
            return
        self.debugger.person.look(expression=expression)
        self.evaluate(expression)

    @work(group="evaluate")
    async def evaluate(self, expression: str) -> None:
        debugger = self.debugger
        session = debugger.session
        # A running program that can evaluate globally (a web page on the debug-bridge, JS targets) gets frame None.
        running = session is not None and session.phase == Phase.RUNNING
        globally = running and queries.can_evaluate_globally(session)
        args = debugger.session_args(expression=expression, frame=None if globally else debugger.frame)
        try:
            reply = await debugger.registry.run("evaluate_expression", args, HUMAN)
        except DebugError as exc:
            raised = program_exception(exc)  # the program's own exception: said as the program said it
            text, hint = (raised, None) if raised else (f"{exc.code}: {exc.message}", exc.hint)
            self.post_message(EvaluationDone(expression, text, False, hint))
            return
        data = reply.data
        text = f"{data.get('value', '')}" + (f"  ({data['type']})" if data.get("type") else "")
        if data.get("handle"):
            text += f"  {data['handle']}"
        self.post_message(EvaluationDone(expression, text, True))

    @on(EvaluationDone)
    def handle_evaluation_done(self, message: EvaluationDone) -> None:
        if message.ok:
            self.add(Text.assemble(("= ", "bold"), message.text))
            return
        self.add(f"✗ {message.text}", "bold red")
        if message.hint:
            self.add(f"  next: {message.hint}", "red")
        with contextlib.suppress(Exception):
            self.notify(message.text, title="evaluate", severity="error", timeout=4)

    def output(self, session_id: str, category: str, text: str, many_sessions: bool) -> None:
        """Append program output. Adapters cut output anywhere, so an unfinished last line waits for the rest
        (or for a short quiet spell, so a prompt without a newline still shows)."""
        key = (session_id, category)
        lines = (self._partial.pop(key, "") + text).split("\n")
        if lines[-1]:
            self._partial[key] = lines[-1]
            if self._flush_timer is not None:
                self._flush_timer.stop()
            self._flush_timer = self.set_timer(0.3, lambda: self.flush_partial(many_sessions))
        for part in lines[:-1]:
            self._line(session_id, category, part, many_sessions)

    def flush_partial(self, many_sessions: bool = False) -> None:
        partial, self._partial = self._partial, {}
        for (session_id, category), text in partial.items():
            self._line(session_id, category, text, many_sessions)

    def _line(self, session_id: str, category: str, text: str, many_sessions: bool) -> None:
        style = {"stderr": "red", "console": "dim", "important": "bold"}.get(category, "")
        prefix = f"{session_id}│ " if many_sessions else ""
        self.add(Text(prefix + text, style=style))
