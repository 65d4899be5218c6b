"""`--profile mcp-debugger`: the surface of mcp-debugger 0.24.2 (seed 002 is its older tool reference) over
pairdbg's actions.

camelCase arguments, `{"success": ...}` results as JSON text that never set isError (0.24.2 sets it nowhere),
numeric frame ids and variablesReferences (pairdbg's @fN and @vN handles carry the same numbers), and the `created`
state: a session created before a program is started is a record (mcp_debugger_records) until start_debugging or
attach_to_process makes it a real pairdbg session. The schemas are data (mcp_debugger_schemas); each handler below
is one tool, called with the profile's records, the call and its checked arguments."""

from __future__ import annotations

import functools
import os
import re
import uuid
from dataclasses import dataclass
from typing import Any

from mcp import MCPError

from pairdbg.backends import factory, queries
from pairdbg.backends.actions.registry import cut
from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.backends.hub import Hub
from pairdbg.backends.models import Phase
from pairdbg.backends.source import find_statement

from .common import ArgumentError, Call, Profile, ToolSpec, json_result, tool_specs
from .mcp_debugger_records import MAX_RECORDS, NAME_CHARS, STATES, Record, Sessions, now
from .mcp_debugger_schemas import TOOLS

INSTRUCTIONS = """\
pairdbg serving the mcp-debugger 0.24.2 tool surface. Workflow: create_debug_session(language) ->
set_breakpoint(sessionId, file, line | statement | function) -> start_debugging(sessionId, scriptPath) ->
get_stack_trace / get_local_variables / evaluate_expression -> step_over / step_into / step_out (each answers with
the new location) / continue_execution (answers at once; list_debug_sessions shows the next stop) ->
restart_debugging to run again with the same breakpoints -> close_debug_session. Lines are 1-based. A person may
share this session in pairdbg's terminal UI; re-read state instead of assuming it.
"""

#: what an action's outcome state means here
OUTCOME_STATES = {
    "paused": "paused",
    "running": "running",
    "terminated": "stopped",
    "disconnected": "stopped",
    "error": "error",
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
#: dapLaunchArgs pairdbg acts on; other keys are ignored with a warning, as 0.24.2 passes them to its adapter
DAP_LAUNCH_ARGS = {"stopOnEntry", "justMyCode", "cwd", "env"}
STEPPED = {
    "step_over": ("over", "Stepped over"),
    "step_into": ("into", "Stepped into"),
    "step_out": ("out", "Stepped out"),
}


def number(handle: str | None) -> int:
    """`@v12` -> 12, `@f3` -> 3; no handle -> 0 (DAP's "nothing to expand")."""
    if not handle:
        return 0
    digits = handle[2:]
    return int(digits) if digits.isdigit() else 0


def state_of(reply_state: str) -> str:
    return OUTCOME_STATES.get(reply_state, reply_state)


def whole_number(a: dict[str, Any], key: str) -> int | None:
    """A `number` argument that must be whole (a line, a frame id): 9.0 is 9, 9.5 is refused."""
    value = a.get(key)
    if value is None:
        return None
    if isinstance(value, float) and not value.is_integer():
        raise ArgumentError(f"{key} must be a whole number, got {value}", hint=f"pass {key} as an integer")
    return int(value)


# ----- languages ---------------------------------------------------------------------------------------------------


async def languages(call: Call) -> list[dict[str, Any]]:
    """One row per language: installed when any of its backends is, each backend with what it needs."""
    rows = (await call.run("list_supported_languages")).data["languages"]
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        entry = out.setdefault(
            row["language"],
            {
                "id": row["language"],
                "displayName": DISPLAY_NAMES.get(row["language"], row["language"].capitalize()),
                "requiresExecutable": row["language"] in ("python", "javascript", "typescript"),
                "installed": False,
                "backends": [],
            },
        )
        entry["installed"] = entry["installed"] or row["installed"]
        if row["installed"] and "defaultExecutable" not in entry:
            found = default_executable(row["language"])
            if found:
                entry["defaultExecutable"] = found
        entry["backends"].append({"backend": row["backend"], "installed": row["installed"], "detail": row["detail"]})
    return list(out.values())


async def list_supported_languages(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    langs = await languages(call)
    available = []
    for lang in langs:
        why = "; ".join(b["detail"] for b in lang["backends"] if not b["installed"] and b["detail"])
        launch: dict[str, Any] = {"supported": True, "available": lang["installed"]}
        if not lang["installed"] and why:
            launch["reason"] = why
        attach = {"supported": lang["id"] in ("python", "javascript", "typescript"), "available": lang["installed"]}
        available.append(
            {
                "language": lang["id"],
                "package": "pairdbg",
                "installed": lang["installed"],
                "description": ", ".join(b["backend"] for b in lang["backends"]),
                "modes": {"launch": launch, "attach": attach},
            }
        )
    return {
        "success": True,
        "installed": [lang["id"] for lang in langs if lang["installed"]],
        "available": available,
        "languages": langs,
        "count": len(langs),
    }


# ----- session lifecycle -------------------------------------------------------------------------------------------


async def create_debug_session(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    language = a["language"]
    known = await languages(call)
    if language not in {lang["id"] for lang in known}:
        raise ArgumentError(
            f"Invalid language: {language!r}", hint="supported: " + ", ".join(lang["id"] for lang in known)
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
    if a.get("port") is not None:  # attach mode, inline
        port = whole_number(a, "port")
        reply = await call.run("attach", target=f"{a.get('host') or '127.0.0.1'}:{port}", language=language)
        record.session_id = reply.data["session_id"]
        sessions.records[sid] = record
        return {
            "success": True,
            "sessionId": sid,
            "state": sessions.state(record, record.session_id),
            "message": f"Created and attached {language} debug session: {name}",
        }
    sessions.records[sid] = record
    call.announce(f"created {language} session {sid} ({name}); starts with start_debugging", summary=name)
    return {"success": True, "sessionId": sid, "message": f"Created {language} debug session: {name}"}


async def list_debug_sessions(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    rows = []
    mine = set()
    for record in sessions.records.values():
        mine.add(record.session_id)
        row: dict[str, Any] = {
            "id": record.id,
            "name": record.name,
            "language": record.language,
            "state": sessions.state(record, record.session_id),
            "createdAt": record.created_at,
            "updatedAt": record.updated_at,
        }
        rows.append(with_stop(sessions, row, record.session_id))
    for summary in (await call.run("list_debug_sessions")).data["sessions"]:
        if summary["session_id"] in mine:
            continue
        row = {
            "id": summary["session_id"],
            "name": summary["name"],
            "language": summary["language"],
            "state": STATES[Phase(summary["phase"])],
        }
        rows.append(with_stop(sessions, row, summary["session_id"]))
    return {"success": True, "sessions": rows, "count": len(rows)}


def with_stop(sessions: Sessions, row: dict[str, Any], session_id: str | None) -> dict[str, Any]:
    """A session row with lastStop while paused and exitCode once its program ended."""
    stop = sessions.last_stop(session_id)
    if stop is not None:
        row["lastStop"] = stop
    session = sessions.hub.sessions.get(session_id) if session_id else None
    if session is not None and session.exit_code is not None:
        row["exitCode"] = session.exit_code
    return row


async def close_debug_session(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    sid = a["sessionId"]
    try:
        record, session_id = sessions.find(sid)
    except DebugError:  # 0.24.2: not an error, a failed close
        return {"success": False, "message": f"Failed to close debug session: {cut(sid)}"}
    if session_id is not None and session_id in sessions.hub.sessions and not (record and record.detached):
        await call.run("close_debug_session", session_id=session_id, terminate=True)
    else:
        call.check("close_debug_session")
        call.announce(f"closed {sid} ({'never started' if session_id is None else 'its program had ended'})")
    sessions.records.pop(sid, None)
    return {"success": True, "message": f"Closed debug session: {sid}"}


# ----- breakpoints -------------------------------------------------------------------------------------------------


async def context_of(call: Call, file: str, line: int, around: int, session_id: str | None) -> dict[str, Any]:
    data = (await call.run("get_source_context", session_id=session_id, file=file, line=line, context=around)).data
    rows = data["lines"]
    current = next((r["text"] for r in rows if r["line"] == line), "")
    return {
        "file": data["file"],
        "lineContent": current,
        "surrounding": [{"line": r["line"], "content": r["text"]} for r in rows],
    }


def bare(text: str) -> str:
    """A line as expectedContent compares it: no surrounding spaces, no trailing # or // comment."""
    return re.sub(r"\s+(#|//).*$", "", text.strip()).strip()


def check_expected(expected: str, ctx: dict[str, Any], file: str, line: int) -> str | None:
    """None when the line is exactly `expected`, a warning when it only contains it; refuses a line without it."""
    want, have = bare(expected), bare(ctx["lineContent"])
    if want and want == have:
        return None
    if want and want in have:
        return f"expectedContent matched line {line} as part of {have[:120]!r}, not the whole line"
    shown = "\n".join(
        f"{'>' if s['line'] == line else ' '} {s['line']:>3} | {s['content']}" for s in ctx["surrounding"]
    )
    raise ArgumentError(
        f"Breakpoint not set: line {line} of {file} does not match expectedContent.\n"
        f"Expected: {expected[:120]!r}\nActual: {have[:120]!r}\n{shown}",
        hint="re-read the file and pass the line that holds it, or address it by statement",
    )


def check_breakpoint_arguments(a: dict[str, Any]) -> None:
    """The addressing rules of 0.24.2: a function alone (with a condition), or a file with line or statement."""
    if a.get("function") is not None:
        if a.get("file") is not None:
            raise ArgumentError("Function breakpoints are not file-scoped; omit file", hint="give function alone")
        if any(a.get(k) is not None for k in ("line", "statement", "expectedContent", "nearLine")):
            raise ArgumentError(
                "Provide function alone (optionally with condition): not with line, statement, expectedContent or "
                "nearLine",
                hint="one addressing per breakpoint",
            )
        if a.get("logMessage") is not None:
            raise ArgumentError("logMessage is not supported on function breakpoints", hint="use a line or statement")
        return
    if not a.get("file") or (a.get("line") is None and a.get("statement") is None):
        raise ArgumentError("Missing required parameters: file with line or statement, or function")
    if a.get("line") is not None and a.get("statement") is not None:
        raise ArgumentError("Provide statement OR line, not both", hint="nearLine picks among statement matches")
    if a.get("nearLine") is not None and a.get("statement") is None:
        raise ArgumentError("nearLine goes with statement", hint="give statement, or use line alone")
    if a.get("suspendPolicy") == "thread":
        raise DebugError(
            ErrorCode.CAPABILITY_UNSUPPORTED,
            "suspendPolicy 'thread' is Java-only; a stop here suspends every thread",
            hint="leave suspendPolicy out",
        )


def line_row(bp: dict[str, Any], client_id: str) -> dict[str, Any]:
    """A line breakpoint as list_breakpoints and remove_breakpoint show it."""
    row: dict[str, Any] = {"id": client_id, "file": bp.get("file"), "line": bp.get("line")}
    for mine, theirs in (("condition", "condition"), ("logMessage", "log_message")):
        if bp.get(theirs):
            row[mine] = bp[theirs]
    row["verified"] = bool(bp.get("verified"))
    row["requestedLine"] = bp.get("requested_line", bp.get("line"))
    if bp.get("anchor"):
        row["anchor"] = bp["anchor"]
    return row


def function_row(bp: dict[str, Any], client_id: str) -> dict[str, Any]:
    row: dict[str, Any] = {"id": client_id, "functionName": bp["function"], "verified": bool(bp.get("verified"))}
    if bp.get("condition"):
        row["condition"] = bp["condition"]
    return row


@dataclass
class Aim:
    """Where a line breakpoint goes: its file and line, the line's context, the statement it was found by."""

    file: str
    line: int
    context: dict[str, Any]
    anchor: dict[str, Any] | None
    warnings: list[str]


async def aim(call: Call, a: dict[str, Any], session_id: str | None) -> Aim:
    """The line `a` addresses (line, or statement near nearLine), checked against expectedContent; refuses a
    missing file, a line past its end, a statement no line holds, a line that does not hold expectedContent."""
    warnings: list[str] = []
    anchor = None
    if a.get("statement") is not None:
        found = (await call.run("get_source_context", session_id=session_id, file=a["file"], line=1, context=0)).data
        line, others = find_statement(found["file"], a["statement"], whole_number(a, "nearLine"))
        anchor = {"statement": a["statement"]}
        if others:
            warnings.append(f"statement also matches line{'s' if len(others) > 1 else ''} {others[:5]}")
    else:
        line = whole_number(a, "line") or 0
        if line < 1:
            raise ArgumentError(f"line {line}: lines are 1-indexed", hint="pass line >= 1")
    ctx = await context_of(call, a["file"], line, 2, session_id)
    if a.get("expectedContent") is not None:
        warning = check_expected(a["expectedContent"], ctx, ctx["file"], line)
        if warning:
            warnings.insert(0, warning)
    return Aim(ctx["file"], line, ctx, anchor, warnings)


async def set_breakpoint(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    check_breakpoint_arguments(a)
    record, session_id = sessions.find(a["sessionId"])
    if session_id is None and record is not None:
        return await record_breakpoint(sessions, call, record, a)
    session_id = sessions.live(a["sessionId"])
    aimed = await aim(call, a, session_id) if a.get("function") is None else None
    view = (
        await call.run(
            "set_breakpoint",
            session_id=session_id,
            file=aimed.file if aimed else None,
            line=aimed.line if aimed else None,
            function=a.get("function"),
            condition=a.get("condition"),
            log_message=a.get("logMessage"),
        )
    ).data
    client_id = record.client_id(view["id"]) if record else view["id"]
    if view.get("kind") == "function":
        out: dict[str, Any] = {"success": True, "breakpointId": client_id, "functionName": view["function"]}
        if view.get("condition"):
            out["condition"] = view["condition"]
        out["verified"] = bool(view.get("verified"))
        out["message"] = view.get("message") or f"Function breakpoint set on {view['function']}"
        return out
    requested = view["line"]
    line = view.get("actual_line") or requested
    ctx = await context_of(call, view.get("file") or a["file"], line, 2, session_id)
    assert aimed is not None  # a line breakpoint was aimed
    warnings = [*aimed.warnings, *([view["message"]] if view.get("message") else [])]
    if line != requested:
        warnings.append(f"Breakpoint moved by the debugger: requested line {requested}, bound to line {line}")
    return line_reply(client_id, ctx, line, requested, aimed.anchor, view, a, "set", warnings)


def line_reply(
    client_id: str,
    ctx: dict[str, Any],
    line: int,
    requested: int,
    anchor: dict[str, Any] | None,
    view: dict[str, Any],
    a: dict[str, Any],
    how: str,
    warnings: list[str],
) -> dict[str, Any]:
    kind = "Logpoint" if a.get("logMessage") is not None else "Breakpoint"
    out: dict[str, Any] = {
        "success": True,
        "breakpointId": client_id,
        "file": ctx["file"],
        "line": line,
        "requestedLine": requested,
    }
    if anchor:
        out["anchor"] = anchor
    out["content"] = ctx["lineContent"]
    out["verified"] = bool(view.get("verified"))
    if a.get("logMessage") is not None:
        out["logMessage"] = a["logMessage"]
    out["message"] = f"{kind} {how} at {ctx['file']}:{line}" + (
        " (set when the program starts)" if how == "recorded" else ""
    )
    if warnings:
        out["warning"] = "; ".join(warnings)
    out["context"] = {"lineContent": ctx["lineContent"], "surrounding": ctx["surrounding"]}
    return out


async def record_breakpoint(sessions: Sessions, call: Call, record: Record, a: dict[str, Any]) -> dict[str, Any]:
    """A breakpoint of a `created` session: kept until start_debugging sets it, under the id the session gives it."""
    call.check("set_breakpoint", condition=a.get("condition"), log_message=a.get("logMessage"))
    if len(record.pending) >= sessions.hub.limits.max_breakpoints:
        raise DebugError(
            ErrorCode.LIMIT_EXCEEDED,
            f"session {record.id} already records {len(record.pending)} breakpoints",
            hint="start the program, or raise limits.max_breakpoints",
        )
    if a.get("function") is not None:
        bp = {"id": record.next_pending_id(), "function": a["function"], "condition": a.get("condition")}
        record.pending.append(bp)
        record.updated_at = now()
        call.announce(
            f"function breakpoint {a['function']} recorded; set when the program starts", summary=a["function"]
        )
        out: dict[str, Any] = {"success": True, "breakpointId": bp["id"], "functionName": a["function"]}
        if a.get("condition"):
            out["condition"] = a["condition"]
        out.update(verified=False, message=f"Function breakpoint on {a['function']} recorded (set when it starts)")
        return out
    aimed = await aim(call, a, None)
    line, ctx, anchor, warnings = aimed.line, aimed.context, aimed.anchor, aimed.warnings
    bp = {
        "id": record.next_pending_id(),
        "file": ctx["file"],
        "line": line,
        **{k: v for k, v in (("condition", a.get("condition")), ("log_message", a.get("logMessage"))) if v},
    }
    if anchor:
        bp["anchor"] = anchor
    record.pending.append(bp)
    record.updated_at = now()
    call.announce(
        f"breakpoint {os.path.basename(ctx['file'])}:{line} recorded; set when the program starts",
        summary=f"{a['file']}:{line}",
    )
    return line_reply(bp["id"], ctx, line, line, anchor, {"verified": False}, a, "recorded", warnings)


async def breakpoint_rows(sessions: Sessions, call: Call, sid: str) -> tuple[Record | None, str | None, list[dict]]:
    """(record, pairdbg session, breakpoints as dicts with the client's id in "client_id")."""
    record, session_id = sessions.find(sid)
    if session_id is None:
        assert record is not None
        return record, None, [{**bp, "client_id": bp["id"]} for bp in record.pending]
    data = (await call.run("list_breakpoints", session_id=session_id)).data
    rows = [{**bp, "client_id": record.client_id(bp["id"]) if record else bp["id"]} for bp in data["breakpoints"]]
    return record, session_id, rows


def row_of(bp: dict[str, Any]) -> dict[str, Any]:
    return function_row(bp, bp["client_id"]) if bp.get("function") else line_row(bp, bp["client_id"])


def same_file(a: str | None, b: str | None) -> bool:
    return bool(a and b) and os.path.realpath(a) == os.path.realpath(b)  # type: ignore[arg-type]


async def list_breakpoints(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    _, _, rows = await breakpoint_rows(sessions, call, a["sessionId"])
    lines = [
        row_of(bp)
        for bp in rows
        if not bp.get("function") and (a.get("file") is None or same_file(bp.get("file"), a["file"]))
    ]
    out: dict[str, Any] = {"success": True, "breakpoints": lines, "count": len(lines)}
    if a.get("file") is None:
        functions = [row_of(bp) for bp in rows if bp.get("function")]
        out.update(functionBreakpoints=functions, functionCount=len(functions))
    return out


async def drop(call: Call, record: Record | None, session_id: str | None, bps: list[dict[str, Any]]) -> None:
    """Remove `bps` from the session, or from the record's pending list before the start."""
    if session_id is None:
        assert record is not None
        call.check("remove_breakpoint")
        gone = {bp["id"] for bp in bps}
        record.pending = [bp for bp in record.pending if bp["id"] not in gone]
        record.updated_at = now()
        if bps:
            call.announce(f"removed recorded breakpoint(s) {', '.join(sorted(gone))}")
        return
    for bp in bps:
        await call.run("remove_breakpoint", session_id=session_id, breakpoint_id=bp["id"])
        if record is not None:
            record.forget(bp["client_id"])


async def remove_breakpoint(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    if not a.get("breakpointId") and a.get("function") is None and (not a.get("file") or a.get("line") is None):
        raise ArgumentError("Provide breakpointId, function, or file and line together")
    record, session_id, rows = await breakpoint_rows(sessions, call, a["sessionId"])
    if a.get("breakpointId"):
        chosen = [bp for bp in rows if bp["client_id"] == a["breakpointId"]]
        missing = f"No breakpoint found with id {cut(a['breakpointId'])}"
    elif a.get("function") is not None:
        chosen = [bp for bp in rows if bp.get("function") == a["function"]]
        missing = f"No function breakpoint found for {cut(a['function'])}"
    else:
        line = whole_number(a, "line")
        chosen = [bp for bp in rows if bp.get("line") == line and same_file(bp.get("file"), a["file"])]
        missing = f"No breakpoint found at {cut(a['file'])}:{line}"
    if not chosen:
        return {"success": False, "error": missing}
    await drop(call, record, session_id, chosen)
    return {
        "success": True,
        "removed": [row_of(bp) for bp in chosen],
        "message": f"Removed {len(chosen)} breakpoint(s)",
    }


async def clear_breakpoints(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    record, session_id, rows = await breakpoint_rows(sessions, call, a["sessionId"])
    if a.get("file") is not None:
        rows = [bp for bp in rows if same_file(bp.get("file"), a["file"])]
    await drop(call, record, session_id, rows)
    files = sorted({bp["file"] for bp in rows if bp.get("file")})
    return {"success": True, "cleared": len(rows), "files": files, "message": f"Cleared {len(rows)} breakpoint(s)"}


# ----- start, restart, attach, detach, expose ------------------------------------------------------------------


def created(sessions: Sessions, sid: str) -> Record:
    record, session_id = sessions.find(sid)
    if record is None or session_id is not None:
        raise DebugError(
            ErrorCode.SESSION_INVALID_STATE,
            f"session {sid} is {sessions.state(record, session_id)}, not created: a program already runs in it",
            hint="restart_debugging runs it again; create_debug_session makes a new session for another program",
        )
    return record


async def start_debugging(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    call.check("start_debugging")  # a dry run too: it answers from the record, never through the registry
    record = created(sessions, a["sessionId"])
    dap = a.get("dapLaunchArgs") or {}
    warnings = []
    ignored = sorted(set(dap) - DAP_LAUNCH_ARGS)
    if ignored:
        warnings.append(
            f"dapLaunchArgs {', '.join(ignored)} ignored: pairdbg acts on {', '.join(sorted(DAP_LAUNCH_ARGS))}"
        )
    if a.get("adapterLaunchConfig"):
        warnings.append("adapterLaunchConfig ignored: pairdbg configures its adapters itself")
    script = a["scriptPath"]
    functions = [bp for bp in record.pending if bp.get("function")]
    lines = [bp for bp in record.pending if not bp.get("function")]
    stop_on_entry = bool(dap.get("stopOnEntry", False))
    launch = {
        "program": script,
        "language": record.language,
        "args": a.get("args") or [],
        "executable_path": record.executable_path,
        # function breakpoints are set at the first line, then the program goes on (a start takes line ones only)
        "stop_on_entry": stop_on_entry or bool(functions),
        "just_my_code": bool(dap.get("justMyCode", True)),
        "cwd": dap.get("cwd"),
        "env": dap.get("env") or {},
    }
    if a.get("dryRunSpawn"):
        return dry_run(call, record, {**launch, "stop_on_entry": stop_on_entry})
    breakpoints = [{k: bp[k] for k in ("file", "line", "condition", "log_message") if k in bp} for bp in lines]
    reply = await call.run(
        "start_debugging",
        breakpoints=breakpoints,
        pause_on_exceptions=a.get("breakOnExceptions") or "uncaught",
        **launch,
    )
    session_id = record.session_id = reply.data["session_id"]
    given = [bp["id"] for bp in reply.data.get("breakpoints", [])]
    record.aliases = {bp["id"]: real for bp, real in zip(lines, given, strict=False) if bp["id"] != real}
    record.pending = []
    for bp in functions:
        if reply.data["state"] != "paused":
            warnings.append(f"function breakpoint {bp['function']} not set: the program ended before its first line")
            continue
        view = (
            await call.run(
                "set_breakpoint", session_id=session_id, function=bp["function"], condition=bp.get("condition")
            )
        ).data
        if view["id"] != bp["id"]:
            record.aliases[bp["id"]] = view["id"]
    if functions and not stop_on_entry and reply.data["state"] == "paused":
        reply = await call.run("continue_execution", session_id=session_id)
    record.updated_at = now()
    state = state_of(reply.data["state"])
    message = f"Debugging started for {script}. Current state: {state}"
    data: dict[str, Any] = {"message": message}
    stop = reply.data.get("stop")
    if stop:
        data["reason"] = stop["reason"]
    data["stopOnEntrySuccessful"] = bool(stop_on_entry and stop and stop["reason"] == "entry")
    if reply.data.get("exit_code") is not None:
        data["exitCode"] = reply.data["exit_code"]
    out: dict[str, Any] = {"success": True, "state": state, "message": message, "data": data}
    if warnings:
        out["warning"] = "; ".join(warnings)
    return out


def dry_run(call: Call, record: Record, launch: dict[str, Any]) -> dict[str, Any]:
    """What start_debugging would run, checked the way a real start is (program, language, interpreter), with nothing
    spawned."""
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


async def restart_debugging(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    record, _ = sessions.find(a["sessionId"])
    session_id = sessions.live(a["sessionId"])
    before = sessions.hub.get(session_id).output.cursor  # the seq the new launch's first output gets
    reply = await call.run("restart_debugging", session_id=session_id)
    if record is not None:  # get_output starts at this launch's output, as 0.24.2's fresh buffer does
        record.output_from = before
    state = state_of(reply.data["state"])
    message = f"Debugging restarted. Current state: {state}"
    data: dict[str, Any] = {"message": message}
    if reply.data.get("stop"):
        data["reason"] = reply.data["stop"]["reason"]
    data["stopOnEntrySuccessful"] = bool(reply.data.get("stop")) and reply.data["stop"]["reason"] == "entry"
    data["breakpointsReapplied"] = len(reply.data.get("breakpoints", []))
    data["outputReset"] = record is not None
    return {"success": True, "state": state, "message": message, "data": data}


async def attach_to_process(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    record = created(sessions, a["sessionId"])
    if a.get("processId") is not None:
        raise DebugError(
            ErrorCode.CAPABILITY_UNSUPPORTED,
            "attaching by processId is not supported: pairdbg attaches to a debug server's port",
            hint="start the program with `python -m debugpy --listen 127.0.0.1:5678 prog.py` (or node --inspect), "
            "then attach_to_process(sessionId, port=5678)",
        )
    if a.get("port") is None:
        raise ArgumentError("attach_to_process needs port", hint="e.g. port=5678")
    host, port = a.get("host") or "127.0.0.1", whole_number(a, "port")
    reply = await call.run(
        "attach", target=f"{host}:{port}", language=record.language, just_my_code=a.get("justMyCode")
    )
    session_id = record.session_id = reply.data["session_id"]
    record.updated_at = now()
    if a.get("breakOnExceptions") and a["breakOnExceptions"] != "none":
        await call.run("set_pause_on_exceptions", session_id=session_id, mode=a["breakOnExceptions"])
    if a.get("stopOnEntry") and reply.data["state"] == "running":
        reply = await call.run("pause_execution", session_id=session_id)
    state = state_of(reply.data["state"])
    return {"success": True, "state": state, "message": f"Attached to {host}:{port}. Current state: {state}"}


async def detach_from_process(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    record, _ = sessions.find(a["sessionId"])
    session_id = sessions.live(a["sessionId"])
    terminate = bool(a.get("terminateProcess", False))
    await call.run("close_debug_session", session_id=session_id, terminate=terminate)
    if record is not None:
        record.detached = True
    message = "Terminated process and detached" if terminate else "Detached from process"
    return {"success": True, "state": "stopped", "message": message}


async def expose_session(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    """pairdbg has no DAP mirror: the same session is shared live in its terminal UI instead. 0.24.2's failed
    expose answer, saying so."""
    record, session_id = sessions.find(a["sessionId"])
    return {
        "success": False,
        "state": sessions.state(record, session_id),
        "error": "expose_session is not supported by pairdbg: it has no read-only DAP mirror; a person follows and "
        "drives this same session in pairdbg's terminal UI (`pairdbg`, then the agent joins it)",
    }


async def unexpose_session(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    record, session_id = sessions.find(a["sessionId"])
    return {
        "success": True,
        "state": sessions.state(record, session_id),
        "wasExposed": False,
        "message": "Session was not exposed: nothing to close",
    }


async def redefine_classes(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    sessions.find(a["sessionId"])
    return {
        "success": False,
        "error": "redefine_classes needs a Java session; pairdbg debugs Python, JavaScript and TypeScript",
    }


# ----- execution ---------------------------------------------------------------------------------------------------


async def step(sessions: Sessions, call: Call, a: dict[str, Any], tool: str) -> dict[str, Any]:
    _, message = STEPPED[tool]
    reply = await call.run(tool, session_id=sessions.live(a["sessionId"]))
    out: dict[str, Any] = {"success": True, "message": message, "state": state_of(reply.data["state"])}
    if reply.data.get("pending"):
        out["pending"] = True
        out["message"] = f"{message}; the step is still running (the session pauses when it completes)"
    stop = reply.data.get("stop")
    where = stop["location"] if stop else None
    if where and where.get("file") and where.get("line"):
        out["location"] = {"file": where["file"], "line": where["line"], "column": where.get("column") or 1}
        try:
            ctx = await context_of(call, where["file"], where["line"], 2, reply.data["session_id"])
            out["context"] = {"lineContent": ctx["lineContent"], "surrounding": ctx["surrounding"]}
        except DebugError:
            pass  # a location without readable source (generated code) has no context, as in 0.24.2
    return out


async def continue_execution(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    """Answers once the program is resumed, without waiting for the next stop (0.24.2 does the same)."""
    await call.run("continue_execution", session_id=sessions.live(a["sessionId"]), wait_s=0)
    return {"success": True, "message": "Continued execution"}


async def pause_execution(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    session_id = sessions.live(a["sessionId"])
    session = sessions.hub.sessions.get(session_id)
    if session is not None and session.phase == Phase.PAUSED:
        return {"success": True, "state": "paused", "data": {"message": "Already paused"}}
    reply = await call.run("pause_execution", session_id=session_id)
    out: dict[str, Any] = {
        "success": True,
        "state": state_of(reply.data["state"]),
        "data": {"message": "Execution paused"},
    }
    if reply.data.get("pending"):
        out["pending"] = True
    return out


# ----- inspection --------------------------------------------------------------------------------------------------


async def get_stack_trace(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    session_id = sessions.live(a["sessionId"])
    internals = bool(a.get("includeInternals", False))
    data = (await call.run("get_call_stack", session_id=session_id, count=200, include_library=internals)).data
    frames = [
        {
            "id": sessions.frame_number(session_id, f["handle"]),
            "name": f["function"],
            "file": f.get("file"),
            "line": f.get("line"),
            "column": f.get("column"),
        }
        for f in data["frames"]
    ]
    last = sessions.last_stop(session_id)
    out: dict[str, Any] = {
        "success": True,
        "stackFrames": frames,
        "count": len(frames),
        "includeInternals": internals,
        "stopReason": last["reason"] if last else None,
        "lastStop": last,
    }
    hidden = sum(g["count"] for g in data.get("hidden_frames", []))
    if hidden:
        out["hiddenFrames"] = hidden
        out["note"] = f"{hidden} library frame(s) hidden; pass includeInternals: true to see them."
    return out


async def get_scopes(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    session_id = sessions.live(a["sessionId"])
    frame = sessions.frame_handle(session_id, whole_number(a, "frameId") or 0)
    data = (await call.run("get_scopes", session_id=session_id, frame=frame)).data
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


def not_found(names: list[str] | None, variables: list[dict[str, Any]]) -> dict[str, Any]:
    if names is None:
        return {}
    have = {v["name"] for v in variables}
    return {"notFound": [n for n in names if n not in have]}


async def get_variables(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    scope = whole_number(a, "scope")
    data = (
        await call.run(
            "get_variables", session_id=sessions.live(a["sessionId"]), ref=f"@v{scope}", count=500, names=a.get("names")
        )
    ).data
    variables = [variable(v) for v in data["variables"]]
    out = {"success": True, "variables": variables, "count": len(variables), "variablesReference": scope}
    out.update(not_found(a.get("names"), variables))
    if data["total"] > len(variables) and a.get("names") is None:
        out["total"] = data["total"]
    return out


async def get_local_variables(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    session_id = sessions.live(a["sessionId"])
    special = bool(a.get("includeSpecial", False))
    data = (await call.run("get_local_variables", session_id=session_id, include_special=special, count=500)).data
    session = sessions.hub.get(session_id)
    stop = queries.stop_context(session).stop
    top = stop.stack[0] if stop and stop.stack else None
    scopes = await queries.scopes(session, "@f0")
    names = a.get("names")
    # pairdbg leaves dunder names out; the seed's JavaScript policy leaves out `this` and `__proto__` too
    variables = [
        variable(v)
        for v in data["variables"]
        if (special or v["name"] not in JS_SPECIAL) and (names is None or v["name"] in names)
    ]
    out: dict[str, Any] = {
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
    out.update(not_found(names, variables))
    if not variables and names is None:
        out["message"] = f"The {out['scopeName'] or 'local'} scope is empty."
    return out


async def evaluate_expression(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    session_id = sessions.live(a["sessionId"])
    frame = whole_number(a, "frameId")
    data = (
        await call.run(
            "evaluate_expression",
            session_id=session_id,
            expression=a["expression"],
            frame=None if frame is None else sessions.frame_handle(session_id, frame),
        )
    ).data
    return {
        "success": True,
        "result": data["value"],
        "type": data.get("type") or "",
        "variablesReference": number(data.get("handle")),
    }


async def get_source_context(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    _, session_id = sessions.find(a["sessionId"])
    around = whole_number(a, "linesContext")
    around = 5 if around is None else around
    line = whole_number(a, "line") or 0
    ctx = await context_of(call, a["file"], line, around, session_id)
    return {
        "success": True,
        "file": ctx["file"],
        "line": line,
        "lineContent": ctx["lineContent"],
        "surrounding": ctx["surrounding"],
        "contextLines": around,
    }


async def list_threads(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    data = (await call.run("list_threads", session_id=sessions.live(a["sessionId"]))).data
    return {"success": True, "threads": [{"id": t["id"], "name": t["name"]} for t in data["threads"]]}


async def get_output(sessions: Sessions, call: Call, a: dict[str, Any]) -> dict[str, Any]:
    record, session_id = sessions.find(a["sessionId"])
    if session_id is None:  # never launched: 0.24.2's buffer is empty until the first launch
        return {
            "success": True,
            "sessionId": a["sessionId"],
            "entries": [],
            "nextSince": 0,
            "hasMore": False,
            "dropped": 0,
        }
    since = max(whole_number(a, "since") or 0, record.output_from if record else 0)
    limit = min(max(whole_number(a, "limit") or 100, 1), 1000)
    data = (await call.run("get_output", session_id=session_id, since=since, limit=limit)).data
    entries = [{"seq": e["seq"], "category": e["category"], "output": e["text"]} for e in data["entries"]]
    return {
        "success": True,
        "sessionId": a["sessionId"],
        "entries": entries,
        "nextSince": data["next_since"],
        "hasMore": data["has_more"],
        "dropped": data["dropped"],
    }


HANDLERS = {
    "create_debug_session": create_debug_session,
    "list_supported_languages": list_supported_languages,
    "list_debug_sessions": list_debug_sessions,
    "set_breakpoint": set_breakpoint,
    "list_breakpoints": list_breakpoints,
    "remove_breakpoint": remove_breakpoint,
    "clear_breakpoints": clear_breakpoints,
    "start_debugging": start_debugging,
    "restart_debugging": restart_debugging,
    "attach_to_process": attach_to_process,
    "detach_from_process": detach_from_process,
    "expose_session": expose_session,
    "unexpose_session": unexpose_session,
    "close_debug_session": close_debug_session,
    "step_over": functools.partial(step, tool="step_over"),
    "step_into": functools.partial(step, tool="step_into"),
    "step_out": functools.partial(step, tool="step_out"),
    "continue_execution": continue_execution,
    "pause_execution": pause_execution,
    "list_threads": list_threads,
    "get_variables": get_variables,
    "get_local_variables": get_local_variables,
    "get_stack_trace": get_stack_trace,
    "get_scopes": get_scopes,
    "evaluate_expression": evaluate_expression,
    "get_source_context": get_source_context,
    "get_output": get_output,
    "redefine_classes": redefine_classes,
}


# ----- results and errors ------------------------------------------------------------------------------------------


def error(spec: ToolSpec, err: DebugError, args: dict[str, Any]):
    """0.24.2's three answers: an unknown tool is JSON-RPC -32601, a malformed call -32602, and every other failure
    the application-level `{"success": false, "error": ...}` without isError."""
    if spec.name not in TOOLS:
        raise MCPError(-32601, f"MCP error -32601: Unknown tool: {spec.name}")
    if isinstance(err, ArgumentError):
        raise MCPError(-32602, f"MCP error -32602: {err.message}", {"hint": err.hint} if err.hint else None)
    if err.code == ErrorCode.NOT_PAUSED and spec.name in CANNOT:
        payload = {
            "success": False,
            "error": "Session is not paused",
            "message": f"Cannot {CANNOT[spec.name]}. The session must be paused at a breakpoint.",
        }
    else:  # 0.24.2's failures carry error alone: what to do next goes in the same line
        payload = {"success": False, "error": err.message + (f" (next: {err.hint})" if err.hint else "")}
    return json_result(payload)


def result(spec: ToolSpec, payload: Any):
    return json_result(payload)


def build(hub: Hub) -> Profile:
    sessions = Sessions(hub)
    handlers = {name: functools.partial(handler, sessions) for name, handler in HANDLERS.items()}
    return Profile("mcp-debugger", INSTRUCTIONS, tool_specs(TOOLS, handlers), result, error)


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
