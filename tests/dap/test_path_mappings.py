"""Remote attach with path mappings (issue 12): the program runs from a copy under another root, as in a container or
on another host; pairdbg sets breakpoints on local paths, and stops, frames and source come back as local paths."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys

import pytest
from support import PROGRAMS, expect_error, free_port, line_of, prog, stop_of, until

pytestmark = pytest.mark.asyncio

TICK = line_of("sleeper.py", "return n + 1")


@contextlib.contextmanager
def served_copy(tmp_path, name: str):
    """tests/programs/NAME copied under another root and run there, by its relative path, under
    `python -m debugpy --listen --wait-for-client`: yields (port, process, the copy's folder)."""
    remote = tmp_path / "srv" / "app"
    remote.mkdir(parents=True)
    shutil.copy(prog(name), remote / name)
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "debugpy", "--listen", f"127.0.0.1:{port}", "--wait-for-client", name],
        cwd=remote,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        yield port, proc, str(remote)
    finally:
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:
            pass
        proc.wait(5)


@pytest.fixture
def remote_copy(tmp_path):
    with served_copy(tmp_path, "sleeper.py") as served:
        yield served


async def attach_when_listening(registry, args: dict, action: str = "attach"):
    async def attached():
        try:
            return await registry.run(action, args, "agent:test")
        except Exception:
            return None

    replies = []

    async def tried() -> bool:
        reply = await attached()
        replies.append(reply)
        return reply is not None

    await until(tried, "debugpy to listen", timeout=15)
    return replies[-1]


async def check_local_paths(registry, sid: str, remote: str) -> None:
    local = prog("sleeper.py")
    bp = await registry.run("set_breakpoint", {"session_id": sid, "file": local, "line": TICK}, "agent:test")
    assert bp.data["verified"] is True, bp.text
    stop = stop_of(await registry.run("wait_for_stop", {"session_id": sid, "timeout_s": 10}, "agent:test"))
    assert stop["location"]["file"] == local and stop["location"]["line"] == TICK, stop["location"]
    assert stop["hit_breakpoints"] == [bp.data["id"]]
    assert all(f["file"] == local for f in stop["stack"]), stop["stack"]
    assert not any(remote in json.dumps(frame) for frame in stop["stack"])
    source = await registry.run("get_source_context", {"session_id": sid}, "agent:test")
    assert "return n + 1" in source.text and local in source.text


async def test_breakpoints_on_local_paths_bind_in_a_program_run_from_another_root(registry, remote_copy):
    port, proc, remote = remote_copy
    reply = await attach_when_listening(
        registry,
        {
            "target": f"127.0.0.1:{port}",
            "wait_s": 0,
            "path_mappings": [{"localRoot": str(PROGRAMS), "remoteRoot": remote}],
        },
    )
    await check_local_paths(registry, reply.data["session_id"], remote)
    await registry.run("close_debug_session", {"session_id": reply.data["session_id"]}, "agent:test")
    await until(lambda: proc.poll() is not None, "the attached program to end", timeout=10)


async def test_launch_json_path_mappings_are_honoured(registry, remote_copy, tmp_path):
    port, proc, remote = remote_copy
    workspace = tmp_path / "ws"
    (workspace / ".vscode").mkdir(parents=True)
    (workspace / ".vscode" / "launch.json").write_text(
        json.dumps(
            {
                "configurations": [
                    {
                        "name": "remote",
                        "type": "debugpy",
                        "request": "attach",
                        "connect": {"host": "127.0.0.1", "port": port},
                        # relative to the workspace, like VS Code's ${workspaceFolder}/...
                        "pathMappings": [{"localRoot": os.path.relpath(PROGRAMS, workspace), "remoteRoot": remote}],
                    }
                ]
            }
        )
    )
    reply = await attach_when_listening(
        registry, {"name": "remote", "workspace": str(workspace), "wait_s": 0}, "start_from_launch_config"
    )
    await check_local_paths(registry, reply.data["session_id"], remote)


async def test_a_path_mapping_whose_local_root_is_missing_is_refused(registry, tmp_path):
    err = await expect_error(
        registry,
        "attach",
        {"target": "127.0.0.1:1", "path_mappings": [{"localRoot": str(tmp_path / "nope"), "remoteRoot": "/app"}]},
        "PATH_NOT_FOUND",
    )
    assert "localRoot" in err.message and err.hint


async def test_an_exception_in_the_users_own_mapped_file_is_not_called_library_code(registry, tmp_path):
    """crash.py run from another root, by a relative path: the exception is raised in the user's own frame, whose
    traceback path (remote, relative) differs from the local one pairdbg shows; it must not be called library code."""
    with served_copy(tmp_path, "crash.py") as (port, _, remote):
        args = {"target": f"127.0.0.1:{port}", "wait_s": 10}
        reply = await attach_when_listening(
            registry, {**args, "path_mappings": [{"localRoot": str(PROGRAMS), "remoteRoot": str(remote)}]}
        )
        if reply.data["state"] != "paused":
            reply = await registry.run(
                "wait_for_stop", {"session_id": reply.data["session_id"], "timeout_s": 10}, "agent:test"
            )
        stop = stop_of(reply)
        assert stop["location"]["file"] == prog("crash.py") and stop["location"]["function"] == "divide", stop
        assert "ZeroDivisionError" in json.dumps(stop["exception"])
        assert not stop["exception"].get("raised_at"), reply.text
        assert "library code" not in reply.text
