"""Attaching to a Node whose files live under another root (a container, another host): the program runs from a copy
under a different temporary root, and the session maps its paths to the local files (path_mappings, as
launch.json's localRoot/remoteRoot). Breakpoints on the local files bind and hit; stops show the local paths. On the
inspector path and on js-debug."""

from __future__ import annotations

import json
import shutil

import pytest

from support import targets
from support import stop_of, until
from test_inspector_node import JS, js, line, need_runtime, run

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]


async def serve_copy(tmp_path):
    """server.js copied under tmp_path/srv and run from there with the inspector on a free port."""
    remote = tmp_path / "srv"
    remote.mkdir()
    shutil.copy(JS / "server.js", remote / "server.js")
    port = targets.free_port()
    proc = await targets.spawn(
        [need_runtime("node"), f"--inspect=127.0.0.1:{port}", str(remote / "server.js")], cwd=str(remote)
    )
    await targets.read_ws_url(proc.stderr, timeout=10)
    return remote, port, proc


async def check_mapped_session(hub, registry, sid: str) -> None:
    tick = line("server.js", "TICK")
    bp = await run(registry, "set_breakpoint", session_id=sid, file=js("server.js"), line=tick)
    assert bp.data["actual_line"] == tick, bp.text
    session = hub.sessions[sid]
    await until(lambda: session.breakpoints["BP1"].state.verified, "the local breakpoint to bind", timeout=10)
    reply = await run(registry, "wait_for_stop", session_id=sid, timeout_s=10)
    stop = stop_of(reply)
    assert stop["location"]["file"] == js("server.js") and stop["location"]["line"] == tick, reply.text
    assert stop["hit_breakpoints"] == ["BP1"], reply.text
    source = await run(registry, "get_source_context", session_id=sid)
    assert any(r["current"] and "TICK" in r["text"] for r in source.data["lines"]), source.text


@pytest.mark.parametrize("backend", ["inspector", "dap"])
async def test_attach_maps_a_remote_root_to_local_files(hub, registry, tmp_path, backend):
    if backend == "dap":
        from test_jsdebug import need_js_debug

        need_js_debug()
    remote, port, proc = await serve_copy(tmp_path)
    try:
        reply = await run(
            registry,
            "attach",
            target=f"127.0.0.1:{port}",
            language="javascript",
            backend=backend,
            path_mappings=[{"localRoot": str(JS), "remoteRoot": str(remote)}],
            wait_s=0,
        )
        await check_mapped_session(hub, registry, reply.data["session_id"])
        await run(registry, "close_debug_session", session_id=reply.data["session_id"], terminate=False)
    finally:
        await targets.stop_process_group(proc)


async def test_launch_json_local_and_remote_root(hub, registry, tmp_path):
    remote, port, proc = await serve_copy(tmp_path)
    workspace = tmp_path / "ws"
    (workspace / ".vscode").mkdir(parents=True)
    config = {
        "name": "remote",
        "type": "node",
        "request": "attach",
        "port": port,
        "localRoot": str(JS),
        "remoteRoot": str(remote),
    }
    (workspace / ".vscode" / "launch.json").write_text(json.dumps({"configurations": [config]}))
    try:
        reply = await run(registry, "start_from_launch_config", name="remote", workspace=str(workspace), wait_s=0)
        await check_mapped_session(hub, registry, reply.data["session_id"])
        await run(registry, "close_debug_session", session_id=reply.data["session_id"], terminate=False)
    finally:
        await targets.stop_process_group(proc)


async def test_one_root_alone_or_two_mappings_are_refused(registry, tmp_path):
    from support import expect_error

    await expect_error(
        registry,
        "attach",
        {"target": "127.0.0.1:9", "language": "javascript", "path_mappings": [{"localRoot": str(tmp_path)}]},
        "INVALID_PARAMETERS",
    )
    two = [{"localRoot": str(tmp_path), "remoteRoot": "/a"}, {"localRoot": str(tmp_path), "remoteRoot": "/b"}]
    exc = await expect_error(
        registry,
        "attach",
        {"target": "127.0.0.1:9", "language": "javascript", "path_mappings": two},
        "INVALID_PARAMETERS",
    )
    assert "one path mapping" in exc.message
