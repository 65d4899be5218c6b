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
    assert "Raised in decoder.py:" in reply.text


async def test_an_exception_raised_in_a_library_stops_there_with_just_my_code_off(registry):
    sid, reply = await start(registry, PROGRAM, just_my_code=False)
    stop = stop_of(reply)
    assert stop["location"]["file"].endswith("decoder.py") and not stop["exception"].get("raised_at"), reply.text
