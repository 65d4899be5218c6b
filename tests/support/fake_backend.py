"""ScriptedBackend: an in-memory Backend for testing the session core without a debugger (as httpx's MockTransport).

The test plays the target: it answers stack, scopes, variables and evaluate from data given here, can hold a
request (to have it in flight) or make it fail, and makes the target report things at chosen moments through the
backend's listener (`stop`, `continued`, `output`, `exit`, `lose`, `resolve`). It follows the Backend contract in
pairdbg/backends/base.py and nothing else, so it stays the one place to adapt when that contract changes.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import defaultdict

from pairdbg.backends.base import (
    BreakpointState,
    Capabilities,
    Debugger,
    ExceptionMode,
    FunctionBreakpointSpec,
    LineBreakpointSpec,
    RawFrame,
    RawScope,
    RawValue,
    StepKind,
    StopInfo,
)
from pairdbg.backends.errors import DebugError, ErrorCode

from .core import prog

FILE = prog("loop.py")  # a real file: breakpoints are validated against it; the target never runs it


class Gate:
    """Holds the next call of one request until released: the way to have a request "in flight"."""

    def __init__(self) -> None:
        self._open = asyncio.Event()

    def release(self) -> None:
        self._open.set()

    async def passed(self) -> None:
        await self._open.wait()


class ScriptedBackend(Debugger):
    kind = "scripted"
    language = "python"
    features = Capabilities(
        pause=True, set_variable=True, conditional_breakpoints=True, hit_conditions=True, log_points=True
    )

    def __init__(
        self,
        *,
        verify_breakpoints: bool = True,
        step_stops: bool = True,
        pause_stops: bool = True,
        locals_: dict[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.program = FILE
        self.pid = 4242
        self.verify_breakpoints = verify_breakpoints
        self.step_stops = step_stops  # a step request is followed by a "step" stop, as real targets do
        self.pause_stops = pause_stops  # likewise a pause request by a "pause" stop
        self.line = 1  # where the target is: the top frame's line
        self.threads_ = [(1, "MainThread")]
        self.locals_ = dict(locals_ or {"x": "1"})
        self.evaluations: dict[str, str] = {}  # expression -> value; anything else fails like a NameError
        self.calls: list[tuple[str, tuple]] = []  # every request, in order
        self.in_flight = 0
        self.closed = False
        self._holds: dict[str, list[Gate]] = defaultdict(list)
        self._failures: dict[str, Exception] = {}
        self._asked = asyncio.Event()
        self._bp_ids = itertools.count(1)
        self.breakpoint_ids: dict[tuple[str, int], int] = {}  # (file, line) -> the id the target gave it

    # ----- scripting requests -----------------------------------------------------------------------------------

    def hold(self, request: str) -> Gate:
        """The next `request` call waits until the returned gate is released."""
        gate = Gate()
        self._holds[request].append(gate)
        return gate

    def fail(self, request: str, error: Exception) -> None:
        """Every further `request` call raises `error` (until `succeed`)."""
        self._failures[request] = error

    def succeed(self, request: str) -> None:
        self._failures.pop(request, None)

    def asked(self, request: str) -> int:
        return sum(1 for name, _ in self.calls if name == request)

    async def requested(self, request: str, times: int = 1, timeout: float = 5.0) -> None:
        """Wait until `request` has been asked for `times` times in all."""
        async with asyncio.timeout(timeout):
            while self.asked(request) < times:
                self._asked.clear()
                await self._asked.wait()

    async def _call(self, request: str, *args) -> None:
        self.calls.append((request, args))
        self._asked.set()
        self.in_flight += 1
        try:
            if self._holds[request]:
                await self._holds[request].pop(0).passed()
            if request in self._failures:
                raise self._failures[request]
        finally:
            self.in_flight -= 1

    # ----- the target reports (through the listener, as a real backend's reader task would) ----------------------

    def stop(self, reason: str = "breakpoint", line: int | None = None, hit: list[int] | None = None) -> None:
        self.line = line or self.line
        self.listener.on_stopped(StopInfo(reason=reason, thread_id=1, hit_breakpoint_ids=list(hit or [])))

    def continued(self) -> None:
        self.listener.on_continued(1, True)

    def output(self, text: str, category: str = "stdout") -> None:
        self.listener.on_output(category, text)

    def exit(self, code: int = 0) -> None:
        self.listener.on_exited(code)
        self.listener.on_terminated()

    def lose(self, message: str = "connection reset") -> None:
        self.listener.on_lost(message)

    def resolve(self, file: str, line: int) -> None:
        """The target binds a breakpoint it had not verified."""
        backend_id = self.breakpoint_ids[(file, line)]
        self.listener.on_breakpoint_changed(backend_id, BreakpointState(True, line, None, backend_id))

    def _later(self, report, *args) -> None:
        asyncio.get_running_loop().call_soon(report, *args)

    # ----- the Backend contract ---------------------------------------------------------------------------------

    def _states(self, file: str, specs: list[LineBreakpointSpec]) -> list[BreakpointState]:
        states = []
        for spec in specs:
            backend_id = self.breakpoint_ids.setdefault((file, spec.line), next(self._bp_ids))
            line = spec.line if self.verify_breakpoints else None
            message = None if self.verify_breakpoints else "pending"
            states.append(BreakpointState(self.verify_breakpoints, line, message, backend_id))
        return states

    async def start(
        self, line_breakpoints: dict[str, list[LineBreakpointSpec]], exception_mode: ExceptionMode
    ) -> dict[str, list[BreakpointState]]:
        await self._call("start", line_breakpoints, exception_mode)
        return {file: self._states(file, specs) for file, specs in line_breakpoints.items()}

    async def set_line_breakpoints(self, file: str, specs: list[LineBreakpointSpec]) -> list[BreakpointState]:
        await self._call("set_line_breakpoints", file, specs)
        return self._states(file, specs)

    async def set_function_breakpoints(self, specs: list[FunctionBreakpointSpec]) -> list[BreakpointState]:
        await self._call("set_function_breakpoints", specs)
        raise NotImplementedError("function breakpoints")

    async def set_exception_mode(self, mode: ExceptionMode) -> None:
        await self._call("set_exception_mode", mode)

    async def resume(self, thread_id: int | None) -> None:
        await self._call("resume", thread_id)

    async def step(self, kind: StepKind, thread_id: int | None) -> None:
        await self._call("step", kind, thread_id)
        if self.step_stops:
            self._later(self.stop, "step", self.line + 1)

    async def pause(self, thread_id: int | None) -> None:
        await self._call("pause", thread_id)
        if self.pause_stops:
            self._later(self.stop, "pause")

    async def threads(self) -> list[tuple[int, str]]:
        await self._call("threads")
        return list(self.threads_)

    async def stack(self, thread_id: int, start: int = 0, levels: int = 20) -> tuple[list[RawFrame], int]:
        await self._call("stack", thread_id, start, levels)
        frames = [RawFrame(1, "main", FILE, self.line, 1)]
        return frames[start : start + levels], len(frames)

    async def scopes(self, frame_id: int) -> list[RawScope]:
        await self._call("scopes", frame_id)
        return [RawScope("Locals", 100, named=len(self.locals_))]

    async def variables(self, ref: int, start: int = 0, count: int = 0) -> list[RawValue]:
        await self._call("variables", ref, start, count)
        if ref != 100:
            return []
        values = [RawValue(name, value, "int") for name, value in self.locals_.items()]
        return values[start : start + count] if count else values[start:]

    async def evaluate(
        self, expression: str, frame_id: int | None, context: str = "repl", by_value: bool = False
    ) -> RawValue:
        await self._call("evaluate", expression, frame_id, context, by_value)
        value = self.evaluations.get(expression, self.locals_.get(expression))
        if value is None:
            raise DebugError(ErrorCode.PROTOCOL_ERROR, f"NameError: name {expression!r} is not defined")
        return RawValue(expression, value, "int")

    async def set_variable(self, ref: int, name: str, value: str) -> RawValue:
        await self._call("set_variable", ref, name, value)
        self.locals_[name] = value
        return RawValue(name, value, "int")

    async def close(self, terminate: bool = True) -> None:
        await self._call("close", terminate)
        self.closed = True
