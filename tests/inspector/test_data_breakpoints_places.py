"""Data breakpoints on array elements (written directly, by sort, removed by pop and added back by push) and on a
global variable; precise refusals for a CommonJS module's top-level let, a local, a frozen object, a non-configurable
property, a typed array's element and an ES module's top-level let (issue 23, part 5). Node under the inspector
backend and under js-debug, and Bun."""

from __future__ import annotations

import pytest
from support import stop_of, until
from test_data_breakpoints_node import helper_free, output_text, paused_at_marker, refused, watch
from test_inspector_node import js, line, need_runtime, run, where
from test_jsdebug import need_js_debug

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]

PROGRAM = "data_places.js"


async def paused_at_ready(registry, backend: str) -> str:
    return await paused_at_marker(registry, backend, PROGRAM)


@pytest.mark.parametrize("backend", ["inspector", "js-debug", "bun"])
async def test_array_elements_a_global_and_what_no_watch_sees(registry, backend):
    sid = await paused_at_ready(registry, backend)
    second = await watch(registry, sid, "queue[1]")
    assert second["watching"] == "element 1 of an Array (length 3)" and "length = n" in second["missed"], second
    third = await watch(registry, sid, "queue[2]")
    hits = await watch(registry, sid, "hits")
    assert hits["watching"] == "global variable hits (a property of the global object)", hits

    assert "no element 7 (its length is 3)" in await refused(registry, sid, "queue[7]")
    why = await refused(registry, sid, "moduleLevel")
    assert "variable of an enclosing" in why and "CommonJS" in why and "no watchpoint" in why, why
    assert "a variable of the function" in await refused(registry, sid, "ready")
    assert "frozen" in await refused(registry, sid, "frozen.a")
    assert "non-configurable" in await refused(registry, sid, "locked.fixed")
    assert "typed array" in await refused(registry, sid, "bytes[1]")

    expected = [
        (second, 'queue[1] "b" → "B"', "// sets b"),
        (second, 'queue[1] "B" → "a"', "// sorts"),  # sort writes the elements back through the setter
        (third, 'queue[2] "c" → <unset>', "// pops"),  # removed: seen by the instance's own pop
        (third, 'queue[2] <unset> → "d"', "// pushes"),  # added back: watched again
        (hits, "hits 0 → 1", "// counts a hit"),
    ]
    for bp, change, marker in expected:
        stop = stop_of(await run(registry, "continue_execution", session_id=sid))
        assert stop["hit_breakpoints"] == [bp["id"]], (change, stop)
        assert stop["description"] == f"data breakpoint {bp['id']}: {change}", stop
        assert where(stop)[:2] == (PROGRAM, line(PROGRAM, marker)) and helper_free(stop), stop
    for bp in (second, third, hits):
        await run(registry, "remove_breakpoint", session_id=sid, breakpoint_id=bp["id"])
    end = await run(registry, "continue_execution", session_id=sid)
    assert end.data["state"] == "terminated", end.text
    text = await output_text(registry, sid, "end ")
    assert 'end B,a,d 1 2 true ["B","a","d"] 3' in text, text


@pytest.mark.parametrize("backend", ["inspector", "js-debug", "bun"])
async def test_every_write_of_a_busy_loop_is_logged_up_to_the_exit(registry, backend):
    """2500 writes with no pause in between and the program's end right after: on Bun the helper hands its changes
    over at a pause of its own every 1000 and as the program exits; on Node each is a binding call."""
    sid = await paused_at_ready(registry, backend)
    await run(registry, "set_breakpoint", session_id=sid, file=js(PROGRAM), line=line(PROGRAM, "// a busy loop"))
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert where(stop)[1] == line(PROGRAM, "// a busy loop"), stop
    logged = await watch(registry, sid, "tally.count", log_only=True)
    end = await run(registry, "continue_execution", session_id=sid)
    assert end.data["state"] == "terminated", end.text
    await output_text(registry, sid, "end ")
    entries, since, more = [], 0, True
    while more:
        page = await run(registry, "get_output", session_id=sid, category="changes", since=since, limit=1000)
        entries += page.data["entries"]
        since, more = page.data["next_since"], page.data["has_more"]
    changes = [e["text"].split(f"{logged['id']} tally.count ")[1].split("  at ")[0] for e in entries]
    assert changes == [f"{i - 1} → {i}" for i in range(1, 2501)], (len(changes), changes[:2], changes[-2:])
    assert all(f"{PROGRAM}:{line(PROGRAM, '// a busy loop')} in " in e["text"] for e in entries), entries[-1]


MODULE = "data_module.mjs"


@pytest.mark.parametrize("backend", ["inspector", "js-debug", "bun"])
async def test_an_es_module_let_is_refused_and_a_module_object_watched(registry, backend):
    need_runtime("bun" if backend == "bun" else "node")
    if backend == "js-debug":
        need_js_debug()
    how = {"backend": "dap"} if backend == "js-debug" else {"runtime": "bun" if backend == "bun" else "node"}
    reply = await run(
        registry,
        "start_debugging",
        program=js(MODULE),
        language="javascript",
        breakpoints=[{"file": js(MODULE), "line": line(MODULE, "// stop here")}],
        wait_s=30,
        **how,
    )
    stop = stop_of(reply)
    assert where(stop)[:2] == (MODULE, line(MODULE, "// stop here")), stop
    sid = reply.data["session_id"]
    why = await refused(registry, sid, "hits")
    # (JavaScriptCore does not list a module's scope for the frame: Bun says which scopes it may be)
    precise = "hits is a binding of the ES module's scope" if backend != "bun" else "an ES module's are bindings"
    assert precise in why and "no watchpoint" in why, why
    mode = await watch(registry, sid, "settings.mode")
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert stop["description"] == f'data breakpoint {mode["id"]}: settings.mode "dev" → "prod"', stop
    assert where(stop)[:2] == (MODULE, line(MODULE, "// sets mode")) and helper_free(stop), stop
    end = await run(registry, "continue_execution", session_id=sid)
    assert end.data["state"] == "terminated", end.text
    await output_text(registry, sid, "module 1 prod 0")


async def test_bun_log_is_complete_at_a_breakpoint_stop(registry):
    """Bun keeps log-only changes in the program until pairdbg takes them: a stop at a breakpoint takes them too."""
    sid = await paused_at_ready(registry, "bun")
    logged = await watch(registry, sid, "queue[1]", log_only=True)
    await run(registry, "set_breakpoint", session_id=sid, file=js(PROGRAM), line=line(PROGRAM, "// counts a hit"))
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert where(stop)[1] == line(PROGRAM, "// counts a hit"), stop

    async def both_logged() -> bool:
        page = await run(registry, "get_output", session_id=sid, category="changes")
        return [e["text"].split(f"{logged['id']} ")[1].split("  at ")[0] for e in page.data["entries"]] == [
            'queue[1] "b" → "B"',
            'queue[1] "B" → "a"',
        ]

    await until(both_logged, "the two changes before the breakpoint in the change log", timeout=5)
