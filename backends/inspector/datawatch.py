"""Data breakpoints for Node programs, pairdbg's side: what to ask the helper in the program (datawatch.js), what its
`pairdbgDataChange` binding calls mean (a change-log line, or the reason of the pause that follows), and which frames
of a pause are the helper's (hidden: the stop is reported at the writing statement)."""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from ..base import DataBreakpointSpec, DataWatch
from ..errors import DebugError, ErrorCode
from .dialect import Dialect

HELPER = Path(__file__).with_name("datawatch.js")
#: The sourceURL of the helper and of the conditions it runs: blackboxed, and their frames hidden.
HELPER_URL = "pairdbg-datawatch.js"
CONDITION_URL = "pairdbg-datawatch-condition.js"
PAUSE_MARK = "// pairdbg-datawatch: pause"
FLUSH_MARK = "// pairdbg-datawatch: flush"
BINDING = "pairdbgDataChange"
GROUP = "pairdbg-datawatch"
API = 'globalThis[Symbol.for("pairdbg.datawatch")]'
IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*\Z")
NAME = re.compile(r"(?<![.\w$])[A-Za-z_$][\w$]*")  # a name a condition may look up (not a property after a dot)
STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
HINT = "watch a property (obj.key, obj[key]), a Map entry (map.get(key)) or a Set value (set.has(value))"

Send = Callable[..., Awaitable[dict[str, Any]]]
Locate = Callable[[str, int, int], tuple[str, int]]  # the engine's (file, line, column) -> the source's (file, line)


def split_target(expression: str) -> tuple[str, str, str]:
    """`cart.total` -> ("cart", "property", '"total"'); `m.get(k)` -> ("m", "map", "k"); `s.has(v)` -> ("s", "set",
    "v"); `a[i]` -> ("a", "property", "i"); `x` -> ("", "binding", "x"): the object holding the value, how, and the
    key's source."""
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
        return "", "binding", text  # a property of the global object, or a variable (arm() tells which)
    raise DebugError(ErrorCode.INVALID_PARAMETERS, f"{expression!r} does not name a place a value is stored", hint=HINT)


#: Why a variable found in a scope of the paused frame cannot be watched, by the scope's type (V8's and JSC's names).
#: Neither engine runs any code when such a binding is written, and neither inspector protocol has a watchpoint.
UNWATCHABLE_SCOPES = {
    "local": "a variable of the function (a let, const, var or parameter; in a CommonJS module the top-level ones "
    "are locals of the module's function)",
    "closure": "a variable of an enclosing function (in a CommonJS module the top-level let, const and var are "
    "locals of the module's function)",
    "block": "a let or const of a block",
    "catch": "the error binding of a catch clause",
    "script": "a top-level let, const or class of a script (the script scope, not a property of the global object)",
    "globalLexicalEnvironment": "a top-level let, const or class of a script (not a property of the global object)",
    "module": "a binding of the ES module's scope",
    "eval": "a variable of code run by eval",
    "nestedLexical": "a let or const of a block",
    "functionName": "the name of a named function expression",
}
BINDING_WHY = (
    ": the engine stores it in a scope without running any code a watch could catch, and the inspector protocol has "
    "no watchpoint on a binding (V8's and JavaScriptCore's alike)"
)
BINDING_HINT = (
    "watch a property of an object it holds (x.key), or log its writes with a log point on the lines that assign it"
)


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

    def __init__(self, send: Send, thrown: Callable[[dict[str, Any]], str | None], jsc: bool = False) -> None:
        self._send = send
        self._thrown = thrown
        #: JavaScriptCore's inspector (Bun): no Runtime.addBinding (the changes are taken from the helper: takeLog),
        #: no Runtime.compileScript, and blackboxing by URL with line ranges.
        self.jsc = jsc
        self.log_only: set[str] = set()  # ids of the log-only watches (on JSC, their changes are polled for)
        self._loaded = False
        self._pending_stop: dict[str, Any] | None = None  # the change the helper's next `debugger;` is for
        self._conditions: dict[str, str] = {}  # id -> the condition its test was compiled from
        self.script_ids: set[str] = set()  # the helper's script and its conditions' (their frames are hidden)

    def forget(self) -> None:
        """A new target (a reconnect, a reload): the helper is not in it."""
        self._loaded = False
        self._pending_stop = None
        self._conditions.clear()
        self.script_ids.clear()
        self.log_only.clear()

    async def _load(self) -> None:
        if self._loaded:
            return
        if self.jsc:
            await self._load_in_jsc()
            self._loaded = True
            return
        # The binding first: the helper takes it off the global object as it loads.
        await self._send("Runtime.addBinding", {"name": BINDING})
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
        self.script_ids.add(str(compiled["scriptId"]))
        result = await self._send("Runtime.runScript", {"scriptId": compiled["scriptId"], "returnByValue": True})
        self._fail_if_thrown(result, "the data-breakpoint helper did not load")
        self._loaded = True

    async def _load_in_jsc(self) -> None:
        """The helper evaluated under its sourceURL, blackboxed by URL but for the lines of its two `debugger;`
        (JavaScriptCore ignores a pause in blackboxed code too); its script found through one of its functions."""
        source = HELPER.read_text()
        lines = source.splitlines()
        stops = sorted(n for n, text in enumerate(lines) if PAUSE_MARK in text or FLUSH_MARK in text)
        ranges: list[int] = []
        start = 0
        for line in stops:
            if line > start:
                ranges += [start, 0, line, 0]
            start = line + 1
        ranges += [start, 0, len(lines) + 2, 0]
        await self._send(
            "Debugger.setShouldBlackboxURL",
            {"url": HELPER_URL, "shouldBlackbox": True, "caseSensitive": True, "sourceRanges": ranges},
        )
        await self._send(
            "Debugger.setShouldBlackboxURL", {"url": CONDITION_URL, "shouldBlackbox": True, "caseSensitive": True}
        )
        result = await self._send(
            "Runtime.evaluate", {"expression": f"{source}\n//# sourceURL={HELPER_URL}\n", "objectGroup": GROUP}
        )
        self._fail_if_thrown(result, "the data-breakpoint helper did not load")
        found = await self._send("Runtime.evaluate", {"expression": f"{API}.takeLog", "objectGroup": GROUP})
        await self._note_script((found.get("result") or {}).get("objectId"))

    async def _note_script(self, function_id: str | None) -> None:
        """JSC: the script of a function of the helper's (or a condition), whose frames are hidden."""
        if not function_id:
            return
        details = await self._send("Debugger.getFunctionDetails", {"functionId": function_id})
        script = ((details.get("details") or {}).get("location") or {}).get("scriptId")
        if script:
            self.script_ids.add(str(script))

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

    async def _compile(self, condition: str, call_frame: dict[str, Any] | None) -> dict[str, Any]:
        """`value < 0` as a function of (value, old), made once where the watch is set (its other names are that
        frame's); its script is blackboxed, so steps never stop in it. (By its script, not by a URL pattern: js-debug
        keeps its skipFiles in the session's one list of patterns.)"""
        source = f"((value, old) => (\n{condition}\n))\n//# sourceURL={CONDITION_URL}\n"
        if call_frame is not None and self.jsc and not await self._names_a_frame_variable(condition, call_frame):
            call_frame = None  # JavaScriptCore calls a function made in a frame ~2x slower: made as a plain one
        if call_frame is not None:
            made = await self._in_frame(str(call_frame["callFrameId"]), source, "the condition", condition)
        else:
            result = await self._send("Runtime.evaluate", {"expression": source, "objectGroup": GROUP})
            thrown = self._thrown(result)
            if thrown is not None:
                raise DebugError(
                    ErrorCode.INVALID_PARAMETERS, f"the condition {condition!r} does not compile: {thrown}"
                )
            made = result.get("result") or {}
        await self._blackbox_function(made)
        return argument(made)

    async def _names_a_frame_variable(self, condition: str, call_frame: dict[str, Any]) -> bool:
        """Whether `condition` may name a variable of the frame's scopes (then it is made in the frame). Erring
        towards yes: a template literal, or any name (object keys included) also found in those scopes."""
        if "`" in condition:
            return True
        names = set(NAME.findall(STRING.sub('""', condition))) - {"value", "old"}
        if not names:
            return False
        for scope in call_frame.get("scopeChain") or []:
            object_id = (scope.get("object") or {}).get("objectId")
            if scope.get("type") == "global" or not object_id:
                continue
            found = await self._send("Runtime.getProperties", {"objectId": object_id, "ownProperties": True})
            if names & {str(item.get("name")) for item in self._properties(found)}:
                return True
        return False

    async def _blackbox_function(self, made: dict[str, Any]) -> None:
        if not made.get("objectId"):
            return
        if self.jsc:  # (blackboxed by its URL already)
            await self._note_script(made["objectId"])
            return
        found = await self._send("Runtime.getProperties", {"objectId": made["objectId"], "ownProperties": True})
        for item in found.get("internalProperties") or []:
            if item.get("name") == "[[FunctionLocation]]":
                script = ((item.get("value") or {}).get("value") or {}).get("scriptId")
                if script:
                    self.script_ids.add(str(script))
                    await self._send(
                        "Debugger.setBlackboxedRanges",
                        {"scriptId": script, "positions": [{"lineNumber": 0, "columnNumber": 0}]},
                    )
                    return
        raise DebugError(ErrorCode.PROTOCOL_ERROR, "the condition's script could not be found to keep steps out of it")

    async def _binding_refusal(self, call_frame: dict[str, Any], name: str) -> DataWatch | None:
        """None when `name` is, seen from the paused frame, a property of the global object (a watchable place);
        else why not: the scope holding it, or that nothing does."""
        for scope in call_frame.get("scopeChain") or []:
            kind = str(scope.get("type") or "")
            if kind == "closure" and scope.get("name") and scope.get("name") == call_frame.get("functionName"):
                kind = "local"  # (JavaScriptCore calls the frame's own function scope a closure scope too)
            if kind == "global":
                break
            object_id = (scope.get("object") or {}).get("objectId")
            if not object_id:
                continue
            found = await self._send("Runtime.getProperties", {"objectId": object_id, "ownProperties": True})
            names = {str(item.get("name")) for item in self._properties(found)}
            if name not in names:
                continue
            if kind == "with":
                return DataWatch(False, reason=f"{name} is a property of a `with` statement's object", hint=HINT)
            what = UNWATCHABLE_SCOPES.get(kind, f"a variable of a {kind} scope")
            return DataWatch(False, reason=f"{name} is {what}{BINDING_WHY}", hint=BINDING_HINT)
        frame_id = str(call_frame["callFrameId"])
        on_global = await self._in_frame(frame_id, f"({json.dumps(name)} in globalThis)", "the name", name)
        if on_global.get("value") is True:
            return None
        await self._in_frame(frame_id, f"(void {name})", "the name", name)  # (no such variable: said by the engine)
        # A variable of a scope the engine does not list for this frame (JavaScriptCore leaves a CommonJS module's
        # function scope and an ES module's scope out)
        return DataWatch(
            False,
            reason=f"{name} is a variable of an enclosing scope (a CommonJS module's top-level let, const and var are "
            f"locals of the module's function, an ES module's are bindings of its scope){BINDING_WHY}",
            hint=BINDING_HINT,
        )

    @staticmethod
    def _properties(found: dict[str, Any]) -> list[dict[str, Any]]:
        return list(found.get("result") or found.get("properties") or [])  # (V8's name, JSC's)

    async def arm(self, spec: DataBreakpointSpec, call_frame: dict[str, Any]) -> DataWatch:
        if spec.access != "write":
            return DataWatch(
                False,
                reason="Node programs can watch writes only: the helper's getter also runs each time pairdbg itself "
                "shows the value, so it does not stop on reads",
                hint="set it with access=write",
            )
        holder, kind, key = split_target(spec.expression)
        call_frame_id = str(call_frame["callFrameId"])
        if kind == "binding":
            refused = await self._binding_refusal(call_frame, key)
            if refused is not None:
                return refused
            holder, kind, key = "globalThis", "property", json.dumps(key)  # a property of the global object
        target = await self._in_frame(call_frame_id, f"({holder})", "the object", spec.expression)
        if not target.get("objectId"):
            shown = target.get("description") or target.get("value")
            return DataWatch(False, reason=f"{holder} is {shown!r}, not an object", hint=HINT)
        key_arg = argument(await self._in_frame(call_frame_id, f"({key})", "the key", spec.expression))
        await self._load()
        test = await self._compile(spec.condition, call_frame) if spec.condition else {"value": None}
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
        if spec.log_only:
            self.log_only.add(spec.id)
        watching = answer.get("watching")
        if holder == "globalThis" and split_target(spec.expression)[1] == "binding":
            watching = f"global variable {spec.expression} (a property of the global object)"
        return DataWatch(True, watching=watching, value=answer.get("value"), missed=answer.get("missed"))

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
        self.log_only.discard(bp_id)
        if self._loaded:
            await self._api("unwatch", [{"value": bp_id}])

    async def update(
        self, bp_id: str, enabled: bool | None, condition: str | None, call_frame: dict[str, Any] | None
    ) -> None:
        test: dict[str, Any] = {"value": None}
        # Compiled again only when its text changed: it keeps the names of the frame it was set in.
        changed = condition is not None and (condition or "") != self._conditions.get(bp_id, "")
        if changed and condition:
            test = await self._compile(condition, call_frame)
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

    def in_helper(self, call_frame: dict[str, Any]) -> bool:
        """A CDP call frame of the helper or of a condition (V8 leaves call frames' `url` empty)."""
        return str((call_frame.get("location") or {}).get("scriptId")) in self.script_ids

    @property
    def armed(self) -> bool:
        """Some watch is set in the program (its pauses are worth telling apart from others)."""
        return bool(self._conditions)

    def on_change(self, payload: str, locate: Locate) -> dict[str, Any] | None:
        """One binding call's change, its place resolved; a stopping change is kept for the pause that follows it.
        `locate` turns the engine's (file, line, column) into the source's (a source-mapped file's original)."""
        body = placed(payload, locate)
        if body is None:
            return None
        if body.get("stop"):
            self._pending_stop = body
        return body

    def take_stop(self) -> dict[str, Any] | None:
        change, self._pending_stop = self._pending_stop, None
        return change

    async def take_log(self, locate: Locate) -> list[dict[str, Any]]:
        """JSC: the changes the helper holds (taken once), their places resolved."""
        if not self._loaded:
            return []
        answer = await self._send(
            "Runtime.evaluate", {"expression": f"{API}.takeLog()", "returnByValue": True, "silent": True}
        )
        self._fail_if_thrown(answer, "the data-breakpoint helper failed")
        texts = (answer.get("result") or {}).get("value") or []
        changes = [self.on_change(text, locate) for text in texts if isinstance(text, str)]
        self._pending_stop = None
        return [change for change in changes if change is not None]

    async def take_stop_in_page(self, locate: Locate) -> dict[str, Any] | None:
        """The change the helper is paused for, asked of the paused program itself (once; None for any other pause).
        For js-debug, whose binding calls come on another socket than its pauses."""
        if not self._loaded:
            return None
        answer = await self._send(
            "Runtime.evaluate", {"expression": f"{API}.takeStop()", "returnByValue": True, "silent": True}
        )
        self._fail_if_thrown(answer, "the data-breakpoint helper failed")
        payload = (answer.get("result") or {}).get("value")
        self._pending_stop = None
        return placed(payload, locate) if isinstance(payload, str) else None


def placed(payload: str, locate: Locate) -> dict[str, Any] | None:
    """One change as the helper sent it, its place turned into the source's."""
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
    return body


MAP_COMMENT = re.compile(r"//[#@] sourceMappingURL=(\S+)\s*$")


class FileMaps:
    """A change's place in the source of a compiled file, through the map its last lines name: for js-debug, which
    keeps the maps it follows to itself. Each file's map is read once."""

    def __init__(self) -> None:
        self._maps: dict[str, Any] = {}

    def site(self, file: str, line: int, column: int) -> tuple[str, int]:
        found = self._maps.get(file, False)
        if found is False:
            found = self._maps[file] = self._load(file)
        original = found.original_for(line - 1, max(column - 1, 0)) if found is not None else None
        return (original.source, original.line + 1) if original is not None else (file, line)

    @staticmethod
    def _load(file: str) -> Any:
        from .sourcemap import SourceMap, SourceMapError, chain_file_map

        try:
            with open(file, "rb") as handle:
                handle.seek(0, os.SEEK_END)
                handle.seek(max(handle.tell() - 4096, 0))
                tail = handle.read().decode("utf-8", "replace").rstrip().splitlines()
            named = MAP_COMMENT.search(tail[-1]) if tail else None
            found = SourceMap.from_url(named.group(1), file) if named else None
            return chain_file_map(found) if found is not None else None
        except (OSError, SourceMapError, ValueError):
            return None  # no map to be had: the compiled file's place is reported


v8_thrown = Dialect("v8").thrown  # what an evaluation threw, for a V8 reached otherwise (js-debug's CDP proxy)


def is_helper_url(url: str) -> bool:
    return url.endswith((HELPER_URL, CONDITION_URL))
