"""Data breakpoints for Node programs, pairdbg's side: what to ask the helper in the program (datawatch.js), what its
`pairdbgDataChange` binding calls mean (a change-log line, or the reason of the pause that follows), and which frames
of a pause are the helper's (hidden: the stop is reported at the writing statement)."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from ..base import DataBreakpointSpec, DataWatch
from ..errors import DebugError, ErrorCode

HELPER = Path(__file__).with_name("datawatch.js")
#: The sourceURL of the helper and of the conditions it runs: blackboxed, and their frames hidden.
HELPER_URL = "pairdbg-datawatch.js"
CONDITION_URL = "pairdbg-datawatch-condition.js"
CONDITION_BLACKBOX = r"pairdbg-datawatch-condition\.js$"
PAUSE_MARK = "// pairdbg-datawatch: pause"
BINDING = "pairdbgDataChange"
GROUP = "pairdbg-datawatch"
API = 'globalThis[Symbol.for("pairdbg.datawatch")]'
IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*\Z")
HINT = "watch a property (obj.key, obj[key]), a Map entry (map.get(key)) or a Set value (set.has(value))"

Send = Callable[..., Awaitable[dict[str, Any]]]


def split_target(expression: str) -> tuple[str, str, str]:
    """`cart.total` -> ("cart", "property", '"total"'); `m.get(k)` -> ("m", "map", "k"); `s.has(v)` -> ("s", "set",
    "v"); `a[i]` -> ("a", "property", "i"): the object holding the value, how, and the key's source."""
    text = expression.strip().rstrip(";").strip()
    marks: list[tuple[str, int]] = []  # (kind, index) of each accessor at the outer level
    depth, i, quote = 0, 0, ""
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
        elif c in "([{":
            if depth == 0:
                marks.append(("call" if c == "(" else "bracket" if c == "[" else "brace", i))
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "." and depth == 0 and not text[i + 1 : i + 2].isdigit() and text[i - 1 : i] != ".":
            marks.append(("dot", i))
        i += 1
    if quote or depth:
        raise DebugError(ErrorCode.INVALID_PARAMETERS, f"{expression!r} is not a complete JavaScript expression")

    def holder(end: int) -> str:
        return text[:end].removesuffix("?").strip()

    if marks and marks[-1][0] == "bracket" and text.endswith("]") and holder(marks[-1][1]):
        start = marks[-1][1]
        return holder(start), "property", text[start + 1 : -1]
    if len(marks) >= 2 and marks[-1][0] == "call" and marks[-2][0] == "dot" and text.endswith(")"):
        (_, dot), (_, call) = marks[-2], marks[-1]
        method = text[dot + 1 : call].strip()
        if method in ("get", "has") and holder(dot):
            return holder(dot), "map" if method == "get" else "set", text[call + 1 : -1] or "undefined"
    if marks and marks[-1][0] == "dot" and IDENTIFIER.match(text[marks[-1][1] + 1 :]) and holder(marks[-1][1]):
        dot = marks[-1][1]
        return holder(dot), "property", json.dumps(text[dot + 1 :])
    if IDENTIFIER.match(text):
        raise DebugError(
            ErrorCode.INVALID_PARAMETERS,
            f"{text} is a variable (a let/const/var binding): the engine writes it without running any code a "
            "watch could catch, so it cannot be watched",
            hint=HINT,
        )
    raise DebugError(ErrorCode.INVALID_PARAMETERS, f"{expression!r} does not name a place a value is stored", hint=HINT)


def argument(result: dict[str, Any]) -> dict[str, Any]:
    """A Runtime.CallArgument for an evaluate's result (undefined is an empty one)."""
    if result.get("objectId"):
        return {"objectId": result["objectId"]}
    if "unserializableValue" in result:
        return {"unserializableValue": result["unserializableValue"]}
    if result.get("type") == "undefined":
        return {}
    return {"value": result.get("value")}


class DataWatches:
    """One Node program's data breakpoints: arms, changes and clears them through the helper, turns its binding calls
    into change-log lines and the next pause's reason."""

    def __init__(self, send: Send, thrown: Callable[[dict[str, Any]], str | None]) -> None:
        self._send = send
        self._thrown = thrown
        self._loaded = False
        self._pending_stop: dict[str, Any] | None = None  # the change the helper's next `debugger;` is for
        self._conditions: dict[str, str] = {}  # id -> the condition its test was compiled from

    def forget(self) -> None:
        """A new target (a reconnect, a reload): the helper is not in it."""
        self._loaded = False
        self._pending_stop = None
        self._conditions.clear()

    async def _load(self) -> None:
        if self._loaded:
            return
        # The binding first: the helper takes it off the global object as it loads.
        await self._send("Runtime.addBinding", {"name": BINDING})
        await self._send("Debugger.setBlackboxPatterns", {"patterns": [CONDITION_BLACKBOX]})
        source = HELPER.read_text()
        lines = source.splitlines()
        pause = next(n for n, text in enumerate(lines) if PAUSE_MARK in text)
        compiled = await self._send(
            "Runtime.compileScript",
            {"expression": source, "sourceURL": HELPER_URL, "persistScript": True},
        )
        if compiled.get("exceptionDetails") or not compiled.get("scriptId"):
            raise DebugError(ErrorCode.PROTOCOL_ERROR, f"the data-breakpoint helper did not compile: {compiled}")
        # V8 ignores `debugger;` in blackboxed code: every line but the one of `pause` is blackboxed.
        await self._send(
            "Debugger.setBlackboxedRanges",
            {
                "scriptId": compiled["scriptId"],
                "positions": [
                    {"lineNumber": 0, "columnNumber": 0},
                    {"lineNumber": pause, "columnNumber": 0},
                    {"lineNumber": pause + 1, "columnNumber": 0},
                    {"lineNumber": len(lines) + 1, "columnNumber": 0},
                ],
            },
        )
        result = await self._send("Runtime.runScript", {"scriptId": compiled["scriptId"], "returnByValue": True})
        self._fail_if_thrown(result, "the data-breakpoint helper did not load")
        self._loaded = True

    def _fail_if_thrown(self, result: dict[str, Any], what: str) -> None:
        thrown = self._thrown(result)
        if thrown is not None:
            raise DebugError(ErrorCode.PROTOCOL_ERROR, f"{what}: {thrown}")

    async def _in_frame(self, call_frame_id: str, source: str, what: str, expression: str) -> dict[str, Any]:
        result = await self._send(
            "Debugger.evaluateOnCallFrame",
            {"callFrameId": call_frame_id, "expression": source, "objectGroup": GROUP, "silent": True},
        )
        thrown = self._thrown(result)
        if thrown is not None:
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                f"cannot evaluate {what} of {expression!r} in this frame: {thrown.strip().splitlines()[0]}",
                hint="give an expression that evaluates in the selected frame (get_call_stack lists them)",
            )
        return result.get("result") or {}

    async def _compile(self, condition: str, call_frame_id: str | None) -> dict[str, Any]:
        """`value < 0` as a function of (value, old), made once where the watch is set (its other names are that
        frame's), under the blackboxed condition URL: steps never stop in it."""
        source = f"((value, old) => (\n{condition}\n))\n//# sourceURL={CONDITION_URL}\n"
        if call_frame_id is not None:
            made = await self._in_frame(call_frame_id, source, "the condition", condition)
        else:
            result = await self._send("Runtime.evaluate", {"expression": source, "objectGroup": GROUP})
            thrown = self._thrown(result)
            if thrown is not None:
                raise DebugError(
                    ErrorCode.INVALID_PARAMETERS, f"the condition {condition!r} does not compile: {thrown}"
                )
            made = result.get("result") or {}
        return argument(made)

    async def arm(self, spec: DataBreakpointSpec, call_frame_id: str) -> DataWatch:
        if spec.access != "write":
            return DataWatch(
                False,
                reason="Node programs can watch writes only: the helper's getter also runs each time pairdbg itself "
                "shows the value, so it does not stop on reads",
                hint="set it with access=write",
            )
        holder, kind, key = split_target(spec.expression)
        target = await self._in_frame(call_frame_id, f"({holder})", "the object", spec.expression)
        if not target.get("objectId"):
            shown = target.get("description") or target.get("value")
            return DataWatch(False, reason=f"{holder} is {shown!r}, not an object", hint=HINT)
        key_arg = argument(await self._in_frame(call_frame_id, f"({key})", "the key", spec.expression))
        await self._load()
        test = await self._compile(spec.condition, call_frame_id) if spec.condition else {"value": None}
        try:
            result = await self._send(
                "Runtime.callFunctionOn",
                {
                    "objectId": target["objectId"],
                    "functionDeclaration": f"function (id, kind, key, expression, test, logOnly) {{ return {API}.watch("
                    "this, id, kind, key, expression, test, logOnly); }",
                    "arguments": [
                        {"value": spec.id},
                        {"value": kind},
                        key_arg,
                        {"value": spec.expression},
                        test,
                        {"value": bool(spec.log_only)},
                    ],
                    "returnByValue": True,
                },
            )
            self._fail_if_thrown(result, "the data-breakpoint helper failed")
        except DebugError:
            with contextlib.suppress(DebugError):  # it may be armed: a watch pairdbg does not list must not stop
                await self.clear(spec.id)
            raise
        finally:
            with contextlib.suppress(DebugError):
                await self._send("Runtime.releaseObjectGroup", {"objectGroup": GROUP})
        answer = (result.get("result") or {}).get("value")
        if not isinstance(answer, dict):
            raise DebugError(ErrorCode.PROTOCOL_ERROR, f"the data-breakpoint helper answered {answer!r}")
        if "refused" in answer:
            return DataWatch(False, reason=str(answer["refused"]), hint=HINT)
        self._conditions[spec.id] = spec.condition or ""
        return DataWatch(True, watching=answer.get("watching"), value=answer.get("value"), missed=answer.get("missed"))

    async def _api(self, call: str, arguments: list[dict[str, Any]]) -> Any:
        result = await self._send(
            "Runtime.callFunctionOn",
            {
                "functionDeclaration": f"function (...args) {{ return {API}.{call}(...args); }}",
                "objectId": await self._global(),
                "arguments": arguments,
                "returnByValue": True,
            },
        )
        self._fail_if_thrown(result, "the data-breakpoint helper failed")
        return (result.get("result") or {}).get("value")

    async def _global(self) -> str:
        result = await self._send("Runtime.evaluate", {"expression": "globalThis", "objectGroup": GROUP})
        return (result.get("result") or {})["objectId"]

    async def clear(self, bp_id: str) -> None:
        self._conditions.pop(bp_id, None)
        if self._loaded:
            await self._api("unwatch", [{"value": bp_id}])

    async def update(self, bp_id: str, enabled: bool | None, condition: str | None, call_frame_id: str | None) -> None:
        test: dict[str, Any] = {"value": None}
        # Compiled again only when its text changed: it keeps the names of the frame it was set in.
        changed = condition is not None and (condition or "") != self._conditions.get(bp_id, "")
        if changed and condition:
            test = await self._compile(condition, call_frame_id)
        try:
            answer = await self._api("update", [{"value": bp_id}, {"value": enabled}, test, {"value": changed}])
        finally:
            with contextlib.suppress(DebugError):
                await self._send("Runtime.releaseObjectGroup", {"objectGroup": GROUP})
        if isinstance(answer, dict) and "refused" in answer:
            raise DebugError(ErrorCode.INVALID_PARAMETERS, f"{bp_id}: {answer['refused']}")
        if changed:
            self._conditions[bp_id] = condition or ""

    # ----- events from the helper ----------------------------------------------------------------------------------

    def on_change(self, payload: str, locate: Callable[[str, int, int], tuple[str, int]]) -> dict[str, Any] | None:
        """One binding call's change, its place resolved; a stopping change is kept for the pause that follows it.
        `locate` turns the engine's (file, line, column) into the source's (a source-mapped file's original)."""
        try:
            body = json.loads(payload)
        except ValueError:
            return None
        if not isinstance(body, dict):
            return None
        file = str(body.get("file") or "?").removeprefix("file://")
        line, column = body.get("line"), body.get("column")
        if isinstance(line, int) and isinstance(column, int) and line > 0:
            file, line = locate(file, line, column)
        body["file"], body["line"] = file, line
        if body.get("stop"):
            self._pending_stop = body
        return body

    def take_stop(self) -> dict[str, Any] | None:
        change, self._pending_stop = self._pending_stop, None
        return change


def is_helper_url(url: str) -> bool:
    return url.endswith((HELPER_URL, CONDITION_URL))
