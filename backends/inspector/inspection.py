"""Value inspection of a paused inspector target: the InspectorValues mixin (stack, scopes, values, evaluate)."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..base import Completion, ExceptionDetails, RawFrame, RawScope, RawValue
from ..errors import DebugError, ErrorCode, evaluation_failed
from .datawatch import is_helper_url
from .sourcemap import ChainedMap
from .values import describe, type_of

#: The failure hook a `node --test` run preloads (testrun.py); its frames are pairdbg's, not the program's.
TEST_HOOK_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testhook.cjs")
PLAIN_CONSOLE_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plainconsole.cjs")

if TYPE_CHECKING:
    from .dialect import Dialect
    from .scripts import Scripts

# Copies the readable, non-function properties of `this` (own and inherited) into a plain object, at most 300.
READABLE_SNAPSHOT = """function() {
  const out = {}; let n = 0;
  for (const key in this) {
    if (n >= 300) break;
    try { const v = this[key]; if (typeof v !== "function") { out[key] = v; n++; } } catch (e) {}
  }
  return out;
}"""


COLLECTIONS = ("map", "set", "weakmap", "weakset")
# The arguments of the function a CommonJS module runs in: noise in its top-level frame's locals.
IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
MODULE_WRAPPER = frozenset({"exports", "require", "module", "__filename", "__dirname"})
# V8's internal properties that say nothing a person reads: the prototype, closure scopes.
HIDDEN_INTERNALS = ("[[Prototype]]", "[[Scopes]]")


@dataclass
class _Ref:
    object_ids: list[str]
    frame: int | None = None
    scope_numbers: list[int] = field(default_factory=list)  # when this handle is a (merged) scope of `frame`
    entries: bool = False  # a Map/Set: its children are its entries
    kind: str = ""  # the object's class, as type_of says it
    listed: list[RawValue] | None = None  # a Map/Set's entries, once read in this stop


class InspectorValues:
    """Mixed into InspectorBackend: frames, scopes and objects of the current pause, by per-stop numeric handles."""

    dialect: Dialect
    scripts: Scripts
    _paused: dict[str, Any] | None
    _refs: dict[int, _Ref]
    _next_ref: int
    _returned: tuple[str, dict[str, Any]] | None
    _generated: dict[str, str]  # script id -> the engine's source text, read for original names
    test_hook: bool

    def _frames(self) -> list[dict[str, Any]]:
        if self._paused is None:
            raise DebugError(ErrorCode.NOT_PAUSED, "the target is not paused")
        return list(self._paused.get("callFrames") or [])

    async def stack(self, thread_id: int, start: int = 0, levels: int = 20) -> tuple[list[RawFrame], int]:
        frames: list[RawFrame] = []
        calls = self._frames()
        for index, frame in enumerate(calls):
            location = frame.get("location") or {}
            if (index or self.test_hook) and self._hidden(location.get("scriptId", "")):
                continue  # the runtime's own frames (node:internal/…) are noise under the user's code
            frames.append(self._raw_frame(index, frame))
        if not frames and calls:  # every frame is hidden (a failure arriving in the test hook): the stop keeps a place
            frames.append(self._raw_frame(0, calls[0]))
        frames.extend(self._async_frames())
        total = len(frames)
        return frames[start : start + levels], total

    async def stack_with_library(self, thread_id: int, top_frame_id: int) -> list[RawFrame] | None:
        """The runtime's own frames that `stack` leaves out (node:internal/…, bun:…, built-ins), in their place; they
        are call frames of the pause like the others (scopes, evaluate). None when there are none."""
        frames: list[RawFrame] = []
        hidden = False
        for index, frame in enumerate(self._frames()):
            location = frame.get("location") or {}
            script_id = str(location.get("scriptId", ""))
            if index and self._hidden(script_id):
                hidden = True
                script = self.scripts.by_id.get(script_id)
                url = script.url if script is not None else ""
                line = location.get("lineNumber", 0) + 1
                name = frame.get("functionName") or "(anonymous)"
                frames.append(RawFrame(index, name, url or None, line, library=True, package=_runtime_of(url)))
                continue
            frames.append(self._raw_frame(index, frame))
        if not hidden:
            return None
        return frames + self._async_frames()

    def _raw_frame(self, index: int, frame: dict[str, Any]) -> RawFrame:
        location = frame.get("location") or {}
        file, line0, column0 = self.scripts.from_wire(
            location.get("scriptId", ""), location.get("lineNumber", 0), location.get("columnNumber", 0)
        )
        return RawFrame(index, frame.get("functionName") or "(anonymous)", file, line0 + 1, column0 + 1)

    def _hidden(self, script_id: str) -> bool:
        """A frame left out of stacks: the runtime's own, and in a test run the failure hook's (it is pairdbg's, and
        a failed assertion pauses inside node:assert, under the test's line)."""
        if self._internal(script_id):
            return True
        script = self.scripts.by_id.get(str(script_id))
        if script is not None and is_helper_url(script.url):  # pairdbg's data-breakpoint helper (datawatch.js)
            return True
        return self.test_hook and script is not None and script.url.endswith(TEST_HOOK_FILE)

    def _internal(self, script_id: str) -> bool:
        script = self.scripts.by_id.get(str(script_id))
        # The runtime's own code: Node's node:/internal/ modules, Bun's bun: ones, and WebKit's built-ins
        # (asyncFunctionResume, promise jobs), which have no URL or were never announced by scriptParsed.
        return script is None or not script.url or script.url.startswith(("node:", "internal/", "bun:"))

    def _async_frames(self) -> list[RawFrame]:
        """Frames of the async callers (an `await`, a timer, a promise), marked and not evaluable."""
        out: list[RawFrame] = []
        trace = (self._paused or {}).get("asyncStackTrace")
        one_based = self.dialect.is_jsc  # JSC stack traces count lines from 1 (its Locations count from 0)
        while trace and len(out) < 50:
            label = trace.get("description")  # V8: "await", "Timeout", "Promise.then"; JSC gives none
            tag = f"[async {label}]" if label and label != "async" else "[async]"
            for call in trace.get("callFrames") or []:
                url = call.get("url") or ""
                if not url or url.startswith(("node:", "internal/", "bun:")) or url == "[native code]":
                    continue  # the runtime's own frames (async hooks, JSC built-ins and natives) bury the callers
                if self.test_hook and url.endswith(TEST_HOOK_FILE):
                    continue
                line0 = (call.get("lineNumber") or 0) - (1 if one_based else 0)
                script_id = call.get("scriptId")
                if script_id and str(script_id) in self.scripts.by_id:
                    file, line0, column0 = self.scripts.from_wire(script_id, max(line0, 0), call.get("columnNumber", 0))
                else:
                    file, column0 = call.get("url") or "?", call.get("columnNumber", 0)
                name = f"{call.get('functionName') or '(anonymous)'} {tag}"
                out.append(RawFrame(-(len(out) + 1), name, file, line0 + 1, column0 + 1, hint="async"))
            trace = trace.get("parent") or trace.get("parentStackTrace")
        return out

    def _call_frame(self, frame_id: int) -> dict[str, Any]:
        frames = self._frames()
        if frame_id < 0 or frame_id >= len(frames):
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                "async frames can be seen but not inspected; pick a frame above the async boundary",
            )
        return frames[frame_id]

    def _ref(self, ref: _Ref) -> int:
        number = self._next_ref
        self._next_ref += 1
        self._refs[number] = ref
        return number

    async def scopes(self, frame_id: int) -> list[RawScope]:
        frame = self._call_frame(frame_id)
        chain = frame.get("scopeChain") or []
        local_count = self.dialect.local_scope_count(frame)
        scopes: list[RawScope] = []
        if local_count:
            ids = [s["object"]["objectId"] for s in chain[:local_count] if (s.get("object") or {}).get("objectId")]
            scopes.append(RawScope("Locals", self._ref(_Ref(ids, frame_id, list(range(local_count))))))
        for number, scope in enumerate(chain[local_count:], start=local_count):
            object_id = (scope.get("object") or {}).get("objectId")
            if not object_id:
                continue
            kind = scope.get("type", "scope")
            name = {
                "global": "Global",
                "globalLexicalEnvironment": "Script",
                "script": "Script",
                "module": "Module",
                "closure": "Closure",
                "block": "Block",
            }.get(kind, kind.title())
            if scope.get("name"):
                name += f" ({scope['name']})"
            scopes.append(RawScope(name, self._ref(_Ref([object_id], frame_id, [number])), expensive=kind == "global"))
        return scopes

    async def variables(self, ref: int, start: int = 0, count: int = 0) -> list[RawValue]:
        entry = self._refs.get(ref)
        if entry is None:
            raise DebugError(ErrorCode.PATH_NOT_FOUND, "that object is gone (the target resumed since)")
        values: list[RawValue] = []
        if entry.entries:  # read once per stop: each page of a big Map is a slice of the same list
            if entry.listed is None:
                entry.listed = await self._entries(entry.object_ids[0], entry.frame)
            values = entry.listed
            return values[start : start + count if count else None] if start or count else values
        if entry.frame == 0 and 0 in entry.scope_numbers and self._returned is not None:
            function, returned = self._returned  # what the function just stepped out of gave back
            values.append(self._raw(f"(return) {function}", returned, entry.frame))
        if entry.frame is not None and 0 in entry.scope_numbers:
            # `this` is no scope's variable but the frame's own: a person expects it among the locals.
            this = self._call_frame(entry.frame).get("this") or {}
            if this and this.get("type") != "undefined":
                values.append(self._raw("this", this, entry.frame))
        for object_id in entry.object_ids:
            values.extend(await self._own_values(object_id, entry.frame))
        if entry.frame is not None and entry.scope_numbers:
            await self._original_names(entry.frame, values)
        if 0 in entry.scope_numbers and {v.name for v in values} >= MODULE_WRAPPER:
            for value in values:  # (Bun also lists the wrapper's `arguments`)
                value.special = value.name in MODULE_WRAPPER or value.name == "arguments"
        if not values and not entry.scope_numbers and entry.object_ids:
            # A DOM node (or any object of getters) has no own data properties: list its readable ones instead.
            result = await self._send(
                "Runtime.callFunctionOn",
                {
                    "objectId": entry.object_ids[0],
                    "functionDeclaration": READABLE_SNAPSHOT,
                    "generatePreview": True,
                    "objectGroup": "pairdbg",
                },
            )
            snapshot = (result.get("result") or {}).get("objectId")
            if snapshot and self.dialect.thrown(result) is None:
                values.extend(await self._own_values(snapshot, entry.frame))
        if not values and entry.kind == "Generator" and not self.dialect.shows_generator_state:
            values.append(RawValue("(note)", "JavaScriptCore's inspector does not expose a generator's state"))
        if start or count:
            values = values[start : start + count if count else None]
        return values

    async def _original_names(self, frame_id: int, values: list[RawValue]) -> None:
        """Minified code's variables under the names its source map gives them (`src (l)`): the map names the
        identifier at a position, so each variable is looked up where it last occurs before the pause, in its
        function (V8 gives the function's range; on JSC the line so far)."""
        frame = self._call_frame(frame_id)
        here = frame.get("location") or {}
        script = self.scripts.by_id.get(str(here.get("scriptId")))
        source_map = script.source_map() if script is not None else None
        if source_map is None or not getattr(source_map, "names", None):
            return
        local = next((s for s in frame.get("scopeChain") or [] if s.get("type") == "local"), {})
        start = local.get("startLocation") or {"lineNumber": here.get("lineNumber", 0), "columnNumber": 0}
        if isinstance(source_map, ChainedMap):
            # Bun: its own map leads to the file it ran (a minified marked.esm.js), whose map has the names.
            found = source_map.outer.original_for(here.get("lineNumber", 0), here.get("columnNumber", 0))
            if found is None or found.source != source_map.via:
                return
            text = source_map.outer.source_content(found.source)
            source_map = source_map.inner
            here = {"lineNumber": found.line, "columnNumber": found.column}
            start = {"lineNumber": found.line, "columnNumber": 0}
        else:
            text = await self._generated_text(script.script_id)
        if text is None:
            return
        lines = text.split("\n")
        for value in values:
            if not IDENTIFIER.fullmatch(value.name):
                continue
            original = _name_before(lines, source_map, value.name, start, here)
            if original and original != value.name:
                value.name = f"{original} ({value.name})"

    async def _generated_text(self, script_id: str) -> str | None:
        if script_id not in self._generated:
            try:
                result = await self._send("Debugger.getScriptSource", {"scriptId": script_id})
            except DebugError:
                return None
            self._generated[script_id] = result.get("scriptSource") or ""
        return self._generated[script_id]

    async def _own_values(self, object_id: str, frame: int | None) -> list[RawValue]:
        """Own properties, after what the engine keeps in internal slots (a Promise's state and result, a
        generator's state) and, on V8, the #private fields (JSC lists those among the own properties)."""
        result = await self._send(
            "Runtime.getProperties", {"objectId": object_id, "ownProperties": True, "generatePreview": True}
        )
        values = []
        for prop in result.get("internalProperties") or []:
            name, value = prop.get("name", "?"), prop.get("value")
            if value is None or name in HIDDEN_INTERNALS:
                continue
            if value.get("subtype") == "internal#location":  # [[GeneratorLocation]]: where it is suspended
                where = value.get("value") or {}
                file, line0, _ = self.scripts.from_wire(where.get("scriptId", ""), where.get("lineNumber", 0))
                values.append(RawValue(name=name, value=f"{file}:{line0 + 1}", type="location"))
                continue
            values.append(self._raw(name, value, frame))
        for prop in result.get("privateProperties") or []:
            if "value" in prop:
                values.append(self._raw(prop.get("name", "?"), prop["value"], frame))
        values += [
            self._raw(prop.get("name", "?"), prop["value"], frame)
            for prop in self.dialect.properties(result)
            if "value" in prop and prop.get("name") != "__proto__"
        ]
        return values

    async def _entries(self, object_id: str, frame: int | None) -> list[RawValue]:
        """A Map's or Set's entries, in order, named by position (`"k0" => 0`, or the value of a Set)."""
        if self.dialect.has_collection_entries:
            result = await self._send("Runtime.getCollectionEntries", {"objectId": object_id, "objectGroup": "pairdbg"})
            out = []
            for index, entry in enumerate(result.get("entries") or []):
                value = entry.get("value") or {}
                raw = self._raw(str(index), value, frame)
                if entry.get("key") is not None:  # the handle opens the value; the key is in the text
                    raw.value = f"{describe(entry['key'])} => {raw.value}"
                    raw.type = "entry"
                out.append(raw)
            return out
        result = await self._send("Runtime.getProperties", {"objectId": object_id, "ownProperties": True})
        listed = next(
            (p.get("value") for p in result.get("internalProperties") or [] if p.get("name") == "[[Entries]]"), None
        )
        if not listed or not listed.get("objectId"):
            return []
        # Each entry's description already reads `{"k0" => 0}`; previews of 10,000 entries would triple the time.
        result = await self._send("Runtime.getProperties", {"objectId": listed["objectId"], "ownProperties": True})
        return [
            self._raw(prop["name"], prop["value"], frame)
            for prop in result.get("result") or []
            if "value" in prop and str(prop.get("name", "")).isdigit()
        ]

    def _raw(self, name: str, obj: dict[str, Any], frame: int | None) -> RawValue:
        ref = 0
        if obj.get("objectId") and obj.get("type") == "object" and obj.get("subtype") != "null":
            entries = obj.get("subtype") in COLLECTIONS
            ref = self._ref(_Ref([obj["objectId"]], frame, entries=entries, kind=type_of(obj)))
        return RawValue(name=name, value=describe(obj), type=type_of(obj), ref=ref, evaluate_name=name)

    async def evaluate(
        self, expression: str, frame_id: int | None, context: str = "repl", by_value: bool = False
    ) -> RawValue:
        params: dict[str, Any] = {
            "expression": expression,
            "generatePreview": True,
            "objectGroup": "pairdbg",
            "returnByValue": by_value,
        }
        if frame_id is not None and self._paused is not None:
            params["callFrameId"] = self._call_frame(frame_id)["callFrameId"]
            result = await self._send("Debugger.evaluateOnCallFrame", params)
        else:
            result = await self._send("Runtime.evaluate", params)
        thrown = self.dialect.thrown(result, whole=True)
        if thrown is not None:
            failed = evaluation_failed(expression, thrown, thrown=True)
            if failed is not None and failed.data.get("syntax_error"):
                # JSC's errors carry no stack: a SyntaxError may come from code the expression ran (JSON.parse).
                failed = evaluation_failed(expression, thrown, thrown=True, parses=await self._compiles(expression))
            raise failed or DebugError(ErrorCode.PROTOCOL_ERROR, thrown)
        obj = result.get("result") or {}
        if by_value and "value" in obj and obj.get("type") in ("object", "array"):
            return RawValue(name=expression, value=json.dumps(obj["value"], ensure_ascii=False), type=type_of(obj))
        return self._raw(expression, obj, frame_id)

    async def _compiles(self, expression: str) -> bool | None:
        """Whether the engine parses `expression` (as an expression or as statements) without running it: a function
        made from it is never called. None when that cannot be asked (a page whose policy forbids making code)."""
        source = json.dumps(expression)
        probe = (
            "(function(s){ for (const body of ['return (' + s + '\\n)', s]) "
            "{ try { Function(body); return true } catch (e) { if (!(e instanceof SyntaxError)) return null } } "
            f"return false }})({source})"
        )
        try:
            result = await self._send("Runtime.evaluate", {"expression": probe, "returnByValue": True})
        except DebugError:
            return None
        value = (result.get("result") or {}).get("value")
        return value if isinstance(value, bool) and self.dialect.thrown(result) is None else None

    async def set_variable(self, ref: int, name: str, value: str) -> RawValue:
        entry = self._refs.get(ref)
        if entry is None:
            raise DebugError(ErrorCode.PATH_NOT_FOUND, "that object is gone (the target resumed since)")
        frame_id = entry.frame
        if entry.scope_numbers and frame_id is not None:
            frame = self._call_frame(frame_id)
            if self.dialect.is_jsc:  # JSC has no setVariableValue: assign by evaluation in the frame
                result = await self._send(
                    "Debugger.evaluateOnCallFrame",
                    {
                        "callFrameId": frame["callFrameId"],
                        "expression": f"{name} = ({value}), {name}",
                        "generatePreview": True,
                    },
                )
                thrown = self.dialect.thrown(result)
                if thrown is not None:
                    raise DebugError(ErrorCode.PROTOCOL_ERROR, thrown)
                return self._raw(name, result.get("result") or {}, frame_id)
            new_value = await self._call_argument(value, frame)
            holder = await self._scope_holding(entry, name)
            await self._send(
                "Debugger.setVariableValue",
                {
                    "scopeNumber": holder,
                    "variableName": name,
                    "newValue": new_value,
                    "callFrameId": frame["callFrameId"],
                },
            )
            return await self.evaluate(name, frame_id)
        frame = self._call_frame(frame_id) if frame_id is not None and self._paused else None
        argument = await self._call_argument(value, frame)
        result = await self._send(
            "Runtime.callFunctionOn",
            {
                "objectId": entry.object_ids[0],
                "functionDeclaration": "function(k, v) { this[k] = v; return this[k]; }",
                "arguments": [{"value": name}, argument],
                "generatePreview": True,
            },
        )
        thrown = self.dialect.thrown(result)
        if thrown is not None:
            raise DebugError(ErrorCode.PROTOCOL_ERROR, thrown)
        return self._raw(name, result.get("result") or {}, frame_id)

    async def _call_argument(self, expression: str, frame: dict[str, Any] | None) -> dict[str, Any]:
        if frame is not None:
            result = await self._send(
                "Debugger.evaluateOnCallFrame", {"callFrameId": frame["callFrameId"], "expression": f"({expression})"}
            )
        else:
            result = await self._send("Runtime.evaluate", {"expression": f"({expression})"})
        thrown = self.dialect.thrown(result)
        if thrown is not None:
            raise DebugError(ErrorCode.PROTOCOL_ERROR, thrown)
        obj = result.get("result") or {}
        if obj.get("objectId"):
            return {"objectId": obj["objectId"]}
        if "unserializableValue" in obj:
            return {"unserializableValue": obj["unserializableValue"]}
        return {"value": obj.get("value")}

    async def _scope_holding(self, entry: _Ref, name: str) -> int:
        for number, object_id in zip(entry.scope_numbers, entry.object_ids, strict=False):
            result = await self._send("Runtime.getProperties", {"objectId": object_id, "ownProperties": True})
            if any(p.get("name") == name for p in self.dialect.properties(result)):
                return number
        return entry.scope_numbers[-1]

    async def completions(self, text: str, cursor: int, frame_id: int | None) -> list[Completion] | None:
        """Names that complete the word before the cursor: after `expr.`, the property names of expr's value (its
        prototype chain's too); else the names in the frame's scopes (or the global object's while running)."""
        before = text[:cursor]
        member = _MEMBER.search(before)
        partial = member.group(2) if member else _WORD.search(before).group(0)  # type: ignore[union-attr]
        start = cursor - len(partial)
        if member:
            object_ids = [await self._completion_object(member.group(1), frame_id)]
        elif frame_id is not None and self._paused is not None:
            chain = self._call_frame(frame_id).get("scopeChain") or []
            object_ids = [(s.get("object") or {}).get("objectId") for s in chain]
        else:
            object_ids = [await self._completion_object("globalThis", None)]
        names: dict[str, None] = {}
        for object_id in object_ids:
            if not object_id:
                continue
            result = await self._send("Runtime.getProperties", {"objectId": object_id, "ownProperties": not member})
            for prop in self.dialect.properties(result):
                name = prop.get("name")
                if isinstance(name, str) and name.startswith(partial) and _IDENTIFIER.match(name):
                    names[name] = None
        return [Completion(n, n, start, len(partial), "property" if member else "variable") for n in sorted(names)]

    async def _completion_object(self, expression: str, frame_id: int | None) -> str | None:
        """The object id of an expression's value (a primitive boxed), evaluated without side effects where the
        engine can promise that (V8)."""
        params: dict[str, Any] = {"expression": f"Object({expression})", "silent": True, "objectGroup": "pairdbg"}
        if not self.dialect.is_jsc:
            params["throwOnSideEffect"] = True
        if frame_id is not None and self._paused is not None:
            params["callFrameId"] = self._call_frame(frame_id)["callFrameId"]
            result = await self._send("Debugger.evaluateOnCallFrame", params)
        else:
            result = await self._send("Runtime.evaluate", params)
        if self.dialect.thrown(result) is not None:
            return None
        return (result.get("result") or {}).get("objectId")

    async def exception_details(self, thread_id: int) -> ExceptionDetails | None:
        data = (self._paused or {}).get("data") or {}
        if not data:
            return None
        description = str(data.get("description") or describe(data))
        first = description.split("\n", 1)[0]
        kind, _, message = first.partition(": ")
        uncaught = data.get("uncaught") if "uncaught" in data else (self._paused or {}).get("data", {}).get("uncaught")
        mode = "uncaught" if uncaught else None
        return ExceptionDetails(
            type=data.get("className") or kind or "Error", message=message or first, break_mode=mode
        )

    async def script_source(self, path: str) -> str | None:
        """Source text for a file that is not on this machine (a page script): from its source map, or the target."""
        script = self.scripts.for_file(path) or self.scripts.by_id.get(self.scripts.by_key.get(path, ""))
        if script is None:
            return None
        source_map = script.source_map()
        content = source_map.source_content(path) if source_map is not None and path != script.url else None
        if content is not None:
            return content
        result = await self._send("Debugger.getScriptSource", {"scriptId": script.script_id})
        return result.get("scriptSource")


_MEMBER = re.compile(r"([\w$\])'\"]+(?:\.[\w$]+)*)\.([\w$]*)$")  # `obj.path.` then the partial name
_WORD = re.compile(r"[\w$]*$")
_IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*$")


def _name_before(lines: list[str], source_map, name: str, start: dict[str, int], end: dict[str, int]) -> str | None:
    """The mapped name of `name`'s last occurrence between two wire locations (0-based), if any has one."""
    pattern = re.compile(r"(?<![\w$.])" + re.escape(name) + r"(?![\w$])")
    first, last = start.get("lineNumber", 0), end.get("lineNumber", 0)
    for line in range(min(last, len(lines) - 1), first - 1, -1):
        text = lines[line]
        lo = start.get("columnNumber", 0) if line == first else 0
        hi = end.get("columnNumber", len(text)) if line == last else len(text)
        for match in reversed(list(pattern.finditer(text, lo, hi))):
            found = source_map.name_at(line, match.start())
            if found:
                return found
    return None


def _runtime_of(url: str) -> str:
    """What a runtime frame the stack leaves out belongs to, by its script's URL."""
    if url.startswith(("node:", "internal/")):
        return "node internals"
    if url.startswith("bun:"):
        return "bun internals"
    return "runtime built-ins"
