"""Golden files pin the text people and agents read: stop reports, outcomes, breakpoint lines and error messages.

Paths, pids, thread ids, addresses and output cursors are normalised. To accept a deliberate change of format:
    PAIRDBG_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py
then review `git diff tests/golden/`.
"""

from __future__ import annotations

import os
import re

import pytest

from pairdbg.backends.errors import DebugError
from support import PROGRAMS, line_of, normalise, prog, start
from support import TESTS

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]

GOLDEN = TESTS / "golden"
UPDATE = os.environ.get("PAIRDBG_UPDATE_GOLDEN") == "1"
LOOP = "loop.py"


def check_golden(name: str, text: str) -> None:
    text = re.sub(r"cursor \d+", "cursor <n>", normalise(text)).rstrip() + "\n"
    path = GOLDEN / f"{name}.txt"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text)
        return
    assert path.exists(), f"no golden file {path}; run with PAIRDBG_UPDATE_GOLDEN=1 to create it"
    expected = path.read_text()
    assert text == expected, f"{name} differs from {path} (PAIRDBG_UPDATE_GOLDEN=1 rewrites it after review)"


async def error_text(registry, action: str, args: dict) -> str:
    try:
        reply = await registry.run(action, args, "agent:golden")
    except DebugError as exc:
        return f"## {action}\n{exc.text()}\n"
    raise AssertionError(f"{action} should have failed:\n{reply.text}")


async def test_golden_breakpoint_stop_and_end(registry):
    bound = line_of(LOOP, "return total") + 1  # a blank line: debugpy binds it to code
    path = prog(LOOP)
    sid, reply = await start(
        registry,
        LOOP,
        breakpoints=[
            {"file": path, "line": line_of(LOOP, "total = a + b"), "condition": "b == 0"},
            {"file": path, "line": bound, "hit_condition": ">100"},
            {"file": path, "line": line_of(LOOP, 'print("done"'), "log_message": "never {acc}", "condition": "acc < 0"},
        ],
    )
    # No output is written before the first stop: output and stop events travel different ways (the launcher's
    # pipe vs pydevd's socket), so which output reaches a stop report is a race the golden text must not pin.
    await registry.run("add_watch", {"session_id": sid, "expression": "a * b"}, "human")
    check_golden("stop_breakpoint", reply.text)
    listed = await registry.run("list_breakpoints", {"session_id": sid}, "human")
    check_golden("breakpoints", listed.text)
    step = await registry.run("step_over", {"session_id": sid}, "human")
    check_golden("stop_step_with_watch", step.text)
    end = await registry.run("continue_execution", {"session_id": sid}, "human")
    sessions = await registry.run("list_debug_sessions", {}, "human")
    check_golden("end_and_sessions", end.text + "\n---\n" + sessions.text)


async def test_golden_exception_stop(registry):
    sid, reply = await start(registry, "crash.py")
    check_golden("stop_exception", reply.text)


async def test_golden_error_messages(registry):
    path = prog(LOOP)
    sid, reply = await start(registry, LOOP, line_of(LOOP, 'print("done"'))
    old = {v["name"]: v.get("handle") for v in reply.data["stop"]["locals"]}["big_list"]
    await registry.run("step_over", {"session_id": sid}, "human")
    running, pending = await start(registry, "sleeper.py", wait_s=0)
    parts = [
        "## pending\n" + pending.text.split("\n", 1)[1] + "\n",
        await error_text(registry, "step_over", {"session_id": "S9"}),
        await error_text(registry, "step_over", {"session_id": running}),
        await error_text(registry, "get_variables", {"session_id": sid, "ref": old}),
        await error_text(registry, "get_variables", {"session_id": sid, "ref": "@v999"}),
        await error_text(registry, "evaluate_expression", {"session_id": sid, "expression": "nosuch"}),
        await error_text(registry, "remove_breakpoint", {"session_id": sid, "breakpoint_id": "BP7"}),
        await error_text(registry, "set_breakpoint", {"session_id": sid, "file": path, "line": 99}),
        await error_text(registry, "set_breakpoint", {"session_id": sid, "file": str(PROGRAMS / "nope.py"), "line": 1}),
        await error_text(registry, "start_debugging", {"program": str(PROGRAMS / "nope.py")}),
        await error_text(registry, "start_debugging", {"program": path, "executable_path": "/nonexistent/python"}),
        await error_text(registry, "step_over", {"session_id": sid, "wait_s": -1}),
        await error_text(registry, "attach", {"target": "127.0.0.1:1"}),
        await error_text(registry, "evaluate_expression", {"session_id": sid, "expression": "x" * 10_001}),
    ]
    await registry.run("continue_execution", {"session_id": sid}, "human")
    parts.append(await error_text(registry, "step_over", {"session_id": sid}))
    check_golden("errors", "\n".join(parts))


async def test_golden_test_failure_stop(registry):
    """debug_tests on a pytest suite: the stop at a failing assertion (the output tail left out: pytest's progress
    line and the stop reach pairdbg by different ways, so whether it is in the report is a race)."""
    suite = PROGRAMS / "pytest_suite"
    reply = await registry.run("debug_tests", {"cwd": str(suite), "args": ["-k", "test_discount_fails"]}, "human")
    check_golden("stop_test_failure", reply.text.split("\nOutput since last stop")[0])


async def test_golden_library_exception_stop(registry):
    """An exception raised inside pinned PyYAML stops at the caller's line; the report shows the raise site's source
    and locals, marked as library code just_my_code hides, with its frame's handle."""
    from support.library_venv import library_python

    sid, reply = await start(registry, "bad_settings.py", executable_path=library_python())
    check_golden("stop_library_exception", reply.text)
