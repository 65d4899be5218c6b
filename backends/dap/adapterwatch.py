"""Data breakpoints an adapter keeps itself: hardware watchpoints in the program, asked for through DAP
(`dataBreakpointInfo` / `setDataBreakpoints`, where the adapter announces `supportsDataBreakpoints`: lldb-dap, newer
delve) or, for an adapter without them, through its debugger's own commands when its profile describes them
(`watch_commands`: lldb-vscode 16's console); and what their stops mean in pairdbg's terms (which DBn, old → new)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from ..base import DataBreakpointSpec, DataWatch, RawFrame, RawValue
from ..errors import DebugError, ErrorCode

Request = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
Evaluate = Callable[[str, int | None, str], Awaitable[RawValue]]
Stack = Callable[[int, int, int], Awaitable[tuple[list[RawFrame], int]]]
Variables = Callable[[int], Awaitable[list[RawValue]]]

#: The stop reasons adapters give for a data breakpoint (DAP says "data breakpoint"; older lldb "watchpoint").
STOP_REASONS = ("data breakpoint", "watchpoint")
NOT_KNOWN = "(old value not known)"
LOG_LINE = "pairdbgChangeLine"  # set on a log-only watch's stop: the change to log, and no stop to report
MAX_VALUE = 200  # characters of a value in a change line or a stop's reason
ACCESS_TYPES = {"write": "write", "read_write": "readWrite"}
NATIVE_HINT = "watch a variable the frame shows: a local of a live frame, a global, a struct field, an array element"
PATH_PART = re.compile(r"\.|->|\[(\d+)\]")


class WatchCommands(BaseModel):
    """How to keep watchpoints with the debugger's own commands, sent as `evaluate` in the repl context. Templates
    name {expression}, {access}, {id} (the debugger's watchpoint number) and {condition} (JSON-quoted)."""

    set: str
    access: dict[str, str] = Field(description="our access (write, read_write) to the debugger's word for it")
    created: str = Field(description="regex on the answer to `set`; group 1 is the watchpoint's number")
    delete: str
    enable: str
    disable: str
    condition: str
    no_condition: str
    stopped: str = Field(description="regex on a stop's description; group 1 is the watchpoint that stopped")


@dataclass
class AdapterWatch:
    """One armed data breakpoint: what the adapter calls it, and the last value pairdbg read (the next stop's old
    value, while every write is known to stop)."""

    id: str
    expression: str
    data_id: str
    access: str
    condition: str | None
    function: str  # the function of the frame it was set in: the expression is evaluated in that function's frame
    enabled: bool = True
    value: str | None = None
    adapter_id: int | str | None = None
    by_command: bool = False  # kept with WatchCommands, not setDataBreakpoints
    log_only: bool = False  # each stop is written to the change log and the program continued


class AdapterWatches:
    """One adapter session's data breakpoints. DAP replaces the whole set on every `setDataBreakpoints`, so each change
    sends every enabled watch again; the adapter's answer says, per watch, whether it is armed."""

    def __init__(
        self,
        request: Request,
        evaluate: Evaluate,
        stack: Stack,
        variables: Variables,
        capabilities: Callable[[], dict[str, Any]],
        adapter: str,
        hint: str | None,
        commands: WatchCommands | None = None,
    ) -> None:
        self._request = request
        self._evaluate = evaluate
        self._stack = stack
        self._variables = variables
        self._capabilities = capabilities
        self._adapter = adapter
        self._hint = hint
        self._commands = commands
        self._watches: dict[str, AdapterWatch] = {}

    @staticmethod
    def _refused(reason: str, hint: str = NATIVE_HINT) -> DataWatch:
        return DataWatch(False, reason=reason, hint=hint)

    async def arm(self, spec: DataBreakpointSpec, frame_id: int, function: str) -> DataWatch:
        by_dap = bool(self._capabilities().get("supportsDataBreakpoints"))
        if not by_dap and self._commands is None:
            # Asked anyway, some adapters end the session (lldb-vscode 16 aborts on a request it does not know).
            return self._refused(
                f"the {self._adapter} debug adapter has no data breakpoints (it does not announce "
                "supportsDataBreakpoints)",
                hint=self._hint or "use an adapter that announces supportsDataBreakpoints",
            )
        if not by_dap:
            return await self._arm_by_command(spec, frame_id, function)
        value = await self._current(spec.expression, frame_id)
        info = await self._request("dataBreakpointInfo", await self._info_args(spec.expression, frame_id))
        data_id = info.get("dataId")
        if not data_id:
            return self._refused(f"the {self._adapter} adapter says: {info.get('description') or 'it cannot'}")
        access = ACCESS_TYPES[spec.access]
        offered = info.get("accessTypes")
        if offered and access not in offered:
            return self._refused(
                f"the {self._adapter} adapter watches {spec.expression} for {', '.join(offered)} only, not {access}"
            )
        watch = AdapterWatch(spec.id, spec.expression, str(data_id), access, spec.condition, function, value=value)
        watch.log_only = spec.log_only
        self._watches[spec.id] = watch
        try:
            answer = await self._send()
        except DebugError:
            del self._watches[spec.id]
            await self._send_quietly()
            raise
        state = answer.get(spec.id) or {}
        if not state.get("verified"):
            del self._watches[spec.id]
            await self._send_quietly()  # the rest stay as they were; this one must not linger half-armed
            reason = state.get("message") or "it did not arm the watchpoint and gave no reason"
            return self._refused(f"the {self._adapter} adapter says: {reason}")
        return DataWatch(True, watching=_watching(str(info.get("description") or spec.expression), spec), value=value)

    async def _arm_by_command(self, spec: DataBreakpointSpec, frame_id: int, function: str) -> DataWatch:
        commands = self._commands
        assert commands is not None
        access = commands.access.get(spec.access)
        if access is None:
            return self._refused(f"the {self._adapter} adapter's watchpoints cannot watch {spec.access} access")
        value = await self._current(spec.expression, frame_id)
        try:
            answer = await self._console(commands.set.format(expression=spec.expression, access=access), frame_id)
        except DebugError as exc:
            return self._refused(f"the {self._adapter} adapter says: {_first_line(exc.message)}")
        created = re.search(commands.created, answer)
        if created is None:
            return self._refused(f"the {self._adapter} adapter says: {_first_line(answer)}")
        watch = AdapterWatch(spec.id, spec.expression, "", access, None, function, value=value, by_command=True)
        watch.log_only = spec.log_only
        watch.adapter_id = created.group(1)
        self._watches[spec.id] = watch
        if spec.condition:
            try:
                await self._set_condition(watch, spec.condition)
            except DebugError:
                await self.clear(spec.id)
                raise
        return DataWatch(
            True, watching=_watching(f"{spec.expression} (watchpoint {watch.adapter_id})", spec), value=value
        )

    async def _console(self, command: str, frame_id: int | None) -> str:
        return (await self._evaluate(command, frame_id, "repl")).value

    async def _command(self, template: str, watch: AdapterWatch, **more: str) -> None:
        """A command on one watchpoint; an answer that says error is the adapter's refusal."""
        answer = await self._console(template.format(id=watch.adapter_id, **more), None)
        if "error:" in answer:
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS, f"{watch.id}: the {self._adapter} adapter says: {_first_line(answer)}"
            )

    async def _set_condition(self, watch: AdapterWatch, condition: str | None) -> None:
        assert self._commands is not None
        if condition:
            await self._command(self._commands.condition, watch, condition=json.dumps(condition))
        else:
            await self._command(self._commands.no_condition, watch)
        watch.condition = condition or None

    async def clear(self, bp_id: str) -> None:
        watch = self._watches.pop(bp_id, None)
        if watch is None:
            return
        if watch.by_command:
            assert self._commands is not None
            try:
                await self._command(self._commands.delete, watch)
            except DebugError:
                self._watches[bp_id] = watch
                raise
            return
        try:
            await self._send()
        except DebugError:
            self._watches[bp_id] = watch
            raise

    async def update(self, bp_id: str, enabled: bool | None, condition: str | None) -> None:
        watch = self._watches.get(bp_id)
        if watch is None:
            raise DebugError(ErrorCode.PATH_NOT_FOUND, f"{bp_id} is not armed in the {self._adapter} adapter")
        before = (watch.enabled, watch.condition)
        if watch.by_command:
            await self._update_by_command(watch, enabled, condition)
            if (watch.enabled, watch.condition) != before:
                watch.value = None
            return
        if enabled is not None:
            watch.enabled = enabled
        if condition is not None:
            watch.condition = condition or None
        try:
            answer = await self._send()
        except DebugError:
            watch.enabled, watch.condition = before
            raise
        if watch.enabled and not (answer.get(bp_id) or {}).get("verified"):
            watch.enabled, watch.condition = before
            await self._send_quietly()
            reason = (answer.get(bp_id) or {}).get("message") or "it did not arm it again"
            raise DebugError(ErrorCode.INVALID_PARAMETERS, f"{bp_id}: the {self._adapter} adapter says: {reason}")
        if (watch.enabled, watch.condition) != before:
            watch.value = None  # writes may have gone by unseen (disabled, or filtered by a condition)

    async def _update_by_command(self, watch: AdapterWatch, enabled: bool | None, condition: str | None) -> None:
        assert self._commands is not None
        if condition is not None and (condition or None) != watch.condition:
            await self._set_condition(watch, condition)
        if enabled is not None and enabled != watch.enabled:
            await self._command(self._commands.enable if enabled else self._commands.disable, watch)
            watch.enabled = enabled

    async def _send(self) -> dict[str, dict[str, Any]]:
        """Every enabled watch, in one request; the adapter's answer for each, by our id."""
        sent = [w for w in self._watches.values() if w.enabled and not w.by_command]
        body = await self._request(
            "setDataBreakpoints",
            {
                "breakpoints": [
                    {"dataId": w.data_id, "accessType": w.access, **({"condition": w.condition} if w.condition else {})}
                    for w in sent
                ]
            },
        )
        answers = body.get("breakpoints") or []
        for watch, answer in zip(sent, answers, strict=False):
            watch.adapter_id = answer.get("id")
        return {w.id: a for w, a in zip(sent, answers, strict=False)}

    async def _send_quietly(self) -> None:
        try:
            await self._send()
        except DebugError:
            pass  # the error that brought us here is the one to report

    async def _info_args(self, expression: str, frame_id: int) -> dict[str, Any]:
        """A variable the frame shows is asked for by its container and name (what every adapter takes); any other
        expression by its text in the frame."""
        found = await self._container_of(expression, frame_id)
        if found is not None:
            return {"variablesReference": found[0], "name": found[1], "frameId": frame_id}
        return {"name": expression, "frameId": frame_id}

    async def _container_of(self, expression: str, frame_id: int) -> tuple[int, str] | None:
        parts = [p for p in PATH_PART.split(expression.strip()) if p is not None]
        names = [f"[{p}]" if p.isdigit() else p.strip() for p in parts]
        if not names or not all(names):
            return None
        try:
            scopes = await self._request("scopes", {"frameId": frame_id})
        except DebugError:
            return None
        refs = [s.get("variablesReference", 0) for s in scopes.get("scopes", []) if not s.get("expensive")]
        for depth, name in enumerate(names):
            for ref in refs:
                try:
                    values = await self._variables(ref)
                except DebugError:
                    continue
                match = next((v for v in values if v.name in (name, name.strip("[]"))), None)
                if match is None:
                    continue
                if depth == len(names) - 1:
                    return ref, match.name
                refs = [match.ref] if match.ref else []
                break
            else:
                return None
        return None

    async def _current(self, expression: str, frame_id: int | None) -> str | None:
        try:
            return (await self._evaluate(expression, frame_id, "watch")).value
        except DebugError:
            return None

    # ----- stops --------------------------------------------------------------------------------------------------

    def is_data_stop(self, body: dict[str, Any]) -> bool:
        return bool(self._watches) and (
            body.get("reason") in STOP_REASONS or self._stopped_by_command(body) is not None
        )

    def _stopped_by_command(self, body: dict[str, Any]) -> str | None:
        """The number of the command-set watchpoint a stop's description names (lldb says "watchpoint 1")."""
        if self._commands is None:
            return None
        found = re.match(self._commands.stopped, str(body.get("description") or ""))
        return found.group(1) if found else None

    def _hit(self, body: dict[str, Any]) -> AdapterWatch | None:
        number = self._stopped_by_command(body)
        if number is not None:
            return next((w for w in self._watches.values() if w.by_command and w.adapter_id == number), None)
        ids = body.get("hitBreakpointIds") or []
        by_dap = [w for w in self._watches.values() if w.enabled and not w.by_command]
        hit = [w for w in by_dap if w.adapter_id is not None and w.adapter_id in ids]
        if hit:
            return hit[0]
        enabled = by_dap
        return enabled[0] if len(enabled) == 1 else None  # no ids given, but only one watch can have stopped

    async def annotate_stop(self, body: dict[str, Any]) -> dict[str, Any]:
        """A data-breakpoint stop in pairdbg's terms: our id, and `expr old → new` with the new value read now. A
        log-only watch's stop carries its change under LOG_LINE: it is recorded, and the program continued."""
        watch = self._hit(body)
        if watch is None:
            return body
        new, top = await self._value_at_stop(watch, body.get("threadId"))
        old = watch.value if watch.value is not None and not watch.condition else NOT_KNOWN
        watch.value = new
        shown_new = cap(new) if new is not None else "(new value not readable here)"
        if watch.log_only:
            change = {
                "time": time.time(),
                "id": watch.id,
                "expression": watch.expression,
                "old": cap(old),
                "new": shown_new,
                "file": top.file if top else None,
                "line": top.line if top else None,
                "function": top.name if top else None,
                "thread": body.get("threadId"),
            }
            return {**body, LOG_LINE: change}
        return {
            **body,
            "reason": "data breakpoint",
            "description": f"data breakpoint {watch.id}: {watch.expression} {cap(old)} → {shown_new}",
            "hitBreakpointIds": [watch.id],
        }

    async def _value_at_stop(self, watch: AdapterWatch, thread_id: int | None) -> tuple[str | None, RawFrame | None]:
        """The expression in the nearest frame of the function it was set in (a local there is the watched one;
        a same-named local of the writing function may not be), else in the top frame; and the top frame."""
        if thread_id is None:
            return None, None
        try:
            frames, _ = await self._stack(thread_id, 0, 50)
        except DebugError:
            return None, None
        if not frames:
            return None, None
        frame = next((f for f in frames if f.name == watch.function), frames[0])
        return await self._current(watch.expression, frame.id), frames[0]


def _watching(what: str, spec: DataBreakpointSpec) -> str:
    if spec.log_only:  # a hardware watchpoint cannot only log: pairdbg continues the program after each write
        return f"{what}; log only: each write stops the program for a moment while pairdbg records it"
    return what


def cap(value: str) -> str:
    return value if len(value) <= MAX_VALUE else value[: MAX_VALUE - 1] + "…"


def _first_line(text: str) -> str:
    """The debugger's first line of substance (lldb echoes the command, "(lldb) …", before its answer)."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("(lldb)")]
    return lines[0] if lines else "no answer"
