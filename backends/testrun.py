"""Test runs: which test runner a launched program is, and which runner a project's tests use.

A test runner catches the exception that fails a test, so "pause on uncaught exceptions" never sees it. When the
program is a runner pairdbg knows, its launch adds that runner's failure hook, and the program stops where a test
fails, once per failure, never at an exception a test expects: pytest and unittest through dap/testhook.py (the
runner's own failure hook, then a post-mortem stop in the deepest frame of the user's code), `node --test` through
inspector/testhook.cjs (each test runs where V8 sees its exception as uncaught, so it pauses where it is thrown).
`project_tests` picks what `debug_tests` (and `pairdbg test`) start for a project folder.
"""

from __future__ import annotations

import configparser
import glob
import importlib.util
import json
import os
import re
import shlex
import sys
import tomllib
from dataclasses import dataclass, field

from .errors import DebugError, ErrorCode
from .process import run_briefly
from .factory import LaunchSpec, language_of

PYTHON_RUNNERS = ("pytest", "unittest")
PYTEST_SCRIPTS = ("pytest", "py.test")
NODE_TEST = "node --test"
#: What each runner's stops are, said when a run starts.
STOPS_AT = "stops where a test fails (once per failure, with the test's name); not at exceptions a test expects"
#: JavaScript runners pairdbg recognises but does not stop at the failures of, and why.
UNSUPPORTED = {
    "vitest": "vitest runs tests in worker threads, which pairdbg does not debug",
    "jest": "jest runs tests in worker processes and its own module sandbox, which pairdbg does not debug",
}
NODE_TEST_IMPORT = re.compile(r"""(?:\bfrom\s*|\brequire\s*\(\s*|\bimport\s*\(\s*)(['"])node:test\1""")
JS_RUNNER_PATH = re.compile(r"(?:^|/)(?:node_modules/(?:\.bin/)?)?(vitest|jest)(?:/bin/\w+|\.m?js|-cli/bin/jest\.js)?$")
READ_LIMIT = 256 * 1024  # bytes of a JavaScript program read to see whether it imports node:test


def python_runner(program: str, module: bool) -> str | None:
    """"pytest" or "unittest" when a Python program (a module name, or a script path) is that runner, else None."""
    if module:
        name = program.strip()
        return name if name in PYTHON_RUNNERS else None
    return "pytest" if os.path.basename(program) in PYTEST_SCRIPTS else None


def imports_node_test(path: str) -> bool:
    """Whether a JavaScript file uses Node's test runner (`node:test`)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return bool(NODE_TEST_IMPORT.search(fh.read(READ_LIMIT)))
    except OSError:
        return False


def js_runner(path: str) -> str | None:
    """"vitest" or "jest" when a JavaScript program is one of those runners' command-line scripts."""
    found = JS_RUNNER_PATH.search(os.path.realpath(path).replace(os.sep, "/"))
    return found.group(1) if found else None


def recognise(spec: LaunchSpec) -> str | None:
    """Mark `spec` as a test run when its program is a runner pairdbg stops at the failures of; return what to tell
    the caller about it (what stops, or why failures of this runner do not stop), None for any other program."""
    language = spec.language or language_of(spec.program)
    if language == "python":
        spec.test_runner = python_runner(spec.program, spec.module)
        return f"Test run ({spec.test_runner}): {STOPS_AT}." if spec.test_runner else None
    if language != "javascript" or not os.path.isfile(spec.program):
        return None
    other = js_runner(spec.program)
    if other is not None:
        return (
            f"Test run ({other}): failing tests do not stop ({UNSUPPORTED[other]}); breakpoints in code the "
            "runner's main process runs still hit. pairdbg stops at failures of node --test, pytest and unittest."
        )
    if not imports_node_test(spec.program) and spec.test_runner != NODE_TEST:
        return None
    if spec.backend == "dap" or (spec.runtime or "node") != "node":
        where = "js-debug" if spec.backend == "dap" else spec.runtime
        return f"Test run (node:test): failing tests stop on Node's inspector backend only, not on {where}."
    spec.test_runner = NODE_TEST
    return f"Test run ({NODE_TEST}, in one process): {STOPS_AT}."


# ----- the project's runner (debug_tests) ------------------------------------------------------------------------


@dataclass
class ProjectTests:
    """What `debug_tests` starts for a project, as start_debugging's launch, and why that runner."""

    runner: str
    spec: LaunchSpec
    why: str
    files: list[str] = field(default_factory=list)  # node --test: every test file run

    def command(self) -> str:
        """The run as a person would type it."""
        if self.runner == NODE_TEST:
            return " ".join([NODE_TEST, *(shlex.quote(os.path.relpath(f, self.spec.cwd)) for f in self.files)])
        python = self.spec.executable_path or "python"
        return " ".join([python, "-m", self.spec.program, *map(shlex.quote, self.spec.args)])


PYTEST_INI = ("pytest.ini", ".pytest.ini")


def pytest_configured(folder: str) -> str | None:
    """Which file of `folder` configures pytest (or is its conftest.py), None if none does."""
    for name in PYTEST_INI:
        if os.path.isfile(os.path.join(folder, name)):
            return name
    pyproject = os.path.join(folder, "pyproject.toml")
    if os.path.isfile(pyproject):
        try:
            with open(pyproject, "rb") as fh:
                if "pytest" in tomllib.load(fh).get("tool", {}):
                    return "pyproject.toml [tool.pytest]"
        except (OSError, tomllib.TOMLDecodeError):
            pass
    for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            parser = configparser.ConfigParser(interpolation=None)
            try:
                parser.read(path, encoding="utf-8")
            except configparser.Error:
                continue
            if parser.has_section(section):
                return f"{name} [{section}]"
    if os.path.isfile(os.path.join(folder, "conftest.py")):
        return "conftest.py"
    return None


def project_python(folder: str, given: str | None) -> str | None:
    """The interpreter the project's tests run on: the one given, else the project's own virtual environment
    (.venv or venv), else None (pairdbg's)."""
    if given:
        return given
    for name in (".venv", "venv"):
        python = os.path.join(folder, name, "bin", "python")
        if os.access(python, os.X_OK):
            return python
    return None


async def has_module(python: str, name: str) -> bool:
    """Whether `python` (the interpreter the tests run on) can import `name`: asked in a process of its own, unless it
    is pairdbg's own interpreter (the same answer, without starting Python again)."""
    if os.path.abspath(python) == sys.executable:  # (not realpath: a venv's python links to the base one)
        return importlib.util.find_spec(name) is not None
    probe = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({name!r}) is None)"
    try:
        code, _, _ = await run_briefly([python, "-c", probe], 15)
    except (OSError, TimeoutError):
        return False
    return code == 0


PROJECT_FILES = (
    "pyproject.toml", "setup.py", "setup.cfg", "tox.ini", *PYTEST_INI, "conftest.py", "package.json",
)  # fmt: skip
TEST_FILE = re.compile(r"^(test.*\.py|.*_test\.py|.*[._-]test\.[cm]?js|test-.*\.[cm]?js)$")


def is_project(folder: str) -> bool:
    """Whether `folder` is a project's (a file that configures one, a tests/ folder, or test files in it)."""
    if any(os.path.isfile(os.path.join(folder, name)) for name in PROJECT_FILES):
        return True
    if any(os.path.isdir(os.path.join(folder, name)) for name in ("tests", "test")):
        return True
    try:
        return any(TEST_FILE.match(name) for name in os.listdir(folder))
    except OSError:
        return False


def package_test_script(folder: str) -> str | None:
    """The `test` script of `folder`'s package.json, if it has one."""
    path = os.path.join(folder, "package.json")
    try:
        with open(path, encoding="utf-8") as fh:
            script = (json.load(fh).get("scripts") or {}).get("test")
    except (OSError, ValueError, AttributeError):
        return None
    return script if isinstance(script, str) else None


def split_words(command: str) -> list[str]:
    """A shell command's words (a quote left open: split on spaces, as a person would read it)."""
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def script_runner(script: str) -> str | None:
    """The runner a package.json test script runs: node --test, vitest, jest, or None."""
    for part in re.split(r"&&|\|\||;", script):
        words = split_words(part)
        words = [w for w in words if "=" not in w or w.startswith("-")]  # drop `NODE_ENV=test`-style settings
        if words and os.path.basename(words[0]) == "node" and "--test" in words:
            return NODE_TEST
        if words and os.path.basename(words[0]) in UNSUPPORTED:
            return os.path.basename(words[0])
    return None


#: Files `node --test` runs when it is given none (Node 20's patterns: *.test.js, *-test.js, *_test.js, test-*.js,
#: test.js and anything under a test/ folder; .cjs and .mjs too).
NODE_TEST_FILE = re.compile(r"(^|/)((.+[._-])?test|test-.+)\.[cm]?js$|(^|/)test/.+\.[cm]?js$")


def node_test_files(folder: str, script: str, args: list[str]) -> list[str]:
    """The test files of a `node --test` run: those given, else those the script names, else Node's default
    search under `folder` (node_modules left out)."""
    options = [a for a in args if a.startswith("-")]
    if options:
        raise DebugError(
            ErrorCode.INVALID_PARAMETERS,
            f"Node options for a node --test run are not passed on yet: {' '.join(options)[:200]}",
            hint="name the test files to run as args (pairdbg runs them with node:test in one process)",
        )
    named = list(args)
    if not named:
        for part in re.split(r"&&|\|\||;", script):
            words = split_words(part)
            if words and os.path.basename(words[0]) == "node" and "--test" in words:
                named = [w for w in words[1:] if not w.startswith("-")]
    files: list[str] = []
    for name in named:
        path = os.path.join(folder, name)
        matches = sorted(glob.glob(path, recursive=True)) if glob.has_magic(name) else [path]
        for match in matches:
            if os.path.isdir(match):
                files += search_tests(folder, match)
            elif os.path.isfile(match):
                files.append(os.path.abspath(match))
            else:
                raise DebugError(ErrorCode.PATH_NOT_FOUND, f"test file not found: {name}")
    return files if named else search_tests(folder, folder)


def search_tests(folder: str, under: str) -> list[str]:
    """The files under `under` that `node --test` runs (matched by their path from the project `folder`)."""
    found = []
    for root, dirs, names in os.walk(under):
        dirs[:] = sorted(d for d in dirs if d != "node_modules" and not d.startswith("."))
        for name in sorted(names):
            rel = os.path.relpath(os.path.join(root, name), folder).replace(os.sep, "/")
            if NODE_TEST_FILE.search(rel):
                found.append(os.path.join(root, name))
    return found


def runs_python_tests(folder: str) -> bool:
    """Whether `debug_tests` in `folder` runs Python tests (pytest or unittest): no package.json test script names a
    JavaScript runner. Said from files alone, before the run is worked out (a front end starts debugpy's adapter)."""
    script = package_test_script(folder)
    return script is None or script_runner(script) is None


async def project_tests(folder: str, python: str | None, args: list[str]) -> ProjectTests:
    """The test run of the project in `folder`: a package.json test script running `node --test` (JavaScript); else
    pytest when it is installed for the project's Python, else unittest. `args` go to the runner."""
    if not os.path.isdir(folder):
        raise DebugError(ErrorCode.PATH_NOT_FOUND, f"project folder not found: {folder}")
    if not is_project(folder):  # a runner would search it all (`/`, a home folder) for tests
        raise DebugError(
            ErrorCode.INVALID_PARAMETERS,
            f"{folder} holds no project or test files (pyproject.toml, pytest.ini, setup.cfg, package.json, tests/, "
            "test_*.py, ...)",
            hint="pass cwd as the project's folder",
        )
    script = package_test_script(folder)
    runner = script_runner(script) if script else None  # (None: Python's tests, as runs_python_tests says)
    if runner == NODE_TEST:
        assert script is not None
        files = node_test_files(folder, script, args)
        if not files:
            raise DebugError(
                ErrorCode.PATH_NOT_FOUND,
                f"package.json's test script {script!r} finds no test files in {folder}",
                hint="pass the test files as args",
            )
        spec = LaunchSpec(program=files[0], language="javascript", cwd=folder, test_runner=NODE_TEST)
        spec.test_files = files[1:]
        return ProjectTests(NODE_TEST, spec, f"package.json test script: {script}", files)
    if runner in UNSUPPORTED:
        raise DebugError(
            ErrorCode.CAPABILITY_UNSUPPORTED,
            f"the project's tests run on {runner} (package.json: {script!r}): {UNSUPPORTED[runner]}",
            hint="debug_tests runs node --test, pytest and unittest; for this project set breakpoints and "
            "start_debugging a test file that uses node:test, or use the runner's own debugging",
        )
    interpreter = project_python(folder, python)
    shown = interpreter or "pairdbg's python"
    configured = pytest_configured(folder)
    from .dap.python import resolve_python  # (dap is imported only for Python projects)

    if await has_module(resolve_python(interpreter), "pytest"):
        why = f"pytest is installed for {shown}" + (f" and configured ({configured})" if configured else "")
        spec = LaunchSpec(
            program="pytest", module=True, args=list(args), cwd=folder, executable_path=interpreter,
            test_runner="pytest",
        )  # fmt: skip
        return ProjectTests("pytest", spec, why)
    if configured:
        raise DebugError(
            ErrorCode.INVALID_PARAMETERS,
            f"the project configures pytest ({configured}), but pytest is not installed for {shown}",
            hint="install pytest into the project's python, or pass executable_path (pairdbg test --python) as the "
            "python that has it",
        )
    spec = LaunchSpec(
        program="unittest", module=True, args=list(args), cwd=folder, executable_path=interpreter,
        test_runner="unittest",
    )  # fmt: skip
    return ProjectTests("unittest", spec, f"pytest is not installed for {shown}: unittest")
