"""Agent modes bound reads too (issue 20): in `inspect` and `control`, get_source_context reads only files of an
open session (its program's project, files its stack shows, sources the debuggee loaded); people and `full` mode
read anything. list_launch_configs never shows an agent pairdbg's own environment."""

from __future__ import annotations

import json
import os

import pytest
from support import expect_error

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]

AGENT = "agent:test"

APP = """import sys
sys.path.insert(0, sys.argv[1])
import helper

helper.work()
"""
HELPER = """def work():
    value = 41
    return value + 1
"""


@pytest.fixture
def layout(tmp_path):
    """proj/ (a project: pyproject.toml) runs app.py, which imports lib/helper.py from outside the project."""
    proj, lib = tmp_path / "proj", tmp_path / "lib"
    proj.mkdir()
    lib.mkdir()
    (proj / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (proj / "app.py").write_text(APP)
    (proj / "sibling.py").write_text("SIBLING = 1\n")
    (lib / "helper.py").write_text(HELPER)
    (lib / "unloaded.py").write_text("NOT_LOADED = 1\n")
    secret = tmp_path / "secret.txt"
    secret.write_text("private\n")
    secret.chmod(0o600)
    return tmp_path


async def paused_in_helper(registry, layout) -> str:
    helper = str(layout / "lib" / "helper.py")
    reply = await registry.run(
        "start_debugging",
        {
            "program": str(layout / "proj" / "app.py"),
            "args": [str(layout / "lib")],
            "breakpoints": [{"file": helper, "line": 3}],
            "wait_s": 15,
        },
        "human",
    )
    assert reply.data.get("state") == "paused", reply.text
    return reply.data["session_id"]


async def refused(registry, args: dict) -> str:
    err = await expect_error(registry, "get_source_context", args, "PERMISSION_DENIED")
    assert "agent mode" in err.message and "session" in err.message, err.message
    assert "full" in (err.hint or ""), err.hint
    return err.message


@pytest.mark.parametrize("mode", ["inspect", "control"])
async def test_agents_read_only_files_of_an_open_session(registry, layout, mode) -> None:
    await registry.run("set_agent_mode", {"mode": mode}, "human")
    await refused(registry, {"file": "/etc/passwd"})  # no session at all
    sid = await paused_in_helper(registry, layout)
    outside = [
        {"file": "/etc/passwd"},
        {"session_id": sid, "file": "/etc/passwd"},
        {"session_id": sid, "file": "../" * 12 + "etc/passwd"},
        {"session_id": sid, "file": str(layout / "secret.txt")},
        {"session_id": sid, "file": str(layout / "lib" / "unloaded.py")},
        {"session_id": sid, "file": str(layout / "proj" / ".." / "secret.txt")},
    ]
    for args in outside:
        message = await refused(registry, {**args, "line": 1})
        assert "root:" not in message and "private" not in message
    link = layout / "proj" / "link.txt"
    link.symlink_to(layout / "secret.txt")
    await refused(registry, {"session_id": sid, "file": str(link), "line": 1})

    inside = {
        str(layout / "proj" / "app.py"): "import sys",  # the program
        str(layout / "proj" / "sibling.py"): "SIBLING",  # its project
        str(layout / "lib" / "helper.py"): "def work",  # a file its stack shows
    }
    for file, text in inside.items():
        reply = await registry.run("get_source_context", {"file": file, "line": 1}, AGENT)
        assert text in reply.text, reply.text
    here = await registry.run("get_source_context", {"session_id": sid}, AGENT)
    assert "return value + 1" in here.text

    await registry.run("close_debug_session", {"session_id": sid}, "human")
    await refused(registry, {"file": str(layout / "proj" / "app.py"), "line": 1})  # its session is gone


async def test_people_and_full_mode_read_any_file(registry, layout) -> None:
    await registry.run("set_agent_mode", {"mode": "inspect"}, "human")
    person = await registry.run("get_source_context", {"file": "/etc/passwd", "line": 1}, "human")
    assert "root" in person.text
    await registry.run("set_agent_mode", {"mode": "full"}, "human")
    agent = await registry.run("get_source_context", {"file": str(layout / "secret.txt"), "line": 1}, AGENT)
    assert "private" in agent.text


async def test_launch_configs_show_agents_no_environment_value(registry, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PAIRDBG_TEST_SECRET_VALUE", "s3cr3t-from-pairdbgs-env")
    (tmp_path / ".vscode").mkdir()
    config = {
        "name": "Run",
        "type": "debugpy",
        "request": "launch",
        "program": "${workspaceFolder}/app.py",
        "args": ["--key=${env:PAIRDBG_TEST_SECRET_VALUE}"],
        "env": {"TOKEN_FROM": "${env:PAIRDBG_TEST_SECRET_VALUE}"},
    }
    (tmp_path / ".vscode" / "launch.json").write_text(json.dumps({"configurations": [config]}))
    for mode in ("inspect", "full"):
        await registry.run("set_agent_mode", {"mode": mode}, "human")
        listed = await registry.run("list_launch_configs", {"workspace": str(tmp_path)}, AGENT)
        shown = json.dumps(listed.data) + listed.text
        assert "s3cr3t" not in shown and "${env:PAIRDBG_TEST_SECRET_VALUE}" in shown, shown
        assert str(tmp_path) in shown  # the workspace variable still expands
    person = await registry.run("list_launch_configs", {"workspace": str(tmp_path)}, "human")
    assert "s3cr3t-from-pairdbgs-env" in json.dumps(person.data)
    assert os.environ["PAIRDBG_TEST_SECRET_VALUE"]


async def test_control_mode_breaks_only_in_files_it_may_read(registry, layout) -> None:
    """A breakpoint reads its file (the line is checked, its text shown): the same bound, or a control-mode agent
    would read any file's lines one breakpoint at a time."""
    sid = await paused_in_helper(registry, layout)
    await registry.run("set_agent_mode", {"mode": "control"}, "human")
    for file in ("/etc/passwd", str(layout / "secret.txt")):
        err = await expect_error(
            registry, "set_breakpoint", {"session_id": sid, "file": file, "line": 1}, "PERMISSION_DENIED"
        )
        assert "root:" not in err.text() and "private" not in err.text()
    made = await registry.run(
        "set_breakpoint", {"session_id": sid, "file": str(layout / "proj" / "app.py"), "line": 5}, AGENT
    )
    assert made.data["file"].endswith("app.py")
