"""Inspection actions: stack, scopes, variables, locals, evaluate, set variable, source, threads, output, watches."""

from __future__ import annotations

import os

from pydantic import Field

from .. import queries
from ..errors import DebugError, ErrorCode
from ..hub import Hub
from ..lazymodel import LazyModel
from ..models import Phase
from ..readable import check_readable
from ..source import is_url, lines_of, shown
from . import render
from .common import SessionParams, agent_looks
from .registry import Action, Reply


class StackParams(SessionParams):
    thread_id: int | None = Field(None, description="default: the stopped one")
    start: int = 0
    count: int = Field(20, ge=1, le=200)
    include_library: bool = Field(False, description="list hidden library frames")


async def get_call_stack(hub: Hub, p: StackParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    queries.require_paused(session)
    stop = session.last_stop
    thread = p.thread_id or (stop.thread_id if stop else None) or 0
    frames, total = await queries.call_stack(session, thread, p.start, p.count, p.include_library)
    listed = any(f.library for f in frames) or (p.include_library and not (stop and stop.hidden_frames))
    # Where the stack leaves library frames out, it says so between the frames (unless they are listed).
    hidden = {} if listed or not stop or stop.thread_id != thread else {g.after: g for g in stop.hidden_frames}
    lines = []
    if None in hidden:
        lines.append(f"      ({hidden[None].text()})")
    for f in frames:
        tag = "  (unwound)" if f.unwound else "  (library)" if f.library else ""
        lines.append(f"{f.handle:<6} {f.function:<28} {render.where(f.file, f.line):<24} {f.file or ''}{tag}")
        if f.handle in hidden:
            lines.append(f"      ({hidden[f.handle].text()}: include_library=true lists them)")
    data = [
        {"handle": f.handle, "function": f.function, "file": f.file, "line": f.line, "column": f.column}
        | {key: True for key in ("library", "unwound") if getattr(f, key)}
        for f in frames
    ]
    if frames:
        await agent_looks(hub, actor, session, frames[0].handle)  # reading a stack is looking at its first frame
    if p.start + len(frames) < total:
        lines.append(f"… {total - p.start - len(frames)} more frames; pass start={p.start + len(frames)}")
    reply = {"session_id": session.id, "thread_id": thread, "frames": data, "total": total}
    if hidden:
        reply["hidden_frames"] = [g.model_dump(mode="json") for g in hidden.values()]
    return Reply("\n".join(lines) or "no frames", reply)


class FrameParams(SessionParams):
    frame: str = "@f0"


async def get_scopes(hub: Hub, p: FrameParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    queries.require_paused(session)
    views = await queries.scopes(session, p.frame)
    await agent_looks(hub, actor, session, p.frame)
    text = "\n".join(f"{v.handle or '-':<6} {v.name}" + (f" ({v.value})" if v.value else "") for v in views)
    return Reply(
        text or "no scopes",
        {"session_id": session.id, "scopes": [v.model_dump(mode="json", exclude_none=True) for v in views]},
    )


class VariablesParams(SessionParams):
    ref: str = Field(description="a @vN handle")
    start: int = 0
    count: int = Field(50, ge=1, le=500)
    names: list[str] | None = Field(None, description="only these")


async def get_variables(hub: Hub, p: VariablesParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    views, total = await session.children(p.ref, p.start, p.count, p.names)
    await agent_looks(hub, actor, session, variable=p.ref)
    text = f"{p.ref} ({total:,} children)\n" + "\n".join(render.variables_block(views, total, p.start, cursor=True))
    shown_to = p.start + len(views)
    return Reply(
        text,
        {
            "session_id": session.id,
            "variables": [v.model_dump(mode="json", exclude_none=True) for v in views],
            "total": total,
            "start": p.start,
            "next_start": shown_to if views and shown_to < total else None,
        },
    )


class LocalsParams(FrameParams):
    include_special: bool = Field(False, description="dunder names too")
    count: int = Field(100, ge=1, le=500)


async def get_local_variables(hub: Hub, p: LocalsParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    queries.require_paused(session)
    views, total = await queries.frame_locals(session, p.frame, p.count, p.include_special)
    await agent_looks(hub, actor, session, p.frame)
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
    expression: str = Field()
    frame: str | None = Field(None, description="default @f0; 'global' in JS, also running")
    return_by_value: bool = Field(False, description="JS: the whole value as JSON")


async def evaluate_expression(hub: Hub, p: EvaluateParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    view = await session.evaluate(p.expression, p.frame, p.return_by_value)
    paused = session.phase == Phase.PAUSED
    await agent_looks(hub, actor, session, (p.frame or "@f0") if paused else None, expression=p.expression)
    handle = f"  {view.handle} to expand" if view.handle else ""
    text = f"{p.expression} = {view.value}" + (f"  ({view.type})" if view.type else "") + handle
    if view.length:  # cut: say how long it is and how to read the rest
        shown = len(view.value) - 1
        text += (
            f"\n… the value's text is {view.length:,} characters; showing 1-{shown:,}; "
            f"next: evaluate_expression repr({p.expression})[{shown}:{shown + 4000}]"
        )
    return Reply(text, {"session_id": session.id, **view.model_dump(mode="json", exclude_none=True)})


class SetVariableParams(SessionParams):
    name: str = Field(description="variable or member name")
    value: str = Field(description="new value, an expression")
    ref: str | None = Field(None, description="@vN of its container (default: a local of frame)")
    frame: str | None = Field(None, description="frame handle (default @f0)")


async def set_variable_value(hub: Hub, p: SetVariableParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    view = await session.set_variable(p.name, p.value, p.ref, p.frame)
    return Reply(
        f"{p.name} = {view.value}" + (f"  ({view.type})" if view.type else ""),
        {"session_id": session.id, **view.model_dump(mode="json", exclude_none=True)},
    )


class SourceParams(LazyModel):
    session_id: str | None = Field(None, description="read its stop and files (optional)")
    file: str | None = Field(None, description="source file (default: where the session stopped)")
    line: int | None = Field(None, ge=1, description="default: the stop's line, else 1")
    context: int = Field(5, ge=0, le=200, description="lines each side")


async def get_source_context(hub: Hub, p: SourceParams, actor: str) -> Reply:
    file, line = p.file, p.line
    session = hub.get(p.session_id) if p.session_id else None
    if (not file or not line) and session is not None:
        stop = session.last_stop if session.phase == Phase.PAUSED else None  # an old stop is not "where it is"
        if stop is not None:
            file, line = file or stop.location.file, line or stop.location.line
    if not file:
        raise DebugError(ErrorCode.INVALID_PARAMETERS, "give file (and line), or a paused session_id")
    if session is not None:
        path = session.resolve_file(file)
    else:
        path = file if is_url(file) else os.path.abspath(os.path.expanduser(file))
    check_readable(hub, actor, path)
    lines = lines_of(path)
    line = line or 1
    if line > len(lines):
        raise DebugError(ErrorCode.INVALID_PARAMETERS, f"line {line} is past the end of {path} ({len(lines)} lines)")
    lo, hi = max(1, line - p.context), min(len(lines), line + p.context)
    rows = [{"line": n, "text": shown(lines[n - 1]), "current": n == line} for n in range(lo, hi + 1)]
    await agent_looks(hub, actor, session, file=path, line=line)
    text = f"{path}\n" + "\n".join(f"{'>' if r['current'] else ' '}{r['line']:>5}| {r['text']}" for r in rows)
    return Reply(text, {"file": path, "lines": rows, "total_lines": len(lines)})


async def list_threads(hub: Hub, p: SessionParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    threads, current = await queries.threads(session)
    text = "\n".join(f"{'*' if t == current else ' '} {t:<6} {name}" for t, name in threads) or "no threads"
    return Reply(
        text, {"session_id": session.id, "threads": [{"id": t, "name": n} for t, n in threads], "current": current}
    )


class TasksParams(SessionParams):
    frame: str | None = Field(None, description="frame handle to evaluate in (default @f0)")


async def list_async_tasks(hub: Hub, p: TasksParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    tasks = await queries.async_tasks(session, p.frame)
    if tasks is None:
        text = "no asyncio loop runs in the stopped thread (tasks of loops in other threads are not listed)"
        return Reply(text, {"session_id": session.id, "running_loop": False, "tasks": []})
    lines = []
    for t in tasks:
        chain = " → ".join(f"{c['function']} {render.where(c['file'], c['line'])}" for c in t["chain"]) or "?"
        state = " (current: the stopped code)" if t["current"] else " (done)" if t["done"] else ""
        awaiting = f"; awaits {t['awaiting']}" if t["awaiting"] else ""
        lines.append(f"{'*' if t['current'] else ' '} {t['name']}{state}: {chain}{awaiting}")
    head = f"{len(tasks)} asyncio tasks (innermost frame last)"
    return Reply(head + "\n" + "\n".join(lines), {"session_id": session.id, "running_loop": True, "tasks": tasks})


class OutputParams(SessionParams):
    since: int = Field(0, ge=0, description="next_since of the last call")
    limit: int = Field(100, ge=1, le=1000)
    category: str | None = Field(None, description="stdout, stderr, console, important, changes")


async def get_output(hub: Hub, p: OutputParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    data = queries.output_page(session, p.since, p.limit, p.category)
    lines = [f"[{e['category']}] {e['text'].rstrip()}" for e in data["entries"]]
    head = f"{len(lines)} entries, next_since={data['next_since']}" + (", has_more" if data["has_more"] else "")
    if data["dropped"]:
        head += f", {data['dropped']} older entries were dropped"
    return Reply(head + ("\n" + "\n".join(lines) if lines else ""), data)


class WatchParams(SessionParams):
    expression: str = Field(description="in the program's language")


async def add_watch(hub: Hub, p: WatchParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    view = await session.add_watch(p.expression, actor)
    return Reply(
        f"{view.id} {view.expression} = {view.value}", {"session_id": session.id, **view.model_dump(mode="json")}
    )


class WatchIdParams(SessionParams):
    watch_id: str = Field(description="e.g. W1")


class EditWatchParams(WatchIdParams):
    expression: str = Field(description="the new expression")


async def edit_watch(hub: Hub, p: EditWatchParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    view = await session.edit_watch(p.watch_id, p.expression)
    return Reply(
        f"{view.id} {view.expression} = {view.value}", {"session_id": session.id, **view.model_dump(mode="json")}
    )


class ListWatchesParams(SessionParams):
    frame: str | None = Field(None, description="frame handle to evaluate in (default @f0)")


async def list_watches(hub: Hub, p: ListWatchesParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    views = await queries.watches(session, p.frame)
    lines = [
        f"{v.id} {v.expression} = {v.value}{'  *changed' if v.changed else ''}  (added by {v.added_by})" for v in views
    ]
    return Reply(
        "\n".join(lines) or "No watches. add_watch adds one.",
        {"session_id": session.id, "watches": [v.model_dump(mode="json") for v in views]},
    )


async def remove_watch(hub: Hub, p: WatchIdParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    watch = session.remove_watch(p.watch_id)
    return Reply(f"removed {watch.id}", {"session_id": session.id, "removed": watch.id})


ACTIONS = [
    Action(
        "get_call_stack",
        "Frames (@fN) of the stopped thread or another (@f<thread>.<N>), and what is hidden.",
        StackParams,
        get_call_stack,
        "Call stack",
        read_only=True,
    ),
    Action(
        "get_scopes",
        "Scopes of a frame, with @vN handles.",
        FrameParams,
        get_scopes,
        "Scopes",
        read_only=True,
        group="more",  # the stop report and get_local_variables cover the common case
    ),
    Action(
        "get_variables",
        "Children of a @vN handle, paged or by name.",
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
        "Evaluate an expression in a frame.",
        EvaluateParams,
        evaluate_expression,
        "Evaluate",
    ),
    Action(
        "set_variable_value",
        "Assign a new value to a variable.",
        SetVariableParams,
        set_variable_value,
        "Set variable",
        group="more",
        idempotent=True,
    ),
    Action(
        "get_source_context",
        "Numbered source lines around a line (default: the stop).",
        SourceParams,
        get_source_context,
        "Source context",
        read_only=True,
        quiet=True,
        group="more",
    ),
    Action(
        "list_threads", "Threads of the program.", SessionParams, list_threads, "Threads", read_only=True, group="more"
    ),
    Action(
        "list_async_tasks",
        "asyncio tasks of the paused Python program's running loop, each with where it awaits.",
        TasksParams,
        list_async_tasks,
        "Async tasks",
        read_only=True,
        group="more",
    ),
    Action(
        "get_output",
        "Program output since a cursor.",
        OutputParams,
        get_output,
        "Program output",
        read_only=True,
        quiet=True,
    ),
    Action(
        "add_watch",
        "Watch an expression: its value shows in every stop report.",
        WatchParams,
        add_watch,
        "Add watch",
        group="more",
    ),
    Action(
        "remove_watch", "Stop watching an expression.", WatchIdParams, remove_watch, "Remove watch", group="more",
        idempotent=True,
    ),
    Action(
        "edit_watch",
        "Change a watch's expression (it keeps its id).",
        EditWatchParams,
        edit_watch,
        "Edit watch",
        group="more",
        idempotent=True,
    ),
    Action(
        "list_watches",
        "The watches (the person's and agents', each with who added it) and their values in a frame.",
        ListWatchesParams,
        list_watches,
        "List watches",
        read_only=True,
        quiet=True,
        group="more",
    ),
]
