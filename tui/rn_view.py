"""The "RN app" view: what a connected React Native app sends to pairdbg's RN service — connection line, streams, an
event timeline per stream, the state at a chosen seq and the diff between two seqs.

Data flow: the bridge turns the RN service's ResourceChanged/ResourceListChanged into `RnChanged` for this view (queued
ones coalesce: one per burst); the view then reads the service's cheap summaries (status, stream_list) on the UI's turn
and starts at most one tail worker. Workers only call actions and post messages; the @on handlers draw. What the person
asks for (opening a stream, older pages, a state, a diff) runs through `registry.run(..., "human")` and so shows in the
activity pane; the automatic tail of new events runs the same action unannounced, or it would drown the agent's lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from pairdbg.backends.errors import DebugError

from .commands import CommandList
from .messages import RnChanged, RnDiff, RnEvents, RnProblem, RnState
from .panes import pane
from .rn_state import StateBuilder
from .rn_tree import DiffPane, StateTree
from .rn_widgets import Timeline, header_lines

if TYPE_CHECKING:
    from pairdbg.backends.actions import Registry

HUMAN = "human"
PAGE = 200  # the tool's own maximum


def find_rn_service(hub: Any) -> Any | None:
    from pairdbg.backends.rn.service import RnService

    return hub.service(RnService)


def announce_connect(app: Any, status: dict[str, Any], was_connected: bool) -> None:
    """While the RN view is not shown, an app connecting is a notification saying how to see it."""
    if status.get("connected") and not was_connected:
        name = (status.get("app") or {}).get("name") or "a React Native app"
        app.notify(f"{name} connected — ctrl+r shows the RN app view", title="React Native", timeout=6)


class RnView(Vertical):
    """The pane group shown instead of the debugger's source/variables when the person switches to the RN app."""

    DEFAULT_CSS = """
    RnView { height: 2fr; }
    RnView #rn-header { height: auto; max-height: 4; padding: 0 1; background: $panel; }
    RnView #rn-note { height: auto; max-height: 2; padding: 0 1; color: $error; }
    RnView #rn-note.-empty { display: none; }
    RnView #rn-body { height: 1fr; }
    RnView #rn-left { width: 55%; }
    RnView #rn-streams { height: 6; }
    RnView #rn-timeline { height: 1fr; }
    RnView #rn-right { width: 1fr; }
    RnView #rn-state { height: 3fr; }
    RnView #rn-diff { height: 2fr; }
    """

    def __init__(self, service: Any, registry: Registry, *, connected: bool = False, **kwargs) -> None:
        """`connected`: the app's connection was already announced (before this view was mounted)."""
        super().__init__(**kwargs)
        self.service = service
        self.registry = registry
        self.stream: str | None = None
        self.generation = 0  # bumped when the timeline is rebuilt (other stream, new app session)
        self.session_id: str | None = None
        self.streams: list[dict[str, Any]] = []
        self.states = StateBuilder(self._run)
        self.header_text: list[str] = []
        self.note_text = ""
        self._tailing = False
        self._dirty = False
        self._loading_older = False
        self._connected = connected

    def compose(self) -> ComposeResult:
        yield Static(id="rn-header")
        yield Static(id="rn-note", classes="-empty")
        with Horizontal(id="rn-body"):
            with Vertical(id="rn-left"):
                yield pane(OptionList(id="rn-streams"), "Streams")
                yield pane(
                    Timeline(id="rn-timeline"), "Events (enter: state · b/t: mark base/target · d: diff with previous)"
                )
            with Vertical(id="rn-right"):
                yield pane(StateTree(id="rn-state"), "State at seq")
                yield pane(DiffPane(id="rn-diff"), "Diff")

    def on_mount(self) -> None:
        self.query_one(StateTree).show_note("select an event (enter or click) to see the state right after it")
        self.query_one(DiffPane).show_note("mark a base (b) and a target (t) event, or press d on one")
        self.update_from_service()

    # ----- running actions ------------------------------------------------------------------------------------

    async def _run(self, name: str, args: dict[str, Any], announce: bool = True) -> Any:
        # Automatic follow-ups (the tail) go through the registry too, without an activity line per second.
        return await self.registry.run(name, args, HUMAN, announce=announce)

    # ----- service summaries (UI turn, cheap, no I/O) -----------------------------------------------------------

    @on(RnChanged)
    def handle_rn_changed(self) -> None:
        self.update_from_service()

    def update_from_service(self) -> None:
        svc = self.service
        status, health = svc.status(), svc.health()
        lines = header_lines(status, health)
        self.header_text = [t.plain for t in lines]
        self.query_one("#rn-header", Static).update(Text("\n").join(lines))
        if not self.display:
            announce_connect(self.app, status, self._connected)
        self._connected = bool(status.get("connected"))
        if status.get("session_id") and status["session_id"] != self.session_id:
            self.session_id = status["session_id"]
            if self.stream is not None:  # a full JS reload: seqs start again, so the timeline does too
                self.open_stream(self.stream)
        self.streams = svc.stream_list()
        self._show_streams()
        if self.stream is None and self.streams and self.display:
            self.open_stream(self.streams[0]["name"])
        elif self.stream is not None:
            self.tail()

    def _show_streams(self) -> None:
        pane = self.query_one("#rn-streams", OptionList)
        names = [s["name"] for s in self.streams]
        labels = []
        for s in self.streams:
            label = Text(f"{s['name']:<11}", style="bold")
            extra = (", snapshot" if s["hasSnapshot"] else "") + (f", {s['gaps']} gaps" if s["gaps"] else "")
            label.append(f"seq {s['oldestSeq']}..{s['latestSeq']}  ({s['eventCount']} events{extra})")
            if not s["active"]:
                label.append("  inactive", style="dim")
            labels.append(label)
        if names and [o.id for o in pane.options] == names:
            for name, label in zip(names, labels, strict=True):
                pane.replace_option_prompt(name, label)
        else:
            pane.clear_options()
            pane.add_options([Option(label, id=name) for name, label in zip(names, labels, strict=True)])
            if not names:
                pane.add_option(Option(Text("no streams yet", style="dim italic"), disabled=True))
        if self.stream in names and pane.highlighted != names.index(self.stream):
            pane.highlighted = names.index(self.stream)

    def stream_info(self, name: str | None) -> dict[str, Any] | None:
        return next((s for s in self.streams if s["name"] == name), None)

    # ----- notes ----------------------------------------------------------------------------------------------

    def set_note(self, text: str) -> None:
        self.note_text = text
        note = self.query_one("#rn-note", Static)
        note.update(text)
        note.set_class(not text, "-empty")

    @on(RnProblem)
    def handle_problem(self, message: RnProblem) -> None:
        exc = message.error
        text = f"✗ {message.action}: {exc.code}: {exc.message}" + (f" — next: {exc.hint}" if exc.hint else "")
        self.set_note(text)
        if message.where == "state":
            self.query_one(StateTree).show_note(f"{exc.code}: {exc.message}")
        elif message.where == "diff":
            self.query_one(DiffPane).show_note(f"{exc.code}: {exc.message}" + (f" ({exc.hint})" if exc.hint else ""))

    # ----- streams and the timeline ---------------------------------------------------------------------------

    @on(OptionList.OptionSelected, "#rn-streams")
    @on(OptionList.OptionHighlighted, "#rn-streams")
    def handle_stream_chosen(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id and event.option.id != self.stream:
            self.open_stream(event.option.id)

    def open_stream(self, name: str) -> None:
        self.stream = name
        self.generation += 1
        self.states.forget()
        timeline = self.query_one(Timeline)
        timeline.reset(f"loading {name} events…")
        info = self.stream_info(name) or {}
        timeline.oldest_available = info.get("oldestSeq", 1)
        latest = info.get("latestSeq", 0)
        since = max(info.get("oldestSeq", 1) - 1, latest - PAGE, 0)
        self._tailing = True
        self.fetch_events(name, self.generation, "initial", since, PAGE, True)

    def tail(self) -> None:
        """New events since the last row; at most one fetch in flight, a change meanwhile triggers one more."""
        if self._tailing:
            self._dirty = True
            return
        info = self.stream_info(self.stream) or {}
        last = self.query_one(Timeline).last_seq or 0
        if info.get("latestSeq", 0) <= last:
            return
        self._tailing, self._dirty = True, False
        self.fetch_events(self.stream or "", self.generation, "tail", last, PAGE, False)

    @work(group="rn-events")
    async def fetch_events(
        self, stream: str, generation: int, mode: str, since: int, limit: int, announce: bool
    ) -> None:
        args: dict[str, Any] = {"stream": stream, "limit": max(1, min(PAGE, limit)), "since_seq": since}
        try:
            reply = await self._run("debug_query_events", args, announce)
        except DebugError as exc:
            self.post_message(RnProblem("debug_query_events", exc))
            self.post_message(RnEvents(stream, generation, mode, {"events": [], "failed": True}))
            return
        self.post_message(RnEvents(stream, generation, mode, reply.data))

    @on(RnEvents)
    def handle_events(self, message: RnEvents) -> None:
        timeline = self.query_one(Timeline)
        data = message.data
        if message.mode == "older":
            self._loading_older = False
        else:
            self._tailing = False
        if message.stream != self.stream or message.generation != self.generation:
            return
        if data.get("failed"):
            if not timeline.rows:
                timeline.note = "no events loaded (see the line above)"
                timeline.refresh()
            return
        self.set_note("")
        timeline.oldest_available = data.get("oldestSeq", timeline.oldest_available)
        if message.mode == "older":
            timeline.prepend(data.get("events", []))
        else:
            timeline.append(data.get("events", []))
            if not timeline.rows:
                timeline.note = f"no {message.stream} events yet"
                timeline.refresh()
            if data.get("hasMore") or self._dirty:
                self._dirty = False
                self.tail()

    @on(Timeline.NeedOlder)
    def handle_need_older(self, message: Timeline.NeedOlder) -> None:
        timeline = self.query_one(Timeline)
        if self._loading_older or self.stream is None:
            return
        since = max(timeline.oldest_available - 1, message.before_seq - 1 - PAGE, 0)
        limit = message.before_seq - 1 - since
        if limit < 1:
            return
        self._loading_older = True
        self.fetch_events(self.stream, self.generation, "older", since, limit, True)

    # ----- state at a seq and diffs ---------------------------------------------------------------------------

    @on(Timeline.Picked)
    def handle_picked(self, message: Timeline.Picked) -> None:
        if self.stream is None:
            return
        self.query_one(StateTree).show_note(f"loading the {self.stream} state at seq {message.seq}…")
        self.load_state(self.stream, message.seq)

    @work(group="rn-state", exclusive=True)
    async def load_state(self, stream: str, seq: int) -> None:
        try:
            value, note = await self.states.state_at(stream, seq)
        except DebugError as exc:
            self.post_message(RnProblem("state at seq", exc, "state"))
            return
        self.post_message(RnState(stream, seq, value, note))

    @on(RnState)
    def handle_state(self, message: RnState) -> None:
        timeline = self.query_one(Timeline)
        if message.stream != self.stream or message.seq != timeline.picked:
            return
        tree = self.query_one(StateTree)
        tree.border_title = f"State at {message.stream} seq {message.seq}"
        tree.show_value(message.value, message.note)
        self.set_note("")

    @on(Timeline.Marked)
    def handle_marked(self, message: Timeline.Marked) -> None:
        if self.stream is None:
            return
        self.query_one(DiffPane).show_note(f"diffing seq {message.base} → {message.target}…")
        self.load_diff(self.stream, message.base, message.target)

    @work(group="rn-diff", exclusive=True)
    async def load_diff(self, stream: str, base: int, target: int) -> None:
        args = {"stream": stream, "base_seq": max(0, base), "target_seq": target}
        try:
            reply = await self._run("debug_diff_snapshots", args)
        except DebugError as exc:
            self.post_message(RnProblem("debug_diff_snapshots", exc, "diff"))
            return
        self.post_message(RnDiff(stream, reply.data))

    @on(RnDiff)
    def handle_diff(self, message: RnDiff) -> None:
        if message.stream != self.stream:
            return
        d = message.data
        head = f"{message.stream} seq {d['baseSeq']} → {d['targetSeq']}: {d.get('totalChanges', 0)} change(s)"
        self.query_one(DiffPane).show(head, d.get("changes", []), d.get("totalChanges", 0), d.get("truncated", False))
        self.set_note("")


class RnCommands(CommandList):
    """Palette: switch to the React Native app view (when this run has the RN service)."""

    def _commands(self) -> list[tuple[str, Any, str]]:
        app: Any = self.app
        if getattr(app, "rn_service", None) is None:
            return []
        return [
            (
                "React Native app view (toggle)",
                app.action_toggle_rn,
                "ctrl+r: connection, streams, events, state at a seq, diffs",
            )
        ]
