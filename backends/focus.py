"""Where each actor is looking: a Focus per actor (session, thread, frame, the source cursor, the selected variable,
the console's last expression) and the newest stop each was shown.

Kept in the core so the person and each agent are alike: the TUI's selection is the person's Focus, and
`wait_for_stop` answers an agent from what its own replies have shown it. A change of what an actor looks at is a
`FocusChanged` event (MCP turns the person's into `debug://focus/human` notifications; the TUI shows an agent's as
a ◆ mark). An agent's Focus moves with what it reads (`agent_read`: a frame, a file, a variable). Only the TUI moves
the person's Focus: no action sets it, so nothing an agent sends can move the person's cursor. What the person hands
over (`hand_over`, also the TUI's alone) is a copy of their Focus that agents read in `get_focus`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

from .events import Event, EventBus
from .models import Phase, StopReport
from .policy import is_agent

if TYPE_CHECKING:
    from .hub import Hub

TOP_FRAME = "@f0"
HUMAN = "human"
VALUE_CHARS = 300  # characters of a selected variable's value kept (the variables pane shows more on demand)


@dataclass(frozen=True)
class FocusChanged(Event):
    """What `actor` looks at changed (or the person attached or left)."""

    actor: str = HUMAN


@dataclass(frozen=True)
class FramePlace:
    """The selected frame as the actor was shown it."""

    function: str = ""
    file: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class VariableLook:
    """A selected variable: its name and value as shown, its handle (None for a leaf) and the stop it was read at."""

    name: str
    value: str
    type: str | None = None
    handle: str | None = None
    stop: int | None = None
    key: str | None = None  # the same variable under another handle of that stop (queries.variable_key)


@dataclass
class Focus:
    session_id: str | None = None
    thread_id: int | None = None
    frame: str = TOP_FRAME
    frame_place: FramePlace | None = None
    file: str | None = None  # the source cursor
    line: int | None = None
    variable: VariableLook | None = None
    expression: str | None = None  # the console's last expression
    #: the stop the frame and variable were read at (an agent's; the person's always show the current stop)
    read_at_stop: int | None = None
    changed_at: float = 0.0
    #: session id -> the newest stop number a reply or a view has shown this actor
    seen: dict[str, int] = field(default_factory=dict)
    on_change: Callable[[], None] | None = field(default=None, repr=False, compare=False)

    def select(self, session_id: str | None) -> None:
        """Look at another session (or none), from its top frame."""
        self.look(session_id=session_id, thread_id=None, frame=TOP_FRAME, frame_place=None, variable=None)

    def stopped(self, report: StopReport) -> None:
        """The focused session stopped: back to the top frame of the thread that stopped (the old handles died)."""
        loc = report.location
        place = FramePlace(loc.function or "", loc.file, loc.line)
        self.look(thread_id=report.thread_id, frame=TOP_FRAME, frame_place=place, variable=None)

    def look(self, **changes: Any) -> bool:
        """Change what this actor looks at (any of session_id, thread_id, frame, frame_place, file, line, variable,
        expression); announced once when anything changed. True if it did."""
        known = {f.name for f in fields(self)} - {"seen", "on_change", "changed_at"}
        unknown = set(changes) - known
        if unknown:
            raise TypeError(f"Focus.look: unknown {', '.join(sorted(unknown))}")
        variable = changes.get("variable")
        if isinstance(variable, VariableLook) and len(variable.value) > VALUE_CHARS:
            changes["variable"] = replace(variable, value=variable.value[: VALUE_CHARS - 1] + "…")
        changed = {k: v for k, v in changes.items() if getattr(self, k) != v}
        if not changed:
            return False
        for key, value in changed.items():
            setattr(self, key, value)
        self.changed_at = time.time()
        if self.on_change is not None:
            self.on_change()
        return True

    def saw(self, report: StopReport | None) -> None:
        """Record that this actor was shown `report` (nothing when there was no stop)."""
        if report is not None:
            self.seen[report.session_id] = max(self.seen.get(report.session_id, 0), report.stop_number)

    def seen_stop(self, session_id: str) -> int | None:
        return self.seen.get(session_id)


@dataclass(frozen=True)
class Handed:
    """What the person handed the agents: their Focus as it was when they pressed the key."""

    session_id: str | None
    thread_id: int | None
    frame: str
    frame_place: FramePlace | None
    file: str | None
    line: int | None
    variable: VariableLook | None
    expression: str | None
    stop: int | None  # the session's stop then (the frame and variable handles belong to it)
    at: float


class Focuses:
    """Every actor's Focus; an actor met for the first time looks at nothing yet. `attached` holds the actors
    whose front end is up (the person while the TUI runs)."""

    def __init__(self, bus: EventBus | None = None) -> None:
        self._by_actor: dict[str, Focus] = {}
        self._bus = bus
        self.attached: set[str] = set()
        self.handed: Handed | None = None  # the person's latest hand-over

    def of(self, actor: str) -> Focus:
        focus = self._by_actor.get(actor)
        if focus is None:
            focus = self._by_actor[actor] = Focus()
            focus.on_change = lambda: self._announce(actor)
        return focus

    def attach(self, actor: str) -> None:
        """`actor`'s front end is up (the TUI calls this for the person when it mounts)."""
        if actor not in self.attached:
            self.attached.add(actor)
            self._announce(actor)

    def detach(self, actor: str) -> None:
        if actor in self.attached:
            self.attached.discard(actor)
            self._announce(actor)

    def agent_read(self, actor: str, session_id: str | None, stop: int | None, **changes: Any) -> bool:
        """An agent read a frame, a file or a variable (`changes` as in Focus.look): its Focus moves there (announced
        even when it was there already), which the TUI shows as that agent's mark. Anyone else's read (the person's
        panes call actions too) moves nothing; False then.
        A file read outside any session (`session_id` None) keeps the agent's session."""
        if not is_agent(actor):
            return False
        if session_id is not None:
            changes["session_id"] = session_id
        focus = self.of(actor)
        if not focus.look(read_at_stop=stop, **changes):
            focus.changed_at = time.time()  # read again: the mark is fresh again (and a following person follows)
            self._announce(actor)
        return True

    def agents(self) -> list[tuple[str, Focus]]:
        """The agents' Focuses, the most recently changed first."""
        found = [(a, f) for a, f in self._by_actor.items() if is_agent(a) and f.changed_at]
        return sorted(found, key=lambda pair: pair[1].changed_at, reverse=True)

    def hand_over(self, stop: int | None) -> Handed:
        """The person puts their selection in the agents' view (`get_focus`, `debug://focus/human`); `stop` is the
        selected session's stop number now. Announced as a change of the person's focus."""
        f = self.of(HUMAN)
        place = (f.session_id, f.thread_id, f.frame, f.frame_place, f.file, f.line)
        self.handed = Handed(*place, f.variable, f.expression, stop, time.time())
        self._announce(HUMAN)
        return self.handed

    def _announce(self, actor: str) -> None:
        if self._bus is not None:
            self._bus.publish(
                FocusChanged(self._by_actor[actor].session_id if actor in self._by_actor else None, actor)
            )

    def __iter__(self):
        return iter(self._by_actor.items())


# ----- what an agent is told of the person's focus (get_focus, debug://focus/human) ----------------------------------


def person_view(hub: Hub) -> dict[str, Any]:
    """The person's focus as data: what is known now, and under `unknown` what is not and why. Values are the raw
    ones; the agent boundary (registry, MCP resources) redacts them."""
    attached = HUMAN in hub.focus.attached
    focus = hub.focus.of(HUMAN)
    unknown: list[str] = []
    view: dict[str, Any] = {"attached": attached}
    if not attached:
        unknown.append("no person is at a pairdbg TUI in this run (headless MCP)")
    session = hub.sessions.get(focus.session_id) if focus.session_id else None
    if session is None:
        view["session_id"] = None
        unknown.append("no session is selected" if attached or focus.session_id else "no session")
    else:
        view["session_id"] = session.id
        view["session"] = {"name": session.name, "phase": session.phase.value, "stop_number": session.stop_number}
        paused = session.phase == Phase.PAUSED
        current_stop = session.stop_number if paused else None
        view["thread_id"] = focus.thread_id
        if paused or focus.frame_place is not None:
            frame: dict[str, Any] = {"handle": focus.frame, "current": paused}
            if focus.frame_place is not None:
                frame.update(
                    function=focus.frame_place.function, file=focus.frame_place.file, line=focus.frame_place.line
                )
            view["frame"] = frame
        else:
            unknown.append(f"no frame: the session is {session.phase.value}")
        if focus.variable is not None:
            v = focus.variable
            view["variable"] = {
                "name": v.name,
                "value": v.value,
                "type": v.type,
                "handle": v.handle,
                "stop": v.stop,
                "current": v.stop is not None and v.stop == current_stop,
            }
        else:
            unknown.append("no variable is selected")
    if focus.file is not None:
        view["cursor"] = {"file": focus.file, "line": focus.line}
    else:
        unknown.append("no source file is shown")
    view["expression"] = focus.expression
    if focus.expression is None:
        unknown.append("nothing evaluated in the console yet")
    view["changed_at"] = focus.changed_at or None
    view["handed"] = handed_view(hub)
    view["unknown"] = unknown
    return view


def handed_view(hub: Hub) -> dict[str, Any] | None:
    """What the person last handed over, as data: where, and whether its handles still belong to the current stop."""
    h = hub.focus.handed
    if h is None:
        return None
    session = hub.sessions.get(h.session_id) if h.session_id else None
    current = (
        session is not None and session.phase == Phase.PAUSED and h.stop is not None and session.stop_number == h.stop
    )
    view: dict[str, Any] = {"session_id": h.session_id, "stop": h.stop, "current": current, "at": h.at}
    if h.session_id is not None:
        frame: dict[str, Any] = {"handle": h.frame, "thread_id": h.thread_id}
        if h.frame_place is not None:
            frame.update(function=h.frame_place.function, file=h.frame_place.file, line=h.frame_place.line)
        view["frame"] = frame
    if h.file is not None:
        view["cursor"] = {"file": h.file, "line": h.line}
    if h.variable is not None:
        v = h.variable
        view["variable"] = {"name": v.name, "value": v.value, "type": v.type, "handle": v.handle}
    view["expression"] = h.expression
    return view
