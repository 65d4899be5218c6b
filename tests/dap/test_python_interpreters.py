"""The program runs on the interpreter the user names, which needs no debugpy; a wrong one fails fast."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from pairdbg.backends.errors import DebugError, ErrorCode
from support.mcp import DEMO, DEMO_BP_LINE


@pytest.mark.asyncio
async def test_program_runs_on_a_bare_venv_without_debugpy(registry, tmp_path) -> None:
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    probe = subprocess.run([python, "-c", "import debugpy"], capture_output=True)
    assert probe.returncode != 0, "the bare venv unexpectedly has debugpy"
    reply = await registry.run(
        "start_debugging",
        {"program": DEMO, "executable_path": python, "breakpoints": [{"file": DEMO, "line": DEMO_BP_LINE}]},
        "agent:test",
    )
    assert reply.data["state"] == "paused"
    prefix = await registry.run(
        "evaluate_expression", {"session_id": "S1", "expression": "__import__('sys').prefix"}, "agent:test"
    )
    assert str(venv) in prefix.data["value"]


@pytest.mark.asyncio
async def test_not_a_python_fails_fast_with_a_hint(registry) -> None:
    started = time.monotonic()
    with pytest.raises(DebugError) as err:
        await registry.run("start_debugging", {"program": DEMO, "executable_path": "/bin/true"}, "agent:test")
    assert err.value.code == ErrorCode.INVALID_PARAMETERS
    assert "not a CPython 3.8+ interpreter" in err.value.message and "executable_path" in err.value.hint
    assert time.monotonic() - started < 5
    assert registry.hub.sessions == {}


@pytest.mark.asyncio
async def test_the_program_sees_a_clean_sys_path(registry, tmp_path) -> None:
    """Neither debugpy's folder nor pairdbg's boot folder may shadow the program's own imports, and none of the
    variables the boot scripts pass each other reaches its environment."""
    program = tmp_path / "paths.py"
    program.write_text(
        "import os, sys, importlib.util\n"
        "print([k for k in ('PAIRDBG_DEBUGPY_ROOT', 'PAIRDBG_TEST_HOOK') if k in os.environ])\n"
        "print(sys.path[:3])\nprint(importlib.util.find_spec('common'))\n"
    )
    reply = await registry.run("start_debugging", {"program": str(program), "wait_s": 10}, "agent:test")
    assert reply.data["state"] == "terminated", reply.text
    printed = "\n".join(reply.data["output_tail"])
    assert printed.startswith(f"[]\n['{tmp_path}'"), printed  # (no pairdbg variable reaches the program)
    assert "debugpy" not in printed and "backends" not in printed
    assert printed.endswith("None")


def test_a_relative_interpreter_path_is_the_callers_folders_made_whole(tmp_path, monkeypatch):
    """`--python .venv/bin/python` names the interpreter in the folder it was typed in; the launch (and a spare
    started for it, whose command line must match) runs it by its whole path."""
    from pairdbg.backends.dap.python import resolve_python

    monkeypatch.chdir(tmp_path)
    relative = os.path.relpath(sys.executable)
    assert resolve_python(relative) == os.path.abspath(sys.executable)
