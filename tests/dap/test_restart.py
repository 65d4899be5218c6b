"""Restart keeps the session (issue 19 §7): the same id, every breakpoint's id, enabled state, condition and hit count,
the watches and the exception mode, on a real debugpy program; the next call with the same id works."""

from __future__ import annotations

import pytest
from support import line_of, prog, stop_of
from support.library_venv import library_python

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]

PROGRAM = "render_names.py"
ME = "agent:test"


async def run(registry, action: str, **args):
    return await registry.run(action, args, ME)


async def test_restart_keeps_the_id_breakpoints_watches_and_exception_mode(registry):
    python = library_python()
    path = prog(PROGRAM)
    display, load = line_of(PROGRAM, "# DISPLAY"), line_of(PROGRAM, "# LOAD")
    started = await run(
        registry,
        "start_debugging",
        program=path,
        executable_path=python,
        breakpoints=[
            {"file": path, "line": display, "condition": "self.first == 'Alan'"},
            {"file": path, "line": load},
        ],
    )
    sid = started.data["session_id"]
    assert stop_of(started)["hit_breakpoints"] == ["BP2"]
    render = await run(registry, "set_breakpoint", session_id=sid, function="jinja2.Template.render")
    await run(registry, "update_breakpoint", session_id=sid, breakpoint_id="BP2", enabled=False)
    await run(registry, "add_watch", session_id=sid, expression="self.first")
    await run(registry, "set_pause_on_exceptions", session_id=sid, mode="all")
    assert stop_of(await run(registry, "continue_execution", session_id=sid))["hit_breakpoints"] == ["BP3"]
    assert stop_of(await run(registry, "continue_execution", session_id=sid))["hit_breakpoints"] == ["BP1"]
    before = (await run(registry, "list_breakpoints", session_id=sid)).data["breakpoints"]
    last_stop = registry.hub.sessions[sid].stop_number

    again = await run(registry, "restart_debugging", session_id=sid)
    assert again.data["session_id"] == sid and list(registry.hub.sessions) == [sid], again.text
    assert f"Restarted {sid}" in again.text and "kept 3 breakpoint(s), 1 watch(es), pause on all" in again.text
    # BP2 (LOAD) is disabled, so the first stop is the function breakpoint, bound again before the program ran.
    stop = stop_of(again)
    assert stop["hit_breakpoints"] == [render.data["id"]] and stop["stop_number"] == last_stop + 1, again.text
    assert stop["watches"][0]["expression"] == "self.first"
    after = {bp["id"]: bp for bp in (await run(registry, "list_breakpoints", session_id=sid)).data["breakpoints"]}
    assert [bp["id"] for bp in before] == list(after) == ["BP1", "BP2", "BP3"]
    assert after["BP1"]["condition"] == "self.first == 'Alan'" and after["BP1"]["hits"] == 1, after["BP1"]
    assert after["BP2"]["enabled"] is False and after["BP2"]["verified"] is False and after["BP2"]["hits"] == 1
    assert after["BP3"]["hits"] == 2 and after["BP3"]["verified"] is True, after["BP3"]
    assert registry.hub.sessions[sid].exception_mode == "all"
    # The same id goes on working, and numbering goes on from the restarted session's.
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert stop["hit_breakpoints"] == ["BP1"] and stop["watches"][0]["value"] == "'Alan'", stop
    new = await run(registry, "set_breakpoint", session_id=sid, file=path, line=load)
    assert new.data["id"] == "BP4", new.text
