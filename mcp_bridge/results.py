"""The structured content the default MCP surface sends: what a program needs from a reply (ids, handles, states,
locations, values), never a second rendering of the text block beside it.

The core's replies carry full views (the TUI and the seed profiles build on them); hosts that hand both the text and
the structured content to a model paid for every stop twice. Here a stop keeps its place, cause, exception and the
handles to drill into, and loses the source lines, the output tail and the frame list the text already shows.
"""

from __future__ import annotations

import copy
import functools
import logging
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from pairdbg.backends.lazymodel import LazyModel
from pairdbg.backends.models import BreakpointView, HiddenFrames, Location, OutputEntry, SessionSummary

log = logging.getLogger(__name__)

# Keys of a stop report that the text shows in full and a program can ask for again by handle or cursor.
STOP_TEXT_ONLY = ("source", "output_tail", "description", "thread_name", "locals_total", "stack_total")


def lean(data: dict[str, Any]) -> dict[str, Any]:
    """`data` as structured content: stops made lean, the output tail (in the text) left out."""
    out = {k: v for k, v in data.items() if k != "output_tail"}
    stop = out.get("stop")
    if isinstance(stop, dict):
        out["stop"] = lean_stop(stop)
    for key in ("variables", "scopes"):
        if isinstance(out.get(key), list):
            out[key] = [lean_variable(v) for v in out[key]]
    return out


def lean_stop(stop: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in stop.items() if k not in STOP_TEXT_ONLY and k not in ("locals", "stack", "watches")}
    out.pop("session_id", None)  # the reply says it once, at the top
    site = stop.get("raise_site")
    written = stop.get("write_site")
    exception = stop.get("exception")
    if isinstance(exception, dict):
        # raised_at says in a sentence where the raise site (when there is one) already says it with its handle
        keys = ("type", "message") if isinstance(site, dict) else ("type", "message", "raised_at")
        out["exception"] = {k: exception[k] for k in keys if exception.get(k)}
    out.update(lean_locals(stop.get("locals") or []))
    if isinstance(site, dict):
        out["raise_site"] = {
            **{k: site[k] for k in ("handle", "function", "file", "line", "package") if site.get(k) is not None},
            **lean_locals(site.get("locals") or []),
        }
    if isinstance(written, dict):
        out["write_site"] = {
            **{k: written[k] for k in ("handle", "function", "file", "line", "package") if written.get(k) is not None},
            **lean_locals(written.get("locals") or []),
        }
    frames = stop.get("stack") or []
    if frames:
        out["frames"] = len(frames) if stop.get("stack_total") is None else stop["stack_total"]
    watches = stop.get("watches") or []
    if watches:
        out["watches"] = {w["expression"]: w.get("value") for w in watches if "expression" in w}
    return out


def lean_locals(views: list[dict[str, Any]]) -> dict[str, Any]:
    """Values by name, and the handle of each one that has children: what a program reads or expands next."""
    out: dict[str, Any] = {"locals": {v["name"]: v.get("value") for v in views if "name" in v}}
    handles = {v["name"]: v["handle"] for v in views if v.get("handle")}
    if handles:
        out["handles"] = handles
    return out


def lean_variable(view: dict[str, Any]) -> dict[str, Any]:
    """name, value, and the handle when it can be expanded (the type is in the text)."""
    keep = {k: view[k] for k in ("name", "value", "handle") if view.get(k) is not None}
    if view.get("truncated"):
        keep["truncated"] = True
    return keep


# ----- the shapes, for the tools whose structured content is stable ---------------------------------------------------
# Each tool's structured content passes through its model (structured()), and its outputSchema is that model's
# schema (output_schema()): the two cannot drift. Extra keys are allowed, as the schema allows them: a tool may say
# more in one case (start_debugging's interpreter, wait_for_stop's new_stop) without a model per case.


class Shape(LazyModel):
    model_config = ConfigDict(extra="allow")


Values = dict[str, str | None]


class Raised(Shape):
    type: str
    message: str | None = None
    raised_at: str | None = None


class RaiseSite(Shape):
    handle: str
    function: str | None = None
    file: str | None = None
    line: int | None = None
    package: str | None = None
    locals: Values = {}
    handles: dict[str, str] | None = None


class Stop(Shape):
    """lean_stop's output."""

    state: Literal["paused"]
    stop_number: int
    reason: str
    exception: Raised | None = None
    thread_id: int | None = None
    hit_breakpoints: list[str] = []
    location: Location
    hidden_frames: list[HiddenFrames] = []
    raise_site: RaiseSite | None = None
    output_cursor: int = 0
    locals: Values = {}
    handles: dict[str, str] | None = None
    frames: int | None = None
    watches: Values | None = None


class Outcome(Shape):
    """Every control action's reply: a stop, a program still running (pending), or its end."""

    session_id: str
    state: Literal["paused", "running", "terminated", "disconnected", "error"]
    pending: bool
    stop: Stop | None = None
    exit_code: int | None = None
    detail: str | None = None


class Variable(Shape):
    """lean_variable's output."""

    name: str
    value: str | None = None
    handle: str | None = None
    truncated: bool | None = None


class Variables(Shape):
    session_id: str
    variables: list[Variable]
    total: int
    frame: str | None = None
    start: int | None = None
    next_start: int | None = None


class Evaluation(Shape):
    session_id: str
    name: str
    value: str
    type: str | None = None
    handle: str | None = None
    truncated: bool = False
    length: int | None = None


class Frame(Shape):
    handle: str
    function: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    library: bool | None = None
    unwound: bool | None = None


class Stack(Shape):
    session_id: str
    thread_id: int
    frames: list[Frame]
    total: int
    hidden_frames: list[HiddenFrames] | None = None


class BreakpointSet(BreakpointView):
    model_config = ConfigDict(extra="allow")
    session_id: str


class Breakpoints(Shape):
    session_id: str
    breakpoints: list[BreakpointView]
    exception_mode: str | None = None


class Removed(Shape):
    session_id: str
    removed: str


class Closed(Shape):
    session_id: str
    closed: bool


class Sessions(Shape):
    sessions: list[SessionSummary]
    agent_mode: str


class Output(Shape):
    session_id: str
    entries: list[OutputEntry]
    next_since: int
    has_more: bool
    dropped: int


CONTROL = (
    "start_debugging", "debug_tests", "attach", "connect_debugger", "start_from_launch_config", "restart_debugging",
    "continue_execution", "step_over", "step_into", "step_out", "run_to_line", "goto_line", "pause_execution",
    "wait_for_stop",
)  # fmt: skip
#: tool name -> the model of its structured content
RESULTS: dict[str, type[BaseModel]] = {
    **dict.fromkeys(CONTROL, Outcome),
    "get_variables": Variables,
    "get_local_variables": Variables,
    "evaluate_expression": Evaluation,
    "get_call_stack": Stack,
    "set_breakpoint": BreakpointSet,
    "list_breakpoints": Breakpoints,
    "remove_breakpoint": Removed,
    "close_debug_session": Closed,
    "list_debug_sessions": Sessions,
    "get_output": Output,
}


def structured(tool: str, data: dict[str, Any]) -> dict[str, Any]:
    """The structured content of `tool`'s reply: lean, and through the tool's model where it has one. Content the
    model refuses is a bug in pairdbg: it is logged and sent as it is (the text still answers; a client that checks
    the declared schema says what does not match), never turned into a failed call."""
    out = lean(data)
    model = RESULTS.get(tool)
    if model is None:
        return out
    try:
        return model.model_validate(out).model_dump(mode="json", exclude_unset=True)
    except ValidationError as exc:
        log.warning("%s: structured content does not match its schema: %s", tool, exc.errors()[0])
        return out


@functools.cache
def output_schema(tool: str) -> dict[str, Any] | None:
    """`tool`'s outputSchema: its model's JSON schema, compact (no titles, no descriptions, no defaults; nested
    models once each under $defs); None for a tool without a stable shape."""
    model = RESULTS.get(tool)
    return None if model is None else compact(model.model_json_schema(mode="serialization"))


def compact(schema: Any) -> Any:
    """`schema` without what only people read, and `anyOf [X, null]` as X's type with null."""
    if isinstance(schema, list):
        return [compact(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key in ("title", "description", "default") or (key == "additionalProperties" and value is True):
            continue  # (extra keys are allowed by default)
        if key == "properties":  # names here are fields (a field may be called title), values are schemas
            out[key] = {name: compact(sub) for name, sub in value.items()}
        elif key in ("enum", "const", "required"):
            out[key] = copy.deepcopy(value)
        else:
            out[key] = compact(value)
    if "const" in out:
        out.pop("type", None)
    options = out.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
        other = next(o for o in options if o != {"type": "null"})
        if set(other) == {"type"} and isinstance(other["type"], str):
            del out["anyOf"]
            out["type"] = [other["type"], "null"]
    return out
