"""The two inspector dialects behind one backend: JSC (Bun, WebKitGTK) and V8/CDP (Node, Chromium).

Everything that differs between them (research: debug-targets.md §3) is answered here, so the backend asks one
question in one place instead of testing the dialect in every method.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import unquote, urlparse

from ..breakpoints import parse_hit_condition


def log_expression(message: str) -> str:
    """A DAP-style log message (`total is {total}`) as a JavaScript template literal."""
    parts = re.split(r"(\{[^{}]+\})", message)
    out = []
    for part in parts:
        if part.startswith("{") and part.endswith("}") and len(part) > 2:
            out.append("${" + part[1:-1] + "}")
        else:
            out.append(part.replace("\\", "\\\\").replace("`", "\\`").replace("${", "\\${"))
    return "`" + "".join(out) + "`"


def hit_expression(tag: str, hit_condition: str) -> str:
    """Count hits in the page/process itself (neither engine counts hits the DAP way) and compare."""
    op, number = parse_hit_condition(hit_condition)  # INVALID_PARAMETERS when it is not a count
    op = op or ">="
    counter = (
        f"((globalThis.__pairdbgHits ??= {{}})[{json.dumps(tag)}] = "
        f"(globalThis.__pairdbgHits[{json.dumps(tag)}] ?? 0) + 1)"
    )
    if op == "%":
        return f"({counter} % {number} === 0)"
    return f"({counter} {'===' if op == '==' else op} {number})"


@dataclass(frozen=True)
class Dialect:
    name: Literal["jsc", "v8"]

    @property
    def is_jsc(self) -> bool:
        return self.name == "jsc"

    @property
    def hangs_up_at_exit(self) -> bool:
        """A launched JSC runtime (Bun) closes the inspector socket as its program ends. Node instead waits at the
        end for the debugger to disconnect, so a socket Node closes while it runs is a lost connection."""
        return self.is_jsc

    @property
    def binds_forward_only(self) -> bool:
        """JSC resolves a breakpoint to the next statement start at or after its column, never back to the one
        the column is inside of; V8 picks the nearest."""
        return self.is_jsc

    @property
    def has_collection_entries(self) -> bool:
        """JSC lists a Map's or Set's entries with Runtime.getCollectionEntries; V8 gives them as [[Entries]]."""
        return self.is_jsc

    @property
    def shows_generator_state(self) -> bool:
        """V8 gives a generator's [[GeneratorState]]; JSC's inspector has nothing for it."""
        return not self.is_jsc

    @property
    def returns_values(self) -> bool:
        """V8 call frames carry `returnValue` when paused at a return; JSC's carry none."""
        return not self.is_jsc

    # ----- urls ---------------------------------------------------------------------------------------------

    def url_for_path(self, path: str) -> str:
        """How the engine names a local file in scriptParsed/setBreakpointByUrl."""
        return path if self.is_jsc else "file://" + path

    @staticmethod
    def local_path(url: str) -> str | None:
        if url.startswith("file://"):
            return unquote(urlparse(url).path)
        if url.startswith("/"):
            return url
        return None

    # ----- handshake ------------------------------------------------------------------------------------------

    def enable_commands(self, page: bool) -> list[tuple[str, dict[str, Any]]]:
        if self.is_jsc:
            cmds = [("Inspector.enable", {}), ("Runtime.enable", {}), ("Console.enable", {}), ("Debugger.enable", {})]
            if page:
                cmds.insert(1, ("Page.enable", {}))
            cmds += [
                ("Debugger.setAsyncStackTraceDepth", {"depth": 32}),
                ("Debugger.setBreakpointsActive", {"active": True}),
                ("Debugger.setPauseOnDebuggerStatements", {"enabled": True}),
            ]
            return cmds
        cmds = [("Runtime.enable", {}), ("Debugger.enable", {})]
        if page:
            cmds.insert(0, ("Page.enable", {}))
        return [
            *cmds,
            ("Debugger.setAsyncCallStackDepth", {"maxDepth": 32}),
            ("Debugger.setBreakpointsActive", {"active": True}),
        ]

    @property
    def release_command(self) -> str:
        """What lets a target started with --inspect-brk run (after breakpoints are set)."""
        return "Inspector.initialized" if self.is_jsc else "Runtime.runIfWaitingForDebugger"

    # ----- breakpoints --------------------------------------------------------------------------------------

    def breakpoint_params(
        self,
        url: str,
        line0: int,
        column0: int | None,
        tag: str,
        condition: str | None,
        hit_condition: str | None,
        log_message: str | None,
    ) -> dict[str, Any]:
        cond = condition
        if hit_condition:
            hits = hit_expression(tag, hit_condition)
            cond = f"{hits} && ({condition})" if condition else hits
        params: dict[str, Any] = {"url": url, "lineNumber": line0}
        if column0 is not None:
            params["columnNumber"] = column0
        if self.is_jsc:
            options: dict[str, Any] = {}
            if cond:
                options["condition"] = cond
            if log_message:
                options["autoContinue"] = True
                options["actions"] = [{"type": "evaluate", "data": f"console.log({log_expression(log_message)})"}]
            if options:
                params["options"] = options
            return params
        if log_message:
            printed = f"(console.log({log_expression(log_message)}), false)"
            cond = f"({cond}) && {printed}" if cond else printed
        if cond:
            params["condition"] = cond
        return params

    # ----- paused state ---------------------------------------------------------------------------------------

    def hit_breakpoint_ids(self, params: dict[str, Any]) -> list[str]:
        if self.is_jsc:
            bp = (params.get("data") or {}).get("breakpointId") if params.get("reason") == "Breakpoint" else None
            return [bp] if bp else []
        return list(params.get("hitBreakpoints") or [])

    def is_entry_pause(self, params: dict[str, Any]) -> bool:
        """Whether a pause while a launch is held is its entry stop. V8's is the first pause; Bun's is the
        `debugger;` it injects into the entry, which runs after the ES modules the entry imports."""
        if not self.is_jsc:
            return True
        return params.get("reason") == "DebuggerStatement" and not self.hit_breakpoint_ids(params)

    def reason(self, params: dict[str, Any], last_request: str | None) -> str:
        raw = params.get("reason", "other")
        if self.hit_breakpoint_ids(params):
            return "breakpoint"
        mapping = {
            "exception": "exception",
            "promiseRejection": "exception",
            "assert": "assertion",
            "Break on start": "entry",
            "DebuggerStatement": "debugger statement",
            "PauseOnNextStatement": "pause",
        }
        if raw in mapping:
            return mapping[raw]
        if last_request in ("step", "pause"):
            return last_request
        return "pause" if raw in ("other", "step") and last_request is None else raw

    def local_scope_count(self, frame: dict[str, Any]) -> int:
        """How many leading scopes of a call frame hold its own variables (blocks, then the function)."""
        chain = frame.get("scopeChain") or []
        if not self.is_jsc:
            count = 0
            for scope in chain:
                if scope.get("type") in ("local", "block", "catch"):
                    count += 1
                    if scope.get("type") == "local":
                        return count
                else:
                    break
            return count
        # JSC has no "local" type: the function's own variables sit in leading scopes named after it (one for
        # its parameters, one per block of let/const), possibly with nested lexical scopes between them.
        name = frame.get("functionName") or ""
        count = 0
        for index, scope in enumerate(chain):
            kind = scope.get("type")
            if kind in ("global", "globalLexicalEnvironment"):
                break
            if kind == "closure" and name and scope.get("name") == name:
                count = index + 1
            elif kind not in ("nestedLexical", "catch", "with", "functionName"):
                break
        if count == 0 and chain and chain[0].get("type") not in ("global", "globalLexicalEnvironment"):
            count = 1
        return count

    # ----- values -------------------------------------------------------------------------------------------

    def properties(self, result: dict[str, Any]) -> list[dict[str, Any]]:
        return list(result.get("properties" if self.is_jsc else "result") or [])

    def thrown(self, result: dict[str, Any], whole: bool = False) -> str | None:
        """The error line (`ReferenceError: x is not defined`) when an evaluation threw, else None; `whole` keeps the
        stack lines after it (they tell an expression that did not parse from one whose code raised)."""
        if self.is_jsc:
            if not result.get("wasThrown"):
                return None
            obj = result.get("result") or {}
            text = obj.get("description") or str(obj.get("value"))
        else:
            details = result.get("exceptionDetails")
            if not details:
                return None
            exc = details.get("exception") or {}
            text = exc.get("description") or details.get("text") or "exception"
        return text.strip() if whole else text.strip().split("\n", 1)[0]  # the message first, the stack after it

    @property
    def exception_states(self) -> dict[str, str]:
        return {"none": "none", "uncaught": "uncaught", "all": "all"}
