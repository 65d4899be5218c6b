"""Declares actions (pydantic params, a handler, a text+data reply) and runs them with their actor recorded."""

from __future__ import annotations

import copy
import difflib
import functools
import math
import os
import re
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from ..errors import DebugError, ErrorCode
from ..events import ActionPerformed
from .. import queries
from ..hub import Hub
from ..limits import Limits
from ..models import Phase
from ..policy import Level, is_agent


# MCP tool groups: "debug" is always listed; the others on request (--tools) or, for an app's, once it connects.
DEFAULT_GROUP = "debug"
GROUPS = ("more", "rn", "web")


def parse_groups(spec: str | Iterable[str] | None) -> set[str]:
    """`rn,web`, `all` or a list of names -> the optional groups to list from the start. Raises ValueError."""
    if spec is None:
        return set()
    names = spec.replace(",", " ").split() if isinstance(spec, str) else list(spec)
    groups: set[str] = set()
    for name in names:
        name = name.strip().lower()
        if name == "all":
            groups.update(GROUPS)
        elif name in GROUPS:
            groups.add(name)
        elif name not in ("", DEFAULT_GROUP):
            raise ValueError(f"unknown tool group {name!r}; choose from {', '.join(GROUPS)} or all")
    return groups


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
    #: The agent mode an agent needs for it (policy.Level); None: `inspect` when read_only, else `full`.
    level: Level | None = None
    #: The reply hands agents one of pairdbg's own credentials on purpose (the debug-bridge page token): left
    #: unredacted in full mode only, since with it an agent can reach pages past the registry.
    hands_out_credential: bool = False

    #: The MCP tool group it is listed in (DEFAULT_GROUP or one of GROUPS).
    group: str = DEFAULT_GROUP
    #: Ends or throws away something the caller cannot get back (a session, a program's state): such an action
    #: never picks a session by itself when several are live. An MCP tool annotation too.
    destructive: bool = False
    #: Calling it again with the same arguments changes nothing more (an MCP tool annotation).
    idempotent: bool = False
    #: Reaches something outside pairdbg and the programs it started (an attached process, a page's network).
    open_world: bool = False

    def __post_init__(self) -> None:
        if self.level is None:
            self.level = Level.INSPECT if self.read_only else Level.FULL

    def schema(self) -> dict[str, Any]:
        """The action's arguments as the lean JSON schema every front end shows (see lean_schema); a copy.
        A required session_id is left out of `required`: the registry infers it (Hub.infer)."""
        schema = copy.deepcopy(lean_schema(self.params))
        if self.infers_session and "session_id" in schema.get("required", ()):
            schema["required"] = [name for name in schema["required"] if name != "session_id"]
            if not schema["required"]:
                del schema["required"]
        return schema

    @property
    def infers_session(self) -> bool:
        field = self.params.model_fields.get("session_id")
        return field is not None and field.is_required()

    def with_session(self, hub: Hub, args: dict[str, Any] | BaseModel | None, actor: str) -> Any:
        """`args` with the session a call without session_id means filled in (see Hub.infer)."""
        if not self.infers_session or isinstance(args, BaseModel):
            return args
        given = (args or {}).get("session_id")
        if given not in (None, ""):
            return args
        session_id = hub.infer(hub.focus.of(actor).session_id, may_choose=not self.destructive)
        return {**(args or {}), "session_id": session_id}


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
                f"unknown action {cut(str(name), 60)!r}",
                hint="known: " + ", ".join(sorted(self.actions)),
            )
        return action

    def validate(self, action: Action, args: dict[str, Any] | BaseModel | None) -> BaseModel:
        if isinstance(args, action.params):
            return args
        if args:
            refuse_unknown(action, args)
            check_values(action.name, args, self.hub.limits)
        try:
            params = action.params.model_validate(args or {})
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(cut(str(p), 60) for p in err['loc']) or 'arguments'}: {err['msg']}" for err in exc.errors()
            )
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS, f"{action.name}: {problems}", hint="check the tool's input schema"
            ) from None
        check_negative(action.name, params)
        return params

    async def run(
        self, name: str, args: dict[str, Any] | BaseModel | None, actor: str, *, announce: bool = True
    ) -> Reply:
        """Validate, run and announce one action. Raises DebugError; every failure is announced too.
        `announce=False` is for a front end keeping a view current on its own (not something its actor asked
        for): no activity line either way, everything else (policy, validation, redaction, errors) the same."""
        action = self.get(name)
        params = self.validate(action, action.with_session(self.hub, args, actor))
        session_id = getattr(params, "session_id", None)
        summary = _summarise(params)
        session = self.hub.sessions.get(session_id) if isinstance(session_id, str) else None
        before = (session.phase, session.controls_sent) if session is not None else None
        policy = self.hub.policy
        try:
            policy.check(action.name, action.level or Level.FULL, actor, params)
            reply = await action.handler(self.hub, params, actor)
        except DebugError as exc:
            if isinstance(args, dict):
                shorten_echoes(exc, args)
            if policy.redacts(actor):
                policy.redact_error(session_id, exc)
            if session is not None and before is not None and moved_on(session, before, exc):
                moved = program_moved_on(session, exc)
                self._announce(announce, action, session_id, actor, summary, False, moved.text().splitlines()[0])
                raise moved from exc
            unknown = await unknown_thread(session, params, exc) if session is not None else None
            if unknown is not None:
                self._announce(announce, action, session_id, actor, summary, False, unknown.text().splitlines()[0])
                raise unknown from exc
            self._announce(announce, action, session_id, actor, summary, False, exc.text().splitlines()[0])
            raise
        except Exception as exc:  # a bug must still reach the caller as a clear error, never a crashed loop
            err = DebugError(ErrorCode.INTERNAL, f"{name} failed unexpectedly: {exc.__class__.__name__}: {exc}")
            self._announce(announce, action, session_id, actor, summary, False, err.text())
            if policy.redacts(actor):
                policy.redact_error(session_id, err)
            raise err from exc
        session_id = reply.data.get("session_id", session_id)
        if is_agent(actor) and isinstance(session_id, str) and session_id in self.hub.sessions:
            focus = self.hub.focus.of(actor)  # what a later call without session_id means for this agent
            if focus.session_id != session_id:
                focus.select(session_id)
        outcome = reply.headline or (reply.text.splitlines()[0] if reply.text else "")
        notes = self.hub.notes.into_stop_report(actor, reply.data)  # what the other side wrote meanwhile
        if notes:
            reply.text += "\n" + notes
        self._announce(announce, action, session_id, actor, summary, True, outcome)
        if policy.redacts(actor) and not (action.hands_out_credential and policy.allows(Level.FULL)):
            text, data = policy.redact_reply(session_id, getattr(params, "ref", None), reply.text, reply.data)
            return Reply(text, data, reply.headline)
        return reply

    def _announce(
        self, wanted: bool, action: Action, session_id: str | None, actor: str, summary: str, ok: bool, outcome: str
    ) -> None:
        if not wanted or (action.quiet and ok):
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


# Failures a target gives when the program moved under a request ("Unable to find thread"), not the caller's fault;
# an expression evaluated in a frame that a step replaced raises too (a NameError that is no one's).
RACE_CODES = frozenset(
    {ErrorCode.PROTOCOL_ERROR, ErrorCode.INVALID_PARAMETERS, ErrorCode.TIMEOUT, ErrorCode.EVALUATION_FAILED}
)


def moved_on(session: Any, before: tuple[Any, int], err: DebugError) -> bool:
    """True when a request failed while another actor's step, continue or pause moved the program."""
    phase, controls = before
    if err.code not in RACE_CODES or phase != Phase.PAUSED:
        return False
    return session.control_in_flight or session.controls_sent != controls or session.phase != Phase.PAUSED


def program_moved_on(session: Any, err: DebugError) -> DebugError:
    """The honest answer to a read that raced a step: NOT_PAUSED with the state the program is in now."""
    by = f" ({session.last_control})" if session.last_control else ""
    if session.phase == Phase.PAUSED and not session.control_in_flight:
        now = f"it is paused again at stop #{session.stop_number}"
        hint = "read again: the earlier stop's handles have expired"
    else:
        now = f"it is {session.phase.value}"
        hint = f"call wait_for_stop(session_id='{session.id}'), then read again"
    return DebugError(
        ErrorCode.NOT_PAUSED,
        f"session {session.id} moved on while this was read{by}; {now}",
        hint=hint,
        phase=session.phase.value,
        target_said=cut(err.message, 200),
    )


async def unknown_thread(session: Any, params: BaseModel, err: DebugError) -> DebugError | None:
    """A thread id the program does not have is the caller's mistake (INVALID_PARAMETERS naming the real ones),
    not the adapter's PROTOCOL_ERROR ("Wrong ID sent from the client")."""
    thread_id = getattr(params, "thread_id", None)
    if thread_id is None or err.code != ErrorCode.PROTOCOL_ERROR:
        return None
    try:
        found, _ = await queries.threads(session)
    except DebugError:
        return None
    ids = [t for t, _ in found]
    if thread_id in ids:
        return None
    return DebugError(
        ErrorCode.INVALID_PARAMETERS,
        f"session {session.id} has no thread {thread_id}",
        hint="threads now: " + (", ".join(str(t) for t in ids[:20]) or "none") + " (list_threads names them)",
    )


def refuse_unknown(action: Action, args: dict[str, Any]) -> None:
    """An argument the action does not take is an error, never silently dropped: `evaluate_expression(call_frame_id=3)`
    used to evaluate in the top frame, a right-looking wrong answer."""
    fields = action.params.model_fields
    known = set(fields) | {f.alias for f in fields.values() if f.alias}
    unknown = [key for key in args if key not in known]
    if not unknown:
        return
    parts = []
    for key in unknown:
        guess = closest_argument(str(key), known)
        parts.append(f"{cut(str(key), 60)!r}" + (f" (did you mean {guess!r}?)" if guess else ""))
    raise DebugError(
        ErrorCode.INVALID_PARAMETERS,
        f"{action.name}: unknown argument{'s' if len(unknown) > 1 else ''} {', '.join(parts)}",
        hint=f"{action.name} takes: {', '.join(sorted(known)) or 'no arguments'}",
    )


# Argument names whose strings are paths (the path limit, not the expression limit, applies to them).
PATH_ARGUMENTS = frozenset({"file", "program", "cwd", "workspace", "executable_path", "path", "executable"})
# Integers travel to adapters as 32-bit ids and counts; no argument has a meaningful negative value.
MAX_INT = 2**31 - 1
MAX_DEPTH = 8
# An argument longer than this is cut when an error message would repeat it.
ECHO_CHARS = 120


def check_values(action: str, args: dict[str, Any], limits: Limits) -> None:
    """Refuse, before any handler or target sees them, NUL bytes, over-long strings, out-of-range integers,
    non-finite numbers and over-long lists or maps, anywhere in the arguments."""

    def refuse(where: str, problem: str) -> DebugError:
        return DebugError(
            ErrorCode.INVALID_PARAMETERS, f"{action}: {where} {problem}", hint="check the tool's input schema"
        )

    def too_long(where: str, size: int, limit: int, setting: str, unit: str = "characters") -> DebugError:
        return DebugError(
            ErrorCode.LIMIT_EXCEEDED,
            f"{where} is {size} {unit}; the limit is {limit}",
            hint=f"shorten it, or raise the limit (setting limits.{setting})",
        )

    def walk(value: Any, where: str, name: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise refuse(where, f"nests deeper than {MAX_DEPTH} levels")
        if isinstance(value, str):
            setting = "max_path" if name in PATH_ARGUMENTS else "max_expression"
            if len(value) > getattr(limits, setting):
                raise too_long(where, len(value), getattr(limits, setting), setting)
            if "\x00" in value:
                raise refuse(where, f"contains a NUL byte (at character {value.index(chr(0))})")
        elif isinstance(value, bool) or value is None:
            return
        elif isinstance(value, int):
            # negatives are refused after the schema's own bounds had their say (check_negative)
            if abs(value) > MAX_INT:
                shown = str(value) if len(str(value)) <= 24 else f"a {len(str(value))}-digit number"
                raise refuse(where, f"is {shown}; it must be between 0 and {MAX_INT}")
        elif isinstance(value, float):
            if not math.isfinite(value) or abs(value) > MAX_INT:
                raise refuse(where, f"is {value!r:.24}; it must be a finite number between 0 and {MAX_INT}")
        elif isinstance(value, dict | list):
            if len(value) > limits.max_argument_items:
                raise too_long(where, len(value), limits.max_argument_items, "max_argument_items", "entries long")
            if isinstance(value, list):
                for i, item in enumerate(value):
                    walk(item, f"{where}[{i}]", name, depth + 1)
                return
            for key, item in value.items():
                key_text = str(key)
                if len(key_text) > limits.max_expression or "\x00" in key_text:
                    raise refuse(where, f"has a key of {len(key_text)} characters that is too long or holds a NUL byte")
                walk(item, f"{where}.{cut(key_text, 60)}", key_text, depth + 1)

    for key, value in args.items():
        walk(value, str(key), str(key), 0)


def check_negative(action: str, params: BaseModel) -> None:
    """No argument means anything below zero (thread ids, counts, lines, seqs): refuse it before a target sees it."""

    def walk(value: Any, where: str) -> None:
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                f"{action}: {where} is {value}; it must be 0 or more",
                hint="check the tool's input schema",
            )
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{where}.{cut(str(key), 60)}")
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, f"{where}[{i}]")

    for key, value in params.model_dump().items():
        walk(value, key)


def cut(text: str, keep: int = ECHO_CHARS) -> str:
    """`text` as is when short; else its start and its length, so a message never repeats a huge argument."""
    return text if len(text) <= keep else f"{text[:keep]}… ({len(text)} chars)"


def shorten_echoes(err: DebugError, args: dict[str, Any]) -> None:
    """Cut every long string argument a handler's error message or hint repeats."""
    long_values = sorted({v for v in _strings(args) if len(v) > ECHO_CHARS}, key=len, reverse=True)
    for value in long_values:
        err.message = err.message.replace(value, cut(value))
        if err.hint:
            err.hint = err.hint.replace(value, cut(value))
    err.args = (err.message,)


def _strings(value: Any, depth: int = 0):
    if isinstance(value, str):
        yield value
    elif depth <= MAX_DEPTH and isinstance(value, dict):
        for item in value.values():
            yield from _strings(item, depth + 1)
    elif depth <= MAX_DEPTH and isinstance(value, list):
        for item in value:
            yield from _strings(item, depth + 1)


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


@functools.cache
def lean_schema(params: type[BaseModel]) -> dict[str, Any]:
    """pydantic's JSON schema without what costs an agent tokens and says nothing: generated `title`s, the
    `anyOf [X, null]` of an optional field (it is optional already by not being required; a null default is
    dropped too), `$defs` (inlined) and `minimum: 0` (no argument takes a negative number: check_negative).
    Every property keeps its description, type, other bounds and default (a factory's too)."""
    schema = params.model_json_schema()
    defs = schema.pop("$defs", {})

    def lean(node: Any) -> Any:
        if isinstance(node, list):
            return [lean(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            target = copy.deepcopy(defs[node["$ref"].rsplit("/", 1)[-1]])
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        options = node.get("anyOf")
        if options and any(o == {"type": "null"} for o in options):
            rest = [o for o in options if o != {"type": "null"}]
            node = {k: v for k, v in node.items() if k != "anyOf"}
            node = {**rest[0], **node} if len(rest) == 1 else {"anyOf": rest, **node}
            if node.get("default", 0) is None:
                del node["default"]
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "title" or (key == "minimum" and value == 0):
                continue
            if key == "properties":
                out[key] = {name: lean(prop) for name, prop in value.items()}  # a property may be called "title"
            elif key in ("default", "enum", "const", "examples"):
                out[key] = value  # values, not schemas
            else:
                out[key] = lean(value)
        return out

    schema = lean(schema)
    for name, info in params.model_fields.items():  # pydantic leaves out defaults made by a factory ([] or {})
        if info.default_factory is not None and name in schema.get("properties", {}):
            schema["properties"][name]["default"] = info.default_factory()  # type: ignore[call-arg]
    return schema
