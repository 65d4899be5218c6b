"""Unit tests for the Session's parts (BreakpointBook, WatchList), the RECONNECTING phase and typed capabilities.

A small in-file backend stands in for a target: no processes, no sockets.
"""

from __future__ import annotations

import asyncio

import pytest

from pairdbg.backends.base import (
    Backend,
    BreakpointState,
    Capabilities,
    Debugger,
    LineBreakpointSpec,
    RawFrame,
    RawScope,
    RawValue,
    StopInfo,
)
from pairdbg.backends.breakpoints import BreakpointBook
from pairdbg.backends.dap.backend import dap_capabilities
from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.backends.events import BreakpointsChanged, EventBus
from pairdbg.backends.limits import Limits
from pairdbg.backends.models import Phase
from pairdbg.backends.session import Session
from pairdbg.backends.values import WatchList

PROGRAM = __file__  # a real file with enough lines for line breakpoints


class LocalBackend(Debugger):
    """Answers every request at once from small tables; records what it was sent."""

    kind = "local"
    features = Capabilities(pause=True, conditional_breakpoints=True)

    def __init__(self) -> None:
        super().__init__()
        self.sent: dict[str, list[LineBreakpointSpec]] = {}
        self.values: dict[str, str] = {"x": "1"}
        self.closed = False
        self.fail_breakpoints = False
        self.slow: set[str] = set()
        self.depth = 1
        self.requests: list[str] = []

    async def start(self, line_breakpoints, exception_mode):
        self.sent = dict(line_breakpoints)
        return {f: [BreakpointState(True, s.line, backend_id=s.line) for s in specs] for f, specs in self.sent.items()}

    async def set_line_breakpoints(self, file, specs):
        if self.fail_breakpoints:
            raise DebugError(ErrorCode.PROTOCOL_ERROR, "the target refused")
        self.sent[file] = list(specs)
        return [BreakpointState(True, s.line, backend_id=s.line) for s in specs]

    async def set_exception_mode(self, mode) -> None:
        pass

    async def resume(self, thread_id) -> None:
        pass

    async def step(self, kind, thread_id) -> None:
        pass

    async def pause(self, thread_id) -> None:
        pass

    async def threads(self):
        return [(1, "main")]

    async def stack(self, thread_id, start=0, levels=20):
        self.requests.append(f"stack {start}+{levels}")
        frames = [RawFrame(7 + i, "main" if i == 0 else f"caller{i}", PROGRAM, 10 + i) for i in range(self.depth)]
        return frames[start : start + levels], self.depth

    async def scopes(self, frame_id):
        self.requests.append(f"scopes {frame_id}")
        return [RawScope("Locals", 100)]

    async def variables(self, ref, start=0, count=0):
        return [RawValue(k, v) for k, v in self.values.items()]

    async def evaluate(self, expression, frame_id, context="repl", by_value=False):
        if expression in self.slow:
            await asyncio.sleep(5)
        if expression not in self.values:
            raise DebugError(ErrorCode.PROTOCOL_ERROR, f"NameError: {expression}")
        return RawValue(expression, self.values[expression])

    async def close(self, terminate: bool = True) -> None:
        self.closed = True


class PageLike(Backend):
    """A backend that is not a Debugger (like a debug-bridge page)."""

    kind = "page"
    features = Capabilities(global_evaluate=True, ui=True)
    unsupported_hint = "use the other tool"

    async def start(self, line_breakpoints, exception_mode):
        return {}

    async def evaluate(self, expression, frame_id, context="repl", by_value=False):
        return RawValue(expression, "42")

    async def close(self, terminate: bool = True) -> None:
        pass


def live() -> None:
    pass


def book(backend: Backend | None = None, **limits) -> tuple[BreakpointBook, EventBus]:
    bus = EventBus()
    return BreakpointBook("S1", backend or LocalBackend(), bus, Limits(**limits), live), bus


async def started(backend: Backend | None = None, **limits) -> Session:
    session = Session("S1", "test", backend or LocalBackend(), EventBus(), Limits(**limits), "python")
    await session.start([])
    return session


def code(exc: pytest.ExceptionInfo[DebugError]) -> ErrorCode:
    return exc.value.code


# ----- BreakpointBook --------------------------------------------------------------------------------------------


def test_book_numbers_line_and_function_breakpoints_in_one_sequence():
    b, _ = book()
    first = b.new(PROGRAM, 3)
    second = b.new(function="main")
    assert (first.id, first.kind, second.id, second.kind) == ("BP1", "line", "BP2", "function")
    assert first.file == PROGRAM and first.set_by == "human"
    assert len(b) == 0, "new() only validates and numbers; nothing is kept or sent"


def test_book_validation_fails_before_an_id_is_used():
    b, _ = book(max_expression=10)
    with pytest.raises(DebugError) as exc:
        b.new(PROGRAM, 100_000)
    assert code(exc) == ErrorCode.INVALID_PARAMETERS and "1-based" in (exc.value.hint or "")
    with pytest.raises(DebugError) as exc:
        b.new(PROGRAM, 3, condition="x" * 11)
    assert code(exc) == ErrorCode.LIMIT_EXCEEDED and "condition" in exc.value.message
    with pytest.raises(DebugError) as exc:
        b.new("http://127.0.0.1:8000/app.js", 3)  # this backend has no remote sources
    assert code(exc) == ErrorCode.INVALID_PARAMETERS
    assert b.new(PROGRAM, 3).id == "BP1"


def test_book_limit_counts_kept_breakpoints():
    b, _ = book(max_breakpoints=2)
    b.keep(b.new(PROGRAM, 3))
    b.keep(b.new(PROGRAM, 4))
    with pytest.raises(DebugError) as exc:
        b.new(PROGRAM, 5)
    assert code(exc) == ErrorCode.LIMIT_EXCEEDED and "limit 2" in exc.value.message


@pytest.mark.asyncio
async def test_book_syncs_with_the_backend_and_reads_like_a_dict():
    backend = LocalBackend()
    b, bus = book(backend)
    sub = bus.subscribe()
    bp = await b.add(b.new(PROGRAM, 3, condition="x > 1"))
    assert backend.sent[PROGRAM] == [LineBreakpointSpec(3, "x > 1")]
    assert bp.state.verified and b.get("BP1") is bp and list(b.values()) == [bp] and "BP1" in b
    event = sub.queue.get_nowait()
    assert isinstance(event, BreakpointsChanged) and [v.id for v in event.breakpoints] == ["BP1"]
    b.changed(3, BreakpointState(True, 4, backend_id=3))
    assert b["BP1"].state.line == 4
    removed = await b.remove(" bp1 ", live=True)
    assert removed is bp and len(b) == 0 and backend.sent[PROGRAM] == []


@pytest.mark.asyncio
async def test_book_forgets_a_breakpoint_the_backend_refused():
    backend = LocalBackend()
    backend.fail_breakpoints = True
    b, _ = book(backend)
    with pytest.raises(DebugError) as exc:
        await b.add(b.new(PROGRAM, 3))
    assert code(exc) == ErrorCode.PROTOCOL_ERROR and len(b) == 0


@pytest.mark.asyncio
async def test_book_answers_unsupported_once_and_keeps_nothing():
    b, _ = book()
    with pytest.raises(DebugError) as exc:
        await b.add(b.new(function="main"))  # LocalBackend has no function breakpoints
    assert code(exc) == ErrorCode.CAPABILITY_UNSUPPORTED and "local has no function breakpoints" in exc.value.message
    assert len(b) == 0
    page, _ = book(PageLike())
    with pytest.raises(DebugError) as exc:
        await page.add(page.new(PROGRAM, 3))
    assert code(exc) == ErrorCode.CAPABILITY_UNSUPPORTED and exc.value.hint == "use the other tool"
    with pytest.raises(DebugError) as exc:
        await page.set_exception_mode("all")
    assert code(exc) == ErrorCode.CAPABILITY_UNSUPPORTED and page.exception_mode == "uncaught"


@pytest.mark.asyncio
async def test_book_unknown_breakpoint_lists_the_known_ones():
    b, _ = book()
    b.keep(b.new(PROGRAM, 3))
    with pytest.raises(DebugError) as exc:
        await b.remove("BP9", live=True)
    assert code(exc) == ErrorCode.PATH_NOT_FOUND and "have: BP1" in exc.value.message


# ----- WatchList -------------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_watch_list_numbers_limits_and_marks_changes():
    backend = LocalBackend()
    watches = WatchList(backend, Limits(max_watches=2))
    w1, w2 = watches.add("x"), watches.add("nope")
    assert (w1.id, w2.id, len(watches)) == ("W1", "W2", 2)
    with pytest.raises(DebugError) as exc:
        watches.add("y")
    assert code(exc) == ErrorCode.LIMIT_EXCEEDED
    first = await watches.evaluate_all(7)
    assert [(v.value, v.changed, v.error) for v in first] == [("1", False, False), ("NameError: nope", False, True)]
    backend.values["x"] = "2"
    again = await watches.evaluate(w1, 7)
    assert again.value == "2" and again.changed
    assert watches.remove("w2") is w2 and list(watches) == ["W1"]
    with pytest.raises(DebugError) as exc:
        watches.remove("W2")
    assert code(exc) == ErrorCode.PATH_NOT_FOUND and "have: W1" in exc.value.message


@pytest.mark.asyncio
async def test_a_slow_watch_does_not_hold_the_stop_back():
    backend = LocalBackend()
    backend.slow.add("x")
    watches = WatchList(backend, Limits())
    watches.add("x")
    view = await watches.evaluate(watches["W1"], 7, timeout=0.05)
    assert view.error and "took over" in view.value


# ----- the Session and its parts together ---------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_session_records_a_stop_through_its_parts():
    session = await started()
    await session.add_watch("x")
    bp = session.breakpoints.new(PROGRAM, 10)
    await session.add_breakpoint(bp)
    session.on_stopped(StopInfo("breakpoint", thread_id=1, hit_breakpoint_ids=[10]))
    outcome = await session.wait_for_stop(0, 2)
    assert outcome.state == "paused" and outcome.report is not None
    report = outcome.report
    assert report.hit_breakpoints == ["BP1"] and report.location.line == 10
    assert [v.name for v in report.locals] == ["x"] and [w.value for w in report.watches] == ["1"]
    assert session.breakpoints["BP1"].state.verified and session.exception_mode == "uncaught"


@pytest.mark.asyncio
async def test_the_stop_snapshot_fetches_frames_and_scopes_once():
    backend = LocalBackend()
    backend.depth = 12
    session = await started(backend, report_frames=8)
    assert session.snapshot is None
    session.on_stopped(StopInfo("pause", thread_id=1))
    await session.wait_for_stop(0, 2)
    snap = session.snapshot
    assert snap is not None and snap.stop_number == 1 and snap.thread_id == 1
    assert backend.requests == ["stack 0+8", "scopes 7"]  # what the report needed
    frames, total = await snap.stack(0, 8)
    assert [f.id for f in frames] == list(range(7, 15)) and total == 12
    assert await snap.scopes(7) == [RawScope("Locals", 100)]
    assert backend.requests == ["stack 0+8", "scopes 7"], "the report's frames and top scopes are reused"
    frames, _ = await snap.stack(6, 20)
    assert [f.id for f in frames] == list(range(13, 19)) and backend.requests[-1] == "stack 8+4"
    await session.control("continue", "human", 0)
    assert session.snapshot is None  # resumed: the stop's snapshot is no longer where the program is


# ----- RECONNECTING -----------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_reconnecting_is_not_an_end_and_the_target_can_come_back():
    session = await started()
    session.on_reconnecting("the connection was lost; reconnecting")
    assert session.phase == Phase.RECONNECTING and not session.phase.ended
    assert not any(session.capabilities[k] for k in ("can_continue", "can_pause", "can_set_breakpoints"))
    with pytest.raises(DebugError) as exc:
        session.require_paused()
    assert code(exc) == ErrorCode.NOT_CONNECTED and "reconnecting" in (exc.value.hint or "")
    # An agent waiting for a stop keeps waiting; its answer while it waits is today's "disconnected".
    waited = await session.wait_for_stop(None, 0.05)
    assert waited.state == "disconnected" and "reconnecting" in (waited.detail or "")
    session.on_reconnected()
    assert session.phase == Phase.RUNNING and session.error is None
    assert not session.backend.closed


@pytest.mark.asyncio
async def test_a_stop_during_reconnecting_counts_as_the_reconnect():
    session = await started()
    session.on_reconnecting("lost")
    waiter = asyncio.create_task(session.wait_for_stop(None, 2))
    await asyncio.sleep(0)
    session.on_stopped(StopInfo("breakpoint", thread_id=1))
    outcome = await waiter
    assert outcome.state == "paused" and session.phase == Phase.PAUSED


@pytest.mark.asyncio
async def test_giving_up_ends_as_disconnected_and_releases_the_target():
    session = await started()
    session.on_reconnecting("the page disconnected")
    waiter = asyncio.create_task(session.wait_for_stop(None, 5))
    await asyncio.sleep(0)
    session.on_terminated()  # the backend gave up looking
    outcome = await asyncio.wait_for(waiter, 1)
    assert outcome.state == "disconnected" and outcome.detail == "the page disconnected"
    assert session.phase == Phase.DISCONNECTED and session.phase.ended
    await asyncio.sleep(0.01)
    assert session.backend.closed
    with pytest.raises(DebugError) as exc:
        session.require_live()
    assert code(exc) == ErrorCode.NOT_CONNECTED and "reconnecting" not in (exc.value.hint or "")
    session.on_reconnected()  # too late: an end stays an end
    assert session.phase == Phase.DISCONNECTED


@pytest.mark.asyncio
async def test_lost_for_good_while_reconnecting_ends_too():
    session = await started()
    session.on_reconnecting("lost")
    session.on_lost("gone")
    assert session.phase == Phase.DISCONNECTED and session.error == "gone"


# ----- typed capabilities ---------------------------------------------------------------------------------------


def test_capabilities_are_read_by_attribute_and_typos_fail():
    caps = Capabilities(pause=True)
    assert caps.pause and not caps.set_variable
    with pytest.raises(AttributeError):
        caps.set_variabel  # noqa: B018
    with pytest.raises(ValueError, match="unknown capabilities: pauze"):
        caps.only(["pauze"])
    assert caps.only(["threads"]) == Capabilities()


def test_dap_capabilities_come_from_the_initialize_answer():
    # Abridged from js-debug's real answer: no function breakpoints, everything else we use.
    answer = {
        "supportsConditionalBreakpoints": True,
        "supportsHitConditionalBreakpoints": True,
        "supportsLogPoints": True,
        "supportsFunctionBreakpoints": False,
        "supportsSetVariable": True,
        "supportsExceptionInfoRequest": True,
    }
    caps = dap_capabilities(answer)
    assert caps.log_points and caps.set_variable and caps.pause and not caps.function_breakpoints
    assert not caps.global_evaluate and not caps.remote_sources
    narrowed = dap_capabilities(answer, frozenset({"conditional_breakpoints", "pause", "threads"}))
    assert narrowed.conditional_breakpoints and not narrowed.set_variable
    assert dap_capabilities({}) == Capabilities(pause=True, threads=True)


@pytest.mark.asyncio
async def test_session_capabilities_keep_their_agent_visible_shape():
    session = await started(PageLike())
    caps = session.capabilities
    assert caps["ui_actions"] and caps["can_evaluate"] and not caps["can_set_breakpoints"]
    with pytest.raises(DebugError) as exc:
        await session.pause("human", 0.1)
    assert code(exc) == ErrorCode.CAPABILITY_UNSUPPORTED and "page cannot pause" in exc.value.message
    assert (await session.evaluate("1", None)).value == "42"  # running, global: no handle
    assert not isinstance(session.backend, Debugger) and not session.backend.debugs_code


@pytest.mark.asyncio
async def test_one_backend_id_in_two_files_is_told_apart_by_the_file():
    """js-debug can answer the same id for breakpoints in two files; LocalBackend's ids are lines, so two breakpoints
    on line 5 of two files share one. A stop (or a `breakpoint` event) in one file means that file's only."""
    other = __file__.replace("test_session_parts.py", "test_jsfunction.py")
    b, _ = book()
    first, second = b.new(PROGRAM, 5), b.new(other, 5)
    await b.add(first)
    await b.add(second)
    assert first.state.backend_id == second.state.backend_id == 5
    assert b.ids_of([5], other) == [second.id] and b.ids_of([5], PROGRAM) == [first.id]
    assert b.ids_of([5]) == [first.id, second.id], "without a file nothing is dropped"
    b.changed(5, BreakpointState(True, 6, None, 5), other)
    assert (first.state.line, second.state.line) == (5, 6)
