"""The debugging actions: sessions, breakpoints, execution control, inspection, output and watches."""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, Field

from ..dap.python import PythonAttach, PythonLaunch, debugpy_available, resolve_python
from ..errors import DebugError, ErrorCode
from ..hub import Hub, display_name
from ..models import Phase
from ..session import ExecOutcome, Session
from ..source import is_url, lines_of
from . import render
from .registry import Action, Reply

SID = Field(description="session id from start_debugging / list_debug_sessions, e.g. S1")
WAIT = Field(None, ge=0, le=300, description="seconds to wait for the next stop (default 10)")


class SessionParams(BaseModel):
    session_id: str = SID


def _outcome_reply(session: Session, o: ExecOutcome, waited: float | None, actor: str) -> Reply:
    if o.report is not None:
        session.seen_stop[actor] = max(session.seen_stop.get(actor, 0), o.report.stop_number)
    data: dict = {"session_id": session.id, "state": o.state, "pending": o.pending and o.state == "running"}
    if o.report is not None:
        data["stop"] = o.report.model_dump(mode="json", exclude_none=True)
    if o.exit_code is not None:
        data["exit_code"] = o.exit_code
    if o.detail:
        data["detail"] = o.detail
    if o.output_tail:
        data["output_tail"] = o.output_tail
    return Reply(render.outcome(o, session.id, waited), data)


# ----- languages and sessions ----------------------------------------------------------------------------------


class NoParams(BaseModel):
    pass


def _runtime_status(find) -> tuple[bool, str]:
    from ..inspector.targets import TargetMissing

    try:
        return True, find()
    except TargetMissing as exc:
        return False, f"not installed: {exc.how_to_install}"


async def list_supported_languages(hub: Hub, p: NoParams, actor: str) -> Reply:
    from ..inspector.targets import find_bun, find_chromium, find_minibrowser, find_node

    ok, why = debugpy_available()
    node_ok, node = _runtime_status(find_node)
    bun_ok, bun = _runtime_status(find_bun)
    langs = [
        {"language": "python", "backend": "dap (debugpy)", "installed": ok, "detail": why},
        {"language": "javascript", "backend": "inspector (node)", "installed": node_ok, "detail": node},
        {"language": "javascript", "backend": "inspector (bun)", "installed": bun_ok, "detail": bun},
        {"language": "typescript", "backend": "inspector (bun)", "installed": bun_ok, "detail": bun},
    ]
    for name, find in (("chromium page", find_chromium), ("webkitgtk page", find_minibrowser)):
        present, detail = _runtime_status(find)
        langs.append(
            {"language": "javascript", "backend": f"inspector attach ({name})", "installed": present, "detail": detail}
        )
    text = "\n".join(
        f"{lang['language']:<11} {lang['backend']:<33} {'ready' if lang['installed'] else 'unavailable'}: "
        f"{lang['detail']}"
        for lang in langs
    )
    return Reply(text, {"languages": langs})


class BreakpointArg(BaseModel):
    file: str = Field(description="path of the source file")
    line: int = Field(ge=1, description="1-based line")
    condition: str | None = None
    hit_condition: str | None = None
    log_message: str | None = None


class StartParams(BaseModel):
    program: str = Field(description="path of the script to debug (or a module name with module=true)")
    language: str = Field(
        "python",
        description="python, javascript, typescript, or a language an adapter profile serves (c, cpp, rust with lldb)",
    )
    runtime: Literal["node", "bun"] | None = Field(
        None, description="JavaScript/TypeScript runtime (default: node for JavaScript, bun for TypeScript)"
    )
    backend: Literal["inspector", "dap"] | None = Field(
        None, description="JavaScript only: 'inspector' (default, direct) or 'dap' (VS Code's js-debug on Node)"
    )
    args: list[str] = Field(default_factory=list, description="command-line arguments for the program")
    cwd: str | None = Field(None, description="working directory (default: the program's folder)")
    env: dict[str, str] = Field(default_factory=dict, description="extra environment variables")
    executable_path: str | None = Field(None, description="Python only: the python to run it with")
    module: bool = Field(False, description="Python only: run `program` as a module (python -m)")
    stop_on_entry: bool = False
    breakpoints: list[BreakpointArg] = Field(default_factory=list, description="set before the first line runs")
    wait_s: float | None = Field(None, ge=0, le=300, description="seconds to wait for the first stop or the end")


async def start_debugging(hub: Hub, p: StartParams, actor: str) -> Reply:
    profile = None
    if p.language not in ("python", "javascript", "typescript"):  # checked first: the answer names what exists
        from ..dap.profile import load_profiles, profile_for

        profile = profile_for(p.language)
        if profile is None:
            known = sorted(
                {
                    "python",
                    "javascript",
                    "typescript",
                    *(lang for prof in load_profiles().values() for lang in prof.languages),
                }
            )
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                f"no debugger for language {p.language!r}",
                hint=f"languages: {', '.join(known)}; or add an adapter profile (see README)",
            )
    program = p.program
    if not p.module:
        program = os.path.abspath(os.path.expanduser(program))
        if not os.path.isfile(program):
            raise DebugError(
                ErrorCode.PATH_NOT_FOUND,
                f"program not found: {program}",
                hint="pass the path of an existing file (relative paths are from pairdbg's cwd)",
            )
    if p.cwd and not os.path.isdir(p.cwd):
        raise DebugError(ErrorCode.PATH_NOT_FOUND, f"cwd is not a directory: {p.cwd}")
    if profile is not None:
        from ..dap.profile import ProfileLaunch

        backend = ProfileLaunch(profile, p.language, program, p.args, p.cwd, p.env, p.stop_on_entry)
    elif p.language == "python":
        python = resolve_python(p.executable_path)
        backend = PythonLaunch(program, p.args, p.cwd, p.env, python, p.stop_on_entry, module=p.module)
    elif p.backend == "dap":
        from ..dap.jsdebug import JsDebugLaunch

        if p.language != "javascript" or (p.runtime or "node") != "node":
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                "backend='dap' (js-debug) debugs JavaScript on Node only",
                hint="use the default inspector backend for TypeScript or Bun",
            )
        backend = JsDebugLaunch(program, p.args, p.cwd, p.env, p.stop_on_entry)
    else:
        from ..inspector.launch import launch_js

        hub.check_capacity()
        runtime = p.runtime or ("bun" if p.language == "typescript" else "node")
        if p.language == "typescript" and runtime == "node":
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                "Node cannot run TypeScript files directly",
                hint="use runtime='bun', or compile to JavaScript with source maps and debug that",
            )
        backend = await launch_js(program, runtime, p.language, p.args, p.cwd, p.env, p.stop_on_entry)
    session = await hub.open(backend, display_name(program), [bp.model_dump() for bp in p.breakpoints], actor)
    session.launch_args = p.model_dump()  # what restart_debugging starts again
    wait = hub.limits.default_wait_s if p.wait_s is None else p.wait_s
    outcome = await session.wait_for_stop(0, wait)
    reply = _outcome_reply(session, outcome, wait, actor)
    bps = [bp.view() for bp in session.breakpoints.values()]
    if bps:
        reply.text += "\nBreakpoints: " + "; ".join(render.breakpoint_line(b) for b in bps)
        reply.data["breakpoints"] = [b.model_dump(mode="json", exclude_none=True) for b in bps]
    reply.text = f"Started {session.id} ({display_name(program)}, pid {backend.pid or '?'})\n" + reply.text
    return reply


class AttachParams(BaseModel):
    target: str = Field(
        description="host:port (Python: `python -m debugpy --listen`; JavaScript: an inspector "
        "such as node --inspect or chromium --remote-debugging-port), or a ws:// URL"
    )
    language: Literal["python", "javascript", "typescript"] = "python"
    backend: Literal["inspector", "dap"] | None = Field(
        None, description="JavaScript only: 'inspector' (default) or 'dap' (VS Code's js-debug)"
    )
    wait_s: float | None = Field(2.0, ge=0, le=300)


async def attach(hub: Hub, p: AttachParams, actor: str) -> Reply:
    if p.language == "python" and not p.target.startswith(("ws://", "http://")):
        host, sep, port_text = p.target.rpartition(":")
        if not sep or not port_text.isdigit():
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS, f"target {p.target!r} is not host:port", hint="e.g. 127.0.0.1:5678"
            )
        backend = PythonAttach(host or "127.0.0.1", int(port_text))
    elif p.backend == "dap":
        from ..dap.jsdebug import JsDebugAttach

        backend = JsDebugAttach(p.target, hub.limits.allowed_hosts)
    else:
        from ..inspector.launch import attach_js

        hub.check_capacity()
        backend = await attach_js(
            p.target, "javascript" if p.language == "python" else p.language, hub.limits.allowed_hosts
        )
    session = await hub.open(backend, f"attach {p.target}", [], actor)
    outcome = await session.wait_for_stop(0, p.wait_s or 0)
    reply = _outcome_reply(session, outcome, p.wait_s, actor)
    reply.text = f"Attached {session.id} to {p.target}\n" + reply.text
    return reply


class ConnectParams(BaseModel):
    websocket_url: str = Field(description="inspector WebSocket, e.g. ws://127.0.0.1:9229/<id> or Bun's banner URL")
    session_name: str | None = Field(None, description="a name to show for this session")
    wait_s: float | None = Field(1.0, ge=0, le=300)


async def connect_debugger(hub: Hub, p: ConnectParams, actor: str) -> Reply:
    from ..inspector.launch import connect_ws

    hub.check_capacity()
    backend = await connect_ws(p.websocket_url, hub.limits.allowed_hosts)
    session = await hub.open(backend, p.session_name or p.websocket_url, [], actor)
    outcome = await session.wait_for_stop(0, p.wait_s or 0)
    reply = _outcome_reply(session, outcome, p.wait_s, actor)
    reply.text = f"Connected {session.id} to {p.websocket_url} ({backend.dialect.name})\n" + reply.text
    return reply


class LaunchConfigParams(BaseModel):
    name: str = Field(description='the configuration\'s "name" in .vscode/launch.json')
    workspace: str | None = Field(None, description="folder holding .vscode/launch.json (default: pairdbg's cwd)")
    wait_s: float | None = Field(None, ge=0, le=300, description="seconds to wait for the first stop")


async def start_from_launch_config(hub: Hub, p: LaunchConfigParams, actor: str) -> Reply:
    from .. import launch_json

    workspace = os.path.abspath(p.workspace or os.getcwd())
    action, args = launch_json.to_action(launch_json.find(workspace, p.name), workspace)
    if action == "attach":
        return await attach(hub, AttachParams(**args), actor)
    if p.wait_s is not None:
        args["wait_s"] = p.wait_s
    return await start_debugging(hub, StartParams(**args), actor)


class WorkspaceParams(BaseModel):
    workspace: str | None = Field(None, description="folder holding .vscode/launch.json (default: pairdbg's cwd)")


async def list_launch_configs(hub: Hub, p: WorkspaceParams, actor: str) -> Reply:
    from .. import launch_json

    workspace = os.path.abspath(p.workspace or os.getcwd())
    rows = []
    for config in launch_json.load_configurations(workspace):
        try:
            action, args = launch_json.to_action(config, workspace)
            rows.append({"name": config.get("name"), "action": action, "arguments": args})
        except DebugError as exc:
            rows.append({"name": config.get("name"), "unsupported": exc.message})
    text = (
        "\n".join(
            f"{r['name']}: "
            + (
                f"unsupported ({r['unsupported']})"
                if "unsupported" in r
                else f"{r['action']} {r['arguments'].get('program') or r['arguments'].get('target')}"
            )
            for r in rows
        )
        or "launch.json has no configurations"
    )
    return Reply(text, {"workspace": workspace, "configurations": rows})


class RestartParams(SessionParams):
    wait_s: float | None = WAIT


async def restart_debugging(hub: Hub, p: RestartParams, actor: str) -> Reply:
    """End the program and start it again the same way, with the same breakpoints, watches and exception mode."""
    old = hub.get(p.session_id)
    launch = getattr(old, "launch_args", None)
    if launch is None:
        raise DebugError(
            ErrorCode.CAPABILITY_UNSUPPORTED,
            f"session {old.id} was attached, not launched by pairdbg",
            hint="restart the program yourself, then attach again",
        )
    breakpoints = [
        {
            k: v
            for k, v in (
                ("file", bp.file),
                ("line", bp.line),
                ("condition", bp.condition),
                ("hit_condition", bp.hit_condition),
                ("log_message", bp.log_message),
            )
            if v is not None
        }
        for bp in old.breakpoints.values()
        if bp.kind == "line"
    ]
    watches = [w.expression for w in old.watches.values()]
    mode = old.exception_mode
    await hub.close(old.id, terminate=True)
    args = {**launch, "breakpoints": breakpoints, "wait_s": 0}
    started = await start_debugging(hub, StartParams(**args), actor)
    session = hub.get(started.data["session_id"])
    if mode != "uncaught":
        await session.set_exception_mode(mode)
    for expression in watches:
        await session.add_watch(expression)
    wait = hub.limits.default_wait_s if p.wait_s is None else p.wait_s
    reply = _outcome_reply(session, await session.wait_for_stop(0, wait), wait, actor)
    reply.text = f"Restarted {old.id} as {session.id} (same program, breakpoints, watches)\n" + reply.text
    reply.data["previous_session_id"] = old.id
    return reply


async def list_debug_sessions(hub: Hub, p: NoParams, actor: str) -> Reply:
    summaries = [s.summary() for s in hub.sessions.values()]
    text = "\n".join(render.session_line(s) for s in summaries) or "No sessions. Call start_debugging to begin one."
    return Reply(text, {"sessions": [s.model_dump(mode="json", exclude_none=True) for s in summaries]})


class CloseParams(SessionParams):
    terminate: bool = Field(True, description="also end the program (false: detach and leave it running)")


async def close_debug_session(hub: Hub, p: CloseParams, actor: str) -> Reply:
    session = await hub.close(p.session_id, p.terminate)
    verb = "terminated" if p.terminate else "detached"
    return Reply(f"{session.id} closed ({verb})", {"session_id": session.id, "closed": True})


# ----- breakpoints ------------------------------------------------------------------------------------------------


class SetBreakpointParams(SessionParams):
    file: str | None = Field(None, description="source file (absolute, or relative to pairdbg's cwd)")
    line: int | None = Field(None, ge=1, description="1-based line")
    function: str | None = Field(None, description="function name, instead of file+line")
    condition: str | None = Field(None, description="stop only when this expression is true")
    hit_condition: str | None = Field(None, description="e.g. '>5' or '3'")
    log_message: str | None = Field(None, description="log this (with {expr} parts) instead of stopping")


async def set_breakpoint(hub: Hub, p: SetBreakpointParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    if not p.function and (not p.file or not p.line):
        raise DebugError(ErrorCode.INVALID_PARAMETERS, "give file and line, or function")
    bp = session.new_breakpoint(p.file, p.line, p.function, p.condition, p.hit_condition, p.log_message, actor)
    await session.add_breakpoint(bp)
    view = bp.view()
    return Reply(
        render.breakpoint_line(view), {"session_id": session.id, **view.model_dump(mode="json", exclude_none=True)}
    )


class BreakpointIdParams(SessionParams):
    breakpoint_id: str = Field(description="BPn id from set_breakpoint / list_breakpoints")


async def remove_breakpoint(hub: Hub, p: BreakpointIdParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    bp = await session.remove_breakpoint(p.breakpoint_id)
    return Reply(f"removed {bp.id}", {"session_id": session.id, "removed": bp.id})


async def list_breakpoints(hub: Hub, p: SessionParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    views = [bp.view() for bp in session.breakpoints.values()]
    text = "\n".join(render.breakpoint_line(v) for v in views) or "No breakpoints."
    text += f"\nPause on exceptions: {session.exception_mode}"
    return Reply(
        text,
        {
            "session_id": session.id,
            "breakpoints": [v.model_dump(mode="json", exclude_none=True) for v in views],
            "exception_mode": session.exception_mode,
        },
    )


class ExceptionModeParams(SessionParams):
    mode: Literal["none", "uncaught", "all"] = Field(description="none, uncaught (default), or all raised exceptions")


async def set_pause_on_exceptions(hub: Hub, p: ExceptionModeParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    await session.set_exception_mode(p.mode)
    return Reply(f"{session.id} pauses on exceptions: {p.mode}", {"session_id": session.id, "mode": p.mode})


# ----- execution ---------------------------------------------------------------------------------------------------


class ControlParams(SessionParams):
    wait_s: float | None = WAIT


def _control(what: Literal["continue", "over", "into", "out"]):
    async def handler(hub: Hub, p: ControlParams, actor: str) -> Reply:
        session = hub.get(p.session_id)
        wait = hub.limits.default_wait_s if p.wait_s is None else p.wait_s
        return _outcome_reply(session, await session.control(what, actor, wait), wait, actor)

    return handler


async def pause_execution(hub: Hub, p: ControlParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    wait = 5.0 if p.wait_s is None else p.wait_s
    return _outcome_reply(session, await session.pause(actor, wait), wait, actor)


class WaitParams(SessionParams):
    timeout_s: float = Field(30, ge=0, le=600, description="how long to wait")
    after_stop: int | None = Field(
        None, ge=0, description="wait for a stop numbered higher than this (default: the last one you were shown)"
    )


async def wait_for_stop(hub: Hub, p: WaitParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    # A stop the caller has not been shown yet counts at once (e.g. the person stepped while the agent was
    # thinking); otherwise wait for a newer one. A caller that never saw a stop gets the current one.
    after = p.after_stop if p.after_stop is not None else session.seen_stop.get(actor)
    outcome = await session.wait_for_stop(after, p.timeout_s)
    reply = _outcome_reply(session, outcome, p.timeout_s, actor)
    if outcome.report is not None:
        new = after is None or outcome.report.stop_number > after
        reply.data["new_stop"] = new
        if not new:
            reply.text = (
                f"No new stop within {p.timeout_s:g}s; still paused at stop #{outcome.report.stop_number}:\n"
                + reply.text
            )
    return reply


# ----- inspection ---------------------------------------------------------------------------------------------------


class StackParams(SessionParams):
    thread_id: int | None = None
    start: int = Field(0, ge=0)
    count: int = Field(20, ge=1, le=200)


async def get_call_stack(hub: Hub, p: StackParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    session._require_paused()
    thread = p.thread_id or (session.last_stop.thread_id if session.last_stop else None) or 0
    frames, total = await session.backend.stack(thread, p.start, p.count)
    stopped_thread = session.last_stop.thread_id if session.last_stop else thread
    lines, data = [], []
    for i, f in enumerate(frames, start=p.start):
        # Handles name frames of the stopped thread; other threads' frames are listed by position only.
        handle = session.handles.frame(i, f.id) if thread == stopped_thread else f"#{i}"
        lines.append(f"{handle:<5} {f.name:<28} {render.where(f.file, f.line):<24} {f.file or ''}")
        data.append({"handle": handle, "function": f.name, "file": f.file, "line": f.line})
    if p.start + len(frames) < total:
        lines.append(f"… {total - p.start - len(frames)} more frames; pass start={p.start + len(frames)}")
    return Reply(
        "\n".join(lines) or "no frames", {"session_id": session.id, "thread_id": thread, "frames": data, "total": total}
    )


class FrameParams(SessionParams):
    frame: str = Field("@f0", description="frame handle from the stop report or get_call_stack")


async def get_scopes(hub: Hub, p: FrameParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    session._require_paused()
    frame_id = session.handles.frame_id(p.frame)
    scopes = await session.backend.scopes(frame_id)
    views = [session.value_view(_scope_value(s), 0, frame_id) for s in scopes]
    text = "\n".join(f"{v.handle or '-':<6} {v.name}" + (f" ({v.value})" if v.value else "") for v in views)
    return Reply(
        text or "no scopes",
        {"session_id": session.id, "scopes": [v.model_dump(mode="json", exclude_none=True) for v in views]},
    )


def _scope_value(scope):
    from ..base import RawValue

    return RawValue(name=scope.name, value=f"{scope.named} names" if scope.named else "", ref=scope.ref)


class VariablesParams(SessionParams):
    ref: str = Field(description="a @vN handle (from a stop report, get_scopes or get_variables)")
    start: int = Field(0, ge=0)
    count: int = Field(50, ge=1, le=500)
    names: list[str] | None = Field(None, description="only these child names")


async def get_variables(hub: Hub, p: VariablesParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    views, total = await session.children(p.ref, p.start, p.count, p.names)
    text = f"{p.ref} ({total} children)\n" + "\n".join(render.variables_block(views, total, p.start))
    return Reply(
        text,
        {
            "session_id": session.id,
            "variables": [v.model_dump(mode="json", exclude_none=True) for v in views],
            "total": total,
            "start": p.start,
        },
    )


class LocalsParams(FrameParams):
    include_special: bool = Field(False, description="include dunder names")
    count: int = Field(100, ge=1, le=500)


async def get_local_variables(hub: Hub, p: LocalsParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    session._require_paused()
    frame_id = session.handles.frame_id(p.frame)
    views, total = await session.frame_locals(frame_id, p.count, p.include_special)
    text = f"Locals of {p.frame} ({total}):\n" + "\n".join(render.variables_block(views, total))
    return Reply(
        text,
        {
            "session_id": session.id,
            "frame": p.frame,
            "variables": [v.model_dump(mode="json", exclude_none=True) for v in views],
            "total": total,
        },
    )


class EvaluateParams(SessionParams):
    expression: str = Field(description="expression in the program's language")
    frame: str | None = Field(
        None,
        description="frame handle (default @f0, the top frame); 'global' for the global scope (JavaScript, "
        "also while the program runs)",
    )
    return_by_value: bool = Field(False, description="JavaScript: return the whole value as JSON, not a handle")


async def evaluate_expression(hub: Hub, p: EvaluateParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    view = await session.evaluate(p.expression, p.frame, p.return_by_value)
    handle = f"  {view.handle} to expand" if view.handle else ""
    text = f"{p.expression} = {view.value}" + (f"  ({view.type})" if view.type else "") + handle
    return Reply(text, {"session_id": session.id, **view.model_dump(mode="json", exclude_none=True)})


class SetVariableParams(SessionParams):
    name: str = Field(description="variable (or member) name")
    value: str = Field(description="new value, as an expression")
    ref: str | None = Field(None, description="@vN of the container holding it; else looked up in `frame`")
    frame: str | None = Field(None, description="frame handle (default @f0)")


async def set_variable_value(hub: Hub, p: SetVariableParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    view = await session.set_variable(p.name, p.value, p.ref, p.frame)
    return Reply(
        f"{p.name} = {view.value}" + (f"  ({view.type})" if view.type else ""),
        {"session_id": session.id, **view.model_dump(mode="json", exclude_none=True)},
    )


class SourceParams(BaseModel):
    session_id: str | None = Field(None, description="optional; only used to default `file` to the current stop")
    file: str | None = Field(None, description="source file (default: where the session is stopped)")
    line: int | None = Field(None, ge=1)
    context: int = Field(5, ge=0, le=200)


async def get_source_context(hub: Hub, p: SourceParams, actor: str) -> Reply:
    file, line = p.file, p.line
    if (not file or not line) and p.session_id:
        session = hub.get(p.session_id)
        stop = session.last_stop if session.phase == Phase.PAUSED else None  # an old stop is not "where it is"
        if stop is not None:
            file, line = file or stop.location.file, line or stop.location.line
    if not file:
        raise DebugError(ErrorCode.INVALID_PARAMETERS, "give file (and line), or a paused session_id")
    path = file if is_url(file) else os.path.abspath(os.path.expanduser(file))
    lines = lines_of(path)
    line = line or 1
    if line > len(lines):
        raise DebugError(ErrorCode.INVALID_PARAMETERS, f"line {line} is past the end of {path} ({len(lines)} lines)")
    lo, hi = max(1, line - p.context), min(len(lines), line + p.context)
    rows = [{"line": n, "text": lines[n - 1], "current": n == line} for n in range(lo, hi + 1)]
    text = f"{path}\n" + "\n".join(f"{'>' if r['current'] else ' '}{r['line']:>5}| {r['text']}" for r in rows)
    return Reply(text, {"file": path, "lines": rows, "total_lines": len(lines)})


async def list_threads(hub: Hub, p: SessionParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    if session.phase.ended:
        raise session._ended_error()
    threads = await session.backend.threads()
    current = session.last_stop.thread_id if session.last_stop else None
    text = "\n".join(f"{'*' if t == current else ' '} {t:<6} {name}" for t, name in threads) or "no threads"
    return Reply(
        text, {"session_id": session.id, "threads": [{"id": t, "name": n} for t, n in threads], "current": current}
    )


class OutputParams(SessionParams):
    since: int = Field(0, ge=0, description="cursor: pass next_since from the previous call")
    limit: int = Field(100, ge=1, le=1000)
    category: str | None = Field(None, description="stdout, stderr, console, important")


async def get_output(hub: Hub, p: OutputParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    entries, next_since, has_more, dropped = session.output.read(p.since, p.limit, p.category)
    lines = [f"[{e.category}] {e.text.rstrip()}" for e in entries]
    head = f"{len(entries)} entries, next_since={next_since}" + (", has_more" if has_more else "")
    if dropped:
        head += f", {dropped} older entries were dropped"
    return Reply(
        head + ("\n" + "\n".join(lines) if lines else ""),
        {
            "session_id": session.id,
            "entries": [e.model_dump() for e in entries],
            "next_since": next_since,
            "has_more": has_more,
            "dropped": dropped,
        },
    )


class WatchParams(SessionParams):
    expression: str


async def add_watch(hub: Hub, p: WatchParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    view = await session.add_watch(p.expression)
    return Reply(
        f"{view.id} {view.expression} = {view.value}", {"session_id": session.id, **view.model_dump(mode="json")}
    )


class WatchIdParams(SessionParams):
    watch_id: str = Field(description="Wn id from add_watch")


async def remove_watch(hub: Hub, p: WatchIdParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    watch = session.remove_watch(p.watch_id)
    return Reply(f"removed {watch.id}", {"session_id": session.id, "removed": watch.id})


ACTIONS = [
    Action(
        "list_supported_languages",
        "Languages pairdbg can debug, whether each is ready here, and why not.",
        NoParams,
        list_supported_languages,
        "Supported languages",
        read_only=True,
        quiet=True,
    ),
    Action(
        "start_debugging",
        "Launch a program under the debugger (Python on debugpy; JavaScript on Node, TypeScript on Bun). Returns "
        "the session id and the first stop report (breakpoints, stop_on_entry, or an uncaught exception), or "
        "state running.",
        StartParams,
        start_debugging,
        "Start debugging a program",
    ),
    Action(
        "attach",
        "Attach to a running program: Python under `python -m debugpy --listen host:port`, or with "
        "language='javascript' a JavaScript inspector at host:port (Node --inspect, Chromium, WebKitGTK).",
        AttachParams,
        attach,
        "Attach to host:port",
    ),
    Action(
        "connect_debugger",
        "Connect to an inspector WebSocket URL (Bun's banner URL, Node, a Chromium or WebKitGTK page).",
        ConnectParams,
        connect_debugger,
        "Connect to an inspector WebSocket",
    ),
    Action(
        "start_from_launch_config",
        "Start (or attach) from a configuration in .vscode/launch.json, by name (Python and Node/Bun configurations;"
        " ${workspaceFolder}-style variables are substituted).",
        LaunchConfigParams,
        start_from_launch_config,
        "Start from launch.json",
    ),
    Action(
        "list_launch_configs",
        "The configurations in .vscode/launch.json and what pairdbg would do with each.",
        WorkspaceParams,
        list_launch_configs,
        "List launch.json configurations",
        read_only=True,
        quiet=True,
    ),
    Action(
        "restart_debugging",
        "End a launched program and start it again with the same arguments, breakpoints, watches and exception "
        "mode; returns the new session id and its first stop report.",
        RestartParams,
        restart_debugging,
        "Restart",
    ),
    Action(
        "list_debug_sessions",
        "Sessions with their phase and where they are stopped.",
        NoParams,
        list_debug_sessions,
        "List sessions",
        read_only=True,
        quiet=True,
    ),
    Action(
        "close_debug_session",
        "End a session (terminate=false detaches and leaves the program running).",
        CloseParams,
        close_debug_session,
        "Close session",
    ),
    Action(
        "set_breakpoint",
        "Set a line breakpoint (file+line) or a function breakpoint, optionally with a "
        "condition, hit condition or log message. Returns its id, whether it is verified, the line it bound to "
        "and that line's source.",
        SetBreakpointParams,
        set_breakpoint,
        "Set breakpoint",
    ),
    Action(
        "remove_breakpoint", "Remove a breakpoint by id.", BreakpointIdParams, remove_breakpoint, "Remove breakpoint"
    ),
    Action(
        "list_breakpoints",
        "Breakpoints of a session and the pause-on-exceptions mode.",
        SessionParams,
        list_breakpoints,
        "List breakpoints",
        read_only=True,
        quiet=True,
    ),
    Action(
        "set_pause_on_exceptions",
        "Pause on none, uncaught (default) or all raised exceptions.",
        ExceptionModeParams,
        set_pause_on_exceptions,
        "Pause on exceptions",
    ),
    Action(
        "continue_execution",
        "Resume; wait up to wait_s for the next stop. Returns the stop report, or "
        "state running with pending=true, or the program's end.",
        ControlParams,
        _control("continue"),
        "Continue",
    ),
    Action(
        "step_over",
        "Step over the current line; returns the stop report.",
        ControlParams,
        _control("over"),
        "Step over",
    ),
    Action(
        "step_into",
        "Step into the call on the current line; returns the stop report.",
        ControlParams,
        _control("into"),
        "Step into",
    ),
    Action(
        "step_out",
        "Run until the current function returns; returns the stop report.",
        ControlParams,
        _control("out"),
        "Step out",
    ),
    Action(
        "pause_execution",
        "Interrupt the running program; returns the stop report.",
        ControlParams,
        pause_execution,
        "Pause",
    ),
    Action(
        "wait_for_stop",
        "Wait for a stop you have not been shown yet (at once if the program stopped since "
        "your last report, e.g. the person stepped), or say it is still running or has ended (exit code, "
        "output tail).",
        WaitParams,
        wait_for_stop,
        "Wait for stop",
        read_only=True,
    ),
    Action(
        "get_call_stack",
        "Frames of the stopped thread with @fN handles.",
        StackParams,
        get_call_stack,
        "Call stack",
        read_only=True,
    ),
    Action(
        "get_scopes",
        "Scopes of a frame, each with a @vN handle for get_variables.",
        FrameParams,
        get_scopes,
        "Scopes",
        read_only=True,
    ),
    Action(
        "get_variables",
        "Children of a @vN handle, paged (start, count) or picked by names.",
        VariablesParams,
        get_variables,
        "Variables",
        read_only=True,
    ),
    Action(
        "get_local_variables",
        "Locals of a frame in one call.",
        LocalsParams,
        get_local_variables,
        "Local variables",
        read_only=True,
    ),
    Action(
        "evaluate_expression",
        "Evaluate an expression in a frame of the paused program.",
        EvaluateParams,
        evaluate_expression,
        "Evaluate",
    ),
    Action(
        "set_variable_value",
        "Assign a new value to a variable in a frame or container.",
        SetVariableParams,
        set_variable_value,
        "Set variable",
    ),
    Action(
        "get_source_context",
        "Numbered source lines around a line (default: the current stop).",
        SourceParams,
        get_source_context,
        "Source context",
        read_only=True,
        quiet=True,
    ),
    Action("list_threads", "Threads of the program.", SessionParams, list_threads, "Threads", read_only=True),
    Action(
        "get_output",
        "Program output since a cursor: entries, next_since, has_more, dropped.",
        OutputParams,
        get_output,
        "Program output",
        read_only=True,
        quiet=True,
    ),
    Action(
        "add_watch",
        "Watch an expression; its value appears in every stop report, marked when it changed.",
        WatchParams,
        add_watch,
        "Add watch",
    ),
    Action("remove_watch", "Stop watching an expression.", WatchIdParams, remove_watch, "Remove watch"),
]
