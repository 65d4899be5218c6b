"""Debugging a test run (issue 19 §1) on real pytest and unittest runs under debugpy: each failing test stops once,
where it fails, naming the test; expected exceptions (pytest.raises, assertRaises, xfail, expectedFailure, a
try/except) never stop; a RecursionError stops in the recursing frame with the depth, a MemoryError stops too; the
runner's SystemExit is not a stop. The suites are tests/programs/pytest_suite and tests/programs/unittest_suite.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from support import PROGRAMS, line_of, local_values, missing_target, stop_of, until

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]

PYTEST_SUITE = PROGRAMS / "pytest_suite"
UNITTEST_SUITE = PROGRAMS / "unittest_suite"
RUNNING_SUITE = PROGRAMS / "pytest_running"
PERSON = "human"


def failures_of(stop: dict) -> dict:
    return (stop.get("exception") or {}).get("test") or {}


async def every_stop(registry, reply, limit: int = 12) -> tuple[list[dict], dict]:
    """Continue from stop to stop until the run ends; returns the stops and the final reply's data."""
    stops = []
    sid = reply.data["session_id"]
    while reply.data.get("state") == "paused":
        stops.append(stop_of(reply))
        assert len(stops) <= limit, f"more stops than failing tests: {[failures_of(s) for s in stops]}"
        reply = await registry.run("continue_execution", {"session_id": sid, "wait_s": 60}, PERSON)
    return stops, reply.data


def python_without_pytest() -> str:
    """An interpreter the unittest run can use: pairdbg's own venv has pytest, so debug_tests would pick it."""
    candidates = [getattr(sys, "_base_executable", None), "/usr/bin/python3"]
    for python in filter(None, candidates):
        probe = subprocess.run([python, "-c", "import pytest"], capture_output=True)
        if probe.returncode != 0 and subprocess.run([python, "-c", "import sys"]).returncode == 0:
            return python
    missing_target("no Python 3 without pytest here (needed to see debug_tests pick unittest)")


async def test_a_failing_pytest_run_is_one_call_to_the_failing_assertion(registry):
    reply = await registry.run("debug_tests", {"cwd": str(PYTEST_SUITE)}, PERSON)
    assert reply.data["tests"]["runner"] == "pytest" and "pytest.ini" in reply.data["tests"]["why"]
    stop = stop_of(reply)
    assert failures_of(stop) == {
        "runner": "pytest", "test": "test_orders.py::test_discount_fails", "depth": failures_of(stop)["depth"],
        "repeats": 1,
    }  # fmt: skip
    assert stop["location"]["line"] == line_of("pytest_suite/test_orders.py", "assert price == 180")
    assert stop["exception"]["type"] == "AssertionError"
    assert "ten percent off 200" in stop["exception"]["message"] and "220.0 == 180" in stop["exception"]["message"]
    assert local_values(stop)["price"] == "220.0"
    assert "Test failed: test_orders.py::test_discount_fails (pytest)" in reply.text
    assert "(unhandled)" not in reply.text  # pytest handled it: the report must not say otherwise
    assert "Tests: " in reply.text and "stops where a test fails" in reply.text


async def test_pytest_stops_once_per_failure_and_never_at_expected_exceptions(registry):
    reply = await registry.run("debug_tests", {"cwd": str(PYTEST_SUITE)}, PERSON)
    stops, end = await every_stop(registry, reply)
    tests = [failures_of(s)["test"] for s in stops]
    assert tests == [
        "test_orders.py::test_discount_fails",
        "test_orders.py::test_error_in_code_fails",
        "test_orders.py::test_deep_recursion_fails",
        "test_orders.py::test_memory_fails",
    ]  # not test_expected_error_passes, test_caught_inside_passes, test_known_bug_is_xfail
    error, recursion, memory = stops[1], stops[2], stops[3]
    # The error in the user's code stops in that code, with the test's frame below it.
    assert error["location"]["function"] == "unit_price" and local_values(error)["count"] == "0"
    assert [f["function"] for f in error["stack"]] == ["unit_price", "test_error_in_code_fails"]
    # The recursion stops in the recursing function, with the depth it reached.
    assert recursion["exception"]["type"] == "RecursionError" and recursion["location"]["function"] == "depth"
    depth = failures_of(recursion)
    assert depth["depth"] > 500 and depth["repeats"] > 500 and recursion["stack_total"] > 500
    assert memory["exception"]["type"] == "MemoryError" and memory["location"]["function"] == "test_memory_fails"
    # The runner's own SystemExit(1) is how it ends, not a stop: the run ends with pytest's exit code.
    assert end["state"] == "terminated" and end["exit_code"] == 1
    assert any("4 failed, 3 passed, 1 xfailed" in line for line in end["output_tail"]), end["output_tail"]


async def test_pytest_started_as_a_module_or_a_script_stops_the_same_way(registry):
    """start_debugging recognises the runner itself: `python -m pytest`, and the `pytest` script of a venv."""
    script = PYTEST_SUITE.parent.parent.parent / ".venv" / "bin" / "pytest"
    if not script.is_file():
        missing_target(f"no pytest script at {script}")
    for program, module in (("pytest", True), (str(script), False)):
        args = {"program": program, "module": module, "args": ["-k", "error_in_code"], "cwd": str(PYTEST_SUITE)}
        reply = await registry.run("start_debugging", {**args, "wait_s": 60}, PERSON)
        assert reply.data["test_runner"] == "pytest"
        stops, end = await every_stop(registry, reply)
        assert [failures_of(s)["test"] for s in stops] == ["test_orders.py::test_error_in_code_fails"], program
        assert stops[0]["location"]["function"] == "unit_price"
        assert end["exit_code"] == 1, program


async def test_unittest_stops_once_per_failure_and_never_at_assert_raises(registry):
    python = python_without_pytest()
    reply = await registry.run("debug_tests", {"cwd": str(UNITTEST_SUITE), "executable_path": python}, PERSON)
    assert reply.data["tests"]["runner"] == "unittest", reply.text
    stops, end = await every_stop(registry, reply)
    assert [failures_of(s)["test"] for s in stops] == [
        "test_shop.ShopTest.test_deep_recursion_fails",
        "test_shop.ShopTest.test_error_in_code_fails",
        "test_shop.ShopTest.test_tax_fails",
    ]  # not test_expected_error_passes (assertRaises) nor test_known_bug (expectedFailure)
    recursion, error, assertion = stops
    assert recursion["location"]["function"] == "countdown" and failures_of(recursion)["repeats"] > 500
    assert error["location"]["function"] == "split" and local_values(error)["people"] == "0"
    assert assertion["location"]["line"] == line_of("unittest_suite/test_shop.py", "self.assertEqual(taxed, 120)")
    assert assertion["exception"]["message"] == "20.0 != 120"
    assert all("testhook" not in f["file"] for s in stops for f in s["stack"])  # pairdbg's hook is not shown
    assert end["state"] == "terminated" and end["exit_code"] == 1


async def test_a_run_whose_tests_pass_ends_without_a_stop(registry):
    reply = await registry.run("debug_tests", {"cwd": str(PYTEST_SUITE), "args": ["-k", "passes or xfail"]}, PERSON)
    assert reply.data["state"] == "terminated" and reply.data["exit_code"] == 0, reply.text


async def test_a_project_that_configures_pytest_without_it_is_refused_with_the_fix(registry, tmp_path):
    python = python_without_pytest()
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    from support import expect_error

    err = await expect_error(
        registry, "debug_tests", {"cwd": str(tmp_path), "executable_path": python}, "INVALID_PARAMETERS"
    )
    assert "pytest.ini" in err.message and "not installed" in err.message and "pytest" in err.hint


async def test_breakpoints_hit_in_a_test_run_set_before_or_at_a_failure(registry):
    """A test run goes untraced until something needs the tracer (a speed-up): a breakpoint set before the run brings
    it back when its file's module is imported (here during collection), and one set at a failure stops the tests
    that run after it."""
    orders = str(PYTEST_SUITE / "orders.py")
    line = line_of("pytest_suite/orders.py", "return total_price / count")
    reply = await registry.run("debug_tests", {"cwd": str(PYTEST_SUITE)}, PERSON)
    sid = reply.data["session_id"]
    assert failures_of(stop_of(reply))["test"] == "test_orders.py::test_discount_fails"
    await registry.run("set_breakpoint", {"session_id": sid, "file": orders, "line": line}, PERSON)
    hit = stop_of(await registry.run("continue_execution", {"session_id": sid, "wait_s": 60}, PERSON))
    assert hit["reason"] == "breakpoint" and hit["location"]["line"] == line
    await registry.run("close_debug_session", {"session_id": sid}, PERSON)
    # Set before the run: discount() runs in the first failing test, before its assertion fails.
    cut = line_of("pytest_suite/orders.py", "cut = price * percent / 100")
    run = {"program": "pytest", "module": True, "cwd": str(PYTEST_SUITE), "wait_s": 60}
    reply = await registry.run("start_debugging", {**run, "breakpoints": [{"file": orders, "line": cut}]}, PERSON)
    first = stop_of(reply)
    assert first["reason"] == "breakpoint" and first["location"]["line"] == cut
    then = stop_of(await registry.run("continue_execution", {"session_id": reply.data["session_id"]}, PERSON))
    assert failures_of(then)["test"] == "test_orders.py::test_discount_fails"


async def running_test(registry, tmp_path) -> tuple[str, object]:
    """Start tests/programs/pytest_running with nothing set that needs tracing (so its test loop runs untraced) and
    wait until its one test is running; returns the session id and the flag file that lets the test end."""
    flag = tmp_path / "flag"
    run = {"program": "pytest", "module": True, "cwd": str(RUNNING_SUITE), "env": {"PAIRDBG_FLAG": str(flag)}}
    reply = await registry.run("start_debugging", {**run, "wait_s": 0}, PERSON)
    assert reply.data["state"] == "running", reply.text
    started = tmp_path / "flag.started"
    await until(started.exists, "the test to start running", timeout=60)
    return reply.data["session_id"], flag


async def test_an_untraced_test_run_hits_a_breakpoint_set_in_the_running_test(registry, tmp_path):
    """The test loop runs untraced when nothing needs tracing; a breakpoint set while a test runs brings the tracer
    back at once, in the frames already running too: it hits on the loop's next round, and steps work from there."""
    sid, flag = await running_test(registry, tmp_path)
    test_file = str(RUNNING_SUITE / "test_running.py")
    loop = line_of("pytest_running/test_running.py", "# loop")
    bp = await registry.run("set_breakpoint", {"session_id": sid, "file": test_file, "line": loop}, PERSON)
    hit = stop_of(await registry.run("wait_for_stop", {"session_id": sid, "timeout_s": 30}, PERSON))
    assert hit["reason"] == "breakpoint" and hit["location"]["line"] == loop, hit
    stepped = stop_of(await registry.run("step_into", {"session_id": sid, "wait_s": 30}, PERSON))
    assert stepped["location"]["function"] == "tick", stepped["location"]
    await registry.run("remove_breakpoint", {"session_id": sid, "breakpoint_id": bp.data["id"]}, PERSON)
    flag.touch()
    failed = stop_of(await registry.run("continue_execution", {"session_id": sid, "wait_s": 60}, PERSON))
    assert failures_of(failed)["test"] == "test_running.py::test_runs_until_the_flag_then_fails", failed


async def test_an_untraced_test_run_can_be_paused(registry, tmp_path):
    """A pause reaches the untraced test loop (it brings the tracer back) and lands in the running test's code."""
    sid, flag = await running_test(registry, tmp_path)
    paused = stop_of(await registry.run("pause_execution", {"session_id": sid, "wait_s": 30}, PERSON))
    assert paused["reason"] == "pause", paused
    assert paused["location"]["file"] == str(RUNNING_SUITE / "test_running.py"), paused["location"]
    flag.touch()
    failed = stop_of(await registry.run("continue_execution", {"session_id": sid, "wait_s": 60}, PERSON))
    assert failures_of(failed)["test"] == "test_running.py::test_runs_until_the_flag_then_fails", failed


# Whether the run's main thread is untraced on purpose (testhook.py's _LazyTracing), read in the program.
LAZY_STATE = (
    "(lambda t: type(t).__name__ + (' traced' if getattr(t, 'done', True) else ' untraced'))"
    "(__import__('sys').modules['pairdbg_testhook']._untraced)"
)


async def test_a_unittest_run_goes_untraced_until_a_file_with_a_breakpoint_runs(registry):
    """unittest's run goes untraced like pytest's: with no breakpoint it is still untraced at its first failure; a
    breakpoint set before the run (in the code under test) brings the tracer back as its module is imported, and
    hits, also after the RecursionError of an earlier test (raised in pydevd's tracer, which CPython then drops)."""
    run = {"program": "unittest", "module": True, "cwd": str(UNITTEST_SUITE), "wait_s": 60}
    reply = await registry.run("start_debugging", run, PERSON)
    sid = reply.data["session_id"]
    assert failures_of(stop_of(reply))["test"] == "test_shop.ShopTest.test_deep_recursion_fails"
    state = await registry.run("evaluate_expression", {"session_id": sid, "expression": LAZY_STATE}, PERSON)
    assert state.data["value"] == "'_LazyTracing untraced'", state.text
    await registry.run("close_debug_session", {"session_id": sid}, PERSON)

    shop = str(UNITTEST_SUITE / "shop.py")
    line = line_of("unittest_suite/shop.py", "def add_tax") + 1
    reply = await registry.run("start_debugging", {**run, "breakpoints": [{"file": shop, "line": line}]}, PERSON)
    sid = reply.data["session_id"]
    state = await registry.run("evaluate_expression", {"session_id": sid, "expression": LAZY_STATE}, PERSON)
    assert state.data["value"] == "'_LazyTracing traced'", state.text
    stops, end = await every_stop(registry, reply)
    assert [s["reason"] for s in stops] == ["exception", "exception", "breakpoint", "exception"], stops
    assert stops[2]["location"]["line"] == line and failures_of(stops[3])["test"] == "test_shop.ShopTest.test_tax_fails"
    assert end["state"] == "terminated"
