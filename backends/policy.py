"""What agents may do and see: the agent mode (inspect, control, full) and whether their replies are redacted.

People are never restricted. The registry asks `check` before it runs an action for an agent and `redacts` before
it hands an agent a reply; the MCP resources ask `redacts` too. The mode can change while pairdbg runs (the person
in the TUI toggles it); every change is an `AgentModeChanged` event, so both front ends hear it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from .errors import DebugError, ErrorCode
from .events import Event, EventBus
from .redact import AgentRedaction, KnownSecrets


class Level(StrEnum):
    """What an action needs: `inspect` reads state, `control` moves the program or its breakpoints, `full` starts,
    ends or changes programs and runs code in them, `human` is for the person only (the agent mode itself)."""

    INSPECT = "inspect"
    CONTROL = "control"
    FULL = "full"
    HUMAN = "human"


class AgentMode(StrEnum):
    INSPECT = "inspect"
    CONTROL = "control"
    FULL = "full"


ORDER = [Level.INSPECT, Level.CONTROL, Level.FULL, Level.HUMAN]
MODE_SAYS = {
    AgentMode.INSPECT: "agents may only read state",
    AgentMode.CONTROL: "agents may read state, step, continue, pause and set breakpoints",
    AgentMode.FULL: "agents may do everything a person can except change this mode",
}
MAX_SESSIONS_REMEMBERED = 100  # sessions whose secret handles and values are remembered (handles never repeat in one)
MAX_VALUES_REMEMBERED = 1000  # strong secret values remembered per session (the oldest go first)
# Arguments that are code the target runs (a condition or log message evaluates in the program): full mode only.
CODE_ARGUMENTS = ("condition", "log_message", "expression")


class AgentSettings(BaseModel):
    """What agents may do and see (settings section `agents`: PAIRDBG_AGENTS__MODE, PAIRDBG_AGENTS__REDACT)."""

    # (attribute docstrings for readers only: see pairdbg.settings)
    mode: AgentMode = AgentMode.FULL
    """inspect: read state only; control: also step, continue, pause and breakpoints; full: also start, attach and
    close programs, evaluate and set values."""
    redact: bool = True
    """Replace secrets (secret-named values, credential-shaped strings) in what agents receive."""


@dataclass(frozen=True)
class AgentModeChanged(Event):
    mode: str = AgentMode.FULL.value
    by: str = ""


def is_agent(actor: str) -> bool:
    return actor.startswith("agent")


class AgentPolicy:
    def __init__(self, settings: AgentSettings | None, bus: EventBus) -> None:
        settings = settings or AgentSettings()
        self.mode = settings.mode
        self.redact = settings.redact
        self.bus = bus
        self._secret_refs: dict[str, set[str]] = {}  # session -> handles of values shown redacted to agents
        # session -> the strong raw secret values its replies hid (insertion-ordered: the oldest go first)
        self._secret_values: dict[str, dict[str, None]] = {}
        self._known: dict[str, KnownSecrets] = {}  # the same, indexed for lookups

    def redacts(self, actor: str) -> bool:
        return self.redact and is_agent(actor)

    def redact_reply(self, session_id: str | None, ref: str | None, text: str, data: Any) -> tuple[str, Any]:
        """A reply as an agent may see it; `ref` is the handle it expands, if any (a secret's members stay hidden)."""
        refs = self._secret_refs.get(session_id or "", set())
        inside = ref is not None and ref in refs
        one = self._pass(session_id, inside)
        out, shown = one.data(data), one.text(text, free=data is None)
        new = one.values - one.known.set
        if new:  # a secret first seen in this reply: hide it in the rest of this reply too
            self._remember(session_id, new)
            out, shown = one.hide_new(out, shown, sorted(new, key=len, reverse=True))
        if one.secret_refs and session_id:
            self._secret_refs.setdefault(session_id, set()).update(one.secret_refs)
            _bound(self._secret_refs, MAX_SESSIONS_REMEMBERED)
        return shown, out

    def redact_error(self, session_id: str | None, err: DebugError) -> None:
        """An error an agent receives says no secret either: a target's message may quote a value, credential-shaped
        or one this session's replies already hid (`int(password)` -> "invalid literal …: 'hunter2'")."""
        one = self._pass(session_id, False)
        err.message = one.free(err.message)
        if err.hint:
            err.hint = one.free(err.hint)
        if err.data:
            err.data = one.data(err.data)
        self._remember(session_id, one.values)
        err.args = (err.message,)

    def _pass(self, session_id: str | None, inside: bool) -> AgentRedaction:
        return AgentRedaction(inside_secret=inside, known=self._known.get(session_id or "", KnownSecrets()))

    def _remember(self, session_id: str | None, values: set[str]) -> None:
        """Keep the strong secret values a session's replies hid (only those: a path, a word or `null` is never
        hidden again elsewhere), bounded per session and in sessions."""
        if not values or not session_id:
            return
        known = self._secret_values.setdefault(session_id, {})
        known.update(dict.fromkeys(values))
        while len(known) > MAX_VALUES_REMEMBERED:  # the oldest go first
            known.pop(next(iter(known)))
        self._known[session_id] = KnownSecrets(known)
        _bound(self._known, MAX_SESSIONS_REMEMBERED)
        _bound(self._secret_values, MAX_SESSIONS_REMEMBERED)

    def set_mode(self, mode: AgentMode | str, by: str) -> AgentMode:
        self.mode = AgentMode(mode)
        self.bus.publish(AgentModeChanged(None, mode=self.mode.value, by=by))
        return self.mode

    def allows(self, level: Level) -> bool:
        return ORDER.index(level) <= ORDER.index(Level(self.mode.value))

    def check(self, action: str, level: Level, actor: str, params: Any = None) -> None:
        """Raise PERMISSION_DENIED when the agent mode forbids `actor` this action (people are never refused)."""
        if not is_agent(actor):
            return
        if level == Level.HUMAN:
            raise DebugError(
                ErrorCode.PERMISSION_DENIED,
                f"{action} is for the person at the debugger only (agent mode is {self.mode.value})",
                hint="ask the person in the pairdbg TUI to change it",
            )
        code = [a for a in CODE_ARGUMENTS if getattr(params, a, None)] if level != Level.FULL else []
        needed = Level.FULL if code else level
        if self.allows(needed):
            return
        why = f" with {', '.join(code)} (code the program runs)" if code else ""
        raise DebugError(
            ErrorCode.PERMISSION_DENIED,
            f"agent mode is {self.mode.value} ({MODE_SAYS[self.mode]}); {action}{why} needs {needed.value}",
            hint=(
                f"ask the person in the pairdbg TUI to switch the agent mode to {needed.value} (ctrl+g), "
                f"or start pairdbg with PAIRDBG_AGENTS__MODE={needed.value}"
            ),
            mode=self.mode.value,
            needs=needed.value,
        )


def _bound(per_session: dict[str, Any], limit: int) -> None:
    while len(per_session) > limit:
        per_session.pop(next(iter(per_session)))
