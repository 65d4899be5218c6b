"""Declares actions (pydantic params, a handler, a text+data reply) and runs them with their actor recorded."""

from __future__ import annotations

import difflib
import os
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from ..errors import DebugError, ErrorCode
from ..events import ActionPerformed
from ..hub import Hub


@dataclass
class Reply:
    """A compact text block for people and models, and structured data for programs."""

    text: str
    data: dict[str, Any] = field(default_factory=dict)
    headline: str | None = None  # the activity feed's one line, when the text's first line does not say enough


Handler = Callable[[Hub, Any, str], Awaitable[Reply]]


@dataclass
class Action:
    name: str
    description: str
    params: type[BaseModel]
    handler: Handler
    title: str = ""
    read_only: bool = False
    #: Quiet actions are not echoed to the activity feed (pure reads of lists and output).
    quiet: bool = False


class Registry:
    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.actions: dict[str, Action] = {}

    def add(self, action: Action) -> None:
        self.actions[action.name] = action

    def get(self, name: str) -> Action:
        action = self.actions.get(name)
        if action is None:
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                f"unknown action {name!r}",
                hint="known: " + ", ".join(sorted(self.actions)),
            )
        return action

    def validate(self, action: Action, args: dict[str, Any] | BaseModel | None) -> BaseModel:
        if isinstance(args, action.params):
            return args
        if args:
            refuse_unknown(action, args)
        try:
            return action.params.model_validate(args or {})
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}" for err in exc.errors()
            )
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS, f"{action.name}: {problems}", hint="check the tool's input schema"
            ) from None

    async def run(self, name: str, args: dict[str, Any] | BaseModel | None, actor: str) -> Reply:
        """Validate, run and announce one action. Raises DebugError; every failure is announced too."""
        action = self.get(name)
        params = self.validate(action, args)
        session_id = getattr(params, "session_id", None)
        summary = _summarise(params)
        try:
            reply = await action.handler(self.hub, params, actor)
        except DebugError as exc:
            self._announce(action, session_id, actor, summary, False, exc.text().splitlines()[0])
            raise
        except Exception as exc:  # a bug must still reach the caller as a clear error, never a crashed loop
            err = DebugError(ErrorCode.INTERNAL, f"{name} failed unexpectedly: {exc.__class__.__name__}: {exc}")
            self._announce(action, session_id, actor, summary, False, err.text())
            raise err from exc
        session_id = reply.data.get("session_id", session_id)
        outcome = reply.headline or (reply.text.splitlines()[0] if reply.text else "")
        self._announce(action, session_id, actor, summary, True, outcome)
        return reply

    def _announce(
        self, action: Action, session_id: str | None, actor: str, summary: str, ok: bool, outcome: str
    ) -> None:
        if action.quiet and ok:
            return
        self.hub.bus.publish(
            ActionPerformed(
                session_id,
                actor=actor,
                action=action.name,
                summary=summary,
                ok=ok,
                outcome=outcome[:200],
                at=time.time(),
            )
        )


def refuse_unknown(action: Action, args: dict[str, Any]) -> None:
    """An argument the action does not take is an error, never silently dropped: `evaluate_expression(call_frame_id=3)`
    used to evaluate in the top frame, a right-looking wrong answer."""
    known = {name for name, f in action.params.model_fields.items()} | {
        f.alias for f in action.params.model_fields.values() if f.alias
    }
    unknown = [key for key in args if key not in known]
    if not unknown:
        return
    parts = []
    for key in unknown:
        guess = closest_argument(str(key), known)
        parts.append(f"{str(key)[:60]!r}" + (f" (did you mean {guess!r}?)" if guess else ""))
    raise DebugError(
        ErrorCode.INVALID_PARAMETERS,
        f"{action.name}: unknown argument{'s' if len(unknown) > 1 else ''} {', '.join(parts)}",
        hint=f"{action.name} takes: {', '.join(sorted(known)) or 'no arguments'}",
    )


def closest_argument(key: str, known: set[str]) -> str | None:
    """The real argument a caller most likely meant: other debuggers' spellings (frameId, call_frame_id,
    variablesReference, lineNumber) and typos."""
    snake = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", key).lower().strip("_")
    words = [w for w in snake.split("_") if w]
    candidates = [snake, re.sub(r"_(id|number|ref|reference)$", "", snake), *ALIASES.get(snake, ())]
    candidates += [w for w in reversed(words) if w not in ("id", "number", "the")]
    for candidate in candidates:
        if candidate in known:
            return candidate
    close = difflib.get_close_matches(snake, sorted(known), n=1, cutoff=0.6)
    return close[0] if close else None


# Names agents bring from the Debug Adapter Protocol and the inspector protocols, by pairdbg's name for the thing.
ALIASES: dict[str, tuple[str, ...]] = {
    "variables_reference": ("ref",),
    "variable_reference": ("ref",),
    "var_ref": ("ref",),
    "handle": ("ref", "frame"),
    "frame_index": ("frame",),
    "levels": ("limit", "count"),
    "timeout": ("wait_s", "timeout_s"),
    "timeout_ms": ("wait_s", "timeout_s"),
    "path": ("file", "program"),
    "source": ("file",),
    "script": ("program",),
    "expr": ("expression",),
    "bp_id": ("breakpoint_id",),
}


def _summarise(params: BaseModel) -> str:
    """A short, value-free-ish description of the call for the activity feed (never a raw dict or list)."""
    parts = []
    for key, value in params.model_dump(exclude_none=True, exclude_defaults=True).items():
        if key == "session_id" or key == "env":
            continue
        parts.append(f"{key}={_argument_text(value)[:60]}")
    return " ".join(parts)


def _argument_text(value: Any) -> str:
    """`a.py:3, b.py:7` for breakpoint lists, `--x 1` for plain lists, yes/no, `3 fields` for anything nested."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        if all(isinstance(v, dict) and v.get("line") for v in value):
            return ", ".join(f"{os.path.basename(str(v.get('file') or '?'))}:{v['line']}" for v in value)
        if all(isinstance(v, str | int | float | bool) for v in value):
            return " ".join(str(v) for v in value)
        return f"{len(value)} item{'s' if len(value) != 1 else ''}"
    if isinstance(value, dict):
        return f"{len(value)} field{'s' if len(value) != 1 else ''}"
    return str(value)
