"""What every profile is made of: tool specs with the seed's schemas, each a thin translation onto registry actions,
an error formatter, and optional resources. The actions do the work; a profile only renames and reshapes."""

from __future__ import annotations

import difflib
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Protocol

from mcp.types import CallToolResult, TextContent

from pairdbg.backends.actions import Registry
from pairdbg.backends.actions.registry import ECHO_CHARS, Reply, check_values, cut, shorten_echoes
from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.backends.events import ActionPerformed
from pairdbg.backends.hub import Hub
from pairdbg.backends.policy import Level

JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


class ArgumentError(DebugError):
    """The call itself is malformed (the seed's schema refuses it): what seed servers report at the protocol level,
    unlike a well-formed call the target refused."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(ErrorCode.INVALID_PARAMETERS, message, hint=hint)


@dataclass
class Call:
    """One tool call of one actor: runs registry actions under that actor, so the activity feed shows them."""

    hub: Hub
    registry: Registry
    actor: str
    tool: str

    async def run(self, action: str, **args: Any) -> Reply:
        return await self.registry.run(action, {k: v for k, v in args.items() if v is not None}, self.actor)

    def check(self, action: str, **args: Any) -> None:
        """For a step a profile answers from its own records: refuse it as the agent mode refuses `action`, the
        registry action it stands in for (with `args` such as a condition, code the program will run)."""
        try:
            self.hub.policy.check(
                action, self.registry.get(action).level or Level.FULL, self.actor, SimpleNamespace(**args)
            )
        except DebugError as exc:
            self.announce(exc.text().splitlines()[0], summary=action, ok=False)
            raise

    def announce(self, outcome: str, session_id: str | None = None, summary: str = "", ok: bool = True) -> None:
        """For the few steps a profile answers from its own records (a mcp-debugger session before its start):
        the person sees them in the activity feed like any action."""
        self.hub.bus.publish(
            ActionPerformed(
                session_id,
                actor=self.actor,
                action=self.tool,
                summary=summary[:200],
                ok=ok,
                outcome=outcome[:200],
                at=time.time(),
            )
        )


Handler = Callable[[Call, dict[str, Any]], Awaitable[Any]]


@dataclass
class ToolSpec:
    name: str
    description: str
    properties: dict[str, dict[str, Any]]
    handler: Handler
    required: tuple[str, ...] = ()
    read_only: bool = False
    #: the result's shape as the seed gives it (declared as the tool's outputSchema); None where the seed returns a
    #: bare payload or leaves the shape open
    output_schema: dict[str, Any] | None = None

    def input_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object", "properties": self.properties}
        if self.required:
            schema["required"] = list(self.required)
        return schema


def tool_specs(tools: dict[str, dict[str, Any]], handlers: dict[str, Handler]) -> list[ToolSpec]:
    """A profile's tools from its schemas as data (name -> description, properties, required, read_only, result)
    and one handler per tool."""
    return [
        ToolSpec(
            name,
            schema["description"],
            schema["properties"],
            handlers[name],
            tuple(schema.get("required", ())),
            read_only=schema.get("read_only", False),
            output_schema=schema.get("result"),
        )
        for name, schema in tools.items()
    ]


class Resources(Protocol):
    """A profile's resources: listed, templated, read as (text, mime); a failed read's text in the profile's
    error format."""

    def list(self) -> list[Any]: ...
    def templates(self) -> list[Any]: ...
    async def read(self, uri: str) -> tuple[str, str]: ...
    def error_text(self, err: DebugError) -> str: ...


@dataclass
class PromptSpec:
    name: str
    description: str
    arguments: tuple[str, ...]
    #: the prompt's text for the given arguments
    render: Callable[[dict[str, str]], str]


@dataclass
class Profile:
    """A seed server's surface: its tools, how its results and errors look, and its resources."""

    name: str
    instructions: str
    tools: list[ToolSpec]
    #: A handler's payload -> the tool result (the seeds answer JSON text).
    result: Callable[[ToolSpec, Any], CallToolResult]
    #: A DebugError -> the tool result, or raises an MCP protocol error, as the seed does.
    error: Callable[[ToolSpec, DebugError, dict[str, Any]], CallToolResult]
    #: Resources, when the profile serves its own; None serves none.
    resources: Resources | None = None
    prompts: list[PromptSpec] = field(default_factory=list)
    by_name: dict[str, ToolSpec] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_name = {t.name: t for t in self.tools}


def json_result(payload: Any, is_error: bool = False) -> CallToolResult:
    """A JSON text block, and the same object as structured content when it is one."""
    return CallToolResult(
        content=[TextContent(text=json.dumps(payload, ensure_ascii=False))],
        structured_content=payload if isinstance(payload, dict) else None,
        is_error=is_error,
    )


def check_arguments(spec: ToolSpec, args: dict[str, Any]) -> None:
    """The seed servers validate against their schemas: a missing, unknown or mistyped argument is refused,
    never dropped or guessed. An integral float for an integer (1.0) becomes the int in `args`."""
    unknown = [k for k in args if k not in spec.properties]
    if unknown:
        raise ArgumentError(
            f"{spec.name}: unknown argument{'s' if len(unknown) > 1 else ''} "
            + ", ".join(repr(cut(str(k), 60)) for k in unknown),
            hint=nearest(unknown[0], spec) + f"{spec.name} takes: {', '.join(spec.properties) or 'no arguments'}",
        )
    missing = [k for k in spec.required if args.get(k) is None]
    if missing:
        raise ArgumentError(
            f"{spec.name}: missing required argument{'s' if len(missing) > 1 else ''} {', '.join(missing)}",
            hint=f"{spec.name} requires: {', '.join(spec.required)}",
        )
    for key, value in args.items():
        prop = spec.properties[key]
        kind = prop.get("type")
        if value is None or kind is None:
            continue
        kinds = kind if isinstance(kind, list) else [kind]  # a list: any of these types (JSON Schema's union)
        ok = any(
            isinstance(value, JSON_TYPES[k]) and not (k in ("integer", "number") and isinstance(value, bool))
            for k in kinds
        )
        kind = " or ".join(kinds)
        if kind == "integer" and isinstance(value, float) and value.is_integer():
            args[key] = value = int(value)  # JSON has one number type: 1.0 is the integer 1, and handlers get 1
            ok = True
        if not ok:
            raise ArgumentError(
                f"{spec.name}: {key} must be {'an' if kind[0] in 'aeiou' else 'a'} {kind}, "
                f"got {type(value).__name__} {cut(repr(value), 60)}",
                hint="check the tool's input schema",
            )
        if "enum" in prop and value not in prop["enum"]:
            raise ArgumentError(
                f"{spec.name}: {key} must be one of {', '.join(map(str, prop['enum']))}, got {cut(repr(value), 60)}",
                hint="check the tool's input schema",
            )


async def call_tool(
    profile: Profile, hub: Hub, registry: Registry, actor: str, name: str, args: dict
) -> CallToolResult:
    """Check the arguments against the seed's schema, run the translation, shape the answer or the error."""
    spec = profile.by_name.get(name)
    if spec is None:
        err = ArgumentError(
            f"unknown tool {cut(str(name), 60)!r}",
            hint=f"the {profile.name} profile has: {', '.join(profile.by_name)}",
        )
        return profile.error(ToolSpec(cut(str(name), 60), "", {}, _no_handler), err, echo_safe(args))
    try:
        check_arguments(spec, args)
        check_values(spec.name, args, hub.limits)  # the default surface's limits, before any handler sees them
        payload = await spec.handler(Call(hub, registry, actor, name), args)
    except DebugError as exc:
        shorten_echoes(exc, args)
        return profile.error(spec, exc, echo_safe(args))
    return profile.result(spec, payload)


def nearest(name: Any, spec: ToolSpec) -> str:
    """ "did you mean X? " for an unknown argument close to one the tool takes (executable_path -> executablePath)."""
    flat = {k.replace("_", "").lower(): k for k in spec.properties}
    close = flat.get(str(name).replace("_", "").lower()) or next(
        iter(difflib.get_close_matches(str(name)[:60], list(spec.properties), n=1, cutoff=0.7)), None
    )
    return f"did you mean {close}? " if close else ""


def echo_safe(value: Any) -> Any:
    """`value` with every long string cut as errors quote them, for error formatters that repeat arguments."""
    if isinstance(value, str):
        return cut(value)
    if isinstance(value, dict):
        return {cut(str(k), ECHO_CHARS): echo_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [echo_safe(v) for v in value]
    return value


async def _no_handler(call: Call, args: dict[str, Any]) -> Any:
    raise AssertionError("never called")


def prop(kind: str | list[str], description: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "description": description, **extra}


NULLABLE_STRING = {"type": ["string", "null"]}
NULLABLE_INT = {"type": ["integer", "null"]}


def shape(
    required: dict[str, Any],
    optional: dict[str, Any] | None = None,
    defs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A result object's JSON schema, compact: the keys always present, those that may be, and (at the top of a
    tool's schema) the sub-shapes its `$ref`s share. Other keys are allowed: a seed's example is not exhaustive."""
    out: dict[str, Any] = {"type": "object", "properties": {**required, **(optional or {})}}
    if required:
        out["required"] = list(required)
    if defs:
        out["$defs"] = defs
    return out
