"""Node sessions stay up while paused for long, and a lost inspector connection is said as such (issue 11, item 1).

Node 20's inspector closes the WebSocket when it receives a WebSocket ping; pairdbg used to ping every 10 s, so
every Node session (launch, attach, connect_debugger) ended silently ~10 s in and the program ran to its end.
"""

from __future__ import annotations

import asyncio

import pytest
from support import pid_alive, stop_of, until
from test_inspector_node import js, launch, line, need_runtime, run, start_node_server

from support import targets

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]


async def test_node_sessions_paused_for_30_seconds_still_step(hub, registry):
    """A launched Node and an attached one, both paused at a breakpoint for 30 s, then stepped."""
    add_body = line("flow.js", "ADD_BODY")
    sid_launch, reply = await launch(registry, "node", "flow.js", ("flow.js", add_body))
    assert stop_of(reply)["location"]["line"] == add_body, reply.text

    port = targets.free_port()
    tick = line("server.js", "TICK")
    proc = await start_node_server(port)
    try:
        attached = await run(registry, "attach", target=f"127.0.0.1:{port}", language="javascript", wait_s=0)
        sid_attach = attached.data["session_id"]
        await run(registry, "set_breakpoint", session_id=sid_attach, file=js("server.js"), line=tick)
        stop_of(await run(registry, "wait_for_stop", session_id=sid_attach, timeout_s=10))

        await asyncio.sleep(30)  # the point of the test: a person reads the screen for half a minute

        for sid in (sid_launch, sid_attach):
            assert hub.sessions[sid].phase.value == "paused", f"{sid} is {hub.sessions[sid].phase.value}"
            stepped = await run(registry, "step_over", session_id=sid, wait_s=10)
            assert stop_of(stepped)["stop_number"] == 2, stepped.text
        await run(registry, "close_debug_session", session_id=sid_attach, terminate=False)
    finally:
        await targets.stop_process_group(proc)


async def test_a_lost_node_connection_is_reported_as_lost_not_as_an_end(hub, registry):
    """The old failure, caused on purpose: a WebSocket ping makes Node hang up. The session must say the connection
    was lost (not 'terminated, exit code 0'), and the program pairdbg launched must not outlive the session."""
    need_runtime("node")
    add_body = line("flow.js", "ADD_BODY")
    sid, reply = await launch(registry, "node", "flow.js", ("flow.js", add_body))
    stop_of(reply)
    session = hub.sessions[sid]
    pid = session.backend.pid
    await session.backend.rpc._ws.ping()  # fault injection: what the client used to send every 10 s
    await until(lambda: session.phase.ended, "the session to end", timeout=10)
    assert session.phase.value == "disconnected", session.phase
    assert "connection was lost" in (session.error or ""), session.error
    listed = await run(registry, "list_debug_sessions")
    assert "lost" in listed.text, listed.text
    await until(lambda: not pid_alive(pid), "the launched node to end", timeout=10)

