"""Python on real programs, driven the way an agent drives pairdbg: a real MCP client over `pairdbg --mcp` (stdio).

The programs: a script using tabulate, a pinned pure-Python package from PyPI installed into a venv of its own by the
fixture below (under build/, cached; under CI=true a failed install fails the tests), a threads program, an asyncio
program and a multiprocessing job. Each test asserts one point of issue 12 end to end.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client
from support import ROOT, line_of, missing_target, prog
from support.core import marked_processes, wait_gone
from support.mcp import stdio_params, text

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]

PACKAGE, VERSION = "tabulate", "0.10.0"
VENV = ROOT / "build" / f"venv-{PACKAGE}-{VERSION}"


def venv_python() -> Path:
    return VENV / "bin" / "python"


@pytest.fixture(scope="session")
def real_venv() -> Path:
    """A venv with tabulate==0.10.0 from PyPI, made once and reused while it still imports that version."""
    check = [str(venv_python()), "-c", f"import {PACKAGE}; assert {PACKAGE}.__version__ == {VERSION!r}"]
    if venv_python().exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return VENV
    try:
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)], check=True, capture_output=True)
        subprocess.run(
            [str(venv_python()), "-m", "pip", "install", "-q", f"{PACKAGE}=={VERSION}"],
            check=True,
            capture_output=True,
            timeout=300,
        )
        subprocess.run(check, check=True, capture_output=True)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        message = f"could not install {PACKAGE}=={VERSION} into {VENV}: {exc} {detail.decode(errors='replace')[-500:]}"
        missing_target(message)
    return VENV


def package_file(venv: Path) -> str:
    found = subprocess.run(
        [str(venv / "bin" / "python"), "-c", f"import {PACKAGE}; print({PACKAGE}.__file__)"],
        check=True,
        capture_output=True,
        text=True,
    )
    return found.stdout.strip()


def first_statement(file: str, function: str) -> int:
    """The line of the first statement after the docstring in `function` of `file`."""
    tree = ast.parse(Path(file).read_text())
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function)
    body = (
        node.body[1:]
        if isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
        else node.body
    )
    return body[0].lineno


async def call(client: Client, tool: str, **args) -> dict:
    result = await client.call_tool(tool, args)
    assert not result.is_error, f"{tool}: {text(result)}"
    return {**(result.structured_content or {}), "_text": text(result)}


def stop(reply: dict) -> dict:
    assert reply.get("state") == "paused", reply["_text"]
    return reply["stop"]


REPORT = prog("table_report.py")
CALL = line_of("table_report.py", "# call tabulate")


async def test_a_breakpoint_in_an_installed_package_binds_and_hits(real_venv) -> None:
    library = package_file(real_venv)
    line = first_statement(library, "tabulate")
    async with Client(stdio_params(), mode="legacy", cache=None) as client:
        started = await call(
            client,
            "start_debugging",
            program=REPORT,
            executable_path=str(venv_python()),
            breakpoints=[{"file": library, "line": line}],
        )
        where = stop(started)["location"]
        assert where["file"] == library and where["line"] == line and where["function"] == "tabulate", started["_text"]
        listed = await call(client, "list_breakpoints", session_id="S1")
        assert listed["breakpoints"][0]["verified"] is True, listed["_text"]
        value = await call(client, "evaluate_expression", session_id="S1", expression="len(tabular_data)")
        assert value["value"] == "2"
        ended = await call(client, "continue_execution", session_id="S1", wait_s=20)
        assert ended["state"] == "terminated" and "apples" in ended["_text"], ended["_text"]


async def test_step_into_the_package_with_just_my_code_off(real_venv) -> None:
    library = package_file(real_venv)
    async with Client(stdio_params(), mode="legacy", cache=None) as client:
        started = await call(
            client,
            "start_debugging",
            program=REPORT,
            executable_path=str(venv_python()),
            just_my_code=False,
            breakpoints=[{"file": REPORT, "line": CALL}],
        )
        assert stop(started)["location"]["line"] == CALL
        stepped = await call(client, "step_into", session_id="S1")
        where = stop(stepped)["location"]
        assert where["file"] == library and where["function"] == "tabulate", stepped["_text"]
        # With justMyCode on (the default) the same step stays in the program and says how to go in.
        await call(client, "close_debug_session", session_id="S1")
        again = await call(
            client,
            "start_debugging",
            program=REPORT,
            executable_path=str(venv_python()),
            breakpoints=[{"file": REPORT, "line": CALL}],
        )
        stepped = await call(client, "step_into", session_id=again["session_id"])
        assert stop(stepped)["location"]["file"] == REPORT and "just_my_code=false" in stepped["_text"]


async def test_another_threads_frames_are_usable() -> None:
    program = prog("threads_busy.py")
    async with Client(stdio_params(), mode="legacy", cache=None) as client:
        started = await call(
            client,
            "start_debugging",
            program=program,
            breakpoints=[{"file": program, "line": line_of("threads_busy.py", "# breakpoint here")}],
        )
        stop(started)
        threads = await call(client, "list_threads", session_id="S1")
        spinner = {t["name"]: t["id"] for t in threads["threads"]}["spinner"]
        stack = await call(client, "get_call_stack", session_id="S1", thread_id=spinner)
        top = stack["frames"][0]
        assert top["function"] == "spin" and top["handle"].startswith("@f"), stack["_text"]
        local = await call(client, "get_local_variables", session_id="S1", frame=top["handle"])
        assert "turns" in {v["name"] for v in local["variables"]}
        value = await call(client, "evaluate_expression", session_id="S1", expression="turns > 0", frame=top["handle"])
        assert value["value"] == "True"


async def test_asyncio_tasks_are_listed_with_where_they_wait() -> None:
    program = prog("tasks.py")
    async with Client(stdio_params(), mode="legacy", cache=None) as client:
        started = await call(
            client,
            "start_debugging",
            program=program,
            breakpoints=[{"file": program, "line": line_of("tasks.py", "# stop here")}],
        )
        stop(started)
        reply = await call(client, "list_async_tasks", session_id="S1")
        tasks = {t["name"]: t for t in reply["tasks"]}
        waits = {
            name: [(c["function"], c["line"]) for c in tasks[name]["chain"] if c["file"] == program]
            for name in ("fetcher", "waiter")
        }
        assert waits == {
            "fetcher": [("fetch", line_of("tasks.py", "# fetcher waits here"))],
            "waiter": [("wait_for", line_of("tasks.py", "# waiter waits here"))],
        }, reply["_text"]


async def test_a_multiprocessing_worker_stops_at_a_breakpoint() -> None:
    program = prog("pool_job.py")
    before = {pid for pid, _ in marked_processes()}
    async with Client(stdio_params(), mode="legacy", cache=None) as client:
        started = await call(
            client,
            "start_debugging",
            program=program,
            args=["spawn"],
            breakpoints=[{"file": program, "line": line_of("pool_job.py", "# worker line")}],
            wait_s=30,
        )
        assert started["state"] == "running" and "child session" in started["_text"], started["_text"]
        sessions = await call(client, "list_debug_sessions")
        child = next(s for s in sessions["sessions"] if s.get("parent_id") == "S1" and s["phase"] == "paused")
        waited = await call(client, "wait_for_stop", session_id=child["session_id"], timeout_s=5)
        where = stop(waited)
        assert where["location"]["function"] == "square" and where["hit_breakpoints"] == ["BP1"], waited["_text"]
        assert "child of S1" in waited["_text"]
        square = await call(client, "evaluate_expression", session_id=child["session_id"], expression="n * n")
        assert square["value"].isdigit()
        await call(client, "close_debug_session", session_id="S1")
        closed = await call(client, "list_debug_sessions")
        assert all(s["phase"] == "terminated" for s in closed["sessions"]), closed["_text"]
    left = wait_gone(lambda: [p for p, _ in marked_processes() if p not in before], 10)
    assert not left, f"processes left behind: {left}"
