"""Line breakpoints of an inspector target: the InspectorBreakpoints mixin binds them through the scripts' maps."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..base import BreakpointState, ExceptionFilter, ExceptionMode, LineBreakpointSpec
from ..errors import DebugError
from ..source import is_url
from .predict import GENERATED, compiled_files_for

if TYPE_CHECKING:
    from ..base import BackendListener
    from .dialect import Dialect
    from .scripts import Scripts


# The engine's pause-on-exceptions states as filters, named as js-debug names them.
INSPECTOR_FILTERS = (
    ExceptionFilter("all", "Caught exceptions", "Pause when any exception is thrown, even one that is caught."),
    ExceptionFilter("uncaught", "Uncaught exceptions", "Pause when an exception is thrown that nothing catches."),
)


@dataclass
class _Bp:
    backend_id: str
    spec: LineBreakpointSpec
    wire_id: str | None = None
    url: str | None = None  # what it was set by on the wire
    state: BreakpointState = field(default_factory=lambda: BreakpointState(False))


class InspectorBreakpoints:
    """Mixed into InspectorBackend: sets, binds and tracks line breakpoints and the exception mode (via its _send)."""

    exception_filters: dict[str, list[str]] = {"none": [], "uncaught": ["uncaught"], "all": ["all", "uncaught"]}
    dialect: Dialect
    scripts: Scripts
    transpiles: bool
    listener: BackendListener | None
    _files: dict[str, list[_Bp]]
    _bp_seq: int
    _exception_mode: ExceptionMode
    _apply_lock: asyncio.Lock
    program: str
    _entry_pending: bool  # held on --inspect-brk: the entry file is parsed by the time the entry stop comes
    # A breakpoint at the first statement of a file not loaded yet (url or pattern -> wire id, files it serves)
    _bootstraps: dict[str, tuple[str, set[str]]]

    def _new_bp(self, spec: LineBreakpointSpec) -> _Bp:
        self._bp_seq += 1
        return _Bp(f"ib{self._bp_seq}", spec)

    async def set_line_breakpoints(self, file: str, specs: list[LineBreakpointSpec]) -> list[BreakpointState]:
        async with self._apply_lock:  # an in-flight bind of the old list must finish first, or its id leaks
            old = self._files.get(file, [])
            for bp in old:
                if bp.wire_id is not None:
                    with contextlib.suppress(DebugError):
                        await self._send("Debugger.removeBreakpoint", {"breakpointId": bp.wire_id})
            self._files[file] = [self._new_bp(spec) for spec in specs]
            await self._apply_file_locked(file)
            await self._drop_bootstraps()
            return [bp.state for bp in self._files[file]]

    async def _apply_files(self, files: list[str]) -> None:
        for file in files:
            with contextlib.suppress(DebugError):
                await self._apply_file(file)

    async def _apply_file(self, file: str) -> None:
        """Bind the file's breakpoints that are not bound yet, through its script's source map when it has one."""
        async with self._apply_lock:
            await self._apply_file_locked(file)

    async def _apply_file_locked(self, file: str) -> None:
        for bp in self._files.get(file, []):
            if bp.wire_id is not None and not self._mapped_only_now(bp, file):
                continue
            if bp.wire_id is not None:  # set by a URL that no script has (a .ts): bind through the map instead
                with contextlib.suppress(DebugError):
                    await self._send("Debugger.removeBreakpoint", {"breakpointId": bp.wire_id})
                bp.wire_id = None
            script, line0, column0, bound0 = self.scripts.to_wire(file, bp.spec.line - 1)
            url = script.url if script is not None else file if is_url(file) else self.scripts.url_for(file)
            if script is None and not is_url(file):
                compiled = compiled_files_for(file)
                if self.transpiles or not (compiled or file.endswith(GENERATED)):
                    # The wire line is unknown until the file is parsed (Bun transpiles every file; a source whose
                    # compiled file was not found). Stop that file before its first statement runs (a breakpoint
                    # there, by its URL or, not knowing it, by a pattern), bind then and let it go on.
                    failed = await self._bootstrap(self._first_stops(file, [c.path for c in compiled]), file)
                    why = "pending: binds when the file loads, before it runs"
                    if failed:  # it still binds as the file is parsed, but code that runs at once may go by
                        why = f"pending: binds when the file loads, maybe after its first lines ran ({failed})"
                    bp.state = BreakpointState(False, bp.spec.line, why, bp.backend_id)
                    if self.listener is not None:
                        self.listener.on_breakpoint_changed(bp.backend_id, bp.state)
                    continue
                for unit in compiled:  # an original source: bind by its compiled file's URL, before that loads
                    position = unit.source_map.generated_for(file, bp.spec.line - 1)
                    if position is not None:
                        url = self.scripts.url_for(unit.path)
                        line0, column0, bound0 = position.line, position.column, position.original_line
                        break
            params = self.dialect.breakpoint_params(
                url, line0, column0, bp.backend_id, bp.spec.condition, bp.spec.hit_condition, bp.spec.log_message
            )
            try:
                result = await self._send("Debugger.setBreakpointByUrl", params)
                if script is not None and self.dialect.binds_forward_only and column0 and not result.get("locations"):
                    # JSC moves a breakpoint forward only: the mapped column can sit past the line's one statement
                    # start (Bun maps `export const x` to `const`). The line's start then.
                    await self._send("Debugger.removeBreakpoint", {"breakpointId": result.get("breakpointId")})
                    result = await self._send("Debugger.setBreakpointByUrl", {**params, "columnNumber": 0})
            except DebugError as exc:
                bp.state = BreakpointState(False, bp.spec.line, exc.message, bp.backend_id)
            else:
                bp.wire_id, bp.url = result.get("breakpointId"), url
                locations = result.get("locations") or []
                if locations:
                    bp.state = self._state_at(bp, locations[0])
                else:
                    bp.state = BreakpointState(False, bound0 + 1, "pending: binds when the script loads", bp.backend_id)
            if self.listener is not None:
                self.listener.on_breakpoint_changed(bp.backend_id, bp.state)

    def _mapped_only_now(self, bp: _Bp, file: str) -> bool:
        """A breakpoint still unbound on a file that a loaded script's source map now names."""
        if bp.state.verified:
            return False
        script = self.scripts.for_file(file)
        return script is not None and script.path != file and bp.url != script.url

    def _first_stops(self, file: str, compiled: list[str]) -> list[dict[str, str]]:
        """Where to stop before `file`'s code runs: its compiled files and (Bun) the file itself; for a source
        whose compiled file is unknown, any `name.js` (tsc keeps the name). The entry is left out while the
        runtime is held before it: the entry stop binds it."""
        paths = compiled + ([file] if self.transpiles else [])  # Bun may run the source itself (a .ts)
        held = os.path.realpath(self.program) if self._entry_pending else None
        stops = [{"url": self.scripts.url_for(p)} for p in paths if os.path.realpath(p) != held]
        stem = os.path.splitext(os.path.basename(file))[0]
        if (
            not compiled
            and not file.endswith(GENERATED)
            and not (held and os.path.basename(held).startswith(stem + "."))
        ):
            # (not inside node_modules: a package's own helper.js would be stopped at for nothing)
            stops.append({"urlRegex": r"^(?!.*[/\\]node_modules[/\\]).*[/\\]" + re.escape(stem) + r"\.[mc]?js$"})
        return stops

    async def _bootstrap(self, stops: list[dict[str, str]], file: str) -> str | None:
        """Set the first-statement stops; what went wrong with any of them, or None."""
        failed = None
        for where in stops:
            key = where.get("url") or "pattern " + where["urlRegex"]
            if key in self._bootstraps:
                self._bootstraps[key][1].add(file)
                continue
            try:
                result = await self._send("Debugger.setBreakpointByUrl", {**where, "lineNumber": 0, "columnNumber": 0})
                self._bootstraps[key] = (result["breakpointId"], {file})
            except (DebugError, KeyError) as exc:
                failed = f"the stop before {key} could not be set: {getattr(exc, 'message', exc)}"
        return failed

    async def _drop_bootstraps(self) -> None:
        """Remove the first-statement breakpoints no unbound breakpoint waits for any more."""
        for url, (wire_id, files) in list(self._bootstraps.items()):
            if any(bp.wire_id is None for f in files for bp in self._files.get(f, [])):
                continue
            del self._bootstraps[url]
            with contextlib.suppress(DebugError):
                await self._send("Debugger.removeBreakpoint", {"breakpointId": wire_id})

    def _state_at(self, bp: _Bp, location: dict[str, Any]) -> BreakpointState:
        _, line0, _ = self.scripts.from_wire(
            location.get("scriptId", ""), location.get("lineNumber", 0), location.get("columnNumber", 0)
        )
        return BreakpointState(True, line0 + 1, None, bp.backend_id)

    def _on_resolved(self, wire_id: str | None, location: dict[str, Any]) -> None:
        for bps in self._files.values():
            for bp in bps:
                if bp.wire_id == wire_id:
                    bp.state = self._state_at(bp, location)
                    if self.listener is not None:
                        self.listener.on_breakpoint_changed(bp.backend_id, bp.state)
                    return

    async def set_exception_mode(self, mode: ExceptionMode) -> None:
        await self._send("Debugger.setPauseOnExceptions", {"state": self.dialect.exception_states[mode]})
        self._exception_mode = mode

    def exception_filter_options(self) -> list[ExceptionFilter]:
        return list(INSPECTOR_FILTERS)

    async def set_exception_filters(self, ids: list[str]) -> None:
        # The engine has one switch with three states: "all" includes the uncaught ones.
        await self.set_exception_mode("all" if "all" in ids else "uncaught" if "uncaught" in ids else "none")
