"""`--profile webkit-inspector`: the WebKit Inspector Protocol MCP server of seed 000 over pairdbg's actions.

snake_case arguments, 0-based line and column numbers (pairdbg is 1-based inside), call frames and objects as
pairdbg's @fN/@vN handles, CDP-style remote objects, `{"error": {"code", "message", "details"}}` failures, and the
`debug://sessions` resources in the seed's shape."""

from __future__ import annotations

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
from .common import ArgumentError, Call, Profile, PromptSpec, ToolSpec, json_result, prop

INSTRUCTIONS = """\
pairdbg serving the WebKit Inspector MCP tool surface (Node, Bun, Chromium and WebKitGTK targets). Workflow:
connect_debugger(websocket_url) -> set_breakpoint(session_id, url, line_number) (0-based lines) -> when paused
(debug://sessions changes): get_call_stack, evaluate_expression(call_frame_id), get_scope_variables -> step_over /
resume_execution -> disconnect_debugger. A person may share this session in pairdbg's terminal UI.
"""

SID = prop("string", "ID of the debugging session")
SESSIONS_URI = "debug://sessions"
#: pairdbg phase -> the seed's SessionState
STATES = {
    Phase.STARTING: "connecting",
    Phase.RUNNING: "running",
    Phase.RECONNECTING: "connecting",
    Phase.PAUSED: "paused",
    Phase.TERMINATED: "disconnected",
    Phase.DISCONNECTED: "disconnected",
    Phase.ERROR: "disconnected",
}
#: pairdbg's error codes -> the seed's six
CODES = {
    ErrorCode.NOT_PAUSED: "SESSION_INVALID_STATE",
    ErrorCode.BUSY: "SESSION_INVALID_STATE",
    ErrorCode.PATH_NOT_FOUND: "INVALID_PARAMETERS",
    ErrorCode.LIMIT_EXCEEDED: "INVALID_PARAMETERS",
    ErrorCode.NOT_CONNECTED: "CONNECTION_FAILED",
    ErrorCode.CAPABILITY_UNSUPPORTED: "PROTOCOL_ERROR",
    ErrorCode.INTERNAL: "PROTOCOL_ERROR",
}
SEED_CODES = {
    "SESSION_NOT_FOUND",
    "SESSION_INVALID_STATE",
    "CONNECTION_FAILED",
    "PROTOCOL_ERROR",
    "INVALID_PARAMETERS",
    "TIMEOUT",
}
PRIMITIVES = {"number", "string", "boolean", "undefined", "bigint", "symbol", "function"}
SCOPE_TYPES = {
    "Locals": "local",
    "Closure": "closure",
    "Global": "global",
    "Script": "script",
    "Block": "block",
    "Module": "module",
}


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


#: a failed evaluation whose text is the protocol's own refusal ("Debugger.evaluateOnCallFrame: …"), not a throw
def build(hub: Hub) -> Profile:
    targets: dict[str, str] = {}  # session id -> the websocket URL it was connected with

    def target_url(sid: str) -> str | None:
        session = hub.sessions.get(sid)
        return targets.get(sid) or (queries.program(session) if session is not None else None)

    def state_of(reply_state: str) -> str:
        return {"running": "running", "paused": "paused"}.get(reply_state, "disconnected")

    # ----- connection --------------------------------------------------------------------------------------------

    async def connect_debugger(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        reply = await call.run("connect_debugger", websocket_url=a["websocket_url"], session_name=a.get("session_name"))
        sid = reply.data["session_id"]
        targets[sid] = a["websocket_url"]
        title, url = queries.target_page(hub.get(sid))
        state = {"paused": "paused", "running": "connected"}.get(reply.data["state"], "disconnected")
        # what the target's /json/list says; null where it says nothing (Bun, WebKitGTK list no titles)
        info = {k: agent_text(hub, v) if v else None for k, v in (("title", title), ("url", url))}
        return {"session_id": sid, "state": state, "target_info": info}

    async def disconnect_debugger(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        await call.run("close_debug_session", session_id=a["session_id"], terminate=False)
        targets.pop(a["session_id"], None)
        return {"success": True, "session_id": a["session_id"]}

    # ----- breakpoints -------------------------------------------------------------------------------------------

    def breakpoint_row(bp: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": bp["id"],
            "url": to_url(bp.get("file")),
            "line_number": zero(bp.get("actual_line") or bp.get("line")),
            "column_number": 0,
            "condition": bp.get("condition"),
            "enabled": bp.get("enabled", True),
        }

    async def set_breakpoint(call: Call, a: dict[str, Any]) -> dict[str, Any]:
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

    async def remove_breakpoint(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        await call.run("remove_breakpoint", session_id=a["session_id"], breakpoint_id=a["breakpoint_id"])
        return {"success": True, "breakpoint_id": a["breakpoint_id"]}

    async def list_breakpoints(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        data = (await call.run("list_breakpoints", session_id=a["session_id"])).data
        return {"breakpoints": [breakpoint_row(bp) for bp in data["breakpoints"] if bp.get("kind", "line") == "line"]}

    # ----- execution ---------------------------------------------------------------------------------------------

    async def resume_execution(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        # The seed answers at once and tells of the next pause by notification (debug://sessions changes).
        reply = await call.run("continue_execution", session_id=a["session_id"], wait_s=0)
        return {"success": True, "state": state_of(reply.data["state"])}

    def step(action: str):
        async def handler(call: Call, a: dict[str, Any]) -> dict[str, Any]:
            reply = await call.run(action, session_id=a["session_id"])
            state = reply.data["state"]  # paused once the step landed; "stepping" while it is still under way
            return {"success": True, "state": "stepping" if state == "running" else state_of(state)}

        return handler

    async def pause_execution(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        reply = await call.run("pause_execution", session_id=a["session_id"])
        state = reply.data["state"]
        return {"success": True, "state": "pausing" if state == "running" else state_of(state)}

    async def set_pause_on_exceptions(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        await call.run("set_pause_on_exceptions", session_id=a["session_id"], mode=a["state"])
        return {"success": True, "state": a["state"]}

    # ----- inspection --------------------------------------------------------------------------------------------

    async def get_call_stack(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        data = (await call.run("get_call_stack", session_id=a["session_id"], count=200)).data
        session = hub.get(a["session_id"])
        frames, async_frames, label = [], [], None
        for f in data["frames"]:
            name = f["function"]
            if "[async" in name:  # pairdbg marks the async callers' frames: "name [async await]"
                base, _, tag = name.partition(" [async")
                label = label or tag.strip(" ]") or "async"
                async_frames.append(
                    {
                        "function_name": base,
                        "url": to_url(f.get("file")),
                        "line_number": zero(f.get("line")),
                        "column_number": zero(f.get("column")),
                    }
                )
                continue
            scopes = await queries.scopes(session, f["handle"])
            frames.append(
                {
                    "call_frame_id": f["handle"],
                    "function_name": name,
                    "url": to_url(f.get("file")),
                    "line_number": zero(f.get("line")),
                    "column_number": zero(f.get("column")),
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

    async def evaluate_expression(call: Call, a: dict[str, Any]) -> dict[str, Any]:
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

    async def get_scope_variables(call: Call, a: dict[str, Any]) -> dict[str, Any]:
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

    async def set_variable_value(call: Call, a: dict[str, Any]) -> dict[str, Any]:
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

    # ----- errors and resources ----------------------------------------------------------------------------------

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

    class Resources:
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
                for sid in hub.sessions
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
                for sid, session in hub.sessions.items():
                    summary = session.summary()
                    row: dict[str, Any] = {"id": sid, "targetUrl": target_url(sid), "state": STATES[summary.phase]}
                    if summary.phase == Phase.PAUSED and summary.location is not None:
                        row.update(
                            pauseReason=summary.reason,
                            scriptUrl=to_url(summary.location.file),
                            lineNumber=zero(summary.location.line),
                        )
                    rows.append(row)
                return json.dumps({"sessions": rows}), "application/json"
            sid = uri[len(SESSIONS_URI) + 1 :] if uri.startswith(SESSIONS_URI + "/") else ""
            session = hub.sessions.get(sid)
            if session is None:
                raise DebugError(
                    ErrorCode.SESSION_NOT_FOUND,
                    f"resource not found: {cut(uri)}",
                    hint=f"{SESSIONS_URI} lists the sessions",
                )
            stop = queries.stop_context(session).stop if session.phase == Phase.PAUSED else None
            body = {
                "id": sid,
                "targetUrl": target_url(sid),
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

    tools = [
        ToolSpec(
            "connect_debugger",
            "Connect to a WebKit Inspector / DevTools WebSocket endpoint",
            {
                "websocket_url": prop(
                    "string", "WebSocket URL of the inspector endpoint (e.g. ws://localhost:9222/devtools/page/1)"
                ),
                "session_name": prop("string", "Optional human-readable name for the debugging session"),
            },
            connect_debugger,
            ("websocket_url",),
        ),
        ToolSpec(
            "disconnect_debugger",
            "Close a debugging session (the target keeps running)",
            {"session_id": SID},
            disconnect_debugger,
            ("session_id",),
        ),
        ToolSpec(
            "set_breakpoint",
            "Set a breakpoint at a script URL and 0-based line",
            {
                "session_id": SID,
                "url": prop("string", "URL of the script (file:// URLs and paths for local scripts)"),
                "line_number": prop("integer", "Line number (0-based)"),
                "column_number": prop("integer", "Optional column number (0-based); only 0 is supported"),
                "condition": prop("string", "Optional condition that must be true for the breakpoint to trigger"),
                "ignore_count": prop("integer", "Number of times to ignore this breakpoint before stopping", default=0),
            },
            set_breakpoint,
            ("session_id", "url", "line_number"),
        ),
        ToolSpec(
            "remove_breakpoint",
            "Remove a breakpoint",
            {
                "session_id": SID,
                "breakpoint_id": prop("string", "ID of the breakpoint to remove"),
            },
            remove_breakpoint,
            ("session_id", "breakpoint_id"),
        ),
        ToolSpec(
            "list_breakpoints",
            "List the breakpoints of a session",
            {"session_id": SID},
            list_breakpoints,
            ("session_id",),
            read_only=True,
        ),
        ToolSpec(
            "resume_execution",
            "Resume execution (the next pause changes debug://sessions)",
            {"session_id": SID},
            resume_execution,
            ("session_id",),
        ),
        ToolSpec(
            "step_over", "Step over the current statement", {"session_id": SID}, step("step_over"), ("session_id",)
        ),
        ToolSpec("step_into", "Step into a function call", {"session_id": SID}, step("step_into"), ("session_id",)),
        ToolSpec(
            "step_out", "Step out of the current function", {"session_id": SID}, step("step_out"), ("session_id",)
        ),
        ToolSpec(
            "pause_execution",
            "Pause at the next possible opportunity",
            {"session_id": SID},
            pause_execution,
            ("session_id",),
        ),
        ToolSpec(
            "get_call_stack",
            "The call stack while paused (0-based lines)",
            {
                "session_id": SID,
                "include_async": prop("boolean", "Whether to include asynchronous stack traces", default=True),
            },
            get_call_stack,
            ("session_id",),
            read_only=True,
        ),
        ToolSpec(
            "evaluate_expression",
            "Evaluate JavaScript in a call frame, or globally without call_frame_id",
            {
                "session_id": SID,
                "expression": prop("string", "JavaScript expression to evaluate"),
                "call_frame_id": prop("string", "Call frame ID to evaluate in (default: the global context)"),
                "return_by_value": prop("boolean", "Return the value itself, not only a reference", default=True),
            },
            evaluate_expression,
            ("session_id", "expression"),
        ),
        ToolSpec(
            "get_scope_variables",
            "Variables of one scope of a call frame",
            {
                "session_id": SID,
                "call_frame_id": prop("string", "ID of the call frame"),
                "scope_index": prop("integer", "Index of the scope in the scope chain (0 is local scope)", default=0),
            },
            get_scope_variables,
            ("session_id", "call_frame_id"),
            read_only=True,
        ),
        ToolSpec(
            "set_variable_value",
            "Set a variable in a scope of a call frame",
            {
                "session_id": SID,
                "call_frame_id": prop("string", "ID of the call frame containing the variable"),
                "scope_index": prop("integer", "Index of the scope containing the variable"),
                "variable_name": prop("string", "Name of the variable to modify"),
                "new_value": prop("string", "JavaScript expression that evaluates to the new value"),
            },
            set_variable_value,
            ("session_id", "call_frame_id", "scope_index", "variable_name", "new_value"),
        ),
        ToolSpec(
            "set_pause_on_exceptions",
            "When to pause on exceptions",
            {
                "session_id": SID,
                "state": prop("string", "none, uncaught or all", enum=["none", "uncaught", "all"]),
            },
            set_pause_on_exceptions,
            ("session_id", "state"),
        ),
    ]

    def state_line(sid: str) -> str:
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

    def analyze_crash(args: dict[str, str]) -> str:
        sid = args.get("session_id", "")
        return (
            "I'll help you analyze why execution stopped. Let me:\n\n"
            "1. Get the current call stack (get_call_stack)\n"
            "2. Examine variables in each frame (get_scope_variables, evaluate_expression)\n"
            "3. Look for common issues (null references, type errors, etc.)\n"
            "4. Suggest potential causes\n\n"
            f"Session ID: {sid}\nCurrent state: {state_line(sid)}\n\n"
            "Would you like me to proceed with this analysis?"
        )

    def investigate_condition(args: dict[str, str]) -> str:
        sid = args.get("session_id", "")
        return (
            "I'll evaluate this expression across the current call stack to understand its state:\n\n"
            f"Expression: {args.get('expression', '')}\nSession ID: {sid}\nCurrent state: {state_line(sid)}\n\n"
            "I'll evaluate it (evaluate_expression) in:\n- Global scope\n- Each frame in the call stack\n\n"
            "Would you like to proceed?"
        )

    prompts = [
        PromptSpec(
            "analyze_crash",
            "Analyse a crashed or paused application: call stack and variables",
            ("session_id",),
            analyze_crash,
        ),
        PromptSpec(
            "investigate_condition",
            "Why a condition is true or false, across the call stack",
            ("session_id", "expression"),
            investigate_condition,
        ),
    ]
    return Profile("webkit-inspector", INSTRUCTIONS, tools, result, error, resources=Resources(), prompts=prompts)
