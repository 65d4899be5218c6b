"""Breakpoint actions: set, update, remove and list breakpoints, and the pause-on-exceptions mode."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .. import queries
from ..errors import DebugError, ErrorCode
from ..hub import Hub
from . import render
from .common import SessionParams
from .registry import Action, Reply


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


class UpdateBreakpointParams(BreakpointIdParams):
    enabled: bool | None = Field(None, description="false keeps the breakpoint but takes it out of the target")
    condition: str | None = Field(None, description="new condition; empty string removes it")
    hit_condition: str | None = Field(None, description="new hit condition, e.g. '>5'; empty string removes it")
    log_message: str | None = Field(None, description="new log message (line breakpoints); empty string removes it")


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
    text = "\n".join(render.breakpoint_line(v) for v in views) or "No breakpoints."
    text += f"\nPause on exceptions: {session.exception_mode}"
    return Reply(
        text,
        {
            "session_id": session.id,
            "breakpoints": queries.breakpoints(session),
            "exception_mode": session.exception_mode,
        },
    )


class ExceptionModeParams(SessionParams):
    mode: Literal["none", "uncaught", "all"] = Field(description="none, uncaught (default), or all raised exceptions")


async def set_pause_on_exceptions(hub: Hub, p: ExceptionModeParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    await session.set_exception_mode(p.mode)
    return Reply(f"{session.id} pauses on exceptions: {p.mode}", {"session_id": session.id, "mode": p.mode})


ACTIONS = [
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
        "update_breakpoint",
        "Enable or disable a breakpoint (a disabled one is kept and listed but does not stop the program), or change "
        "its condition, hit condition or log message (an empty string clears one).",
        UpdateBreakpointParams,
        update_breakpoint,
        "Edit breakpoint",
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
]
