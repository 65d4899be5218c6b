"""`--profile mcp-debugger`: the tool reference of mcp-debugger (seed 002) over pairdbg's actions.

camelCase arguments, `{"success": ...}` results, numeric frame ids and variablesReferences (pairdbg's @fN and @vN
handles carry the same numbers), and the `created` state: a session created before a program is started is a
record of this profile until start_debugging or attach_to_process makes it a real pairdbg session."""

from __future__ import annotations

import datetime
import os
import uuid
from dataclasses import dataclass, field
from typing import Any

from mcp import MCPError

from pairdbg.backends import factory, queries
from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.backends.hub import Hub
from pairdbg.backends.models import Phase

from .common import ArgumentError, Call, Profile, ToolSpec, json_result, prop

INSTRUCTIONS = """\
pairdbg serving the mcp-debugger tool surface. Workflow: create_debug_session(language) -> set_breakpoint(sessionId,
file, line) -> start_debugging(sessionId, scriptPath) -> get_stack_trace / get_scopes(frameId) /
get_variables(scope=variablesReference) / get_local_variables / evaluate_expression -> step_over / step_into /
step_out / continue_execution -> close_debug_session. Lines are 1-based. A person may share this session in
pairdbg's terminal UI; re-read state instead of assuming it.
"""

SID = prop("string", "The ID of the debug session.")
# A record lives in pairdbg's memory until it is closed, and every list_debug_sessions repeats them all: bounded, so
# a reply cannot grow with what agents create (60 records with 1 MB names once made a 126 MB reply).
MAX_RECORDS = 50
NAME_CHARS = 200
#: pairdbg phase -> mcp-debugger SessionState
STATES = {
    Phase.STARTING: "initializing",
    Phase.RUNNING: "running",
    Phase.RECONNECTING: "running",
    Phase.PAUSED: "paused",
    Phase.TERMINATED: "stopped",
    Phase.DISCONNECTED: "stopped",
    Phase.ERROR: "error",
}
#: what an action's outcome state means here
OUTCOME_STATES = {
    "paused": "paused",
    "running": "running",
    "terminated": "stopped",
    "disconnected": "stopped",
    "error": "error",
}
#: the words mcp-debugger's protocol errors use for a failed control request
FAILED_TO = {
    "continue_execution": "continue execution",
    "step_over": "step over",
    "step_into": "step into",
    "step_out": "step out",
    "pause_execution": "pause execution",
}
#: what a NOT_PAUSED refusal says it could not do
CANNOT = {
    "get_local_variables": "get local variables",
    "get_stack_trace": "get stack trace",
    "get_scopes": "get scopes",
    "get_variables": "get variables",
    "evaluate_expression": "evaluate expression",
}
JS_SPECIAL = frozenset({"this", "__proto__"})
DISPLAY_NAMES = {"javascript": "JavaScript", "typescript": "TypeScript", "cpp": "C++", "c": "C"}
DAP_LAUNCH_ARGS = {"stopOnEntry", "justMyCode", "cwd", "env"}


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class Record:
    """A session as mcp-debugger knows it: `created` until a program is started or attached."""

    id: str
    name: str
    language: str
    executable_path: str | None
    created_at: str
    updated_at: str
    pending: list[dict[str, Any]] = field(default_factory=list)
    session_id: str | None = None  # the pairdbg session, once started
    detached: bool = False


class Sessions:
    """This profile's records, and pairdbg sessions it did not create (a person's), under their own ids."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.records: dict[str, Record] = {}

    def find(self, sid: str) -> tuple[Record | None, str | None]:
        """(record, pairdbg session id); SESSION_NOT_FOUND when neither knows `sid`."""
        record = self.records.get(sid)
        if record is not None:
            return record, record.session_id
        if sid in self.hub.sessions:
            return None, sid
        raise DebugError(
            ErrorCode.SESSION_NOT_FOUND,
            f"Managed session not found: {sid}",
            hint="list_debug_sessions shows the sessions; create_debug_session makes one",
        )

    def live(self, sid: str) -> str:
        """The pairdbg session behind `sid`; refuses a session that was never started."""
        record, session_id = self.find(sid)
        if session_id is None or (record is not None and record.detached):
            raise DebugError(
                ErrorCode.SESSION_INVALID_STATE,
                f"session {sid} is {self.state(record, None)}: no program is running in it",
                hint="start_debugging(sessionId, scriptPath) or attach_to_process first",
            )
        if record is not None:
            record.updated_at = now()
        return session_id

    def state(self, record: Record | None, session_id: str | None) -> str:
        if record is not None and record.detached:
            return "stopped"
        if session_id is None:
            return "created"
        session = self.hub.sessions.get(session_id)
        return STATES[session.phase] if session is not None else "stopped"


def number(handle: str | None) -> int:
    """`@v12` -> 12, `@f3` -> 3; no handle -> 0 (DAP's "nothing to expand")."""
    if not handle:
        return 0
    digits = handle[2:]
    return int(digits) if digits.isdigit() else 0


def build(hub: Hub) -> Profile:
    sessions = Sessions(hub)

    async def languages(call: Call) -> list[dict[str, Any]]:
        rows = (await call.run("list_supported_languages")).data["languages"]
        out: dict[str, dict[str, Any]] = {}
        for row in rows:
            entry = out.setdefault(
                row["language"],
                {
                    "id": row["language"],
                    "displayName": DISPLAY_NAMES.get(row["language"], row["language"].capitalize()),
                    "installed": False,
                    "backends": [],
                },
            )
            entry["installed"] = entry["installed"] or row["installed"]
            if row["installed"] and "defaultExecutable" not in entry:
                entry["defaultExecutable"] = default_executable(row["language"])
            entry["backends"].append(
                {"backend": row["backend"], "installed": row["installed"], "detail": row["detail"]}
            )
        return list(out.values())

    # ----- session lifecycle ---------------------------------------------------------------------------------------

    async def create_debug_session(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        language = a["language"]
        known = await languages(call)
        if language not in {lang["id"] for lang in known}:
            raise ArgumentError(
                f"Invalid language: {language!r}",
                hint="supported: " + ", ".join(lang["id"] for lang in known),
            )
        if a.get("port") is None:  # a record now, a started program later: the mode must allow starting one
            call.check("start_debugging")
        if a.get("name") is not None and len(a["name"]) > NAME_CHARS:
            raise ArgumentError(
                f"name is {len(a['name'])} characters; the limit is {NAME_CHARS}", hint="give a shorter name"
            )
        if len(sessions.records) >= MAX_RECORDS:
            raise DebugError(
                ErrorCode.LIMIT_EXCEEDED,
                f"this profile keeps at most {MAX_RECORDS} sessions",
                hint="close_debug_session the ones you no longer need",
            )
        sid = str(uuid.uuid4())
        name = a.get("name") or f"session-{sid[:8]}"
        stamp = now()
        record = Record(sid, name, language, a.get("executablePath"), stamp, stamp)
        if a.get("port") is not None:  # the seed's inline attach
            reply = await call.run("attach", target=f"{a.get('host') or '127.0.0.1'}:{a['port']}", language=language)
            record.session_id = reply.data["session_id"]
            sessions.records[sid] = record
            return {
                "success": True,
                "sessionId": sid,
                "message": f"Created {language} debug session: {name} (attached to port {a['port']})",
                "state": sessions.state(record, record.session_id),
            }
        sessions.records[sid] = record
        call.announce(f"created {language} session {sid} ({name}); starts with start_debugging", summary=name)
        return {"success": True, "sessionId": sid, "message": f"Created {language} debug session: {name}"}

    async def list_debug_sessions(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        rows = []
        mine = set()
        for record in sessions.records.values():
            mine.add(record.session_id)
            rows.append(
                {
                    "id": record.id,
                    "name": record.name,
                    "language": record.language,
                    "state": sessions.state(record, record.session_id),
                    "createdAt": record.created_at,
                    "updatedAt": record.updated_at,
                }
            )
        for summary in (await call.run("list_debug_sessions")).data["sessions"]:
            if summary["session_id"] in mine:
                continue
            rows.append(
                {
                    "id": summary["session_id"],
                    "name": summary["name"],
                    "language": summary["language"],
                    "state": STATES[Phase(summary["phase"])],
                }
            )
        return {"success": True, "sessions": rows, "count": len(rows)}

    async def close_debug_session(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        sid = a["sessionId"]
        record, session_id = sessions.find(sid)  # a missing session: success false, as the seed says
        if session_id is not None and session_id in hub.sessions and not (record and record.detached):
            await call.run("close_debug_session", session_id=session_id, terminate=True)
        else:
            call.check("close_debug_session")
            call.announce(f"closed {sid} ({'never started' if session_id is None else 'its program had ended'})")
        sessions.records.pop(sid, None)
        return {"success": True, "message": f"Closed debug session: {sid}"}

    # ----- breakpoints -------------------------------------------------------------------------------------------

    async def context_of(call: Call, file: str, line: int, around: int, session_id: str | None) -> dict[str, Any]:
        data = (await call.run("get_source_context", session_id=session_id, file=file, line=line, context=around)).data
        rows = data["lines"]
        current = next((r["text"] for r in rows if r["line"] == line), "")
        return {
            "file": data["file"],
            "lineContent": current,
            "surrounding": [{"line": r["line"], "content": r["text"]} for r in rows],
        }

    async def set_breakpoint(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        record, session_id = sessions.find(a["sessionId"])
        file, line = a["file"], int(a["line"])
        if line < 1:
            raise ArgumentError(f"line {line}: lines are 1-indexed", hint="pass line >= 1")
        if session_id is None and record is not None:  # `created`: kept until start_debugging sets it
            call.check("set_breakpoint", condition=a.get("condition"))
            if len(record.pending) >= sessions.hub.limits.max_breakpoints:
                raise DebugError(
                    ErrorCode.LIMIT_EXCEEDED,
                    f"session {record.id} already records {len(record.pending)} breakpoints",
                    hint="start the program, or raise limits.max_breakpoints",
                )
            ctx = await context_of(call, file, line, 2, None)  # refuses a missing file or a line past its end
            bp = {"file": ctx["file"], "line": line, **({"condition": a["condition"]} if a.get("condition") else {})}
            record.pending.append(bp)
            record.updated_at = now()
            call.announce(
                f"breakpoint {os.path.basename(ctx['file'])}:{line} recorded; set when the program starts",
                summary=f"{file}:{line}",
            )
            return {
                "success": True,
                # the new session numbers the recorded breakpoints BP1, BP2, … in this order when it starts
                "breakpointId": f"BP{len(record.pending)}",
                "file": ctx["file"],
                "line": line,
                "verified": False,
                "message": f"Breakpoint recorded at {ctx['file']}:{line} (set when the program starts)",
                "context": {"lineContent": ctx["lineContent"], "surrounding": ctx["surrounding"]},
            }
        session_id = sessions.live(a["sessionId"])
        view = (
            await call.run("set_breakpoint", session_id=session_id, file=file, line=line, condition=a.get("condition"))
        ).data
        ctx = await context_of(call, view.get("file") or file, line, 2, session_id)
        out = {
            "success": True,
            "breakpointId": view["id"],
            "file": view.get("file") or ctx["file"],
            "line": line,
            "verified": bool(view.get("verified")),
            "message": f"Breakpoint set at {view.get('file') or ctx['file']}:{line}",
            "context": {"lineContent": ctx["lineContent"], "surrounding": ctx["surrounding"]},
        }
        if view.get("message"):
            out["message"] += f" ({view['message']})"
        return out

    # ----- start, attach, detach ---------------------------------------------------------------------------------

    def created(sid: str) -> Record:
        record, session_id = sessions.find(sid)
        if record is None or session_id is not None:
            raise DebugError(
                ErrorCode.SESSION_INVALID_STATE,
                f"session {sid} is {sessions.state(record, session_id)}, not created: a program already runs in it",
                hint="create_debug_session makes a new session to start another program",
            )
        return record

    async def start_debugging(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        call.check("start_debugging")  # a dry run too: it answers from the record, never through the registry
        record = created(a["sessionId"])
        dap = a.get("dapLaunchArgs") or {}
        extra = sorted(set(dap) - DAP_LAUNCH_ARGS)
        if extra:
            raise ArgumentError(
                f"dapLaunchArgs: {', '.join(extra)} not supported",
                hint=f"supported: {', '.join(sorted(DAP_LAUNCH_ARGS))}",
            )
        if a.get("adapterLaunchConfig"):
            raise ArgumentError(
                "adapterLaunchConfig is not supported: pairdbg configures its adapters itself",
                hint="leave it out; adapter profiles (README) configure other debuggers",
            )
        script = a["scriptPath"]
        launch = {
            "program": script,
            "language": record.language,
            "args": a.get("args") or [],
            "executable_path": record.executable_path,
            "stop_on_entry": bool(dap.get("stopOnEntry", False)),
            "just_my_code": bool(dap.get("justMyCode", True)),
            "cwd": dap.get("cwd"),
            "env": dap.get("env") or {},
        }
        if a.get("dryRunSpawn"):
            return dry_run(call, record, launch)
        reply = await call.run("start_debugging", breakpoints=record.pending, **launch)
        record.session_id = reply.data["session_id"]
        record.pending = []
        record.updated_at = now()
        state = OUTCOME_STATES.get(reply.data["state"], reply.data["state"])
        message = f"Debugging started for {script}. Current state: {state}"
        data: dict[str, Any] = {"message": message}
        if reply.data.get("stop"):
            data["reason"] = reply.data["stop"]["reason"]
        if reply.data.get("exit_code") is not None:
            data["exitCode"] = reply.data["exit_code"]
        return {"success": True, "state": state, "message": message, "data": data}

    def dry_run(call: Call, record: Record, launch: dict[str, Any]) -> dict[str, Any]:
        """What start_debugging would run, checked the way a real start is (program, language, interpreter), with
        nothing spawned."""
        spec = factory.LaunchSpec(**{k: v for k, v in launch.items() if v is not None})
        language, program, _ = factory.launcher(spec)
        python = interpreter(language, record.executable_path, program, module=spec.module, cwd=spec.cwd)
        command = [x for x in (python, program, *spec.args) if x]
        cwd = spec.cwd or os.path.dirname(program)
        call.announce(f"dry run: would run {' '.join(command)}", summary=program)
        return {
            "success": True,
            "state": "created",
            "dryRun": True,
            "message": f"Dry run: would start {program} ({language}); nothing was spawned",
            "data": {
                "command": command,
                "cwd": cwd,
                "language": language,
                "stopOnEntry": spec.stop_on_entry,
                "justMyCode": spec.just_my_code,
            },
        }

    async def attach_to_process(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        record = created(a["sessionId"])
        if a.get("processId") is not None:
            raise DebugError(
                ErrorCode.CAPABILITY_UNSUPPORTED,
                "attaching by processId is not supported: pairdbg attaches to a debug server's port",
                hint="start the program with `python -m debugpy --listen 127.0.0.1:5678 prog.py` (or node --inspect), "
                "then attach_to_process(sessionId, port=5678)",
            )
        if a.get("port") is None:
            raise ArgumentError("attach_to_process needs port", hint="e.g. port=5678")
        host = a.get("host") or "127.0.0.1"
        reply = await call.run(
            "attach",
            target=f"{host}:{a['port']}",
            language=record.language,
            just_my_code=a.get("justMyCode"),
        )
        record.session_id = reply.data["session_id"]
        record.updated_at = now()
        state = OUTCOME_STATES.get(reply.data["state"], reply.data["state"])
        return {"success": True, "state": state, "message": f"Attached to {host}:{a['port']}. Current state: {state}"}

    async def detach_from_process(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        record, _ = sessions.find(a["sessionId"])
        session_id = sessions.live(a["sessionId"])
        terminate = bool(a.get("terminateProcess", False))
        await call.run("close_debug_session", session_id=session_id, terminate=terminate)
        if record is not None:
            record.detached = True
        return {"success": True, "message": "Terminated process and detached" if terminate else "Detached from process"}

    # ----- execution ---------------------------------------------------------------------------------------------

    def control(action: str, message: str):
        async def handler(call: Call, a: dict[str, Any]) -> dict[str, Any]:
            reply = await call.run(action, session_id=sessions.live(a["sessionId"]))
            state = OUTCOME_STATES.get(reply.data["state"], reply.data["state"])
            return {"success": True, "state": state, "message": message}

        return handler

    async def pause_execution(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        session_id = sessions.live(a["sessionId"])
        session = hub.sessions.get(session_id)
        if session is not None and session.phase == Phase.PAUSED:
            return {"success": True, "state": "paused", "data": {"message": "Already paused"}}
        reply = await call.run("pause_execution", session_id=session_id)
        state = OUTCOME_STATES.get(reply.data["state"], reply.data["state"])
        return {"success": True, "state": state, "data": {"message": "Execution paused"}}

    # ----- inspection --------------------------------------------------------------------------------------------

    async def get_stack_trace(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        data = (await call.run("get_call_stack", session_id=sessions.live(a["sessionId"]), count=200)).data
        frames = [
            {
                "id": number(f["handle"]),
                "name": f["function"],
                "file": f.get("file"),
                "line": f.get("line"),
                "column": f.get("column"),
            }
            for f in data["frames"]
        ]
        return {"success": True, "stackFrames": frames, "count": len(frames)}

    async def get_scopes(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        data = (await call.run("get_scopes", session_id=sessions.live(a["sessionId"]), frame=f"@f{a['frameId']}")).data
        scopes = [{"name": s["name"], "variablesReference": number(s.get("handle"))} for s in data["scopes"]]
        return {"success": True, "scopes": scopes}

    def variable(v: dict[str, Any]) -> dict[str, Any]:
        ref = number(v.get("handle"))
        return {
            "name": v["name"],
            "value": v["value"],
            "type": v.get("type") or "",
            "variablesReference": ref,
            "expandable": ref > 0,
        }

    async def get_variables(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        scope = int(a["scope"])
        data = (
            await call.run("get_variables", session_id=sessions.live(a["sessionId"]), ref=f"@v{scope}", count=500)
        ).data
        variables = [variable(v) for v in data["variables"]]
        out = {"success": True, "variables": variables, "count": len(variables), "variablesReference": scope}
        if data["total"] > len(variables):
            out["total"] = data["total"]
        return out

    async def get_local_variables(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        session_id = sessions.live(a["sessionId"])
        data = (
            await call.run(
                "get_local_variables", session_id=session_id, include_special=bool(a.get("includeSpecial")), count=500
            )
        ).data
        session = hub.get(session_id)
        stop = queries.stop_context(session).stop
        top = stop.stack[0] if stop and stop.stack else None
        scopes = await queries.scopes(session, "@f0")
        special = bool(a.get("includeSpecial", False))
        # pairdbg leaves dunder names out; the seed's JavaScript policy leaves out `this` and `__proto__` too
        variables = [variable(v) for v in data["variables"] if special or v["name"] not in JS_SPECIAL]
        out = {
            "success": True,
            "variables": variables,
            "count": len(variables),
            "frame": {
                "name": top.function if top else None,
                "file": top.file if top else None,
                "line": top.line if top else None,
            },
            "scopeName": scopes[0].name if scopes else None,
        }
        if not variables:
            out["message"] = f"The {out['scopeName'] or 'local'} scope is empty."
        return out

    async def evaluate_expression(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        frame = f"@f{a['frameId']}" if a.get("frameId") is not None else None
        data = (
            await call.run(
                "evaluate_expression", session_id=sessions.live(a["sessionId"]), expression=a["expression"], frame=frame
            )
        ).data
        return {
            "success": True,
            "result": data["value"],
            "type": data.get("type") or "",
            "variablesReference": number(data.get("handle")),
        }

    async def get_source_context(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        record, session_id = sessions.find(a["sessionId"])
        around = int(a.get("linesContext", 5))
        ctx = await context_of(call, a["file"], int(a["line"]), around, session_id)
        return {
            "success": True,
            "file": ctx["file"],
            "line": int(a["line"]),
            "lineContent": ctx["lineContent"],
            "surrounding": ctx["surrounding"],
            "contextLines": around,
        }

    async def list_threads(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        data = (await call.run("list_threads", session_id=sessions.live(a["sessionId"]))).data
        return {"success": True, "threads": data["threads"], "count": len(data["threads"])}

    async def list_supported_languages(call: Call, a: dict[str, Any]) -> dict[str, Any]:
        langs = await languages(call)
        return {"success": True, "languages": langs, "count": len(langs)}

    # ----- errors ------------------------------------------------------------------------------------------------

    def error(spec: ToolSpec, err: DebugError, args: dict[str, Any]):
        """A malformed call is JSON-RPC -32602 and a control request on a missing session -32603, as the seed
        shows; every other failure is the application-level `{"success": false, "error": ...}`."""
        if isinstance(err, ArgumentError):
            raise MCPError(-32602, f"MCP error -32602: {err.message}", {"hint": err.hint} if err.hint else None)
        if err.code == ErrorCode.SESSION_NOT_FOUND and spec.name in FAILED_TO:
            raise MCPError(-32603, f"MCP error -32603: Failed to {FAILED_TO[spec.name]}: {err.message}")
        if err.code == ErrorCode.NOT_PAUSED and spec.name in CANNOT:
            payload = {
                "success": False,
                "error": "Session is not paused",
                "message": f"Cannot {CANNOT[spec.name]}. The session must be paused at a breakpoint.",
            }
        else:
            payload = {"success": False, "error": err.message}
            if err.hint:
                payload["message"] = err.hint
        return json_result(payload, is_error=True)

    def result(spec: ToolSpec, payload: Any):
        return json_result(payload)

    tools = [
        ToolSpec(
            "create_debug_session",
            "Create a new debugging session",
            {
                "language": prop("string", "Programming language for debugging (list_supported_languages)"),
                "name": prop("string", "Optional session name"),
                "executablePath": prop("string", "Path to the language interpreter/executable"),
                "host": prop("string", "With port: host of a running debug server to attach to (default 127.0.0.1)"),
                "port": prop("integer", "Attach at once to a debug server listening on this port"),
            },
            create_debug_session,
            ("language",),
        ),
        ToolSpec(
            "list_supported_languages",
            "List all supported debugging languages with metadata",
            {},
            list_supported_languages,
            read_only=True,
        ),
        ToolSpec("list_debug_sessions", "List all active debugging sessions", {}, list_debug_sessions, read_only=True),
        ToolSpec(
            "set_breakpoint",
            "Set a breakpoint. Returns the line's source context.",
            {
                "sessionId": SID,
                "file": prop("string", "Path to the source file (absolute or relative to the working directory)"),
                "line": prop("integer", "Line number where to set breakpoint (1-indexed)"),
                "condition": prop("string", "Optional condition for the breakpoint"),
            },
            set_breakpoint,
            ("sessionId", "file", "line"),
        ),
        ToolSpec(
            "start_debugging",
            "Start debugging a script",
            {
                "sessionId": SID,
                "scriptPath": prop("string", "Path to the script to debug"),
                "args": {"type": "array", "items": {"type": "string"}, "description": "Command line arguments"},
                "dapLaunchArgs": {
                    "type": "object",
                    "description": "DAP launch arguments: stopOnEntry, justMyCode (default true), cwd, env",
                    "properties": {
                        "stopOnEntry": {"type": "boolean"},
                        "justMyCode": {"type": "boolean"},
                        "cwd": {"type": "string"},
                        "env": {"type": "object", "additionalProperties": {"type": "string"}},
                    },
                    "additionalProperties": False,
                },
                "adapterLaunchConfig": prop("object", "Not supported by pairdbg (refused when given)"),
                "dryRunSpawn": prop("boolean", "Check the launch and report the command without starting anything"),
            },
            start_debugging,
            ("sessionId", "scriptPath"),
        ),
        ToolSpec(
            "close_debug_session", "Close a debugging session", {"sessionId": SID}, close_debug_session, ("sessionId",)
        ),
        ToolSpec("step_over", "Step over", {"sessionId": SID}, control("step_over", "Stepped over"), ("sessionId",)),
        ToolSpec("step_into", "Step into", {"sessionId": SID}, control("step_into", "Stepped into"), ("sessionId",)),
        ToolSpec("step_out", "Step out", {"sessionId": SID}, control("step_out", "Stepped out"), ("sessionId",)),
        ToolSpec(
            "continue_execution",
            "Continue execution (waits briefly for the next stop)",
            {"sessionId": SID},
            control("continue_execution", "Continued execution"),
            ("sessionId",),
        ),
        ToolSpec("pause_execution", "Pause execution", {"sessionId": SID}, pause_execution, ("sessionId",)),
        ToolSpec(
            "get_variables",
            "Get variables (scope is the variablesReference of a scope or variable)",
            {
                "sessionId": SID,
                "scope": prop("integer", "The variablesReference number from a scope or variable"),
            },
            get_variables,
            ("sessionId", "scope"),
            read_only=True,
        ),
        ToolSpec(
            "get_local_variables",
            "Get local variables of the current frame in one call",
            {
                "sessionId": SID,
                "includeSpecial": prop("boolean", "Include special/internal variables (default false)"),
            },
            get_local_variables,
            ("sessionId",),
            read_only=True,
        ),
        ToolSpec(
            "get_stack_trace", "Get stack trace", {"sessionId": SID}, get_stack_trace, ("sessionId",), read_only=True
        ),
        ToolSpec(
            "get_scopes",
            "Get scopes for a stack frame",
            {
                "sessionId": SID,
                "frameId": prop("integer", "The ID of the stack frame from get_stack_trace"),
            },
            get_scopes,
            ("sessionId", "frameId"),
            read_only=True,
        ),
        ToolSpec(
            "evaluate_expression",
            "Evaluate expression in the current debug context",
            {
                "sessionId": SID,
                "expression": prop("string", "Expression to evaluate"),
                "frameId": prop("integer", "Stack frame ID for context (default: the top frame)"),
            },
            evaluate_expression,
            ("sessionId", "expression"),
        ),
        ToolSpec(
            "get_source_context",
            "Get source context around a specific line in a file",
            {
                "sessionId": SID,
                "file": prop("string", "Path to the source file"),
                "line": prop("integer", "Line number to get context for (1-indexed)"),
                "linesContext": prop("integer", "Number of lines before and after to include (default: 5)"),
            },
            get_source_context,
            ("sessionId", "file", "line"),
            read_only=True,
        ),
        ToolSpec(
            "attach_to_process",
            "Attach to a running process's debug server (host:port)",
            {
                "sessionId": SID,
                "port": prop("integer", "Port the debug server listens on (python -m debugpy --listen PORT)"),
                "host": prop("string", "Host of the debug server (default 127.0.0.1)"),
                "processId": prop("integer", "Not supported by pairdbg (refused): attach by port"),
                "justMyCode": prop("boolean", "Python: steps skip library code (default true)"),
            },
            attach_to_process,
            ("sessionId",),
        ),
        ToolSpec(
            "detach_from_process",
            "Detach from an attached process",
            {
                "sessionId": SID,
                "terminateProcess": prop("boolean", "Also end the process (default false)"),
            },
            detach_from_process,
            ("sessionId",),
        ),
        ToolSpec(
            "list_threads",
            "List all threads in the debug session",
            {"sessionId": SID},
            list_threads,
            ("sessionId",),
            read_only=True,
        ),
    ]
    return Profile("mcp-debugger", INSTRUCTIONS, tools, result, error)


def default_executable(language: str) -> str | None:
    """What a program in `language` runs on when no executablePath is given (None: the program is the binary)."""
    try:
        return interpreter(language, None) or None
    except DebugError:
        return None


def interpreter(
    language: str, executable_path: str | None, program: str | None = None, *, module: bool = False, cwd=None
) -> str:
    """The program's interpreter, found the way a real start finds it (without `program`: the one named, else
    the first choice that does not depend on the program's folder)."""
    from pairdbg.backends import runtimes
    from pairdbg.backends.dap.python import choose_python

    if language == "python":
        # no program: looked for from the working folder, as for a module
        return choose_python(executable_path, program or "", module=module or program is None, cwd=cwd)[0]
    if language not in ("javascript", "typescript"):
        return ""  # an adapter profile's program is the executable itself
    try:
        return runtimes.find_bun() if language == "typescript" else runtimes.find_node()
    except runtimes.TargetMissing as exc:
        raise DebugError(ErrorCode.CONNECTION_FAILED, str(exc), hint="pairdbg install bun, or install Node") from None
