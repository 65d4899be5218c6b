"""Session actions: languages, start/attach/connect, launch.json, restart, list and close."""

from __future__ import annotations

import os
import re
from typing import Literal

from pydantic import ConfigDict, Field

from .. import factory, queries, testrun
from ..base import ExceptionMode
from ..errors import DebugError, ErrorCode
from ..hub import Hub, display_name
from ..lazymodel import LazyModel
from ..policy import MODE_SAYS, AgentMode, Level, is_agent
from ..source import find_statement, resolve_path
from . import render
from .common import SessionParams, _outcome_reply
from .registry import Action, Reply


class NoParams(LazyModel):
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


class BreakpointArg(LazyModel):
    file: str = Field()
    line: int | None = Field(None, ge=1)
    statement: str | None = Field(None, description="code on the line, instead of line")
    condition: str | None = None
    hit_condition: str | None = Field(None, description="e.g. '>5'")
    log_message: str | None = Field(None, description="log it, do not stop")


class StartParams(LazyModel):
    program: str = Field(description="script, or module name with module=true")
    language: str | None = Field(None, description="default: by extension")
    runtime: Literal["node", "bun"] | None = Field(None, description="default node; bun for .ts")
    backend: Literal["inspector", "dap"] | None = Field(None, description="JS: inspector (default) or dap = js-debug")
    args: list[str] = Field(default_factory=list)
    cwd: str | None = Field(None, description="default: program's folder")
    env: dict[str, str] = Field(default_factory=dict)
    executable_path: str | None = Field(None, description="python (default: $VIRTUAL_ENV, .venv, python3)")
    module: bool = Field(False, description="python -m program")
    stop_on_entry: bool = False
    breakpoints: list[BreakpointArg] = Field(default_factory=list, description="set before it runs")
    wait_s: float | None = Field(None, ge=0, le=300, description="default 10")
    just_my_code: bool = Field(True, description="Python: steps skip library code")
    pause_on_exceptions: Literal["none", "uncaught", "all"] = Field("uncaught", description="all: where raised")


def _placed(bp: BreakpointArg, cwd: str | None, program: str) -> dict:
    """A breakpoint argument with its line: given, or the line holding its statement (the nearest to a line given)."""
    if bp.statement is None:
        if bp.line is None:
            raise DebugError(ErrorCode.INVALID_PARAMETERS, f"breakpoint in {bp.file}: give line or statement")
        return bp.model_dump(exclude={"statement"})
    folders = [cwd or "", os.path.dirname(program) if os.path.isabs(program) else ""]
    line, _ = find_statement(resolve_path(bp.file, folders), bp.statement, bp.line)
    return {**bp.model_dump(exclude={"statement"}), "line": line}


async def start_debugging(hub: Hub, p: StartParams, actor: str) -> Reply:
    spec = factory.LaunchSpec(**p.model_dump(exclude={"breakpoints", "wait_s", "pause_on_exceptions"}))
    note = testrun.recognise(spec)
    program = p.program if p.module else os.path.abspath(os.path.join(p.cwd or "", os.path.expanduser(p.program)))
    breakpoints = [_placed(bp, p.cwd, program) for bp in p.breakpoints]
    wait = hub.limits.default_wait_s if p.wait_s is None else p.wait_s
    launch = p.model_dump()
    return await _launch(hub, spec, breakpoints, wait, actor, launch, note, p.pause_on_exceptions)


async def _launch(
    hub: Hub,
    spec: factory.LaunchSpec,
    breakpoints: list[dict],
    wait: float,
    actor: str,
    launch: dict,
    note: str | None,
    exception_mode: ExceptionMode | None = None,
) -> Reply:
    """Start `spec`, wait for its first stop; the reply says what started (and `note`, e.g. what a test run stops at).
    `launch` is what restart_debugging starts again."""
    _, program, make = factory.launcher(spec)
    session = await hub.create(make, display_name(program), breakpoints, actor, exception_mode)
    session.launch_args = launch
    outcome = await session.wait_for_stop(0, wait)
    hub.focus.of(actor).saw(outcome.report)
    reply = _outcome_reply(session, outcome, wait, actor)
    bps = [bp.view() for bp in session.breakpoints.values()]
    if bps:
        reply.text += "\nBreakpoints: " + "; ".join(render.breakpoint_line(b) for b in bps)
        reply.data["breakpoints"] = [b.model_dump(mode="json", exclude_none=True) for b in bps]
    started = f"Started {session.id} ({display_name(program)}, pid {session.backend.pid or '?'})"
    if spec.test_runner:
        reply.data["test_runner"] = spec.test_runner
    python = queries.interpreter(session)
    if python is not None:
        started += f" on {python[0]} ({python[1]})"
        reply.data["interpreter"] = {"path": python[0], "chosen_by": python[1]}
        missing = missing_module(outcome)
        if missing:
            reply.data["interpreter"]["missing_module"] = missing
            reply.text += "\n" + missing_module_hint(missing, *python)
    reply.text = started + "\n" + (f"{note}\n" if note else "") + reply.text
    reply.headline = started + (f" · {reply.headline}" if reply.headline else "")
    return reply


class TestsParams(LazyModel):
    args: list[str] = Field(default_factory=list, description="e.g. test files")
    cwd: str | None = Field(None, description="project folder (default: cwd)")
    executable_path: str | None = Field(None, description="python (default: project's .venv)")


TESTS_WAIT_S = 30.0  # a test run takes longer than a program to reach its first stop (then: wait_for_stop)


async def debug_tests(hub: Hub, p: TestsParams, actor: str) -> Reply:
    folder = os.path.abspath(os.path.expanduser(p.cwd or os.getcwd()))
    tests = await testrun.project_tests(folder, p.executable_path, p.args)
    spec = tests.spec
    note = testrun.recognise(spec)
    launch = {
        "program": spec.program, "module": spec.module, "args": spec.args, "cwd": spec.cwd,
        "executable_path": spec.executable_path, "language": spec.language,
    }  # fmt: skip
    reply = await _launch(hub, spec, [], TESTS_WAIT_S, actor, launch, None)
    head, _, rest = reply.text.partition("\n")
    reply.text = "\n".join(filter(None, [head, f"Tests: {tests.command()}  ({tests.why})", note, rest]))
    reply.data["tests"] = {"runner": tests.runner, "command": tests.command(), "why": tests.why}
    if tests.files:
        reply.data["tests"]["files"] = tests.files
    return reply


MISSING_MODULE = re.compile(r"No module named '([^']+)'")


def missing_module(outcome) -> str | None:
    """The module a program could not import as it started (stopped on the ModuleNotFoundError, or ended by it)."""
    report = outcome.report
    if report is not None and report.exception is not None and report.exception.type.endswith("ModuleNotFoundError"):
        found = MISSING_MODULE.search(report.exception.message or "")
        return found.group(1) if found else "?"
    for line in outcome.output_tail or []:
        if "ModuleNotFoundError" in line:
            found = MISSING_MODULE.search(line)
            return found.group(1) if found else "?"
    return None


def missing_module_hint(module: str, python: str, chosen_by: str) -> str:
    return (
        f"The program ran on {python} ({chosen_by}), which has no module {module!r}. Pick the interpreter that has"
        " it: executable_path (pairdbg --python PATH), or activate its virtualenv before starting pairdbg."
    )


class PathMapping(LazyModel):
    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    local_root: str = Field(alias="localRoot", description="folder here")
    remote_root: str = Field(alias="remoteRoot", description="folder where it runs")


class AttachParams(LazyModel):
    target: str = Field(description="host:port or ws:// URL")
    language: Literal["python", "javascript", "typescript"] = "python"
    backend: Literal["inspector", "dap"] | None = Field(None, description="JS: inspector (default) or dap = js-debug")
    wait_s: float | None = Field(2.0, ge=0, le=300)
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


class ConnectParams(LazyModel):
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


class LaunchConfigParams(LazyModel):
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


class WorkspaceParams(LazyModel):
    workspace: str | None = Field(None, description="folder holding .vscode/launch.json (default: pairdbg's cwd)")


async def list_launch_configs(hub: Hub, p: WorkspaceParams, actor: str) -> Reply:
    from .. import launch_json

    workspace = os.path.abspath(p.workspace or os.getcwd())
    rows = []
    for config in launch_json.load_configurations(workspace):
        try:
            # An agent sees ${env:NAME} as written: pairdbg's environment holds the person's credentials.
            action, args = launch_json.to_action(config, workspace, environment=not is_agent(actor))
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
    pass  # waits the default time for the first stop (wait_for_stop waits longer): one parameter less to list


async def restart_debugging(hub: Hub, p: RestartParams, actor: str) -> Reply:
    """End the program and start it again the same way, as the same session: its id, breakpoints (ids, enabled state,
    conditions, hit counts), watches and exception mode stay."""
    old = hub.get(p.session_id)
    launch = old.launch_args
    if launch is None:
        raise DebugError(
            ErrorCode.CAPABILITY_UNSUPPORTED,
            f"session {old.id} was attached, not launched by pairdbg",
            hint="restart the program yourself, then attach again",
        )
    spec = factory.LaunchSpec(
        **{k: v for k, v in launch.items() if k not in ("breakpoints", "wait_s", "pause_on_exceptions")}
    )
    _, program, make = factory.launcher(spec)
    before = old.stop_number
    session = await hub.restart(old.id, make, display_name(program))
    wait = hub.limits.default_wait_s
    outcome = await session.wait_for_stop(before, wait)
    hub.focus.of(actor).saw(outcome.report)
    reply = _outcome_reply(session, outcome, wait, actor)
    kept = [
        f"{len(session.breakpoints)} breakpoint(s)",
        f"{len(session.watches)} watch(es)",
        f"pause on {session.exception_mode} exceptions",
    ]
    pid = session.backend.pid or "?"
    started = f"Restarted {session.id} ({display_name(program)}, pid {pid}; kept {', '.join(kept)})"
    reply.text = started + "\n" + reply.text
    reply.headline = started + (f" · {reply.headline}" if reply.headline else "")
    bps = [bp.view() for bp in session.breakpoints.values()]
    if bps:
        reply.text += "\nBreakpoints: " + "; ".join(render.breakpoint_line(b) for b in bps)
        reply.data["breakpoints"] = [b.model_dump(mode="json", exclude_none=True) for b in bps]
    return reply


async def list_debug_sessions(hub: Hub, p: NoParams, actor: str) -> Reply:
    summaries = [s.summary() for s in hub.sessions.values()]
    text = "\n".join(render.session_line(s) for s in summaries) or "No sessions. Call start_debugging to begin one."
    mode = hub.policy.mode
    if mode != AgentMode.FULL:
        text += f"\nAgent mode: {mode.value} ({MODE_SAYS[mode]}; the person in the TUI can change it)"
    data = {"sessions": [s.model_dump(mode="json", exclude_none=True) for s in summaries], "agent_mode": mode.value}
    return Reply(text, data)


class AgentModeParams(LazyModel):
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
        "Languages and backends ready here, how to get the rest.",
        NoParams,
        list_supported_languages,
        "Supported languages",
        read_only=True,
        quiet=True,
        group="more",  # start_debugging's errors name what is missing and how to get it
    ),
    Action(
        "start_debugging",
        "Launch a program; returns the session id and first stop report.",
        StartParams,
        start_debugging,
        "Start debugging a program",
    ),
    Action(
        "debug_tests",
        "Run the project's tests (pytest, unittest, node --test); stops where a test fails.",
        TestsParams,
        debug_tests,
        "Debug the tests",
    ),
    Action(
        "attach",
        "Attach to debugpy or a JS inspector (Node, Bun, Chromium, WebKitGTK).",
        AttachParams,
        attach,
        "Attach to host:port",
        open_world=True,
    ),
    Action(
        "connect_debugger",
        "Connect to an inspector WebSocket URL (Bun's banner URL, Node, a Chromium or WebKitGTK page).",
        ConnectParams,
        connect_debugger,
        "Connect to an inspector WebSocket",
        group="more",
        open_world=True,
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
        "Run a launched program again as the same session (breakpoints kept).",
        RestartParams,
        restart_debugging,
        "Restart",
        destructive=True,
    ),
    Action(
        "list_debug_sessions",
        "Sessions, their phases and stops.",
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
        destructive=True, idempotent=True,
    ),
    Action(
        "set_agent_mode",
        "What agents may do: inspect, control or full. For the person at the debugger only.",
        AgentModeParams,
        set_agent_mode,
        "Agent mode",
        level=Level.HUMAN,
        idempotent=True,
    ),
]
