"""Pure-logic unit tests: output cursors, handle expiry, the event bus, registry validation. No processes."""

from __future__ import annotations

import asyncio

import pytest

from pairdbg.runtime import build_registry
from pairdbg.backends.errors import DebugError, ErrorCode, not_paused
from pairdbg.backends.events import EventBus, OutputAppended, PhaseChanged, SessionAdded
from pairdbg.backends.handles import Handles, VarRef
from pairdbg.backends.hub import Hub
from pairdbg.backends.models import Phase
from pairdbg.backends.output import OutputRing
from support import ROOT

# ----- OutputRing ---------------------------------------------------------------------------------------------------


def test_output_cursor_pages_without_gaps_or_repeats():
    ring = OutputRing(100)
    for n in range(25):
        ring.append("stdout", f"line {n}\n")
    seen, since, pages = [], 0, 0
    while True:
        entries, since, has_more, dropped = ring.read(since, limit=10)
        pages += 1
        assert dropped == 0
        seen.extend(e.text for e in entries)
        if not has_more:
            break
    assert pages == 3
    assert seen == [f"line {n}\n" for n in range(25)]
    assert since == ring.cursor == 26
    # nothing new: an empty page, same cursor, no has_more
    assert ring.read(since) == ([], 26, False, 0)
    ring.append("stdout", "late\n")
    entries, nxt, has_more, _ = ring.read(since)
    assert [e.text for e in entries] == ["late\n"] and nxt == 27 and not has_more


def test_output_has_more_is_exact_at_the_page_boundary():
    ring = OutputRing(100)
    for n in range(10):
        ring.append("stdout", str(n))
    entries, nxt, has_more, _ = ring.read(0, limit=10)
    assert len(entries) == 10 and not has_more and nxt == 11
    entries, nxt, has_more, _ = ring.read(0, limit=9)
    assert len(entries) == 9 and has_more and nxt == 10


def test_output_dropped_counts_entries_lost_before_the_cursor():
    ring = OutputRing(5)
    for n in range(12):
        ring.append("stdout", str(n))
    entries, nxt, has_more, dropped = ring.read(0)
    assert [e.seq for e in entries] == [8, 9, 10, 11, 12]
    assert dropped == 7 and nxt == 13 and not has_more
    entries, _, _, dropped = ring.read(5)
    assert dropped == 3 and entries[0].seq == 8
    _, _, _, dropped = ring.read(9)
    assert dropped == 0


def test_output_category_filter_keeps_the_cursor_moving():
    ring = OutputRing(50)
    for n in range(6):
        ring.append("stderr" if n % 2 else "stdout", f"{n}\n")
    entries, nxt, has_more, _ = ring.read(0, category="stderr")
    assert [e.text for e in entries] == ["1\n", "3\n", "5\n"] and nxt == 7 and not has_more


def test_output_tail_joins_chunks_into_lines():
    """debugpy sends print("step", 1, 2) as several output events; the tail must show whole lines."""
    ring = OutputRing(50)
    for chunk in ["step", " ", "1", " ", "2", "\n", "next line\n", "partial"]:
        ring.append("stdout", chunk)
    assert ring.tail_text(1, 10) == ["step 1 2", "next line", "partial"]
    assert ring.tail_text(1, 2) == ["next line", "partial"]
    assert ring.tail_text(ring.cursor, 10) == []


def test_output_tail_keeps_streams_apart():
    ring = OutputRing(50)
    for cat, chunk in [("stdout", "out "), ("stderr", "err\n"), ("stdout", "more\n")]:
        ring.append(cat, chunk)
    tail = ring.tail_text(1, 10)
    assert "err" in tail and "out more" in tail


# ----- Handles ------------------------------------------------------------------------------------------------------


def _ref(n: int) -> VarRef:
    return VarRef(ref=n, name=f"v{n}", parent_ref=0, evaluate_name=None, frame_id=1)


def test_handles_resolve_within_their_stop():
    h = Handles()
    h.begin(1)
    assert h.frame(0, 101) == "@f0"
    v = h.var(_ref(7))
    assert v == "@v1"
    assert h.frame_id("@f0") == 101 and h.frame_id(None) == 101 and h.frame_id("f0") == 101
    assert h.variable("@v1").ref == 7 and h.variable("v1").ref == 7


def test_old_variable_handle_names_its_stop():
    h = Handles()
    h.begin(1)
    h.frame(0, 1)
    old = h.var(_ref(1))
    h.expire()
    h.begin(2)
    h.frame(0, 2)
    h.var(_ref(2))
    with pytest.raises(DebugError) as ei:
        h.variable(old)
    err = ei.value
    assert err.code == ErrorCode.PATH_NOT_FOUND
    assert "expired" in err.message and "stop #1" in err.message and "stop #2" in err.message
    assert err.data.get("expired") is True and err.hint


def test_handles_after_resume_say_the_program_resumed():
    h = Handles()
    h.begin(3)
    h.frame(0, 1)
    v = h.var(_ref(1))
    h.expire()
    for call in (lambda: h.variable(v), lambda: h.frame_id("@f0")):
        with pytest.raises(DebugError) as ei:
            call()
        assert ei.value.code == ErrorCode.PATH_NOT_FOUND
        assert "expired" in ei.value.message and "resumed" in ei.value.message


def test_unknown_and_malformed_handles():
    h = Handles()
    h.begin(1)
    h.frame(0, 1)
    with pytest.raises(DebugError) as ei:
        h.variable("@v99")
    assert ei.value.code == ErrorCode.PATH_NOT_FOUND and "expired" not in ei.value.message
    with pytest.raises(DebugError) as ei:
        h.frame_id("@f5")
    assert ei.value.code == ErrorCode.PATH_NOT_FOUND and "get_call_stack" in (ei.value.hint or "")
    for bad, call in (("@f1", h.variable), ("@v1", h.frame_id), ("@vx", h.variable)):
        with pytest.raises(DebugError) as ei:
            call(bad)
        assert ei.value.code == ErrorCode.INVALID_PARAMETERS, bad


# ----- EventBus ------------------------------------------------------------------------------------------------------


def test_bus_drops_oldest_when_a_subscriber_is_full():
    bus = EventBus()
    slow = bus.subscribe(maxsize=3)
    fast = bus.subscribe(maxsize=100)
    for n in range(10):
        bus.publish(OutputAppended(f"S{n}"))
    assert slow.dropped == 7 and fast.dropped == 0
    kept = [slow.queue.get_nowait().session_id for _ in range(slow.queue.qsize())]
    assert kept == ["S7", "S8", "S9"]
    assert fast.queue.qsize() == 10


def test_bus_predicate_listener_and_unsubscribe():
    bus = EventBus()
    phases = bus.subscribe(predicate=lambda e: isinstance(e, PhaseChanged))
    heard = []
    bus.add_listener(heard.append)
    bus.publish(SessionAdded("S1", name="x"))
    bus.publish(PhaseChanged("S1", phase=Phase.RUNNING))
    assert phases.queue.qsize() == 1 and len(heard) == 2
    phases.close()
    bus.remove_listener(heard.append)
    bus.publish(PhaseChanged("S1", phase=Phase.PAUSED))
    assert phases.queue.qsize() == 1 and len(heard) == 2


@pytest.mark.asyncio
async def test_bus_publish_never_blocks_on_a_consumer_that_never_reads():
    bus = EventBus()
    sub = bus.subscribe(maxsize=1)
    for _ in range(1000):
        bus.publish(OutputAppended("S1"))
    assert sub.dropped == 999
    event = await asyncio.wait_for(sub.get(), 1)
    assert isinstance(event, OutputAppended)


# ----- errors and registry -------------------------------------------------------------------------------------------


def test_error_text_and_dict():
    err = not_paused("S1", "running")
    assert err.code == ErrorCode.NOT_PAUSED
    assert err.text().splitlines() == [
        "NOT_PAUSED: session S1 is running, not paused",
        "Next: call wait_for_stop(session_id='S1') or pause_execution first",
    ]
    assert err.to_dict() == {
        "code": "NOT_PAUSED",
        "message": "session S1 is running, not paused",
        "hint": err.hint,
        "data": {"phase": "running"},
    }


@pytest.fixture
def bare_registry():
    return build_registry(Hub())


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "action,args,needle",
    [
        ("step_over", {"session_id": 5}, "session_id"),
        ("step_over", {"session_id": "S1", "wait_s": -1}, "wait_s"),
        ("step_over", {"session_id": "S1", "wait_s": 1000}, "wait_s"),
        ("set_breakpoint", {"session_id": "S1", "line": 0}, "line"),
        ("set_pause_on_exceptions", {"session_id": "S1", "mode": "sometimes"}, "mode"),
        ("start_debugging", {}, "program"),
        ("get_variables", {"session_id": "S1", "ref": "@v1", "count": 0}, "count"),
        ("get_output", {"session_id": "S1", "since": -1}, "since"),
        ("evaluate_expression", {"session_id": "S1"}, "expression"),
    ],
)
async def test_registry_rejects_bad_params(bare_registry, action, args, needle):
    with pytest.raises(DebugError) as ei:
        await bare_registry.run(action, args, "agent:test")
    assert ei.value.code == ErrorCode.INVALID_PARAMETERS
    assert ei.value.message.startswith(action + ":") and needle in ei.value.message
    assert ei.value.hint


@pytest.mark.asyncio
async def test_registry_unknown_action_and_session(bare_registry):
    with pytest.raises(DebugError) as ei:
        await bare_registry.run("launch_rockets", {}, "human")
    assert ei.value.code == ErrorCode.INVALID_PARAMETERS and "step_over" in (ei.value.hint or "")
    with pytest.raises(DebugError) as ei:
        await bare_registry.run("step_over", {"session_id": "S42"}, "human")
    assert ei.value.code == ErrorCode.SESSION_NOT_FOUND and "list_debug_sessions" in (ei.value.hint or "")


@pytest.mark.asyncio
async def test_registry_announces_failures_with_the_actor(bare_registry):
    sub = bare_registry.hub.bus.subscribe()
    with pytest.raises(DebugError):
        await bare_registry.run("step_over", {"session_id": "S9"}, "agent:claude")
    event = sub.queue.get_nowait()
    assert event.actor == "agent:claude" and event.action == "step_over" and event.ok is False
    assert event.outcome.startswith("SESSION_NOT_FOUND")
    # quiet read-only actions are not echoed when they succeed
    reply = await bare_registry.run("list_debug_sessions", {}, "human")
    assert "No sessions" in reply.text and sub.queue.empty()


def test_every_action_has_a_description_and_params(bare_registry):
    for name, action in bare_registry.actions.items():
        assert action.description and action.params.model_json_schema()["type"] == "object", name


def test_core_imports_without_textual():
    """DESIGN: backends/ must import and run without Textual (pairdbg --mcp must not load it)."""
    import subprocess
    import sys

    code = (
        "import sys, pairdbg.backends.hub, pairdbg.backends.session, pairdbg.backends.actions.catalogue; "
        "import pairdbg.backends.dap.python; "
        "from pairdbg.runtime import build_registry; build_registry(pairdbg.backends.hub.Hub()); "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'textual' or m.startswith('pairdbg.tui')); "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    r = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_output_read_is_bounded_by_characters_too():
    from pairdbg.backends.output import OutputRing

    ring = OutputRing()
    ring.append("stdout", "x" * 10_000)
    ring.append("stdout", "y" * 10_000)
    ring.append("stdout", "z" * 50_000)
    first, next_since, has_more, _ = ring.read(1, limit=100, max_chars=16_000)
    assert [e.seq for e in first] == [1] and has_more and next_since == 2
    second, next_since, has_more, _ = ring.read(next_since, limit=100, max_chars=16_000)
    assert [e.seq for e in second] == [2] and has_more and next_since == 3
    third, next_since, has_more, _ = ring.read(next_since, limit=100, max_chars=16_000)
    assert len(third) == 1 and not has_more and next_since == 4
    assert third[0].text.endswith("[… 34000 more characters cut]\n")
    assert ring.read(3, max_chars=10**6)[0][0].text == "z" * 50_000  # the ring itself keeps the whole entry
