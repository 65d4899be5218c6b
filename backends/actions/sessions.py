"""Session actions: languages, start/attach/connect, launch.json, restart, list and close."""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .. import factory
from ..errors import DebugError, ErrorCode
from ..hub import Hub, display_name
from ..policy import MODE_SAYS, AgentMode, Level
from . import render
from .common import WAIT, SessionParams, _outcome_reply
from .registry import Action, Reply


class NoParams(BaseModel):
    pass


async def list_supported_languages(hub: Hub, p: NoParams, actor: str) -> Reply:
    langs = factory.installed()
    rows = [
        f"{lang['language']:<11} {lang['backend']:<33} {'ready' if lang['installed'] else 'missing'}: "
        + (lang["detail"] if lang["installed"] else lang["install"] or lang["detail"])
        for lang in langs
    ]
    ready = sorted({lang["language"] for lang in langs if lang["installed"]})
    missing = sorted({lang["language"] for lang in langs if not lang["installed"]} - set(ready))
    rows.append(f"Ready now: {', '.join(ready) or 'none'}" + (f"; not yet: {', '.join(missing)}" if missing else ""))
    apps = {"bridge": "web pages running the debug-bridge SDK (get_bridge_info)", "rn": "React Native apps"}
    connect = [text for name, text in apps.items() if any(s.name == name for s in hub.services)]
    if connect:
        rows.append("Also connecting to pairdbg: " + "; ".join(connect) + " (their tools are listed once one connects)")
    return Reply("\n".join(rows), {"languages": langs, "ready": ready, "missing": missing})


class BreakpointArg(BaseModel):
    file: str = Field(description="source file")
    line: int = Field(ge=1, description="1-based line")
    condition: str | None = Field(None, description="stop only when true")
    hit_condition: str | None = Field(None, description="e.g. '>5'")
    log_message: str | None = Field(None, description="log this instead of stopping")


class StartParams(BaseModel):
    program: str = Field(description="script path, or module name with module=true")
    language: str | None = Field(
        None, description="python, javascript, typescript, c, cpp, rust (default: by extension)"
    )
    runtime: Literal["node", "bun"] | None = Field(None, description="default: node for .js, bun for .ts")
    backend: Literal["inspector", "dap"] | None = Field(None, description="JS: inspector (default) or dap = js-debug")
    args: list[str] = Field(default_factory=list, description="program arguments")
    cwd: str | None = Field(None, description="default: program's folder")
    env: dict[str, str] = Field(default_factory=dict, description="extra environment")
    executable_path: str | None = Field(None, description="python to use (default: pairdbg's)")
    module: bool = Field(False, description="python -m program")
    stop_on_entry: bool = Field(False, description="stop at the first line")
    breakpoints: list[BreakpointArg] = Field(default_factory=list, description="set before it runs")
    wait_s: float | None = Field(None, ge=0, le=300, description="seconds to wait (default 10)")
    just_my_code: bool = Field(True, description="Python: steps skip library code")


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


class PathMapping(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    local_root: str = Field(alias="localRoot", description="folder here")
    remote_root: str = Field(alias="remoteRoot", description="folder where it runs")


class AttachParams(BaseModel):
    target: str = Field(description="host:port (debugpy --listen, node --inspect, a browser) or ws:// URL")
    language: Literal["python", "javascript", "typescript"] = Field("python", description="the program's language")
    backend: Literal["inspector", "dap"] | None = Field(None, description="JS: inspector (default) or dap = js-debug")
    wait_s: float | None = Field(2.0, ge=0, le=300, description="seconds to wait")
    just_my_code: bool = Field(True, description="Python: steps skip library code")
    path_mappings: list[PathMapping] | None = Field(
        None, max_length=32, description="remote roots to map; stops show local paths"
    )


async def attach(hub: Hub, p: AttachParams, actor: str) -> Reply:
    mappings = [(m.local_root, m.remote_root) for m in p.path_mappings or []]
    make = factory.attacher(p.target, p.language, p.backend, hub.limits.allowed_hosts, p.just_my_code, mappings)
    session = await hub.create(make, f"attach {p.target}", [], actor)
    outcome = await session.wait_for_stop(0, p.wait_s or 0)
    hub.focus.of(actor).saw(outcome.report)
    reply = _outcome_reply(session, outcome, p.wait_s, actor)
    reply.text = f"Attached {session.id} to {p.target}\n" + reply.text
    return reply


class ConnectParams(BaseModel):
    websocket_url: str = Field(description="inspector WebSocket, e.g. ws://127.0.0.1:9229/<id> or Bun's banner URL")
    session_name: str | None = Field(None, description="name to show (default: the URL)")
    wait_s: float | None = Field(1.0, ge=0, le=300, description="seconds to wait for a stop")


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
    wait_s: float | None = Field(None, ge=0, le=300, description="seconds to wait for the first stop (default 10)")


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
    watches = [(w.expression, w.added_by) for w in old.watches.values()]
    mode = old.exception_mode
    filters = old.breakpoints.exception_filters  # chosen one by one (None: the mode's)
    await hub.close(old.id, terminate=True)
    args = {**launch, "breakpoints": breakpoints, "wait_s": 0}
    started = await start_debugging(hub, StartParams(**args), actor)
    session = hub.get(started.data["session_id"])
    if filters is not None:
        await session.set_exception_filters(filters)
    elif mode != "uncaught":
        await session.set_exception_mode(mode)
    for expression, added_by in watches:
        await session.add_watch(expression, added_by)
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
    mode = hub.policy.mode
    if mode != AgentMode.FULL:
        text += f"\nAgent mode: {mode.value} ({MODE_SAYS[mode]}; the person in the TUI can change it)"
    data = {"sessions": [s.model_dump(mode="json", exclude_none=True) for s in summaries], "agent_mode": mode.value}
    return Reply(text, data)


class AgentModeParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mode: AgentMode = Field(
        description="inspect: agents read state only; control: also step, continue, pause and "
        "breakpoints; full: also start, attach and close programs, evaluate and set values"
    )


async def set_agent_mode(hub: Hub, p: AgentModeParams, actor: str) -> Reply:
    mode = hub.policy.set_mode(p.mode, actor)
    return Reply(f"Agent mode: {mode.value} ({MODE_SAYS[mode]})", {"agent_mode": mode.value})


class CloseParams(SessionParams):
    terminate: bool = Field(True, description="end the program (false: detach)")


async def close_debug_session(hub: Hub, p: CloseParams, actor: str) -> Reply:
    session = await hub.close(p.session_id, p.terminate)
    verb = "terminated" if p.terminate else "detached"
    return Reply(f"{session.id} closed ({verb})", {"session_id": session.id, "closed": True})


ACTIONS = [
    Action(
        "list_supported_languages",
        "Languages and backends: which are ready here, how to get the rest.",
        NoParams,
        list_supported_languages,
        "Supported languages",
        read_only=True,
        quiet=True,
    ),
    Action(
        "start_debugging",
        "Launch a program under the debugger; returns the session id and first stop report.",
        StartParams,
        start_debugging,
        "Start debugging a program",
    ),
    Action(
        "attach",
        "Attach to a running debugpy or JS inspector (Node, Bun, Chromium, WebKitGTK).",
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
        group="more",
    ),
    Action(
        "start_from_launch_config",
        "Start (or attach) from a .vscode/launch.json configuration by name (Python, Node, Bun).",
        LaunchConfigParams,
        start_from_launch_config,
        "Start from launch.json",
        group="more",
    ),
    Action(
        "list_launch_configs",
        "The configurations in .vscode/launch.json and what pairdbg would do with each.",
        WorkspaceParams,
        list_launch_configs,
        "List launch.json configurations",
        read_only=True,
        quiet=True,
        group="more",
    ),
    Action(
        "restart_debugging",
        "End a launched program and start it again the same way (arguments, breakpoints, watches); returns the new "
        "session's first stop report.",
        RestartParams,
        restart_debugging,
        "Restart",
        group="more",
    ),
    Action(
        "list_debug_sessions",
        "Sessions, their phase and where they are stopped.",
        NoParams,
        list_debug_sessions,
        "List sessions",
        read_only=True,
        quiet=True,
    ),
    Action(
        "close_debug_session",
        "End a session.",
        CloseParams,
        close_debug_session,
        "Close session",
    ),
    Action(
        "set_agent_mode",
        "What agents may do: inspect, control or full. For the person at the debugger only.",
        AgentModeParams,
        set_agent_mode,
        "Agent mode",
        level=Level.HUMAN,
    ),
]
