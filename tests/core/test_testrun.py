"""Test runs, the pure logic (issue 19 §1): which programs are test runners, which runner a project uses, and the
stop report's wording for a test failure and for a stop with no frames (no debugger here; the real runs are in
tests/dap/test_test_runs.py and tests/inspector/test_node_test_runs.py)."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
import pytest_asyncio

from pairdbg.backends import testrun
from pairdbg.backends.actions import render
from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.backends.factory import LaunchSpec
from pairdbg.backends.hub import Hub
from pairdbg.backends.models import ExceptionInfo, FailedTest, Location, StopReport
from pairdbg.runtime import build_registry
from support import stop_of
from support.fake_backend import ScriptedBackend


@pytest.mark.parametrize(
    ("program", "module", "runner"),
    [
        ("pytest", True, "pytest"),
        ("unittest", True, "unittest"),
        ("/p/.venv/bin/pytest", False, "pytest"),
        ("/p/.venv/bin/py.test", False, "pytest"),
        ("pytest_plugin", True, None),
        ("/p/app.py", False, None),
        ("/p/pytest.py", False, None),
    ],
)
def test_python_runners_are_known_by_module_or_script(program, module, runner) -> None:
    assert testrun.python_runner(program, module) == runner
    spec = LaunchSpec(program=program, module=module, language="python")
    note = testrun.recognise(spec)
    assert spec.test_runner == runner
    assert (note is not None) == (runner is not None)


def test_a_js_file_using_node_test_is_a_test_run(tmp_path) -> None:
    uses = tmp_path / "a.test.mjs"
    uses.write_text("import { test } from 'node:test';\ntest('x', () => {});\n")
    plain = tmp_path / "app.js"
    plain.write_text("const test = require('./test');\n")  # a module named test is not node:test
    spec = LaunchSpec(program=str(uses))
    assert "stops where a test fails" in testrun.recognise(spec) and spec.test_runner == "node --test"
    spec = LaunchSpec(program=str(plain))
    assert testrun.recognise(spec) is None and spec.test_runner is None
    # js-debug and Bun run it, but failures do not stop there: said, not hidden.
    spec = LaunchSpec(program=str(uses), backend="dap")
    assert "inspector backend only, not on js-debug" in testrun.recognise(spec) and spec.test_runner is None


def test_vitest_and_jest_are_recognised_and_said_unsupported(tmp_path) -> None:
    bin_ = tmp_path / "node_modules" / "vitest"
    bin_.mkdir(parents=True)
    (bin_ / "vitest.mjs").write_text("// vitest\n")
    spec = LaunchSpec(program=str(bin_ / "vitest.mjs"))
    note = testrun.recognise(spec)
    assert spec.test_runner is None and "failing tests do not stop" in note and "worker threads" in note


@pytest.mark.parametrize(
    ("script", "runner"),
    [
        ("node --test", "node --test"),
        ("NODE_ENV=test node --test test/", "node --test"),
        ("tsc && node --test dist/", "node --test"),
        ("vitest run", "vitest"),
        ("jest --ci", "jest"),
        ("mocha", None),
        ("node test.js", None),
        ("node --test 'unclosed", "node --test"),
    ],
)
def test_the_package_test_script_names_the_runner(script, runner) -> None:
    assert testrun.script_runner(script) == runner


def test_node_test_files_are_those_given_named_or_found(tmp_path) -> None:
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "a.js").write_text("")
    (tmp_path / "b.test.mjs").write_text("")
    (tmp_path / "test-c.cjs").write_text("")
    (tmp_path / "helper.js").write_text("")
    (tmp_path / "node_modules" / "x").mkdir(parents=True)
    (tmp_path / "node_modules" / "x" / "y.test.js").write_text("")
    found = testrun.node_test_files(str(tmp_path), "node --test", [])
    assert sorted(p.removeprefix(str(tmp_path) + "/") for p in found) == ["b.test.mjs", "test-c.cjs", "test/a.js"]
    named = testrun.node_test_files(str(tmp_path), "node --test test/", [])
    assert named == [str(tmp_path / "test" / "a.js")]
    given = testrun.node_test_files(str(tmp_path), "node --test", ["b.test.mjs"])
    assert given == [str(tmp_path / "b.test.mjs")]
    with pytest.raises(DebugError) as missing:
        testrun.node_test_files(str(tmp_path), "node --test", ["nope.test.js"])
    assert missing.value.code == ErrorCode.PATH_NOT_FOUND
    with pytest.raises(DebugError) as options:  # said, not taken for a file name
        testrun.node_test_files(str(tmp_path), "node --test", ["--test-name-pattern=add"])
    assert options.value.code == ErrorCode.INVALID_PARAMETERS and "--test-name-pattern" in options.value.message


@pytest.mark.parametrize(
    ("name", "text", "says"),
    [
        ("pyproject.toml", "[tool.pytest.ini_options]\naddopts = '-q'\n", "pyproject.toml [tool.pytest]"),
        ("setup.cfg", "[tool:pytest]\n", "setup.cfg [tool:pytest]"),
        ("tox.ini", "[pytest]\n", "tox.ini [pytest]"),
        ("pytest.ini", "[pytest]\n", "pytest.ini"),
        ("conftest.py", "", "conftest.py"),
        ("pyproject.toml", "[tool.ruff]\n", None),
        ("setup.cfg", "[metadata]\n", None),
    ],
)
def test_pytest_configuration_is_found_where_pytest_reads_it(tmp_path, name, text, says) -> None:
    (tmp_path / name).write_text(text)
    assert testrun.pytest_configured(str(tmp_path)) == says


@pytest.mark.asyncio
async def test_a_project_on_an_unsupported_runner_is_refused_with_what_works(tmp_path) -> None:
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"test": "vitest run"}}))
    with pytest.raises(DebugError) as refused:
        await testrun.project_tests(str(tmp_path), None, [])
    assert refused.value.code == ErrorCode.CAPABILITY_UNSUPPORTED
    assert "vitest" in refused.value.message and "node --test" in refused.value.hint


@pytest.mark.asyncio
async def test_a_python_project_gets_pytest_when_its_python_has_it(tmp_path) -> None:
    (tmp_path / "tests").mkdir()
    tests = await testrun.project_tests(str(tmp_path), sys.executable, ["-k", "x"])
    assert tests.runner == "pytest" and tests.spec.args == ["-k", "x"] and tests.spec.module
    assert tests.command() == f"{sys.executable} -m pytest -k x"


@pytest.mark.asyncio
async def test_a_folder_with_no_project_is_refused_rather_than_searched(tmp_path) -> None:
    (tmp_path / "notes.txt").write_text("")
    with pytest.raises(DebugError) as refused:
        await testrun.project_tests(str(tmp_path), None, [])
    assert refused.value.code == ErrorCode.INVALID_PARAMETERS and "no project or test files" in refused.value.message
    (tmp_path / "test_x.py").write_text("")
    assert testrun.is_project(str(tmp_path))


@pytest.mark.asyncio
async def test_a_missing_project_folder_is_path_not_found(tmp_path) -> None:
    with pytest.raises(DebugError) as missing:
        await testrun.project_tests(str(tmp_path / "nope"), None, [])
    assert missing.value.code == ErrorCode.PATH_NOT_FOUND


# ----- the stop report -------------------------------------------------------------------------------------------


def report(**extra) -> StopReport:
    return StopReport(session_id="S1", stop_number=1, reason="exception", location=Location(), **extra)


def test_a_test_failure_names_the_test_and_a_recursion_its_depth() -> None:
    test = FailedTest(runner="pytest", test="t.py::test_deep", depth=993, repeats=956)
    text = render.stop_report(report(exception=ExceptionInfo(type="RecursionError", message="too deep", test=test)))
    assert "Test failed: t.py::test_deep (pytest)" in text
    assert "Depth: 993 frames on the stack where it was raised, 956 of them calls of the function stopped in" in text
    plain = FailedTest(runner="pytest", test="t.py::test_x", phase="setup", depth=30, repeats=1)
    text = render.stop_report(report(exception=ExceptionInfo(type="ValueError", message="bad", test=plain)))
    assert "Test failed: t.py::test_x (pytest, in setup)" in text and "Depth" not in text
    headline = render.stop_headline(report(exception=ExceptionInfo(type="ValueError", test=plain)))
    assert headline.startswith("S1 paused: test t.py::test_x failed: ValueError")


@pytest_asyncio.fixture
async def hub():
    h = Hub()
    try:
        yield h
    finally:
        await asyncio.wait_for(h.shutdown(), 10)


class NoFrames(ScriptedBackend):
    """A target whose stopped thread shows no frame (debugpy's justMyCode hides every frame that is library code)."""

    def __init__(self, hides_library: bool) -> None:
        super().__init__()
        self.skipped_code_hint = "justMyCode steps over library code" if hides_library else None

    async def stack(self, thread_id: int, start: int = 0, levels: int = 20):
        await self._call("stack", thread_id, start, levels)
        return [], 0


@pytest.mark.asyncio
@pytest.mark.parametrize("hides_library", [True, False])
async def test_a_stop_without_frames_never_claims_the_program_did_not_run(hub, hides_library) -> None:
    session = await hub.open(NoFrames(hides_library), "app", None, actor="human")
    session.backend.stop("exception")
    reply = await build_registry(hub).run("wait_for_stop", {"session_id": session.id, "timeout_s": 5}, "human")
    stop = stop_of(reply)
    assert "before any of its code ran" not in reply.text
    if hides_library:
        assert "every frame on the stack is library code, which just_my_code hides" in reply.text
        assert "just_my_code=false" in stop["location_note"]
    else:
        assert "No source location: the target reported no frames for the stopped thread" in reply.text
