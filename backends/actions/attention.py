"""Shared attention: what the person is looking at (get_focus) and notes between the person and the agents
(post_note), and the notes a stop report carries to the side that did not write them."""

from __future__ import annotations

import time
from typing import Any

from pydantic import Field

from ..errors import DebugError, ErrorCode
from ..focus import person_view
from ..hub import Hub
from ..lazymodel import LazyModel
from ..policy import Level
from . import render
from .registry import Action, Reply


class FocusParams(LazyModel):
    pass


NOBODY = "No person is at a pairdbg TUI in this run (headless MCP)"


def focus_text(view: dict[str, Any]) -> str:
    """The person's focus in a few lines: where, then what is not known."""
    unknown = list(view["unknown"])
    known = any(view.get(k) for k in ("session_id", "cursor", "expression"))
    if not view["attached"]:
        unknown = unknown[1:]  # the first says nobody is attached: the headline says it
        if not known:
            return f"{NOBODY}: nobody is looking at anything."
    lines: list[str] = []
    who = "The person" if view["attached"] else f"{NOBODY}; last known, the person"
    sid = view.get("session_id")
    if sid:
        s = view["session"]
        stop = f" at stop #{s['stop_number']}" if s["phase"] == "paused" else ""
        thread = f", thread {view['thread_id']}" if view.get("thread_id") is not None else ""
        lines.append(f"{who} looks at {sid} ({s['name']}, {s['phase']}{stop}{thread})")
    else:
        lines.append(f"{who} has no session selected")
    frame = view.get("frame")
    if frame:
        place = ""
        if "function" in frame:
            place = f" {frame['function']}  {render.where(frame.get('file'), frame.get('line'))}"
        lines.append(f"  frame    {frame['handle']}{place}" + ("" if frame["current"] else "  (an earlier stop)"))
    cursor = view.get("cursor")
    if cursor:
        lines.append(f"  cursor   {render.where(cursor['file'], cursor['line'])}  {cursor['file']}")
    var = view.get("variable")
    if var:
        typ = f"  ({var['type']})" if var.get("type") else ""
        handle = f"  {var['handle']}" if var.get("handle") else ""
        stale = "" if var["current"] else f"  (read at stop #{var['stop']}; the program moved on, its handle expired)"
        lines.append(f"  variable {var['name']} = {var['value']}{typ}{handle}{stale}")
    if view.get("expression"):
        lines.append(f"  console  {view['expression']}")
    handed = view.get("handed")
    if handed:
        lines.extend(handed_lines(handed))
    if unknown:
        lines.append("Not known: " + "; ".join(unknown))
    return "\n".join(lines)


def handed_lines(h: dict[str, Any]) -> list[str]:
    """What the person handed over (a key in the TUI): "look here", with its place and handles."""
    at = time.strftime("%H:%M:%S", time.localtime(h["at"]))
    stale = "" if h["current"] else "; the program moved on since, its handles expired"
    lines = [f"Handed to you at {at} ({h['session_id'] or 'no session'}, stop #{h['stop']}{stale}):"]
    frame = h.get("frame")
    if frame:
        place = ""
        if "function" in frame:
            place = f" {frame['function']}  {render.where(frame.get('file'), frame.get('line'))}"
        lines.append(f"  frame    {frame['handle']}{place}")
    if h.get("cursor"):
        lines.append(f"  cursor   {render.where(h['cursor']['file'], h['cursor']['line'])}  {h['cursor']['file']}")
    var = h.get("variable")
    if var:
        handle = f"  {var['handle']}" if var.get("handle") and h["current"] else ""
        lines.append(f"  variable {var['name']} = {var['value']}{handle}")
    if h.get("expression"):
        lines.append(f"  console  {h['expression']}")
    return lines


async def get_focus(hub: Hub, p: FocusParams, actor: str) -> Reply:
    view = person_view(hub)
    return Reply(focus_text(view), view)


class NoteParams(LazyModel):
    text: str = Field()
    session_id: str | None = None
    on: str | None = Field(None, description="file:line, variable name or @vN")


def note_place(on: str | None) -> tuple[str | None, int | None, str | None]:
    """`orders.py:14` -> (file, line, None); `total` or `@v3` -> (None, None, variable); None -> the session."""
    if on is None or not on.strip():
        return None, None, None
    on = on.strip()
    file, sep, line = on.rpartition(":")
    if sep and file and line.isdigit():
        if int(line) < 1:
            raise DebugError(ErrorCode.INVALID_PARAMETERS, f"post_note: line {line} in {on!r}", hint="lines start at 1")
        return file, int(line), None
    return None, None, on


async def post_note(hub: Hub, p: NoteParams, actor: str) -> Reply:
    session = hub.get(p.session_id)
    text = p.text.strip()
    if not text:
        raise DebugError(ErrorCode.INVALID_PARAMETERS, "post_note: text is empty", hint="say what you think")
    if len(text) > hub.notes.chars:
        raise DebugError(
            ErrorCode.LIMIT_EXCEEDED,
            f"a note is {len(text)} characters; the limit is {hub.notes.chars}",
            hint="shorten it, or raise the limit (setting limits.note_chars)",
        )
    file, line, variable = note_place(p.on)
    if file is not None:
        file = session.resolve_file(file)
    note = hub.notes.add(
        session.id, actor, text, file=file, line=line, variable=variable, stop=session.stop_number or None
    )
    dropped = hub.notes.dropped.get(session.id, 0)
    more = f" ({dropped} older notes dropped)" if dropped else ""
    return Reply(
        f"Posted {note.line_text()}{more}", {"session_id": session.id, "note": note.data(), "dropped": dropped}
    )


ACTIONS = [
    Action(
        "get_focus",
        "What the person is looking at (session, frame, line, variable, expression) and last handed you.",
        FocusParams,
        get_focus,
        "Person's focus",
        read_only=True,
        quiet=True,
    ),
    Action(
        "post_note",
        "Leave the person a note on a session, file:line or variable.",
        NoteParams,
        post_note,
        "Post note",
        quiet=True,  # the note's own line is the activity entry
        level=Level.INSPECT,
    ),
]
