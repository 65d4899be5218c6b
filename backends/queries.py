"""Read-only, unannounced queries of the core: what the TUI, the MCP resources and prompts and the actions read.

The one door for reads, as the action registry is for writes: front ends never reach into `session.backend` or
mint handles. Kept small and in one module, so they can later read a per-stop snapshot instead of the backend.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .base import Completion, RawValue
from .errors import DebugError, ErrorCode
from .models import FrameView, HiddenFrames, Phase, StopReport, VariableView, WatchView
from .stops import place_library_frames

if TYPE_CHECKING:
    from .hub import Hub
    from .session import Session

FIRST_SCOPE_PAGE = 100  # children of the first scope read with a frame (the variables tree's bucket size)


# ----- state checks (the errors an action answers with) ---------------------------------------------------------------


def require_paused(session: Session) -> None:
    """Raise NOT_PAUSED (or the end's error) unless the session is paused."""
    session.require_paused()


def require_live(session: Session) -> None:
    """Raise the end's error (exit code, disconnect, reconnecting) while the session's target is not there."""
    session.require_live()


# ----- what a session is --------------------------------------------------------------------------------------------


def debugs_code(session: Session) -> bool:
    """False for a session on a web page through the debug-bridge: no source, stack or breakpoints."""
    return session.backend.debugs_code


def program(session: Session) -> str | None:
    return session.backend.program


def target_page(session: Session) -> tuple[str | None, str | None]:
    """An inspector target's title and URL as its /json/list gives them; None for what no list said."""
    endpoint = getattr(session.backend, "endpoint", None)
    return getattr(endpoint, "title", None), getattr(endpoint, "target_url", None)


def interpreter(session: Session) -> tuple[str, str] | None:
    """The Python interpreter a launched program runs on and why it was chosen (e.g. "the project's .venv");
    None for other targets."""
    python = getattr(session.backend, "python", None)
    if not isinstance(python, str):
        return None
    return python, getattr(session.backend, "python_chosen_by", "named")


def can_evaluate_globally(session: Session) -> bool:
    """The target evaluates outside a frame (JavaScript, a debug-bridge page), also while it runs."""
    return session.backend.features.global_evaluate


# ----- frames and values ----------------------------------------------------------------------------------------------


# Run in the paused program (its own namespace): the stopped thread's running loop, each task and the chain of
# coroutines it awaits through, as JSON text; null when the thread runs no loop.
_TASKS_SOURCE = """
def walk():
    import sys
    if "asyncio" not in sys.modules:  # a program without asyncio: nothing is imported into it
        return "null"
    import asyncio, json
    loop = asyncio._get_running_loop()
    if loop is None:
        return json.dumps(None)
    current = asyncio.current_task(loop)
    out = []
    for task in asyncio.all_tasks(loop):
        chain, coro, awaiting = [], task.get_coro(), None
        while coro is not None and len(chain) < 50:
            frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
            if frame is not None:
                name = getattr(coro, "__qualname__", type(coro).__name__)
                chain.append([name, frame.f_code.co_filename, frame.f_lineno])
            inner = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
            if inner is not None and not hasattr(inner, "cr_frame") and not hasattr(inner, "gi_frame"):
                awaiting = repr(inner)[:200]
                break
            coro = inner
        blocked_on = getattr(task, "_fut_waiter", None)  # the future the task waits for, if any
        if blocked_on is not None:
            awaiting = repr(blocked_on)[:200]
        out.append({"name": task.get_name(), "current": task is current, "done": task.done(), "chain": chain,
                    "awaiting": awaiting})
    return json.dumps(out)
"""
_TASKS_EXPRESSION = f"(lambda ns: (exec({_TASKS_SOURCE!r}, ns), ns['walk']())[1])({{}})"


async def async_tasks(session: Session, frame: str | None) -> list[dict[str, Any]] | None:
    """asyncio tasks of the loop the stopped thread runs, each with the coroutines it awaits through (outermost
    first, 1-based lines) and what the innermost awaits; None when that thread runs no loop."""
    session.require_paused()
    if session.language != "python":
        raise session.backend.unsupported("lists asyncio tasks of Python programs only")
    frame_id = session.handles.frame_id(frame)
    raw = await session.backend.evaluate(_TASKS_EXPRESSION, frame_id, context="repl")
    try:
        tasks = json.loads(ast.literal_eval(raw.value))
    except (ValueError, SyntaxError, TypeError) as exc:
        raise DebugError(
            ErrorCode.PROTOCOL_ERROR,
            f"could not read the program's asyncio tasks: {raw.value[:200]}",
            hint="the program may have replaced asyncio or json; evaluate asyncio.all_tasks() instead",
        ) from exc
    if tasks is None:
        return None
    return [
        {
            "name": t["name"],
            "current": t["current"],
            "done": t["done"],
            "chain": [{"function": f, "file": file, "line": line} for f, file, line in t["chain"]],
            "awaiting": t["awaiting"],
        }
        for t in sorted(tasks, key=lambda t: (not t["current"], t["name"]))
    ]


async def call_stack(
    session: Session, thread_id: int, start: int, count: int, include_library: bool = False
) -> tuple[list[FrameView], int]:
    """Frames of a thread: the stopped thread's are @fN (positions in the stop's stack), another thread's
    @f<thread>.<N>; both work in get_scopes, get_variables and evaluate until the program runs. With
    `include_library`, the stopped thread's stack also lists the library frames the target hides (library=True,
    handles @fN+k / @f0-k, which work the same)."""
    snapshot = session.snapshot
    if include_library and snapshot is not None and snapshot.thread_id == thread_id:
        full = await snapshot.full_stack()
        if full is not None:
            entries, _ = place_library_frames(full, session.handles)
            frames = [
                FrameView(
                    handle=h,
                    function=f.name,
                    file=f.file,
                    line=f.line,
                    column=f.column,
                    library=f.library or None,
                    unwound=f.unwound or None,
                )
                for h, f in entries[start : start + count]
            ]
            return frames, len(entries)
    if snapshot is not None:
        raw, total = await snapshot.thread_stack(thread_id, start, count)  # each thread's frames are read once
    else:
        raw, total = await session.backend.debugger("has no call stack").stack(thread_id, start, count)
    stopped = session.last_stop.thread_id if session.last_stop else thread_id
    frames = [
        FrameView(
            handle=session.handles.frame(i, f.id)
            if thread_id == stopped
            else session.handles.thread_frame(thread_id, i, f.id),
            function=f.name,
            file=f.file,
            line=f.line,
            column=f.column,
        )
        for i, f in enumerate(raw, start=start)
    ]
    return frames, total


async def frame_place(session: Session, frame: str) -> tuple[FrameView | None, int | None]:
    """Where a frame handle of the current stop is, and its thread, from what the stop has read (the report's
    frames, else the stop's snapshot, which reads a thread's frames once). (None, None) for a handle it has not
    listed (a library frame, a stale or unknown handle): what an agent read is then only its handle."""
    stop = session.last_stop
    if stop is None or session.phase != Phase.PAUSED:
        return None, None
    handle = "@" + frame.strip().lstrip("@")
    for view in stop.stack:
        if view.handle == handle:
            return view, stop.thread_id
    body = handle.removeprefix("@f")
    thread, _, index = body.rpartition(".") if "." in body else (str(stop.thread_id), "", body)
    if not (index.isdigit() and thread.isdigit()):
        return None, None
    try:
        frames, _ = await call_stack(session, int(thread), int(index), 1)
    except DebugError:
        return None, None
    return (frames[0] if frames else None), int(thread)


def variable_key(session: Session, handle: str | None) -> str | None:
    """What makes two handles of one stop the same variable, for marking the one an agent expanded in the person's
    tree (their handles differ: each read hands out new ones): its frame and expression path, else the target's
    own reference. None for an unknown or expired handle."""
    if not handle:
        return None
    try:
        ref = session.handles.variable(handle)
    except DebugError:
        return None
    if ref.evaluate_name:
        return f"{ref.frame_id}:{ref.evaluate_name}"
    return f"ref:{ref.ref}" if ref.ref else None


async def scopes(session: Session, frame: str | None) -> list[VariableView]:
    """Scopes of a frame of the current stop, each with a @vN handle."""
    frame_id = session.handles.frame_id(frame)
    snapshot = session.snapshot
    if snapshot is not None:
        found = await snapshot.scopes(frame_id)  # the stop's scopes are read once
    else:
        found = await session.backend.debugger("has no scopes").scopes(frame_id)
    return [
        session.value_view(RawValue(name=s.name, value=f"{s.named} names" if s.named else "", ref=s.ref), 0, frame_id)
        for s in found
    ]


async def frame_locals(
    session: Session, frame: str | None, count: int, include_special: bool = False
) -> tuple[list[VariableView], int]:
    """Locals of a frame of the current stop (its first scope), the first `count` of them and how many there are."""
    return await session.frame_locals(session.handles.frame_id(frame), count, include_special)


async def value_text(session: Session, container: str, name: str) -> tuple[str, str | None]:
    """The whole text of a variable (for copying or reading a long string) and the expression that reads it."""
    return await session.values.full_text(container, name)


async def value_expression(session: Session, container: str, name: str) -> str | None:
    """The expression that reads a variable (`cart.total`), for a watch or a data breakpoint on it."""
    return await session.values.expression_of(container, name)


async def threads(session: Session) -> tuple[list[tuple[int, str]], int | None]:
    """The program's threads and the one it stopped in last."""
    require_live(session)
    snapshot = session.snapshot
    if snapshot is not None and snapshot.threads is not None:
        found = list(snapshot.threads)  # read with the stop: nothing moves while it is paused
    else:
        found = await session.backend.threads()
    return found, session.last_stop.thread_id if session.last_stop else None


async def watches(session: Session, frame: str | None) -> list[WatchView]:
    """Every watch with its value in `frame` of the current stop (the stop's own values for its top frame, read
    when the stop was recorded); values the next stop's are compared with change only at the top frame."""
    listed = list(session.watches.values())
    stop = session.last_stop
    if session.phase != Phase.PAUSED or stop is None:
        note = "(evaluated at the next stop)" if session.phase.reachable else "(the program has ended)"
        return [WatchView(id=w.id, expression=w.expression, value=note, added_by=w.added_by) for w in listed]
    frame = frame or "@f0"
    at_stop = {w.id: w for w in stop.watches}
    out = []
    for watch in listed:
        shown = at_stop.get(watch.id)
        if frame == "@f0" and shown is not None and shown.expression == watch.expression:
            out.append(shown)
            continue
        try:
            frame_id = session.handles.frame_id(frame) if stop.stack else None
        except DebugError as exc:
            out.append(
                WatchView(
                    id=watch.id, expression=watch.expression, value=exc.message, error=True, added_by=watch.added_by
                )
            )
            continue
        out.append(await session.watches.evaluate(watch, frame_id, remember=frame == "@f0"))
    return out


async def completions(session: Session, text: str, cursor: int, frame: str | None) -> list[Completion] | None:
    """Completions from the debugger for a console line (the frame's names, an object's members); None when the
    debugger offers none. A read: it is not an action, so a Tab press is not announced to agents."""
    if session.phase == Phase.PAUSED:
        frame_id: int | None = (
            session.handles.frame_id(frame) if session.last_stop and session.last_stop.stack else None
        )
    elif session.phase != Phase.RUNNING or not can_evaluate_globally(session):
        return None
    return await session.backend.debugger("has no completions").completions(text, cursor, frame_id)


@dataclass
class FrameData:
    """What the stack, source and variables panes show of one frame of one stop."""

    session_id: str
    stop_number: int
    frames: list[FrameView]
    total: int
    frame: str
    scopes: list[VariableView] = field(default_factory=list)
    first_scope_children: list[VariableView] = field(default_factory=list)
    first_scope_total: int = 0
    #: Runs of library frames the stack leaves out (each `text()` says how many, of what, where). With
    #: include_library they are in `frames` instead, each with `library` set (to show greyed).
    hidden: list[HiddenFrames] = field(default_factory=list)


async def frame_view(session: Session, frame: str, max_frames: int, include_library: bool = False) -> FrameData | None:
    """The current stop's frames (more than the report's when the stack is deeper), the scopes of `frame` and its
    first scope's children. What the stop report already read (top frames, top-frame locals) is not asked again.
    `include_library` lists the hidden library frames too. None when there is no stop, or a newer stop came while
    reading."""
    stop = session.last_stop
    if stop is None:
        return None
    number = session.stop_number
    frames, total = list(stop.stack), stop.stack_total
    wants_library = include_library and bool(stop.hidden_frames)
    if (total > len(frames) or wants_library) and stop.thread_id is not None:
        frames, total = await call_stack(session, stop.thread_id, 0, max_frames, wants_library)
        if session.stop_number != number:
            return None
    data = FrameData(session.id, number, frames, total, frame, hidden=list(stop.hidden_frames))
    data.scopes = await scopes(session, frame)
    if not data.scopes or not data.scopes[0].handle:
        return data
    if _report_has_all_locals(stop, frame):
        data.first_scope_children, data.first_scope_total = list(stop.locals), stop.locals_total
    else:
        data.first_scope_children, data.first_scope_total = await session.children(
            data.scopes[0].handle, 0, FIRST_SCOPE_PAGE, None
        )
    return data


def _report_has_all_locals(stop: StopReport, frame: str) -> bool:
    """The report read the top frame's first scope; its list is the whole scope when nothing was cut off."""
    return frame == "@f0" and bool(stop.stack) and stop.locals_total <= len(stop.locals)


# ----- breakpoints and output: the shapes list_breakpoints and get_output return ----------------------------------


def breakpoints(session: Session) -> list[dict[str, Any]]:
    return [bp.view().model_dump(mode="json", exclude_none=True) for bp in session.breakpoints.values()]


def exception_filters(session: Session) -> list[dict[str, Any]]:
    """The debugger's own exception filters, what each means and whether it is on; none for a target without."""
    if not session.backend.debugs_code:
        return []
    return [
        {"id": f.id, "label": f.label, "description": f.description, "enabled": on}
        for f, on in session.breakpoints.exception_filter_states()
    ]


def output_page(session: Session, since: int, limit: int, category: str | None = None) -> dict[str, Any]:
    entries, next_since, has_more, dropped = session.output.read(since, limit, category)
    return {
        "session_id": session.id,
        "entries": [e.model_dump() for e in entries],
        "next_since": next_since,
        "has_more": has_more,
        "dropped": dropped,
    }


# ----- MCP resources and prompts --------------------------------------------------------------------------------------

OUTPUT_RESOURCE_ENTRIES = 200


def sessions_resource(hub: Hub) -> list[dict[str, Any]]:
    return [s.summary().model_dump(mode="json", exclude_none=True) for s in hub.sessions.values()]


def session_resource(session: Session) -> dict[str, Any]:
    """The session's summary, last stop, breakpoints and watches."""
    body = session.summary().model_dump(mode="json", exclude_none=True)
    if session.last_stop is not None:
        body["last_stop"] = session.last_stop.model_dump(mode="json", exclude_none=True)
    body["breakpoints"] = breakpoints(session)
    body["watches"] = [
        {"id": w.id, "expression": w.expression, "value": w.last, "added_by": w.added_by}
        for w in session.watches.values()
    ]
    return body


def output_resource(session: Session) -> str:
    """The newest output entries as plain text, under a one-line header."""
    page = output_page(session, max(1, session.output.cursor - OUTPUT_RESOURCE_ENTRIES), OUTPUT_RESOURCE_ENTRIES)
    dropped = page["dropped"]
    entries = page["entries"]
    head = f"# {len(entries)} entries, next_since={page['next_since']}" + (f", {dropped} dropped" if dropped else "")
    return head + "\n" + "".join(e["text"] if e["text"].endswith("\n") else e["text"] + "\n" for e in entries)


def changes_resource(session: Session) -> str:
    """The change log (data breakpoints' changes, oldest first) as plain text, under a one-line header."""
    page = output_page(session, 0, OUTPUT_RESOURCE_ENTRIES, "changes")
    entries = page["entries"]
    head = f"# {len(entries)} changes, next_since={page['next_since']}" + (
        ", more: get_output" if page["has_more"] else ""
    )
    if page["dropped"]:
        head += f", {page['dropped']} older output entries dropped"
    return head + "\n" + "".join(e["text"] for e in entries)


@dataclass
class StopContext:
    """What a prompt says about a session: its state, its last stop and the frames to look at."""

    summary: Any  # SessionSummary
    stop: StopReport | None
    frames: list[str]


def stop_context(session: Session) -> StopContext:
    stop = session.last_stop
    return StopContext(session.summary(), stop, [f.handle for f in stop.stack] if stop else ["@f0"])


# ----- debug-bridge pages -------------------------------------------------------------------------------------------


def is_page(session: Session | None) -> bool:
    """A Hub session on a web page connected through the debug-bridge."""
    return session is not None and getattr(session.backend, "kind", "") == "bridge"


@dataclass
class PageData:
    """What the page view shows of a debug-bridge session: its mirror (read, never changed), whether it is between
    two pages, and the redactor for the app state."""

    page: Any  # bridge.page.Page
    reconnecting: bool
    redactor: Any


def page_view(session: Session | None) -> PageData | None:
    if not is_page(session):
        return None
    backend = session.backend
    redactor = getattr(getattr(backend, "service", None), "redactor", None)
    return PageData(backend.page, session.phase == Phase.RECONNECTING, redactor)


# ----- navigation: the program's project, the files it loaded, installed modules by name ----------------------------


def project_folder(session: Session) -> str | None:
    """The program's project root (nearest folder up with pyproject.toml, package.json or .git); None when the
    program is not a file here (a page, an attached target) and it has not stopped in one."""
    import os

    from .project import project_root

    program = session.backend.program
    launch = session.launch_args or {}
    for candidate in (program, launch.get("cwd"), session.last_stop.location.file if session.last_stop else None):
        if candidate and os.path.isabs(candidate) and os.path.exists(candidate):
            return project_root(candidate)
    return None


async def loaded_sources(session: Session) -> list[str]:
    """The files the debuggee has loaded, as its backend tells (DAP modules/loadedSources, the inspector's parsed
    scripts and their source maps' sources); empty when the session is not live or cannot tell."""
    if not session.phase.reachable or not session.backend.debugs_code:
        return []
    try:
        return await session.backend.debugger("has no sources").loaded_sources()
    except DebugError:
        return []


async def resolve_module(session: Session, name: str) -> str:
    """The source file of an installed module as the program's own interpreter finds it (`json.decoder`, `lodash`),
    without running it; PATH_NOT_FOUND naming why when there is none."""
    from . import modules

    runtime = session.backend.module_runtime()
    if runtime is None and session.language == "python" and session.phase == Phase.PAUSED:
        return await _locate_in_program(session, name)
    if runtime is None:
        raise DebugError(
            ErrorCode.CAPABILITY_UNSUPPORTED,
            f"session {session.id} does not know its program's interpreter (an attached or remote program)",
            hint="pause it (a Python program looks the name up itself), or open the module's file by its path",
        )
    if runtime.kind == "python":
        return await modules.resolve_python(runtime.executable, name, runtime.program_dir, runtime.cwd, runtime.env)
    return await modules.resolve_node(runtime.executable, name, runtime.program_dir or runtime.cwd or ".")


async def _locate_in_program(session: Session, name: str) -> str:
    """An attached Python program looks the name up itself (its interpreter, its sys.path), evaluated while paused.
    The path is the program's: a program on another machine names a file there."""
    from . import modules

    expression = modules.locate_expression(name)
    frame = session.handles.frame_id("@f0") if session.last_stop and session.last_stop.stack else None
    raw = await session.backend.evaluate(expression, frame, context="repl")
    try:
        answer = json.loads(ast.literal_eval(raw.value))
    except (ValueError, SyntaxError, TypeError) as exc:
        raise DebugError(ErrorCode.PROTOCOL_ERROR, f"the program could not look up {name}: {raw.value[:200]}") from exc
    return modules.source_of(name, answer, "the program's interpreter")
