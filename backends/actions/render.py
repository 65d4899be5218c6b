"""Compact text for every reply an agent or person reads; golden tests pin these formats."""

from __future__ import annotations

import os

from ..models import (
    BreakpointView,
    ExceptionInfo,
    ExecOutcome,
    FailedTest,
    FrameView,
    HiddenFrames,
    RaiseSite,
    SessionSummary,
    StopReport,
    VariableView,
)


def short(path: str | None) -> str:
    return os.path.basename(path) if path else "?"


def where(file: str | None, line: int | None) -> str:
    return f"{short(file)}:{line}" if line else short(file)


def variables_block(views: list[VariableView], total: int, start: int = 0, cursor: bool = False) -> list[str]:
    if not views:
        return ["  (none)"]
    width = min(max(len(v.name) for v in views), 24)
    twidth = min(max(len(v.type or "") for v in views), 14)
    out = []
    for v in views:
        handle = f"{v.handle:<5}" if v.handle else "     "
        out.append(f"  {handle} {v.name:<{width}}  {v.type or '':<{twidth}}  {v.value}")
    shown_to = start + len(views)
    if cursor and (shown_to < total or start):  # get_variables pages with start/count: say where the next page is
        more = f"next: start={shown_to}" if shown_to < total else "the end"
        out.append(f"  … showing {start + 1}-{shown_to} of {total:,}; {more}")
    elif shown_to < total or start:
        out.append(f"  … showing {start + 1}-{shown_to} of {total}; pass start/count for more")
    return out


def stack_line(frames: list[FrameView], total: int) -> str:
    parts = [f"{f.handle} {f.function} {where(f.file, f.line)}" for f in frames]
    more = f" (+{total - len(frames)} more: get_call_stack)" if total > len(frames) else ""
    return " · ".join(parts) + more


def stop_report(r: StopReport) -> str:
    cause = r.reason
    if r.hit_breakpoints:
        cause += " " + ",".join(r.hit_breakpoints)
    thread = f", thread {r.thread_id}{' ' + r.thread_name if r.thread_name else ''}" if r.thread_id is not None else ""
    process = f", {r.process}" if r.process else ""
    lines = [f"{r.session_id} paused: {cause}  (stop #{r.stop_number}{thread}{process})"]
    if r.exception and r.exception.test:
        lines.append(test_failure_line(r.exception.test))
    if r.exception:
        mode = f" ({r.exception.break_mode})" if r.exception.break_mode else ""
        message = f": {r.exception.message}" if r.exception.message else ""
        lines.append(f"Exception: {r.exception.type}{message}{mode}")
        if r.exception.test and (depth := depth_line(r.exception)):
            lines.append(depth)
        if r.exception.raised_at and not r.raise_site:  # the raise site's own block says where, with more
            lines.append(f"Raised {r.exception.raised_at}")
    elif r.description and r.description != r.reason and not r.description.startswith("Paused"):
        lines.append(r.description)
    loc = r.location
    if loc.file or loc.line:
        lines.append(f"{where(loc.file, loc.line)} in {loc.function or '?'}  ({loc.file or 'no source'})")
    elif r.stack:
        lines.append(f"No source location: the top frame ({r.stack[0].function}) has no source")
    else:
        lines.append(f"No source location: {r.location_note or 'the stack shown has no frames'}")
    for s in r.source:
        lines.append(f"{'>' if s.current else ' '}{s.line:>5}| {s.text}")
    lines.append(f"Locals ({len(r.locals)} of {r.locals_total}):")
    lines.extend(variables_block(r.locals, r.locals_total))
    if r.raise_site:
        lines.extend(raise_site_lines(r.raise_site))
    if r.write_site:
        lines.extend(raise_site_lines(r.write_site, "Write site"))
    if r.watches:
        lines.append(
            "Watches: "
            + " · ".join(f"{w.id} {w.expression} = {w.value}{' *changed' if w.changed else ''}" for w in r.watches)
        )
    lines.append(f"Stack ({r.stack_total}): " + stack_line(r.stack, r.stack_total))
    lines.extend(hidden_lines(r.hidden_frames))
    if r.output_tail:
        lines.append(f"Output since last stop (cursor {r.output_cursor}):")
        lines.extend(f"  | {t}" for t in r.output_tail)
    return "\n".join(lines)


def raise_site_lines(site: RaiseSite, label: str = "Raise site") -> list[str]:
    """Where a library exception was raised (or a watched value written): a frame just_my_code hides, shown once with
    its handle."""
    package = f" ({site.package})" if site.package else ""
    lines = [
        f"{label} {site.handle}, library code hidden by just_my_code{package}: "
        f"{where(site.file, site.line)} in {site.function}  ({site.file or 'no source'})"
    ]
    lines.extend(f"{'>' if s.current else ' '}{s.line:>5}| {s.text}" for s in site.source)
    lines.append(f"Locals at {site.handle} ({len(site.locals)} of {site.locals_total}):")
    lines.extend(variables_block(site.locals, site.locals_total))
    return lines


def hidden_lines(groups: list[HiddenFrames]) -> list[str]:
    """What the stack leaves out, said once per run of hidden frames, with their handles."""
    if not groups:
        return []
    parts = [
        g.text() + (f" ({g.handles[0]}…{g.handles[-1]})" if len(g.handles) > 1 else f" ({g.handles[0]})")
        for g in groups
        if g.handles
    ]
    return ["; ".join(parts) + "; get_call_stack(include_library=true) lists them"]


#: Exceptions whose stop says how deep the stack was: where it was raised matters less than how it got there.
DEPTH_EXCEPTIONS = ("RecursionError", "MemoryError")


def test_failure_line(t: FailedTest) -> str:
    """`Test failed: test_orders.py::test_total (pytest)`."""
    phase = f", in {t.phase}" if t.phase else ""
    return f"Test failed: {t.test} ({t.runner}{phase})"


def depth_line(e: ExceptionInfo) -> str | None:
    """How deep the stack was where a recursion or memory error was raised."""
    t = e.test
    if t is None or not t.depth or e.type.split(".")[-1] not in DEPTH_EXCEPTIONS:
        return None
    calls = f", {t.repeats} of them calls of the function stopped in" if t.repeats and t.repeats > 1 else ""
    return f"Depth: {t.depth} frames on the stack where it was raised{calls}"


def stop_headline(r: StopReport) -> str:
    """`S1 paused: breakpoint BP1 at orders.py:13 in apply_discount (stop #2)`: the activity feed's line."""
    cause = r.reason + (" " + ",".join(r.hit_breakpoints) if r.hit_breakpoints else "")
    if r.exception:
        cause += f" {r.exception.type}"
        if r.exception.test:
            cause = f"test {r.exception.test.test} failed: {r.exception.type}"
    loc = r.location
    place = f" at {where(loc.file, loc.line)} in {loc.function or '?'}" if loc.file or loc.line else ""
    return f"{r.session_id} paused: {cause}{place}  (stop #{r.stop_number})"


def outcome(o: ExecOutcome, session_id: str, waited: float | None = None) -> str:
    if o.state == "paused" and o.report is not None:
        return stop_report(o.report)
    if o.state == "running":
        waited_text = " of its own" if o.child_stopped else f" within {waited:g}s" if waited is not None else ""
        return (
            f"{session_id} running (pending): no stop{waited_text}"
            + (f"; {o.detail}" if o.detail else "")
            + f".\nNext: wait_for_stop(session_id='{session_id}') to keep waiting, or pause_execution."
        )
    code = f", exit code {o.exit_code}" if o.exit_code is not None else ""
    lines = [f"{session_id} {o.state}{code}" + (f": {o.detail}" if o.detail else "")]
    if o.output_tail:
        lines.append("Output tail:")
        lines.extend(f"  | {t}" for t in o.output_tail)
    return "\n".join(lines)


def breakpoint_line(bp: BreakpointView, counts: bool = False) -> str:
    """One breakpoint; with `counts`, its hits and whether the program passed it without stopping (list_breakpoints)."""
    if bp.kind == "data":
        target = f"data {bp.expression} ({bp.access})" + (f" on {bp.watching}" if bp.watching else "")
    elif bp.kind == "function":
        target = f"function {bp.function}"
        if bp.file and bp.actual_line:  # bound as a line breakpoint on its first body line
            target += f" at {where(bp.file, bp.actual_line)}"
    else:
        target = where(bp.file, bp.line)
        if bp.actual_line and bp.line and bp.actual_line != bp.line:
            target += f" (bound to line {bp.actual_line})"
    extras = []
    if bp.condition:
        extras.append(f"if {bp.condition}")
    if bp.hit_condition:
        extras.append(f"hit {bp.hit_condition}")
    if bp.log_message:
        extras.append(f"log {bp.log_message!r}")
    if bp.temporary:
        extras.append("run to line: removed at the next stop")
    if bp.log_only:
        extras.append("log only: changes go to get_output(category='changes')")
    if not bp.enabled:
        status = "disabled (kept, not in the target)"
    else:
        status = "verified" if bp.verified else "unverified"
        if bp.message:  # why it is unbound, or why a bound one does not stop (its condition raises)
            status += f": {bp.message}"
    text = f"{bp.id} {target} {status}"
    if extras:
        text += " [" + ", ".join(extras) + "]"
    if counts:
        text += f"; hits {bp.hits}, passed without stopping: {bp.passed_without_stopping}"
        if bp.passed_without_stopping != "no" and bp.passed_note:
            text += f" ({bp.passed_note})"
    if bp.source:
        text += f"  | {bp.source}"
    return text


def session_line(s: SessionSummary) -> str:
    text = f"{s.session_id} {s.name} [{s.language}/{s.backend}] {s.phase.value}"
    if s.parent_id:
        text += f" (child of {s.parent_id}, pid {s.pid})"
    if s.location and s.location.line:
        text += f" at {where(s.location.file, s.location.line)} in {s.location.function}"
        text += f" ({s.reason}, stop #{s.stop_number})"
    if s.exit_code is not None:
        text += f" exit code {s.exit_code}"
    if s.error:
        text += f": {s.error}"
    return text
