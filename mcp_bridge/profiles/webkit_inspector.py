"""`--profile webkit-inspector`: the WebKit Inspector Protocol MCP server of seed 000 over pairdbg's actions.

snake_case arguments, 0-based line and column numbers (pairdbg is 1-based inside), call frames and objects as
pairdbg's @fN/@vN handles, CDP-style remote objects, `{"error": {"code", "message", "details"}}` failures, and the
`debug://sessions` resources in the seed's shape. The seed's schemas and result shapes are data
(webkit_inspector_schemas); each handler below is one tool, called with the profile's connections, the call and its
checked arguments."""

from __future__ import annotations

import functools
import json
import math
from typing import Any

from mcp.types import Resource, ResourceTemplate

from pairdbg.backends import queries
from pairdbg.backends.actions.registry import MAX_INT, cut
from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.backends.hub import Hub
from pairdbg.backends.models import Phase
from pairdbg.backends.source import is_url

from ..serving import agent_text
from .common import ArgumentError, Call, Profile, PromptSpec, ToolSpec, json_result, tool_specs
from .webkit_inspector_schemas import CODES, SCOPE_TYPES, SEED_CODES, STATES, TOOLS

INSTRUCTIONS = """\
pairdbg serving the WebKit Inspector MCP tool surface (Node, Bun, Chromium and WebKitGTK targets). Workflow:
connect_debugger(websocket_url) -> set_breakpoint(session_id, url, line_number) (0-based lines) -> when paused
(debug://sessions changes): get_call_stack, evaluate_expression(call_frame_id), get_scope_variables -> step_over /
resume_execution -> disconnect_debugger. A person may share this session in pairdbg's terminal UI.
"""

SESSIONS_URI = "debug://sessions"
PRIMITIVES = {"number", "string", "boolean", "undefined", "bigint", "symbol", "function"}


def to_file(url: str) -> str:
    """The seed's script URL -> what pairdbg's set_breakpoint takes: a path for file:// URLs, other URLs as is."""
    return url[len("file://") :] if url.startswith("file://") else url


def to_url(file: str | None) -> str | None:
    if not file:
        return None
    return file if is_url(file) or not file.startswith("/") else "file://" + file


def zero(line: int | None) -> int | None:
    return None if line is None else line - 1


def remote_object(type_name: str | None, value: str, handle: str | None, by_value: bool = False) -> dict[str, Any]:
    """A pairdbg value view as the CDP/WebKit RemoteObject the seed shows: primitives with their value (numbers JSON
    cannot hold, and bigints, as unserializableValue), objects with className, description and an objectId when
    they can be expanded."""
    kind = (type_name or "").lower()
    if kind in PRIMITIVES:
        out: dict[str, Any] = {"type": kind, "description": value}
        parsed = parse(value) if kind in ("number", "boolean", "string") else MISSING
        if parsed is not MISSING and not (isinstance(parsed, float) and not math.isfinite(parsed)):
            out["value"] = parsed
        elif kind in ("number", "bigint"):
            out["unserializableValue"] = value
        return out
    if value == "null":
        return {"type": "object", "subtype": "null", "value": None}
    out = {"type": "object", "className": type_name or "Object", "description": value}
    parsed = parse(value) if by_value else MISSING
    if parsed is not MISSING:
        out["value"] = parsed
        if isinstance(parsed, list):
            out.update(subtype="array", className="Array")
    if handle:
        out["objectId"] = handle
    return out


MISSING = object()


def parse(text: str) -> Any:
    """JSON text -> its value; MISSING for anything else (and for NaN/Infinity, which JSON cannot carry)."""
    try:
        value = json.loads(text, parse_constant=lambda name: MISSING)
    except ValueError:
        return MISSING
    return value


class Connections:
    """What the profile remembers itself: the WebSocket URL each session was connected with (the seed's
    targetUrl); everything else is read from pairdbg's sessions."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.urls: dict[str, str] = {}

    def target_url(self, sid: str) -> str | None:
        session = self.hub.sessions.get(sid)
        return self.urls.get(sid) or (queries.program(session) if session is not None else None)


def state_of(reply_state: str) -> str:
    return {"running": "running", "paused": "paused"}.get(reply_state, "disconnected")


# ----- connection ----------------------------------------------------------------------------------------------------


async def connect_debugger(conns: Connections, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    reply = await call.run("connect_debugger", websocket_url=a["websocket_url"], session_name=a.get("session_name"))
    sid = reply.data["session_id"]
    conns.urls[sid] = a["websocket_url"]
    title, url = queries.target_page(call.hub.get(sid))
    state = {"paused": "paused", "running": "connected"}.get(reply.data["state"], "disconnected")
    # what the target's /json/list says; null where it says nothing (Bun, WebKitGTK list no titles)
    info = {k: agent_text(call.hub, v) if v else None for k, v in (("title", title), ("url", url))}
    return {"session_id": sid, "state": state, "target_info": info}


async def disconnect_debugger(conns: Connections, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    await call.run("close_debug_session", session_id=a["session_id"], terminate=False)
    conns.urls.pop(a["session_id"], None)
    return {"success": True, "session_id": a["session_id"]}


# ----- breakpoints ---------------------------------------------------------------------------------------------------


def breakpoint_row(bp: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": bp["id"],
        "url": to_url(bp.get("file")),
        "line_number": zero(bp.get("actual_line") or bp.get("line")),
        "column_number": 0,
        "condition": bp.get("condition"),
        "enabled": bp.get("enabled", True),
    }


async def set_breakpoint(conns: Connections, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    line0 = a["line_number"]
    if not 0 <= line0 < MAX_INT:
        raise ArgumentError(
            f"line_number {line0}: lines are 0-based, from 0 to {MAX_INT - 1}",
            hint="pass a 0-based line of the script",
        )
    if a.get("column_number"):
        raise DebugError(
            ErrorCode.CAPABILITY_UNSUPPORTED,
            "column breakpoints are not supported: pairdbg sets breakpoints by line",
            hint="leave column_number out (or 0); the breakpoint binds to the line's first statement",
        )
    ignore = a.get("ignore_count") or 0
    if ignore < 0:
        raise ArgumentError(f"ignore_count {ignore} must be 0 or more")
    try:
        reply = await call.run(
            "set_breakpoint",
            session_id=a["session_id"],
            file=to_file(a["url"]),
            line=line0 + 1,
            condition=a.get("condition"),
            hit_condition=f">{ignore}" if ignore else None,
        )
    except DebugError as exc:  # pairdbg's lines are 1-based: say the line the caller sent
        said = f"line {line0 + 1} "
        if exc.message.startswith(said):
            exc.message = f"line_number {line0} (0-based) " + exc.message[len(said) :]
            exc.hint = "line_number is 0-based: the file's first line is 0"
            exc.args = (exc.message,)
        raise
    view = reply.data
    locations = []
    if view.get("verified"):
        locations.append({"line_number": zero(view.get("actual_line") or view.get("line")), "column_number": 0})
    return {"breakpoint_id": view["id"], "locations": locations}


async def remove_breakpoint(conns: Connections, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    await call.run("remove_breakpoint", session_id=a["session_id"], breakpoint_id=a["breakpoint_id"])
    return {"success": True, "breakpoint_id": a["breakpoint_id"]}


async def list_breakpoints(conns: Connections, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    data = (await call.run("list_breakpoints", session_id=a["session_id"])).data
    return {"breakpoints": [breakpoint_row(bp) for bp in data["breakpoints"] if bp.get("kind", "line") == "line"]}


# ----- execution -----------------------------------------------------------------------------------------------------


async def resume_execution(conns: Connections, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    # The seed answers at once and tells of the next pause by notification (debug://sessions changes).
    reply = await call.run("continue_execution", session_id=a["session_id"], wait_s=0)
    return {"success": True, "state": state_of(reply.data["state"])}


async def step(conns: Connections, call: Call, a: dict[str, Any], action: str) -> dict[str, Any]:
    reply = await call.run(action, session_id=a["session_id"])
    state = reply.data["state"]  # paused once the step landed; "stepping" while it is still under way
    return {"success": True, "state": "stepping" if state == "running" else state_of(state)}


async def pause_execution(conns: Connections, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    reply = await call.run("pause_execution", session_id=a["session_id"])
    state = reply.data["state"]
    return {"success": True, "state": "pausing" if state == "running" else state_of(state)}


async def set_pause_on_exceptions(conns: Connections, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    await call.run("set_pause_on_exceptions", session_id=a["session_id"], mode=a["state"])
    return {"success": True, "state": a["state"]}


# ----- inspection ----------------------------------------------------------------------------------------------------


async def get_call_stack(conns: Connections, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    data = (await call.run("get_call_stack", session_id=a["session_id"], count=200)).data
    session = call.hub.get(a["session_id"])
    frames, async_frames, label = [], [], None
    for f in data["frames"]:
        name = f["function"]
        where = {
            "url": to_url(f.get("file")),
            "line_number": zero(f.get("line")),
            "column_number": zero(f.get("column")),
        }
        if "[async" in name:  # pairdbg marks the async callers' frames: "name [async await]"
            base, _, tag = name.partition(" [async")
            label = label or tag.strip(" ]") or "async"
            async_frames.append({"function_name": base, **where})
            continue
        scopes = await queries.scopes(session, f["handle"])
        frames.append(
            {
                "call_frame_id": f["handle"],
                "function_name": name,
                **where,
                "scope_chain": [
                    {
                        "type": SCOPE_TYPES.get(s.name.split(" ")[0], s.name.lower()),
                        "object": {"type": "object", "objectId": s.handle},
                    }
                    for s in scopes
                ],
            }
        )
    out: dict[str, Any] = {"call_frames": frames}
    if a.get("include_async", True) and async_frames:
        out["async_stack_trace"] = {"description": label, "call_frames": async_frames}
    return out


async def evaluate_expression(conns: Connections, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    by_value = a.get("return_by_value", True)
    try:
        data = (
            await call.run(
                "evaluate_expression",
                session_id=a["session_id"],
                expression=a["expression"],
                frame=a.get("call_frame_id") or "global",
                return_by_value=by_value,
            )
        ).data
    except DebugError as exc:
        if exc.code != ErrorCode.EVALUATION_FAILED:  # the expression threw (or does not parse): the seed's answer
            raise
        kind, message = exc.data.get("exception_type") or "Error", exc.data.get("exception_message") or ""
        first = f"{kind}: {message}" if message else kind
        error = {"type": "object", "subtype": "error", "className": kind, "description": first}
        return {"result": error, "exception_details": {"text": f"Uncaught {first}", "exception": error}}
    return {
        "result": remote_object(data.get("type"), data["value"], data.get("handle"), by_value),
        "exception_details": None,
    }


async def scope_ref(call: Call, sid: str, frame: str, index: int) -> str:
    scopes = (await call.run("get_scopes", session_id=sid, frame=frame)).data["scopes"]
    if not 0 <= index < len(scopes):
        raise ArgumentError(
            f"scope_index {index}: frame {frame} has {len(scopes)} scopes",
            hint=", ".join(f"{n}: {s['name']}" for n, s in enumerate(scopes)),
        )
    return scopes[index]["handle"]


async def get_scope_variables(conns: Connections, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    ref = await scope_ref(call, a["session_id"], a["call_frame_id"], a.get("scope_index", 0))
    data = (await call.run("get_variables", session_id=a["session_id"], ref=ref, count=500)).data
    out: dict[str, Any] = {
        "variables": [
            {"name": v["name"], "value": remote_object(v.get("type"), v["value"], v.get("handle"))}
            for v in data["variables"]
        ]
    }
    if data["total"] > len(data["variables"]):
        out["total"] = data["total"]
    return out


async def set_variable_value(conns: Connections, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    ref = await scope_ref(call, a["session_id"], a["call_frame_id"], a["scope_index"])
    await call.run(
        "set_variable_value",
        session_id=a["session_id"],
        name=a["variable_name"],
        value=a["new_value"],
        ref=ref,
        frame=a["call_frame_id"],
    )
    return {"success": True}


HANDLERS = {
    "connect_debugger": connect_debugger,
    "disconnect_debugger": disconnect_debugger,
    "set_breakpoint": set_breakpoint,
    "remove_breakpoint": remove_breakpoint,
    "list_breakpoints": list_breakpoints,
    "resume_execution": resume_execution,
    "step_over": functools.partial(step, action="step_over"),
    "step_into": functools.partial(step, action="step_into"),
    "step_out": functools.partial(step, action="step_out"),
    "pause_execution": pause_execution,
    "get_call_stack": get_call_stack,
    "evaluate_expression": evaluate_expression,
    "get_scope_variables": get_scope_variables,
    "set_variable_value": set_variable_value,
    "set_pause_on_exceptions": set_pause_on_exceptions,
}


# ----- errors and resources ------------------------------------------------------------------------------------------


def error_body(err: DebugError, args: dict[str, Any]) -> dict[str, Any]:
    code = CODES.get(err.code, str(err.code))
    code = code if code in SEED_CODES else "PROTOCOL_ERROR"
    details: dict[str, Any] = {}
    if args.get("session_id"):
        details["sessionId"] = args["session_id"]
    if code == "PROTOCOL_ERROR" and err.code == ErrorCode.PROTOCOL_ERROR:
        details["protocolError"] = {"message": err.message}
    if err.hint:
        details["hint"] = err.hint
    if code != str(err.code):
        details["pairdbgCode"] = str(err.code)
    body: dict[str, Any] = {"code": code, "message": err.message}
    if details:
        body["details"] = details
    return {"error": body}


def error(spec: ToolSpec, err: DebugError, args: dict[str, Any]):
    return json_result(error_body(err, args), is_error=True)


def result(spec: ToolSpec, payload: Any):
    return json_result(payload)


class SessionResources:
    """`debug://sessions` and `debug://sessions/{sessionId}` in the seed's camelCase shape."""

    def __init__(self, conns: Connections) -> None:
        self.conns = conns
        self.hub = conns.hub

    def list(self) -> list[Resource]:
        out = [
            Resource(
                uri=SESSIONS_URI,
                name="sessions",
                description="active debugging sessions",
                mime_type="application/json",
            )
        ]
        out += [
            Resource(
                uri=f"{SESSIONS_URI}/{sid}",
                name=f"session {sid}",
                description="breakpoints and call stack",
                mime_type="application/json",
            )
            for sid in self.hub.sessions
        ]
        return out

    def templates(self) -> list[ResourceTemplate]:
        return [
            ResourceTemplate(
                uri_template=SESSIONS_URI + "/{sessionId}",
                name="session",
                description="breakpoints and call stack",
                mime_type="application/json",
            )
        ]

    async def read(self, uri: str) -> tuple[str, str]:
        if uri == SESSIONS_URI:
            rows = []
            for sid, session in self.hub.sessions.items():
                summary = session.summary()
                row: dict[str, Any] = {
                    "id": sid,
                    "targetUrl": self.conns.target_url(sid),
                    "state": STATES[summary.phase],
                }
                if summary.phase == Phase.PAUSED and summary.location is not None:
                    row.update(
                        pauseReason=summary.reason,
                        scriptUrl=to_url(summary.location.file),
                        lineNumber=zero(summary.location.line),
                    )
                rows.append(row)
            return json.dumps({"sessions": rows}), "application/json"
        sid = uri[len(SESSIONS_URI) + 1 :] if uri.startswith(SESSIONS_URI + "/") else ""
        session = self.hub.sessions.get(sid)
        if session is None:
            raise DebugError(
                ErrorCode.SESSION_NOT_FOUND,
                f"resource not found: {cut(uri)}",
                hint=f"{SESSIONS_URI} lists the sessions",
            )
        stop = queries.stop_context(session).stop if session.phase == Phase.PAUSED else None
        body = {
            "id": sid,
            "targetUrl": self.conns.target_url(sid),
            "state": STATES[session.phase],
            "breakpoints": [
                {
                    "id": bp["id"],
                    "scriptUrl": to_url(bp.get("file")),
                    "lineNumber": zero(bp.get("actual_line") or bp.get("line")),
                    "condition": bp.get("condition"),
                    "enabled": bp.get("enabled", True),
                }
                for bp in queries.breakpoints(session)
                if bp.get("kind", "line") == "line"
            ],
            "callStack": [
                {
                    "functionName": f.function,
                    "scriptUrl": to_url(f.file),
                    "lineNumber": zero(f.line),
                    "columnNumber": zero(f.column),
                }
                for f in (stop.stack if stop else [])
            ],
        }
        return json.dumps(body), "application/json"

    def error_text(self, err: DebugError) -> str:
        return json.dumps(error_body(err, {}))


# ----- prompts -------------------------------------------------------------------------------------------------------


def state_line(hub: Hub, sid: str) -> str:
    """Where the session is, in the seed's terms (0-based line numbers)."""
    session = hub.sessions.get(sid)
    if session is None:
        return f"(no session {sid!r})"
    summary = session.summary()
    line = f"{STATES[summary.phase]}"
    if summary.phase == Phase.PAUSED and summary.location is not None:
        loc = summary.location
        line += (
            f" ({summary.reason}) in {loc.function or '(anonymous)'} at {to_url(loc.file)}, "
            f"line_number {zero(loc.line)}"
        )
    return line


def analyze_crash(hub: Hub, args: dict[str, str]) -> str:
    sid = args.get("session_id", "")
    return (
        "I'll help you analyze why execution stopped. Let me:\n\n"
        "1. Get the current call stack (get_call_stack)\n"
        "2. Examine variables in each frame (get_scope_variables, evaluate_expression)\n"
        "3. Look for common issues (null references, type errors, etc.)\n"
        "4. Suggest potential causes\n\n"
        f"Session ID: {sid}\nCurrent state: {state_line(hub, sid)}\n\n"
        "Would you like me to proceed with this analysis?"
    )


def investigate_condition(hub: Hub, args: dict[str, str]) -> str:
    sid = args.get("session_id", "")
    return (
        "I'll evaluate this expression across the current call stack to understand its state:\n\n"
        f"Expression: {args.get('expression', '')}\nSession ID: {sid}\nCurrent state: {state_line(hub, sid)}\n\n"
        "I'll evaluate it (evaluate_expression) in:\n- Global scope\n- Each frame in the call stack\n\n"
        "Would you like to proceed?"
    )


def build(hub: Hub) -> Profile:
    conns = Connections(hub)
    handlers = {name: functools.partial(handler, conns) for name, handler in HANDLERS.items()}
    prompts = [
        PromptSpec(
            "analyze_crash",
            "Analyse a crashed or paused application: call stack and variables",
            ("session_id",),
            functools.partial(analyze_crash, hub),
        ),
        PromptSpec(
            "investigate_condition",
            "Why a condition is true or false, across the call stack",
            ("session_id", "expression"),
            functools.partial(investigate_condition, hub),
        ),
    ]
    return Profile(
        "webkit-inspector",
        INSTRUCTIONS,
        tool_specs(TOOLS, handlers),
        result,
        error,
        resources=SessionResources(conns),
        prompts=prompts,
    )
