"""Stepping into library code and exceptions raised there (issue 12): with justMyCode on, a step_into that the
adapter kept out of a library says so and how to go in; an exception raised inside a library says where, since its
frames are hidden. With just_my_code=false the step goes in and the stop is at the raise."""

from __future__ import annotations

import json

import pytest
from support import line_of, start, stop_of

pytestmark = pytest.mark.asyncio

PROGRAM = "lib_error.py"
CALL = line_of(PROGRAM, "# call into the library")
STEPS = "step_lines.py"


async def test_step_into_a_library_call_says_it_was_skipped_and_how_to_go_in(registry):
    sid, reply = await start(registry, PROGRAM, CALL)
    stop_of(reply)
    step = await registry.run("step_into", {"session_id": sid}, "agent:test")
    stop = stop_of(step)
    assert stop["location"]["file"].endswith(PROGRAM), step.text  # kept out of json
    assert "step_into did not enter the call on line" in step.text and "just_my_code=false" in step.text, step.text


async def test_step_into_a_library_call_goes_in_with_just_my_code_off(registry):
    sid, reply = await start(registry, PROGRAM, CALL, just_my_code=False)
    stop_of(reply)
    step = await registry.run("step_into", {"session_id": sid}, "agent:test")
    stop = stop_of(step)
    assert stop["location"]["file"] == json.__file__ and stop["location"]["function"] == "loads", step.text
    assert "did not enter" not in step.text


async def test_an_exception_raised_in_a_library_says_where(registry):
    sid, reply = await start(registry, PROGRAM)
    stop = stop_of(reply)
    assert stop["location"]["line"] == CALL  # justMyCode stops at the caller's line ...
    raised = stop["exception"]["raised_at"]  # ... and says where it really was raised
    assert "decoder.py" in raised and "raw_decode" in raised and "just_my_code=false" in raised, reply.text
    # The text shows the raise site itself (its lines and locals) in place of the raised_at sentence.
    assert "library code hidden by just_my_code (json): decoder.py:" in reply.text and "Raised in" not in reply.text


async def test_an_exception_raised_in_a_library_stops_there_with_just_my_code_off(registry):
    sid, reply = await start(registry, PROGRAM, just_my_code=False)
    stop = stop_of(reply)
    assert stop["location"]["file"].endswith("decoder.py") and not stop["exception"].get("raised_at"), reply.text


async def test_step_into_every_line_notes_only_the_calls_it_could_not_enter(registry):
    """The note rests on debugpy's step-in targets, not on a "(" in the line: a return with no call, the caller's
    line after a callee returned, a tuple and a user call that was entered get none; a built-in says it cannot be
    entered (and not "just_my_code=false"), a library call names its function and file."""
    sid, reply = await start(registry, STEPS, line_of(STEPS, "# first line"))
    stop_of(reply)
    notes: dict[int, str | None] = {}
    for _ in range(20):
        before = registry.hub.sessions[sid].last_stop.location
        step = await registry.run("step_into", {"session_id": sid}, "agent:test")
        if step.data["state"] != "paused":
            break
        stop = stop_of(step)
        if stop["location"]["file"].endswith(STEPS):
            notes.setdefault(before.line, stop.get("description"))
        if before.line == line_of(STEPS, "# last line"):
            break
    noted = {line: note for line, note in notes.items() if note and "did not enter" in note}
    builtin, library = line_of(STEPS, "# a built-in call"), line_of(STEPS, "# a library call")
    assert set(noted) == {builtin, library}, notes
    assert "print() is built-in: cannot be entered" in noted[builtin] and "just_my_code" not in noted[builtin]
    assert "json.dumps()" in noted[library] and json.__file__ in noted[library], noted[library]
    assert "just_my_code=false" in noted[library]
    for text in ("# return without a call", "# a tuple, no call", "# a user call"):
        assert line_of(STEPS, text) in notes, notes  # the walk went through them
