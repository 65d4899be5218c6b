"""Any DAP adapter by configuration: built-in and user adapter profiles, against real adapters."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pairdbg.backends.dap.profile import load_profiles
from pairdbg.backends.errors import DebugError, ErrorCode
from support import missing_target, pid_alive, prog, until
from support import TESTS

C_SOURCE = TESTS / "c" / "sum.c"
ADD_LINE = next(n for n, t in enumerate(C_SOURCE.read_text().splitlines(), 1) if "MARK:add" in t)


def need(executable: str, hint: str) -> str:
    found = shutil.which(executable)
    if found is None:
        missing_target(f"{executable} not installed: {hint}")
    return found


@pytest.fixture
def user_profiles(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "config" / "pairdbg" / "adapters"
    folder.mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return folder


@pytest.mark.asyncio
async def test_c_through_the_builtin_lldb_profile(registry, tmp_path) -> None:
    need("gcc", "apt-get install gcc")
    load_profiles()["lldb"].executable()  # CONNECTION_FAILED with the install hint when lldb is missing
    binary = tmp_path / "sum"
    subprocess.run(["gcc", "-g", "-O0", "-o", str(binary), str(C_SOURCE)], check=True, timeout=60)
    started = await registry.run("start_debugging", {
        "program": str(binary), "language": "c", "breakpoints": [{"file": str(C_SOURCE), "line": ADD_LINE}]}, "h")
    stop = started.data["stop"]
    assert stop["reason"] == "breakpoint" and stop["location"]["line"] == ADD_LINE
    assert {v["name"] for v in stop["locals"]} >= {"a", "b", "sum"}
    assert stop["stack"][1]["function"] == "main"
    stepped = await registry.run("step_over", {"session_id": "S1"}, "h")
    assert stepped.data["stop"]["location"]["line"] == ADD_LINE + 1
    value = await registry.run("evaluate_expression", {"session_id": "S1", "expression": "a + b + 100"}, "h")
    assert value.data["value"] == "100"
    await registry.run("remove_breakpoint", {"session_id": "S1", "breakpoint_id": "BP1"}, "h")
    ended = await registry.run("continue_execution", {"session_id": "S1"}, "h")
    assert ended.data["state"] == "terminated" and ended.data["exit_code"] == 0
    assert "done 3" in "\n".join(ended.data["output_tail"])


@pytest.mark.asyncio
@pytest.mark.parametrize("ending", ["runs to its end", "closed while paused"])
async def test_lldb_asks_pairdbg_to_start_the_c_program(registry, tmp_path, ending) -> None:
    """The lldb profile launches with runInTerminal: pairdbg starts the program (lldb's launcher, which execs it) in a
    process group of its own and reads its pipes, so each line arrives once, on the stream it was written to (over
    lldb's terminal stderr came as stdout), and the exit code is still lldb's; closing the session ends it."""
    need("gcc", "apt-get install gcc")
    load_profiles()["lldb"].executable()
    source = TESTS / "c" / "output.c"
    after = next(n for n, t in enumerate(source.read_text().splitlines(), 1) if "MARK:after" in t)
    binary = tmp_path / "output"
    subprocess.run(["gcc", "-g", "-O0", "-o", str(binary), str(source)], check=True, timeout=60)
    started = await registry.run("start_debugging", {
        "program": str(binary), "language": "c", "breakpoints": [{"file": str(source), "line": after}]}, "h")
    sid = started.data["session_id"]
    stop = started.data["stop"]
    assert stop["reason"] == "breakpoint" and stop["location"]["line"] == after, started.text
    assert {v["name"]: v["value"] for v in stop["locals"]}["printed"] == "200"
    session = registry.hub.get(sid)
    pid = session.backend.pid
    assert pid_alive(pid) and os.getpgid(pid) == session.backend.terminal.pid  # the group pairdbg started
    assert Path(f"/proc/{pid}/exe").resolve() == binary.resolve()  # lldb's launcher became the program
    if ending == "closed while paused":
        await registry.run("close_debug_session", {"session_id": sid}, "h")
        await until(lambda: not pid_alive(pid), "the program to end with its session", timeout=10)
        return
    ended = await registry.run("continue_execution", {"session_id": sid}, "h")
    assert ended.data["state"] == "terminated" and ended.data["exit_code"] == 3, ended.text

    async def printed(category: str) -> list[str]:
        reply = await registry.run("get_output", {"session_id": sid, "category": category, "limit": 1000}, "h")
        assert not reply.data["has_more"] and not reply.data["dropped"]
        return "".join(e["text"] for e in reply.data["entries"]).splitlines()

    assert await printed("stdout") == [*(f"line {i}" for i in range(200)), "after 200"]
    assert await printed("stderr") == ["to stderr"]


@pytest.mark.asyncio
async def test_a_user_profile_adds_an_adapter_without_code(registry, user_profiles) -> None:
    """debugpy's adapter described only by a JSON file, serving a made-up language name."""
    (user_profiles / "pyish.json").write_text(json.dumps({
        "name": "pyish", "languages": ["pyish"], "candidates": [sys.executable], "args": ["-m", "debugpy.adapter"],
        "adapter_id": "debugpy",
        "launch": {"type": "python", "request": "launch", "program": "{program}", "args": "{args}", "cwd": "{cwd}",
                   "console": "internalConsole", "stopOnEntry": "{stop_on_entry}"},
        "exception_filters": {"uncaught": ["uncaught"], "all": ["raised", "uncaught"]},
        "features": ["conditional_breakpoints", "pause", "threads"],
        "hide_variables": ["special variables", "function variables"],
    }))
    program = prog("loop.py")
    started = await registry.run("start_debugging", {"program": program, "language": "pyish",
                                                      "stop_on_entry": True}, "agent:test")
    assert started.data["stop"]["reason"] == "entry"
    session = registry.hub.sessions[started.data["session_id"]]
    assert session.backend.adapter_id == "debugpy" and not session.backend.features.set_variable


@pytest.mark.asyncio
async def test_broken_and_missing_adapters_say_what_to_do(registry, user_profiles) -> None:
    (user_profiles / "ghost.json").write_text(json.dumps({
        "name": "ghost", "languages": ["ghostlang"], "candidates": ["no-such-adapter-xyz"], "adapter_id": "ghost",
        "launch": {"program": "{program}"}, "install_hint": "apt-get install ghost-dap"}))
    with pytest.raises(DebugError) as err:
        await registry.run("start_debugging", {"program": prog("loop.py"), "language": "ghostlang"}, "h")
    assert err.value.code == ErrorCode.CONNECTION_FAILED and err.value.hint == "apt-get install ghost-dap"
    assert registry.hub.sessions == {}
    with pytest.raises(DebugError) as err:
        await registry.run("start_debugging", {"program": prog("loop.py"), "language": "cobol"}, "h")
    assert err.value.code == ErrorCode.INVALID_PARAMETERS and "c, cpp" in err.value.hint
    (user_profiles / "bad.json").write_text('{"name": "bad"}')
    with pytest.raises(DebugError) as err:
        load_profiles()
    assert err.value.code == ErrorCode.INVALID_PARAMETERS and "bad.json" in err.value.message


GO_SOURCE = TESTS / "go" / "main.go"
GO_ADD_LINE = next(n for n, t in enumerate(GO_SOURCE.read_text().splitlines(), 1) if "MARK:add" in t)


@pytest.mark.asyncio
async def test_go_through_the_builtin_delve_profile_over_tcp(registry, tmp_path, monkeypatch) -> None:
    need("go", "apt-get install golang-go")
    load_profiles()["delve"].executable()  # CONNECTION_FAILED with the install hint when dlv is missing
    monkeypatch.setenv("GOCACHE", str(tmp_path / "gocache"))  # delve builds the program; keep the cache private
    monkeypatch.setenv("GOFLAGS", "-mod=mod")
    program = tmp_path / "main.go"
    program.write_text(GO_SOURCE.read_text())
    (tmp_path / "go.mod").write_text("module example.com/sum\n\ngo 1.19\n")
    started = await registry.run("start_debugging", {
        "program": str(program), "language": "go", "breakpoints": [{"file": str(program), "line": GO_ADD_LINE}]},
        "h")
    stop = started.data["stop"]
    assert stop["reason"] == "breakpoint" and stop["location"]["line"] == GO_ADD_LINE
    assert stop["location"]["function"] == "main.add" and {"a", "b"} <= {v["name"] for v in stop["locals"]}
    value = await registry.run("evaluate_expression", {"session_id": "S1", "expression": "a + b + 100"}, "h")
    assert value.data["value"] == "100"
    await registry.run("remove_breakpoint", {"session_id": "S1", "breakpoint_id": "BP1"}, "h")
    ended = await registry.run("continue_execution", {"session_id": "S1"}, "h")
    assert ended.data["state"] == "terminated"
    assert ended.data["output_tail"] == ["done 3"]  # the program's output, without delve's own lines


@pytest.mark.asyncio
async def test_an_adapter_that_dies_in_the_handshake_fails_fast(registry, user_profiles) -> None:
    for name, transport in (("quitter", "stdio"), ("quitter-tcp", "tcp")):
        (user_profiles / f"{name}.json").write_text(json.dumps({
            "name": name, "languages": [name], "candidates": [sys.executable],
            "args": ["-c", "import sys; sys.stderr.write('adapter crashed on start\\n'); sys.exit(3)"],
            "transport": transport, "adapter_id": name, "launch": {"program": "{program}"}}))
        with pytest.raises(DebugError) as err:
            await registry.run("start_debugging", {"program": prog("loop.py"), "language": name}, "h")
        assert err.value.code == ErrorCode.CONNECTION_FAILED, err.value.text()
        if transport == "stdio":
            assert "adapter crashed on start" in err.value.message  # its stderr, so the user sees why
        assert registry.hub.sessions == {}
