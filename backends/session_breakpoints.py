"""Breakpoints of a session: the Breakpoint record and the SessionBreakpoints mixin that keeps them in sync."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from .base import BreakpointState, ExceptionMode, FunctionBreakpointSpec, LineBreakpointSpec
from .errors import DebugError, ErrorCode
from .events import BreakpointsChanged
from .models import BreakpointView
from .source import is_url, lines_of

if TYPE_CHECKING:
    from .base import Backend
    from .events import EventBus
    from .limits import Limits
    from .models import Phase


@dataclass
class Breakpoint:
    id: str
    kind: Literal["line", "function"]
    file: str | None = None
    line: int | None = None
    function: str | None = None
    condition: str | None = None
    hit_condition: str | None = None
    log_message: str | None = None
    set_by: str = "human"
    state: BreakpointState = field(default_factory=lambda: BreakpointState(False))

    def view(self) -> BreakpointView:
        actual = self.state.line or self.line
        source = None
        if self.file and actual:
            with contextlib.suppress(DebugError, IndexError):
                source = lines_of(self.file)[actual - 1].strip()
        return BreakpointView(
            id=self.id,
            kind=self.kind,
            file=self.file,
            line=self.line,
            function=self.function,
            condition=self.condition,
            hit_condition=self.hit_condition,
            log_message=self.log_message,
            verified=self.state.verified,
            actual_line=actual,
            message=self.state.message,
            source=source,
            set_by=self.set_by,
        )


class SessionBreakpoints:
    """Mixed into Session: validates, numbers and sends breakpoints; the backend's answers become their state."""

    id: str
    backend: Backend
    bus: EventBus
    limits: Limits
    phase: Phase
    exception_mode: ExceptionMode
    breakpoints: dict[str, Breakpoint]
    _bp_seq: int

    def new_breakpoint(
        self,
        file: str | None = None,
        line: int | None = None,
        function: str | None = None,
        condition: str | None = None,
        hit_condition: str | None = None,
        log_message: str | None = None,
        actor: str = "human",
    ) -> Breakpoint:
        """Validate a request and give it an id; nothing is sent yet."""
        if len(self.breakpoints) >= self.limits.max_breakpoints:
            raise DebugError(
                ErrorCode.LIMIT_EXCEEDED,
                f"session {self.id} already has {len(self.breakpoints)} breakpoints "
                f"(limit {self.limits.max_breakpoints})",
                hint="remove_breakpoint some first",
            )
        for what, text in (("condition", condition), ("hit_condition", hit_condition), ("log_message", log_message)):
            self._check_text(what, text)
        if function:
            self._bp_seq += 1
            return Breakpoint(
                f"BP{self._bp_seq}",
                "function",
                function=function,
                condition=condition,
                hit_condition=hit_condition,
                set_by=actor,
            )
        assert file is not None and line is not None
        if is_url(file):
            # A script the target knows by URL (a page's http://…/app.js): only the target can check it.
            if "remote_sources" not in self.backend.features:
                raise DebugError(
                    ErrorCode.INVALID_PARAMETERS, f"{self.backend.kind} sessions take file paths, not URLs"
                )
            path, lines = file, ()
        else:
            path = os.path.abspath(os.path.expanduser(file))
            lines = lines_of(path)  # a missing file fails here, before an id is used up
        if lines and not 1 <= line <= max(len(lines), 1):
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                f"line {line} is outside {path}, which has {len(lines)} lines",
                hint="lines are 1-based; call get_source_context to see the file",
            )
        self._bp_seq += 1
        return Breakpoint(
            f"BP{self._bp_seq}",
            "line",
            file=path,
            line=line,
            condition=condition,
            hit_condition=hit_condition,
            log_message=log_message,
            set_by=actor,
        )

    def _add_breakpoint(self, bp: Breakpoint) -> None:
        self.breakpoints[bp.id] = bp

    def _line_specs(self) -> dict[str, list[tuple[Breakpoint, LineBreakpointSpec]]]:
        by_file: dict[str, list[tuple[Breakpoint, LineBreakpointSpec]]] = {}
        for bp in self.breakpoints.values():
            if bp.kind == "line" and bp.file and bp.line:
                spec = LineBreakpointSpec(bp.line, bp.condition, bp.hit_condition, bp.log_message)
                by_file.setdefault(bp.file, []).append((bp, spec))
        return by_file

    async def _sync_file(self, file: str) -> None:
        specs = self._line_specs().get(file, [])
        states = await self.backend.set_line_breakpoints(file, [s for _, s in specs])
        for (bp, _), state in zip(specs, states, strict=False):
            bp.state = state

    async def _sync_functions(self) -> None:
        bps = [bp for bp in self.breakpoints.values() if bp.kind == "function"]
        states = await self.backend.set_function_breakpoints(
            [FunctionBreakpointSpec(bp.function or "", bp.condition, bp.hit_condition) for bp in bps]
        )
        for bp, state in zip(bps, states, strict=False):
            bp.state = state

    async def add_breakpoint(self, bp: Breakpoint) -> Breakpoint:
        if self.phase.ended:
            raise self._ended_error()
        self._add_breakpoint(bp)
        try:
            if bp.kind == "function":
                await self._sync_functions()
            else:
                assert bp.file is not None
                await self._sync_file(bp.file)
        except (DebugError, NotImplementedError) as exc:
            del self.breakpoints[bp.id]
            if isinstance(exc, NotImplementedError):
                raise DebugError(
                    ErrorCode.CAPABILITY_UNSUPPORTED, f"{self.backend.kind} has no {bp.kind} breakpoints"
                ) from None
            raise
        self._publish_breakpoints()
        return bp

    async def remove_breakpoint(self, bp_id: str) -> Breakpoint:
        bp = self.breakpoints.get(bp_id.strip().upper())
        if bp is None:
            known = ", ".join(self.breakpoints) or "none"
            raise DebugError(
                ErrorCode.PATH_NOT_FOUND,
                f"no breakpoint {bp_id} in session {self.id} (have: {known})",
                hint="call list_breakpoints",
            )
        del self.breakpoints[bp.id]
        if not self.phase.ended:
            if bp.kind == "function":
                await self._sync_functions()
            elif bp.file:
                await self._sync_file(bp.file)
        self._publish_breakpoints()
        return bp

    def _publish_breakpoints(self) -> None:
        self.bus.publish(BreakpointsChanged(self.id, breakpoints=tuple(bp.view() for bp in self.breakpoints.values())))

    async def set_exception_mode(self, mode: ExceptionMode) -> None:
        if self.phase.ended:
            raise self._ended_error()
        await self.backend.set_exception_mode(mode)
        self.exception_mode = mode
