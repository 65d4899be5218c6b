"""Session actions: languages, start/attach/connect, launch.json, restart, list and close."""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, Field

from ..dap.python import PythonAttach, PythonLaunch, debugpy_available, resolve_python
from ..errors import DebugError, ErrorCode
from ..hub import Hub, display_name
from . import render
from .common import WAIT, SessionParams, _outcome_reply
from .registry import Action, Reply


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
    just_my_code: bool = Field(
        True,
        description="Python: steps skip library code (breakpoints you set in a library still hit); false steps into it",
    )


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
        backend = PythonLaunch(
            program, p.args, p.cwd, p.env, python, p.stop_on_entry, just_my_code=p.just_my_code, module=p.module
        )
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
    just_my_code: bool = Field(True, description="Python: steps skip library code; false steps into it")


async def attach(hub: Hub, p: AttachParams, actor: str) -> Reply:
    if p.language == "python" and not p.target.startswith(("ws://", "http://")):
        host, sep, port_text = p.target.rpartition(":")
        if not sep or not port_text.isdigit():
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS, f"target {p.target!r} is not host:port", hint="e.g. 127.0.0.1:5678"
            )
        backend = PythonAttach(
            host or "127.0.0.1", int(port_text), p.just_my_code, allowed_hosts=hub.limits.allowed_hosts
        )
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
]
