"""Line breakpoints of an inspector target: the InspectorBreakpoints mixin binds them through the scripts' maps."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..base import BreakpointState, ExceptionMode, LineBreakpointSpec
from ..errors import DebugError
from ..source import is_url

if TYPE_CHECKING:
    from ..base import BackendListener
    from .dialect import Dialect
    from .scripts import Scripts


@dataclass
class _Bp:
    backend_id: str
    spec: LineBreakpointSpec
    wire_id: str | None = None
    state: BreakpointState = field(default_factory=lambda: BreakpointState(False))


class InspectorBreakpoints:
    """Mixed into InspectorBackend: sets, binds and tracks line breakpoints and the exception mode (via its _send)."""

    dialect: Dialect
    scripts: Scripts
    transpiles: bool
    listener: BackendListener | None
    _files: dict[str, list[_Bp]]
    _bp_seq: int
    _exception_mode: ExceptionMode
    _apply_lock: asyncio.Lock

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
            if bp.wire_id is not None:
                continue
            script, line0, column0, bound0 = self.scripts.to_wire(file, bp.spec.line - 1)
            if script is None and self.transpiles:
                # Bun transpiles every file: the wire line is unknown until the script is parsed.
                bp.state = BreakpointState(
                    False, bp.spec.line, "pending: the file has not been loaded yet", bp.backend_id
                )
                if self.listener is not None:
                    self.listener.on_breakpoint_changed(bp.backend_id, bp.state)
                continue
            url = script.url if script is not None else file if is_url(file) else self.dialect.url_for_path(file)
            params = self.dialect.breakpoint_params(
                url, line0, column0, bp.backend_id, bp.spec.condition, bp.spec.hit_condition, bp.spec.log_message
            )
            try:
                result = await self._send("Debugger.setBreakpointByUrl", params)
            except DebugError as exc:
                bp.state = BreakpointState(False, bp.spec.line, exc.message, bp.backend_id)
            else:
                bp.wire_id = result.get("breakpointId")
                locations = result.get("locations") or []
                if locations:
                    bp.state = self._state_at(bp, locations[0])
                else:
                    bp.state = BreakpointState(False, bound0 + 1, "pending: binds when the script loads", bp.backend_id)
            if self.listener is not None:
                self.listener.on_breakpoint_changed(bp.backend_id, bp.state)

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
