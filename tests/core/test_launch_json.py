"""Starting from an existing .vscode/launch.json, as users already have them."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pairdbg.backends import launch_json
from pairdbg.backends.errors import DebugError, ErrorCode
from support.mcp import ROOT

LAUNCH = """{
  // a comment, and a trailing comma below: VS Code accepts both
  "version": "0.2.0",
  "configurations": [
    {
      "name": "Run app",
      "type": "debugpy",
      "request": "launch",
      "program": "${workspaceFolder}/app.py",
      "args": ["--n", "3"],
      "env": {"GREETING": "hi ${env:PAIRDBG_TEST_WORD}"},
      "stopOnEntry": true, /* inline block comment */
    },
    {"name": "Node app", "type": "pwa-node", "request": "launch", "program": "${workspaceFolder}/app.js"},
    {"name": "Attach", "type": "python", "request": "attach", "connect": {"host": "127.0.0.1", "port": 5678}},
    {"name": "Chrome", "type": "chrome", "request": "launch", "url": "http://localhost:3000"},
  ],
}
"""


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    monkeypatch.setenv("PAIRDBG_TEST_WORD", "there")
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "launch.json").write_text(LAUNCH)
    (tmp_path / "app.py").write_text("import os, sys\nprint(os.environ['GREETING'], sys.argv[1:])\n")
    (tmp_path / "app.js").write_text("const x = 41;\nconsole.log(x + 1);\n")
    return tmp_path


def test_configurations_parse_with_comments_variables_and_trailing_commas(workspace) -> None:
    action, args = launch_json.to_action(launch_json.find(str(workspace), "Run app"), str(workspace))
    assert action == "start_debugging"
    assert args["program"] == f"{workspace}/app.py" and args["args"] == ["--n", "3"]
    assert args["env"] == {"GREETING": "hi there"} and args["stop_on_entry"] is True
    assert launch_json.to_action(launch_json.find(str(workspace), "Attach"), str(workspace)) == (
        "attach", {"target": "127.0.0.1:5678", "language": "python"})
    with pytest.raises(DebugError) as err:
        launch_json.to_action(launch_json.find(str(workspace), "Chrome"), str(workspace))
    assert err.value.code == ErrorCode.CAPABILITY_UNSUPPORTED and "supported types" in err.value.hint


def test_malformed_and_missing_files_say_where(tmp_path) -> None:
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "launch.json").write_text('{\n  "configurations": [\n    {"name": "x",}\n    oops\n]}')
    with pytest.raises(DebugError) as err:
        launch_json.load_configurations(str(tmp_path))
    assert err.value.code == ErrorCode.INVALID_PARAMETERS and "line 4" in err.value.message
    with pytest.raises(DebugError) as err:
        launch_json.load_configurations(str(tmp_path / "nowhere"))
    assert err.value.code == ErrorCode.PATH_NOT_FOUND
    with pytest.raises(DebugError) as err:
        launch_json.find(str(tmp_path.parent), "x")
    assert err.value.code == ErrorCode.PATH_NOT_FOUND


@pytest.mark.asyncio
async def test_start_from_launch_config_runs_python_and_node(registry, workspace) -> None:
    listed = await registry.run("list_launch_configs", {"workspace": str(workspace)}, "agent:test")
    assert [c["name"] for c in listed.data["configurations"]] == ["Run app", "Node app", "Attach", "Chrome"]
    assert "unsupported" in listed.data["configurations"][3]
    py = await registry.run("start_from_launch_config", {"name": "Run app", "workspace": str(workspace)}, "agent:test")
    assert py.data["state"] == "paused" and py.data["stop"]["reason"] == "entry"
    done = await registry.run("continue_execution", {"session_id": py.data["session_id"]}, "agent:test")
    assert done.data["state"] == "terminated" and "hi there ['--n', '3']" in "\n".join(done.data["output_tail"])
    js = await registry.run("start_from_launch_config",
                            {"name": "Node app", "workspace": str(workspace), "wait_s": 10}, "agent:test")
    assert js.data["state"] == "terminated" and "42" in "\n".join(js.data["output_tail"])


def test_cli_refuses_an_unknown_configuration(workspace) -> None:
    result = subprocess.run([sys.executable, "-m", "pairdbg", "--config", "Nope", "--workspace", str(workspace)],
                            cwd=ROOT, capture_output=True, text=True, timeout=60,
                            env={**os.environ, "XDG_RUNTIME_DIR": str(workspace)})
    assert result.returncode == 2 and "no launch configuration named 'Nope'" in result.stderr
    assert "'Run app'" in result.stderr


@pytest.mark.asyncio
async def test_restart_keeps_breakpoints_watches_and_exception_mode(registry, workspace) -> None:
    program = str(workspace / "count.py")
    (workspace / "count.py").write_text("total = 0\nfor i in range(3):\n    total += i\nprint(total)\n")
    first = await registry.run("start_debugging", {"program": program, "breakpoints": [{"file": program, "line": 3}]},
                               "agent:test")
    await registry.run("add_watch", {"session_id": "S1", "expression": "total * 10"}, "agent:test")
    await registry.run("set_pause_on_exceptions", {"session_id": "S1", "mode": "all"}, "agent:test")
    assert first.data["stop"]["location"]["line"] == 3
    again = await registry.run("restart_debugging", {"session_id": "S1"}, "human")
    assert again.data["session_id"] == "S1", again.text  # the same session, not a new one
    stop = again.data["stop"]
    assert stop["location"]["line"] == 3 and stop["watches"][0]["expression"] == "total * 10"
    session = registry.hub.sessions["S1"]
    assert session.exception_mode == "all" and list(registry.hub.sessions) == ["S1"]


def test_launch_json_just_my_code_is_honoured(tmp_path):
    launch = {"type": "debugpy", "request": "launch", "program": "x.py", "justMyCode": False}
    assert launch_json.to_action(launch, str(tmp_path))[1]["just_my_code"] is False
    attach = {"type": "debugpy", "request": "attach", "connect": {"port": 5678}, "justMyCode": False}
    assert launch_json.to_action(attach, str(tmp_path)) == (
        "attach",
        {"target": "127.0.0.1:5678", "language": "python", "just_my_code": False},
    )
