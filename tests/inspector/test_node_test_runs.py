"""Debugging a `node --test` run (issue 19 §1) on the real Node: a failing test stops where it throws (an assertion
shows the test's line, an error in the code under test its own line), once per failure and named; assert.throws,
assert.rejects and a try/catch never stop; a stack overflow (where V8 does not pause) stops once it reaches the test,
saying where it was raised. The suite is tests/programs/node_suite (package.json: `node --test`).
"""

from __future__ import annotations

import pytest

from support import targets
from support.targets import TargetMissing
from support import PROGRAMS, line_of, local_values, missing_target, stop_of

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]

SUITE = PROGRAMS / "node_suite"
PERSON = "human"


@pytest.fixture(autouse=True)
def node() -> str:
    try:
        return targets.find_node()
    except TargetMissing as exc:
        missing_target(str(exc))


def failing_test(stop: dict) -> str | None:
    return ((stop.get("exception") or {}).get("test") or {}).get("test")


async def every_stop(registry, reply) -> tuple[list[dict], dict]:
    stops = []
    sid = reply.data["session_id"]
    while reply.data.get("state") == "paused":
        stops.append(stop_of(reply))
        assert len(stops) <= 6, [failing_test(s) for s in stops]
        reply = await registry.run("continue_execution", {"session_id": sid, "wait_s": 30}, PERSON)
    return stops, reply.data


async def test_node_test_stops_where_each_failing_test_throws_and_nowhere_else(registry):
    reply = await registry.run("debug_tests", {"cwd": str(SUITE)}, PERSON)
    assert reply.data["tests"]["runner"] == "node --test"
    assert reply.data["tests"]["files"] == [str(SUITE / "math.test.js")]
    first = stop_of(reply)
    # A failed assertion pauses inside node:assert; the stop shows the test's line, with its locals.
    assert first["location"]["line"] == line_of("node_suite/math.test.js", "assert.strictEqual(sum, 4)")
    assert local_values(first)["sum"] == "5"
    assert first["exception"]["type"] == "AssertionError" and "5 !== 4" in first["exception"]["message"]
    assert "Test failed: add fails (node --test)" in reply.text and "(uncaught)" not in reply.text
    stops, end = await every_stop(registry, reply)
    assert [failing_test(s) for s in stops] == ["add fails", "async error fails", "deep recursion fails"]
    # An error thrown after an await in the code under test stops where it is thrown, the test below it.
    thrown = stops[1]
    assert thrown["location"]["function"] == "fetchTotal"
    assert thrown["location"]["line"] == line_of("node_suite/math.js", "throw new TypeError")
    assert local_values(thrown)["missing"] == '"two"'
    assert any(f["file"].endswith("math.test.js") for f in thrown["stack"])
    assert all("testhook" not in (f["file"] or "") for s in stops[:2] for f in s["stack"])
    # V8 does not pause at a stack overflow: the stop says where it was raised and why it stops later.
    overflow = stops[2]
    assert overflow["exception"]["type"] == "RangeError"
    raised = overflow["exception"]["raised_at"]
    assert f"math.test.js:{line_of('node_suite/math.test.js', 'return depth(n + 1)')} in depth" in raised
    assert "does not pause where the stack overflowed" in raised
    # node:test reports the failures as if pairdbg were not there.
    assert end["state"] == "terminated" and end["exit_code"] == 1
    tail = "\n".join(end["output_tail"])
    assert "# fail 3" in tail and "# pass 4" in tail, tail


async def test_start_debugging_a_node_test_file_is_a_test_run(registry):
    reply = await registry.run(
        "start_debugging", {"program": str(SUITE / "math.test.js"), "wait_s": 30}, PERSON
    )
    assert reply.data["test_runner"] == "node --test"
    assert "Test run (node --test, in one process)" in reply.text
    assert failing_test(stop_of(reply)) == "add fails"


async def test_a_js_program_that_is_not_a_test_keeps_pausing_only_on_uncaught_exceptions(registry):
    reply = await registry.run("start_debugging", {"program": str(SUITE / "math.js"), "wait_s": 30}, PERSON)
    assert "test_runner" not in reply.data and "Test run" not in reply.text
    assert reply.data["state"] == "terminated" and reply.data["exit_code"] == 0
