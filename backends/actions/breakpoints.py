"""Breakpoint actions: set, update, remove and list breakpoints, and the pause-on-exceptions mode."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .. import queries
from ..errors import DebugError, ErrorCode
from ..hub import Hub
from ..policy import Level
from ..readable import check_readable
from ..source import find_statement
from . import render
from .common import SessionParams
from .registry import Action, Reply


STATEMENT = Field(None, description="code on the line (instead of line, or nearest to it)")


class SetBreakpointParams(SessionParams):
    file: str | None = None
    line: int | None = Field(None, ge=1)
    statement: str | None = STATEMENT
    function: str | None = Field(None, description="mod.fn or file.js:fn (not with file)")  # JS: jsfunction.py
    condition: str | None = None
    hit_condition: str | None = Field(None, description="e.g. '>5'")
    log_message: str | None = Field(None, description="log it, do not stop")


async def set_breakpoint(hub: Hub, p: SetBreakpointParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    line, note = p.line, ""
    if p.file:  # a breakpoint reads its file (the line is checked and shown): the same bound as get_source_context
        check_readable(hub, actor, session.resolve_file(p.file))
    if p.statement is not None:
        if not p.file or p.function:
            raise DebugError(ErrorCode.INVALID_PARAMETERS, "statement needs file (and no function)")
        line, others = find_statement(session.resolve_file(p.file), p.statement, p.line)
        if others:
            note = f"\nalso on line{'s' if len(others) > 1 else ''} {', '.join(map(str, others[:5]))}" + (
                " (give line to pick the nearest)" if not p.line else ""
            )
    if not p.function and (not p.file or not line):
        raise DebugError(ErrorCode.INVALID_PARAMETERS, "give file and line (or statement), or function")
    bp = session.breakpoints.new(p.file, line, p.function, p.condition, p.hit_condition, p.log_message, actor)
    await session.add_breakpoint(bp)
    view = bp.view()
    children = session.child_bindings(bp.id)  # a child process where it binds otherwise says so
    return Reply(
        render.breakpoint_line(view) + note + (f"\n{children}" if children else ""),
        {"session_id": session.id, **view.model_dump(mode="json", exclude_none=True)},
    )


class SetDataBreakpointParams(SessionParams):
    expression: str = Field(
        description="obj.attr, obj[key] or a variable (Python: a local; dicts, globals on 3.12+; JS: map.get(k), "
        "set.has(v)) to watch, in the frame"
    )
    access: Literal["write", "read_write"] = Field("write", description="write only (debugpy, Node)")
    condition: str | None = Field(None, description="stop only if true; names value (new) and old")
    log_only: bool = Field(False, description="log each change (get_output category changes), do not stop")
    frame: str | None = Field(None, description="frame handle (default @f0)")


async def set_data_breakpoint(hub: Hub, p: SetDataBreakpointParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    bp = session.breakpoints.new_data(p.expression, p.access, p.condition, p.log_only, actor)
    await session.add_data_breakpoint(bp, p.frame)
    view = bp.view()
    text = render.breakpoint_line(view)
    if view.missed:
        text += f"\nnot seen: {view.missed}"
    return Reply(text, {"session_id": session.id, **view.model_dump(mode="json", exclude_none=True)})


class BreakpointIdParams(SessionParams):
    breakpoint_id: str = Field(description="e.g. BP1, DB1")


async def remove_breakpoint(hub: Hub, p: BreakpointIdParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    bp = await session.remove_breakpoint(p.breakpoint_id)
    return Reply(f"removed {bp.id}", {"session_id": session.id, "removed": bp.id})


class UpdateBreakpointParams(BreakpointIdParams):
    enabled: bool | None = Field(None, description="false keeps it listed but inactive (default: unchanged)")
    condition: str | None = Field(None, description="new condition (default: unchanged)")
    hit_condition: str | None = Field(None, description="new hit condition, e.g. '>5' (default: unchanged)")
    log_message: str | None = Field(None, description="new log message (default: unchanged)")


async def update_breakpoint(hub: Hub, p: UpdateBreakpointParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    if p.enabled is None and p.condition is None and p.hit_condition is None and p.log_message is None:
        raise DebugError(
            ErrorCode.INVALID_PARAMETERS,
            f"update_breakpoint {p.breakpoint_id}: nothing to change",
            hint="give enabled, condition, hit_condition or log_message (an empty string clears one)",
        )
    bp = await session.update_breakpoint(p.breakpoint_id, p.enabled, p.condition, p.hit_condition, p.log_message)
    view = bp.view()
    return Reply(
        render.breakpoint_line(view), {"session_id": session.id, **view.model_dump(mode="json", exclude_none=True)}
    )


async def list_breakpoints(hub: Hub, p: SessionParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    views = [bp.view() for bp in session.breakpoints.values()]
    text = "\n".join(render.breakpoint_line(v, counts=True) for v in views) or "No breakpoints."
    filters = queries.exception_filters(session)
    if session.breakpoints.exception_filters is not None:
        chosen = session.breakpoints.exception_filters
        text += f"\nPause on exceptions: the debugger's filters {', '.join(chosen) or 'none'}"
    else:
        text += f"\nPause on exceptions: {session.exception_mode}"
    if filters:
        text += " (" + ", ".join(f"{f['id']} {'on' if f['enabled'] else 'off'}" for f in filters) + ")"
    return Reply(
        text,
        {
            "session_id": session.id,
            "breakpoints": queries.breakpoints(session),
            "exception_mode": session.exception_mode,
            "exception_filters": filters,
        },
    )


class ExceptionModeParams(SessionParams):
    mode: Literal["none", "uncaught", "all"] = Field(description="which pause (sessions start with uncaught)")


async def set_pause_on_exceptions(hub: Hub, p: ExceptionModeParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    await session.set_exception_mode(p.mode)
    return Reply(f"{session.id} pauses on exceptions: {p.mode}", {"session_id": session.id, "mode": p.mode})


class ExceptionFiltersParams(SessionParams):
    filters: list[str] = Field(max_length=16, description="the filter ids to turn on (list_breakpoints names them)")


async def set_exception_filters(hub: Hub, p: ExceptionFiltersParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    await session.set_exception_filters(p.filters)
    on = session.breakpoints.active_exception_filters()
    text = f"{session.id} exception filters on: {', '.join(on) or 'none'}"
    return Reply(text, {"session_id": session.id, "filters": on, "mode": session.exception_mode})


ACTIONS = [
    Action(
        "set_breakpoint",
        "Break at file+line or a function; says if verified and where it bound.",
        SetBreakpointParams,
        set_breakpoint,
        "Set breakpoint",
        level=Level.CONTROL,
    ),
    Action(
        "set_data_breakpoint",
        "Stop (or log) when obj.attr or obj[key] changes; says what it watches and which writes it cannot see.",
        SetDataBreakpointParams,
        set_data_breakpoint,
        "Set data breakpoint",
        group="more",  # the default tool list is at its budget
        level=Level.CONTROL,
    ),
    Action(
        "remove_breakpoint",
        "Remove a breakpoint by id.",
        BreakpointIdParams,
        remove_breakpoint,
        "Remove breakpoint",
        level=Level.CONTROL,
        destructive=True,
        idempotent=True,
    ),
    Action(
        "update_breakpoint",
        'Enable or disable a breakpoint, or change its condition, hit condition or log message ("" clears one).',
        UpdateBreakpointParams,
        update_breakpoint,
        "Edit breakpoint",
        group="more",
        level=Level.CONTROL,
        idempotent=True,
    ),
    Action(
        "list_breakpoints",
        "Breakpoints and the pause-on-exceptions mode.",
        SessionParams,
        list_breakpoints,
        "List breakpoints",
        read_only=True,
        quiet=True,
    ),
    Action(
        "set_pause_on_exceptions",
        "Pause on no, uncaught or all raised exceptions.",
        ExceptionModeParams,
        set_pause_on_exceptions,
        "Pause on exceptions",
        level=Level.CONTROL,
        idempotent=True,
        group="more",  # start_debugging(pause_on_exceptions=...) sets it from the first line
    ),
    Action(
        "set_exception_filters",
        "Turn on exactly these of the debugger's own exception filters (e.g. debugpy's userUnhandled).",
        ExceptionFiltersParams,
        set_exception_filters,
        "Exception filters",
        group="more",
        level=Level.CONTROL,
    ),
]
