"""Data breakpoints for debugpy sessions, pairdbg's side: what to ask the helper in the program
(pairdbg_datawatch.py), and what its `pairdbgDataChange` events mean (a change-log line, or the reason of the stop
that follows)."""

from __future__ import annotations

import ast
import contextlib
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from ..base import DataBreakpointSpec, DataWatch, RawValue
from ..errors import DebugError, ErrorCode

HELPER = Path(__file__).with_name("pairdbg_datawatch.py")
MODULE = "pairdbg_datawatch"
EVENT = "pairdbgDataChange"

Evaluate = Callable[[str, int | None, str], Awaitable[RawValue]]


def split_target(expression: str) -> tuple[str, str, str]:
    """`cart.total` -> ("cart", "attr", "'total'"); `config["db"]["host"]` -> ('config["db"]', "item", "'host'");
    `total` -> ("None", "name", "'total'"): the object holding the value, how it holds it, and the key's source
    (evaluated in the program). A bare name is a local of the selected frame or a global of its module."""
    try:
        node = ast.parse(expression.strip(), mode="eval").body
    except SyntaxError as exc:
        raise DebugError(
            ErrorCode.INVALID_PARAMETERS, f"{expression!r} is not a Python expression ({exc.msg})"
        ) from None
    if isinstance(node, ast.Attribute):
        return ast.unparse(node.value), "attr", repr(node.attr)
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
        return ast.unparse(node.value), "item", ast.unparse(node.slice)
    if isinstance(node, ast.Name):
        return "None", "name", repr(node.id)
    raise DebugError(
        ErrorCode.INVALID_PARAMETERS,
        f"{expression!r} does not name a place a value is stored",
        hint="watch an attribute (obj.attr) or an item (obj[key])",
    )


class DataWatches:
    """One debugpy program's data breakpoints: arms, changes and clears them through evaluates in the program, turns
    the helper's events into change-log lines and the next stop's reason."""

    def __init__(self, evaluate: Evaluate) -> None:
        self._evaluate = evaluate
        self._loaded = False
        self._pending_stops: list[dict[str, Any]] = []  # the changes the next "breakpoint" stop is for

    def _module(self) -> str:
        if self._loaded:
            return f"__import__('sys').modules[{MODULE!r}]"
        source = HELPER.read_text()
        # Compiled under the helper's own file name (so pydevd's DONT_TRACE entry keeps steps out of it) and kept in
        # sys.modules: a second set in the same process finds it there.
        return (
            f"(lambda sys, types: sys.modules.get({MODULE!r}) or (lambda mod: (exec(compile({source!r}, "
            f"{str(HELPER)!r}, 'exec'), mod.__dict__), sys.modules.__setitem__({MODULE!r}, mod), mod)[2])"
            f"(types.ModuleType({MODULE!r})))(__import__('sys'), __import__('types'))"
        )

    async def _call(self, call: str, frame_id: int | None) -> Any:
        # "clipboard": pydevd writes the answer out whole (other contexts cut long texts short)
        raw = await self._evaluate(f"{self._module()}.{call}", frame_id, "clipboard")
        self._loaded = True
        try:
            return ast.literal_eval(raw.value)
        except (ValueError, SyntaxError):
            raise DebugError(
                ErrorCode.PROTOCOL_ERROR, f"the program's data-breakpoint helper answered {raw.value[:200]!r}"
            ) from None

    async def arm(self, spec: DataBreakpointSpec, frame_id: int) -> DataWatch:
        if spec.access != "write":
            return DataWatch(
                False, reason="debugpy programs can watch writes only: a read runs no code a watch can catch"
            )
        holder, kind, key = split_target(spec.expression)
        checks = (
            (("the variable", spec.expression.strip()),)
            if kind == "name"
            else (("the object", holder), ("the key", key))
        )
        for what, source in checks:
            try:
                await self._evaluate(source, frame_id, "watch")  # said plainly if it fails, before anything is armed
            except DebugError as exc:
                raise DebugError(
                    ErrorCode.INVALID_PARAMETERS,
                    f"cannot evaluate {what} {source!r} of {spec.expression!r} in this frame: "
                    f"{exc.message.strip().splitlines()[-1] if exc.message.strip() else exc.message}",
                    hint="give an expression that evaluates in the selected frame (get_call_stack lists them)",
                ) from None
        try:
            answer = await self._call(
                f"watch({spec.id!r}, ({holder}), {kind!r}, ({key}), {spec.expression!r}, {spec.condition!r}, "
                f"{bool(spec.log_only)!r}, {frame_id!r})",
                frame_id,
            )
            if not isinstance(answer, dict):
                raise DebugError(ErrorCode.PROTOCOL_ERROR, f"the data-breakpoint helper answered {answer!r}")
        except DebugError:
            with contextlib.suppress(DebugError):  # it may be armed: a watch pairdbg does not list must not stop
                await self.clear(spec.id)
            raise
        if "refused" in answer:
            return DataWatch(False, reason=str(answer["refused"]))
        return DataWatch(True, watching=answer.get("watching"), value=answer.get("value"), missed=answer.get("missed"))

    async def clear(self, bp_id: str) -> None:
        await self._call(f"unwatch({bp_id!r})", None)

    async def update(self, bp_id: str, enabled: bool | None, condition: str | None) -> None:
        answer = await self._call(f"update({bp_id!r}, {enabled!r}, {condition!r})", None)
        if isinstance(answer, dict) and "refused" in answer:
            raise DebugError(ErrorCode.INVALID_PARAMETERS, f"{bp_id}: {answer['refused']}")

    # ----- events from the helper ----------------------------------------------------------------------------------

    def on_change(self, body: dict[str, Any]) -> str:
        """A change-log line for one event; a stopping change is kept for the stop event that follows it (several, when
        one write changed several watches: `dict.update` of two watched keys is one stop)."""
        if body.get("stop"):
            self._pending_stops.append(body)
        return change_line(body)

    def annotate_stop(self, body: dict[str, Any]) -> dict[str, Any]:
        """The stop pydevd reports as a plain "breakpoint" right after stopping changes: those data breakpoints'."""
        changes = self._pending_stops
        if not changes or body.get("reason") != "breakpoint" or body.get("hitBreakpointIds"):
            return body  # another stop came first (pydevd's step ending on the same line): the change's comes next
        self._pending_stops = []
        parts = []
        for change in changes:
            part = f"{change['id']}: {change['expression']} {change['old']} → {change['new']}"
            if change.get("after_write"):  # the stop came once the write was done, maybe at the next line
                part += f" (written at line {change['line']})"
            parts.append(part)
        description = ("data breakpoint " if len(parts) == 1 else "data breakpoints ") + "; ".join(parts)
        ids = list(dict.fromkeys(change["id"] for change in changes))
        return {**body, "reason": "data breakpoint", "description": description, "hitBreakpointIds": ids}


def change_line(body: dict[str, Any]) -> str:
    stamp = (
        time.strftime("%H:%M:%S", time.localtime(body.get("time") or 0))
        + f".{int((body.get('time') or 0) * 1000) % 1000:03d}"
    )
    where = (
        f"{os.path.basename(str(body.get('file')))}:{body.get('line')} in {body.get('function')}"
        if body.get("file")
        else "no frame"
    )
    if body.get("library"):  # library code wrote it: where the user's code called it from
        where += f" (library code, called from {os.path.basename(str(body.get('caller')))})"
    if body.get("ended"):
        return (
            f"{stamp} {body.get('id')} {body.get('expression')} {body.get('note')}  at {where} [{body.get('thread')}]\n"
        )
    text = (
        f"{stamp} {body.get('id')} {body.get('expression')} {body.get('old')} → {body.get('new')}  at {where} "
        f"[{body.get('thread')}]" + ("  (stopped)" if body.get("stop") else "")
    )
    if body.get("note"):
        text += f"  ({body['note']})"
    return text + "\n"
