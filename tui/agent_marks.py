"""Where the agents look, as the person sees it: each agent's Focus (kept in the core, moved by what the agent reads)
becomes a ◆ mark with the agent's name on the source line, the stack row and the variable it read last. A mark is
bright while fresh, dim after FRESH_S and gone after FADE_S. With "follow agent" on, the person's stack and source
follow the agent that looked last; otherwise an agent never moves the person's panes. Handing focus over is the
person's key: the core keeps a copy of the person's Focus that agents read with get_focus."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.timer import Timer

from pairdbg.backends import queries
from pairdbg.backends.actions.render import where
from pairdbg.backends.focus import Focus
from pairdbg.backends.models import Phase

from .source_view import SourceView
from .stack import StackPane
from .variables import VariablesTree

if TYPE_CHECKING:
    from .debugger_view import DebuggerView

FRESH_S = 20.0  # seconds a mark stays bright
FADE_S = 60.0  # seconds until it goes
GLYPH = "◆"


@dataclass(frozen=True)
class AgentMark:
    """One agent's mark as the panes show it: `label` is "◆ name", `fresh` picks bright or dim."""

    label: str
    fresh: bool


def agent_name(actor: str) -> str:
    return actor.removeprefix("agent:") or actor


class AgentMarks:
    """Keeps the panes' agent marks in step with the core: on each agent's look, and when a mark fades."""

    def __init__(self, view: DebuggerView) -> None:
        self.view = view
        self.follow = False
        self._fade_timer: Timer | None = None

    # ----- the person's keys ------------------------------------------------------------------------------------

    def toggle_follow(self) -> None:
        self.follow = not self.follow
        self.view.notify(
            "your panes follow the agent that looks last" if self.follow else "your panes stay where you put them",
            title="Follow agent " + ("on" if self.follow else "off"),
            timeout=3,
        )
        if self.follow:
            latest = self.view.hub.focus.agents()
            if latest:
                self.follow_focus(latest[0][1])

    def hand_over(self) -> None:
        """Put the person's selection in the agents' view (get_focus, debug://focus/human)."""
        session = self.view.session
        stop = session.stop_number if session is not None and session.phase == Phase.PAUSED else None
        handed = self.view.hub.focus.hand_over(stop)
        parts = [handed.session_id or "no session"]
        if handed.frame_place is not None:
            parts.append(f"{handed.frame} {handed.frame_place.function}")
        if handed.file is not None:
            parts.append(where(handed.file, handed.line))
        if handed.variable is not None:
            parts.append(handed.variable.name)
        self.view.notify(" · ".join(parts), title="Handed to the agents (get_focus)", timeout=4)

    # ----- what the core says ----------------------------------------------------------------------------------

    def agent_looked(self, actor: str) -> None:
        self.show()
        if self.follow:
            focus = dict(self.view.hub.focus.agents()).get(actor)
            if focus is not None:
                self.follow_focus(focus)

    def show(self) -> None:
        """Hand each pane the marks that apply to what it shows now; wake again when the next mark dims or goes."""
        now = time.time()
        session = self.view.session
        stop = session.stop_number if session is not None and session.phase == Phase.PAUSED else None
        lines: dict[tuple[str, int], AgentMark] = {}
        frames: dict[str, AgentMark] = {}
        variables: dict[str, AgentMark] = {}
        next_change: float | None = None
        for actor, focus in self.view.hub.focus.agents():
            age = now - focus.changed_at
            if age >= FADE_S:
                continue
            until = (FRESH_S if age < FRESH_S else FADE_S) - age
            next_change = until if next_change is None else min(next_change, until)
            mark = AgentMark(f"{GLYPH} {agent_name(actor)}", age < FRESH_S)
            if focus.file and focus.line:
                lines.setdefault((focus.file, focus.line), mark)  # the freshest agent's name when two look there
            current = session is not None and focus.session_id == session.id and stop == focus.read_at_stop
            if current and stop is not None:
                frames.setdefault(focus.frame, mark)
                if focus.variable is not None and focus.variable.key:
                    variables.setdefault(focus.variable.key, mark)
        # Marks are decoration: a pane that is not mounted (the app composing or quitting) is skipped.
        for source in self.view.query("#source").results(SourceView):
            source.set_agent_marks(lines)
        for stack in self.view.query("#stack").results(StackPane):
            stack.set_agent_marks(frames)
        for tree in self.view.query("#variables").results(VariablesTree):
            tree.set_agent_marks(self._tree_marks(tree, variables) if session is not None and variables else {})
        if self._fade_timer is not None:
            self._fade_timer.stop()
            self._fade_timer = None
        if next_change is not None:
            self._fade_timer = self.view.set_timer(max(next_change, 0.05), self.view.show_agent_marks)

    def _tree_marks(self, tree: VariablesTree, by_key: dict[str, AgentMark]) -> dict[str, AgentMark]:
        """The person's tree has its own handles for the values an agent read: match them by variable key."""
        session = self.view.session
        found: dict[str, AgentMark] = {}
        stack = list(tree.root.children)
        while stack:
            node = stack.pop()
            handle = node.data.handle if node.data is not None else None
            key = queries.variable_key(session, handle) if session is not None and handle else None
            if key is not None and key in by_key:
                found[handle] = by_key[key]  # type: ignore[index]
            stack.extend(node.children)
        return found

    # ----- follow agent ---------------------------------------------------------------------------------------

    def follow_focus(self, focus: Focus) -> None:
        """Move the person's panes to where an agent looks: its session, its frame of the current stop (the
        source and variables follow the frame), else the file and line it read."""
        view = self.view
        if focus.session_id and focus.session_id != view.session_id and focus.session_id in view.hub.sessions:
            view.select_session(focus.session_id)
            return  # the session's frames load; the next look follows further
        session = view.session
        stack = view.query_one(StackPane)
        paused = session is not None and session.phase == Phase.PAUSED
        if paused and focus.read_at_stop == session.stop_number and focus.frame != view.frame:  # type: ignore[union-attr]
            index = stack.index_of(focus.frame)
            if index is not None:
                stack.highlighted = index  # the controller loads the frame, as for the person's own choice
                return
        if focus.file and focus.line:
            source = view.query_one(SourceView)
            if (source.path, source.cursor_line) != (focus.file, focus.line):
                source.open_file(focus.file, focus.line)
