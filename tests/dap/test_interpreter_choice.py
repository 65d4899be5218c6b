"""First use (issue 21 §4): a program runs on the interpreter its user expects: the one named, else the active
virtualenv, else a .venv in its project, else python3 on PATH; the start says which and why, and a module the
program cannot import names the interpreter and how to pick another."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from pairdbg.backends.dap.python import choose_python


def fake_python(folder: Path) -> str:
    """An executable file where a venv keeps its interpreter (the choice only looks, it never runs it)."""
    path = folder / "bin" / "python"
    path.parent.mkdir(parents=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_the_named_interpreter_wins_then_the_active_venv_then_the_projects_then_path(tmp_path) -> None:
    project = tmp_path / "proj"
    (project / "src" / "pkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text("")
    program = str(project / "src" / "pkg" / "main.py")
    project_python = fake_python(project / ".venv")
    active_python = fake_python(tmp_path / "active")
    bin_dir = tmp_path / "path-bin"
    path_python = fake_python(bin_dir.parent / "path-root")
    (bin_dir).mkdir()
    os.symlink(path_python, bin_dir / "python3")
    env = {"PATH": str(bin_dir), "VIRTUAL_ENV": str(tmp_path / "active")}

    assert choose_python(sys.executable, program, env=env) == (sys.executable, "named")
    assert choose_python(None, program, env=env) == (active_python, "the active virtualenv ($VIRTUAL_ENV)")
    env.pop("VIRTUAL_ENV")
    assert choose_python(None, program, env=env) == (project_python, "the project's .venv")
    # A module runs from its cwd: the project is found from there.
    assert choose_python(None, "pkg.main", module=True, cwd=str(project / "src"), env=env)[0] == project_python
    # A .venv above the project's root is someone else's: not used.
    os.rename(project / ".venv", tmp_path / ".venv")
    assert choose_python(None, program, env=env) == (str(bin_dir / "python3"), "python3 on PATH")
    # An active virtualenv without an interpreter is passed over.
    env["VIRTUAL_ENV"] = str(tmp_path / "gone")
    assert choose_python(None, program, env=env)[1] == "python3 on PATH"


@pytest.mark.asyncio
async def test_an_active_venv_runs_the_program_and_a_missing_module_says_how_to_pick_another(
    registry, tmp_path, monkeypatch
) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    monkeypatch.setenv("VIRTUAL_ENV", str(venv))
    ok = tmp_path / "ok.py"
    ok.write_text("import sys\nprefix = sys.prefix\nprint(prefix)\n")
    reply = await registry.run("start_debugging", {"program": str(ok), "stop_on_entry": True}, "agent:test")
    python = str(venv / "bin" / "python")
    assert reply.data["interpreter"] == {"path": python, "chosen_by": "the active virtualenv ($VIRTUAL_ENV)"}
    assert f"on {python} (the active virtualenv ($VIRTUAL_ENV))" in reply.text.splitlines()[0]
    prefix = await registry.run(
        "evaluate_expression", {"session_id": reply.data["session_id"], "expression": "__import__('sys').prefix"}, "h"
    )
    assert str(venv) in prefix.data["value"]

    broken = tmp_path / "broken.py"
    broken.write_text("import no_such_module_for_pairdbg\n")
    reply = await registry.run("start_debugging", {"program": str(broken)}, "agent:test")
    assert reply.data["interpreter"]["missing_module"] == "no_such_module_for_pairdbg", reply.text
    assert f"The program ran on {python} (the active virtualenv ($VIRTUAL_ENV)), which has no module" in reply.text
    assert "executable_path" in reply.text and "--python" in reply.text
