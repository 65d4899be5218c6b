"""Session actions: languages, start/attach/connect, launch.json, restart, list and close."""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, Field

from .. import factory
from ..errors import DebugError, ErrorCode
from ..hub import Hub, display_name
from . import render
from .common import WAIT, SessionParams, _outcome_reply
from .registry import Action, Reply


class NoParams(BaseModel):
    pass


async def list_supported_languages(hub: Hub, p: NoParams, actor: str) -> Reply:
    langs = factory.installed()
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
    language: str | None = Field(
        None,
        description="python, javascript, typescript, or a language an adapter profile serves (c, cpp, rust with "
        "lldb); default: by the program's extension (.js .mjs .cjs .jsx, .ts .mts .cts .tsx, else python)",
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
    spec = factory.LaunchSpec(**p.model_dump(exclude={"breakpoints", "wait_s"}))
    _, program, make = factory.launcher(spec)
    breakpoints = [bp.model_dump() for bp in p.breakpoints]
    session = await hub.create(make, display_name(program), breakpoints, actor)
    session.launch_args = p.model_dump()  # what restart_debugging starts again
    wait = hub.limits.default_wait_s if p.wait_s is None else p.wait_s
    outcome = await session.wait_for_stop(0, wait)
    hub.focus.of(actor).saw(outcome.report)
    reply = _outcome_reply(session, outcome, wait, actor)
    bps = [bp.view() for bp in session.breakpoints.values()]
    if bps:
        reply.text += "\nBreakpoints: " + "; ".join(render.breakpoint_line(b) for b in bps)
        reply.data["breakpoints"] = [b.model_dump(mode="json", exclude_none=True) for b in bps]
    started = f"Started {session.id} ({display_name(program)}, pid {session.backend.pid or '?'})"
    reply.text = started + "\n" + reply.text
    reply.headline = started + (f" · {reply.headline}" if reply.headline else "")
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
    local_root: str | None = Field(
        None, description="JavaScript: the local folder of the target's files (with remote_root; launch.json localRoot)"
    )
    remote_root: str | None = Field(
        None, description="JavaScript: where the target runs those files (a container, another host; remoteRoot)"
    )


async def attach(hub: Hub, p: AttachParams, actor: str) -> Reply:
    if (p.local_root is None) != (p.remote_root is None):
        raise DebugError(ErrorCode.INVALID_PARAMETERS, "give both local_root and remote_root, or neither")
    roots = (os.path.abspath(p.local_root), p.remote_root) if p.local_root and p.remote_root else None
    make = factory.attacher(p.target, p.language, p.backend, hub.limits.allowed_hosts, p.just_my_code, roots)
    session = await hub.create(make, f"attach {p.target}", [], actor)
    outcome = await session.wait_for_stop(0, p.wait_s or 0)
    hub.focus.of(actor).saw(outcome.report)
    reply = _outcome_reply(session, outcome, p.wait_s, actor)
    reply.text = f"Attached {session.id} to {p.target}\n" + reply.text
    return reply


class ConnectParams(BaseModel):
    websocket_url: str = Field(description="inspector WebSocket, e.g. ws://127.0.0.1:9229/<id> or Bun's banner URL")
    session_name: str | None = Field(None, description="a name to show for this session")
    wait_s: float | None = Field(1.0, ge=0, le=300)


async def connect_debugger(hub: Hub, p: ConnectParams, actor: str) -> Reply:
    make = factory.connector(p.websocket_url, hub.limits.allowed_hosts)
    session = await hub.create(make, p.session_name or p.websocket_url, [], actor)
    outcome = await session.wait_for_stop(0, p.wait_s or 0)
    hub.focus.of(actor).saw(outcome.report)
    reply = _outcome_reply(session, outcome, p.wait_s, actor)
    reply.text = f"Connected {session.id} to {p.websocket_url} ({session.backend.dialect.name})\n" + reply.text
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
    outcome = await session.wait_for_stop(0, wait)
    hub.focus.of(actor).saw(outcome.report)
    reply = _outcome_reply(session, outcome, wait, actor)
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
