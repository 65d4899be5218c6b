"""Data breakpoints on Node programs (issue 23, part 5): "stop where cart.total changes" and "every write to
cache.get('host')", on a real Node with a property written from a timer, an npm library's object (semver's SemVer,
written inside semver's own code) and a Map entry. Refusals say why (a frozen or sealed object, a missing array
element, a variable); on Node and on Bun (whose inspector has no bindings: the changes are taken from the helper)."""

from __future__ import annotations

import os
import subprocess

import pytest
from support import TESTS, missing_target, stop_of, until
from test_inspector_node import js, launch, line, need_runtime, run, where
from test_jsdebug import need_js_debug

from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.mcp_bridge.server import read_for_agent

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(90)]

PROGRAM = "data_changes.js"


async def paused_at_ready(registry, runtime: str = "node") -> str:
    sid, reply = await launch(registry, runtime, PROGRAM, (PROGRAM, line(PROGRAM, "// stop here")))
    stop = stop_of(reply)
    assert where(stop)[:2] == (PROGRAM, line(PROGRAM, "// stop here")), stop
    return sid


async def paused_at_marker(registry, backend: str, program: str, marker: str = "// stop here") -> str:
    """`program` stopped at its `marker` line, under `backend`: "inspector" (Node), "bun" or "js-debug"."""
    need_runtime("bun" if backend == "bun" else "node")
    if backend == "js-debug":
        need_js_debug()
    how = {"backend": "dap"} if backend == "js-debug" else {"runtime": "bun" if backend == "bun" else "node"}
    at = line(program, marker)
    reply = await run(
        registry,
        "start_debugging",
        program=js(program),
        language="javascript",
        breakpoints=[{"file": js(program), "line": at}],
        wait_s=30,
        **how,
    )
    stop = stop_of(reply)
    assert where(stop)[:2] == (program, at), stop
    return reply.data["session_id"]


async def watch(registry, sid: str, expression: str, **more) -> dict:
    reply = await run(registry, "set_data_breakpoint", session_id=sid, expression=expression, **more)
    assert reply.data["verified"] is True and reply.data["kind"] == "data", reply.text
    return reply.data


async def refused(registry, sid: str, expression: str) -> str:
    with pytest.raises(DebugError) as caught:
        await run(registry, "set_data_breakpoint", session_id=sid, expression=expression)
    assert caught.value.code == ErrorCode.INVALID_PARAMETERS
    return caught.value.message


async def output_text(registry, sid: str, needle: str) -> str:
    """The program's stdout once `needle` is in it (the change log is a category of its own)."""
    text = ""

    async def arrived() -> bool:
        nonlocal text
        reply = await run(registry, "get_output", session_id=sid, category="stdout", limit=1000)
        text = "".join(e["text"] for e in reply.data["entries"])
        return needle in text

    await until(arrived, lambda: f"{needle!r} in the output:\n{text}", timeout=10)
    return text


def helper_free(stop: dict) -> bool:
    return not any("pairdbg-datawatch" in (f.get("file") or "") for f in stop["stack"])


@pytest.mark.parametrize("runtime", ["node", "bun"])
async def test_stops_at_the_writing_statement(registry, runtime):
    sid = await paused_at_ready(registry, runtime)
    total = await watch(registry, sid, "cart.total")
    assert total["id"].startswith("DB") and "Cart" in total["watching"], total
    assert "defineProperty" in total["missed"]
    minor = await watch(registry, sid, "version.minor")  # semver's SemVer: an npm library's object
    assert "SemVer" in minor["watching"]
    host = await watch(registry, sid, "cache.get('host')")
    assert "Map" in host["watching"] and "entry" in host["watching"]

    assert "frozen" in await refused(registry, sid, "frozen.a")
    assert "sealed" in await refused(registry, sid, "sealed.b")
    assert "no element 5" in await refused(registry, sid, "list[5]")  # (elements: test_data_breakpoints_places)
    assert "variable" in await refused(registry, sid, "ready")
    assert "no property" in await refused(registry, sid, "cart.nothing")
    assert "cannot evaluate" in await refused(registry, sid, "nothing_here.x")
    with pytest.raises(DebugError, match="writes only"):
        await run(registry, "set_data_breakpoint", session_id=sid, expression="cart.total", access="read_write")
    listed = await run(registry, "list_breakpoints", session_id=sid)
    ids = [bp["id"] for bp in listed.data["breakpoints"] if bp["kind"] == "data"]
    assert ids == [total["id"], minor["id"], host["id"]], listed.text

    writes_total = line(PROGRAM, "// writes total")
    for old, new in (("0", "7.25"), ("7.25", "10.97"), ("10.97", "-9.03")):
        stop = stop_of(await run(registry, "continue_execution", session_id=sid))
        assert stop["reason"] == "data breakpoint" and stop["hit_breakpoints"] == [total["id"]], stop
        assert stop["description"] == f"data breakpoint {total['id']}: cart.total {old} → {new}"
        assert where(stop) == (PROGRAM, writes_total, "add"), stop
        assert helper_free(stop), stop["stack"]
    # the frame is the writer's: its locals are there, evaluate runs in it
    price = await run(registry, "evaluate_expression", session_id=sid, expression="price")
    assert price.data["value"] == "-20", price.text
    # `other.total = price` never stops (per instance); semver writes minor inside its own code: that is the stop
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert stop["hit_breakpoints"] == [minor["id"]], stop
    assert stop["description"].endswith("version.minor 2 → 3")
    semver_file = stop["location"]["file"]
    assert (
        semver_file.endswith(os.path.join("semver", "classes", "semver.js")) and stop["location"]["function"] == "inc"
    )
    assert "this.minor++" in open(semver_file).read().splitlines()[stop["location"]["line"] - 1]
    assert helper_free(stop)
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert stop["hit_breakpoints"] == [host["id"]] and where(stop)[1] == line(PROGRAM, "// writes host"), stop
    assert stop["description"].endswith("""cache.get('host') "localhost" → "db.internal\"""")
    # from a timer's callback
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert stop["hit_breakpoints"] == [total["id"]] and where(stop)[1] == line(PROGRAM, "// reset from a timer"), stop
    assert stop["description"].endswith("cart.total -9.03 → 0")

    end = await run(registry, "continue_execution", session_id=sid)
    assert end.data["state"] == "terminated", end.text
    # the program saw its objects as before: JSON, key order, instanceof
    text = await output_text(registry, sid, "done")
    assert 'done 3 1.3.0 db.internal {"total":0,"items":[]} total,items true' in text, text


@pytest.mark.parametrize("runtime", ["node", "bun"])
async def test_condition_log_only_update_and_remove(registry, hub, runtime):
    sid = await paused_at_ready(registry, runtime)
    negative = await watch(registry, sid, "cart.total", condition="value < 0")
    logged = await watch(registry, sid, "cache.get('host')", log_only=True)
    assert logged["log_only"] is True
    minor = await watch(registry, sid, "version.minor")
    off = await run(registry, "update_breakpoint", session_id=sid, breakpoint_id=minor["id"], enabled=False)
    assert off.data["enabled"] is False
    # a condition changed by update_breakpoint: compiled where the program is paused (`ready` is a local here)
    big = await watch(registry, sid, "cart.total", condition="value > 100")
    await run(registry, "update_breakpoint", session_id=sid, breakpoint_id=big["id"], condition="value > ready + 7")
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert stop["hit_breakpoints"] == [big["id"]] and stop["description"].endswith("cart.total 7.25 → 10.97"), stop
    await run(registry, "update_breakpoint", session_id=sid, breakpoint_id=big["id"], enabled=False)  # kept as is

    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert stop["hit_breakpoints"] == [negative["id"]], stop  # only the write that made it negative
    assert stop["description"].endswith("cart.total 10.97 → -9.03")
    assert where(stop)[1:] == (line(PROGRAM, "// writes total"), "add")
    await run(registry, "remove_breakpoint", session_id=sid, breakpoint_id=negative["id"])

    end = await run(registry, "continue_execution", session_id=sid)  # disabled, log-only, removed: no stop
    assert end.data["state"] == "terminated", end.text
    await output_text(registry, sid, "done")

    changes = await run(registry, "get_output", session_id=sid, category="changes")
    lines = [e["text"] for e in changes.data["entries"]]
    assert len(lines) == 3 and big["id"] in lines[0], lines  # the stops and the logged change, nothing else
    lines = lines[1:]
    assert (
        f"{negative['id']} cart.total 10.97 → -9.03  at {PROGRAM}:{line(PROGRAM, '// writes total')} in add" in lines[0]
    )
    assert "(stopped)" in lines[0]
    writes_host = line(PROGRAM, "// writes host")
    logged_line = f"""{logged["id"]} cache.get('host') "localhost" → "db.internal"  at {PROGRAM}:{writes_host}"""
    assert logged_line in lines[1] and "[main]" in lines[1] and "(stopped)" not in lines[1], lines
    text, mime = await read_for_agent(hub, f"debug://sessions/{sid}/changes")
    assert mime == "text/plain" and text.startswith("# 3 changes") and logged_line in text, text


@pytest.mark.parametrize("runtime", ["node", "bun"])
async def test_steps_from_a_data_stop_stay_in_the_program(registry, runtime):
    sid = await paused_at_ready(registry, runtime)
    await watch(registry, sid, "cart.total")
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert where(stop)[1] == line(PROGRAM, "// writes total")
    places = []
    for _ in range(5):  # out of add, over the other instance's write, round the loop, into add again
        stepped = stop_of(await run(registry, "step_into", session_id=sid))
        assert stepped["reason"] == "step" and helper_free(stepped), stepped
        places.append(where(stepped))
    # (JavaScriptCore's step back out of the setter pauses once more on the writing statement, where V8 goes on to
    # the function's end)
    first = line(PROGRAM, "// writes total") + (1 if runtime == "node" else 0)
    assert places == [
        (PROGRAM, first, "add"),
        (PROGRAM, line(PROGRAM, "// another instance"), "main"),
        (PROGRAM, line(PROGRAM, "for (const price"), "main"),
        (PROGRAM, line(PROGRAM, "    add(cart, price)"), "main"),
        (PROGRAM, line(PROGRAM, "// writes total"), "add"),
    ], places
    # stepping over the watched write itself: the stop of the change comes first, at the same statement
    stop = stop_of(await run(registry, "step_over", session_id=sid))
    assert stop["reason"] == "data breakpoint" and where(stop)[1] == line(PROGRAM, "// writes total"), stop
    stepped = stop_of(await run(registry, "step_over", session_id=sid))
    if runtime == "bun":  # the end of the writing statement first (see above), said as such; JSC has no stop at
        # the function's closing brace: the next step is back in main
        assert where(stepped)[1] == line(PROGRAM, "// writes total"), stepped
        assert "now at column" in stepped["description"], stepped
        stepped = stop_of(await run(registry, "step_over", session_id=sid))
        assert stepped["reason"] == "step" and where(stepped)[1:] == (line(PROGRAM, "// another instance"), "main")
    else:
        assert stepped["reason"] == "step" and where(stepped)[1] == line(PROGRAM, "// writes total") + 1, stepped
    # out of add from the next change: back in main, at the call, with add's return value
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert stop["reason"] == "data breakpoint" and where(stop)[2] == "add", stop
    out = stop_of(await run(registry, "step_out", session_id=sid))
    assert out["reason"] == "step" and where(out)[2] == "main" and helper_free(out), out


KINDS = "data_kinds.js"


async def paused_in_kinds(registry, runtime: str = "node") -> str:
    if runtime == "js-debug":
        need_js_debug()
    how = {"backend": "dap"} if runtime == "js-debug" else {}
    stop_line = (KINDS, line(KINDS, "// stop here"))
    sid, reply = await launch(registry, "node" if runtime == "js-debug" else runtime, KINDS, stop_line, **how)
    assert where(stop_of(reply))[1] == line(KINDS, "// stop here")
    return sid


@pytest.mark.parametrize("runtime", ["node", "bun", "js-debug"])
async def test_setters_accessors_and_set_values(registry, runtime):
    """A class's setter and an own accessor keep running (the value is read back through the getter); a Set value's
    membership; a write through an inheriting object makes its own property, as before, and never stops."""
    sid = await paused_in_kinds(registry, runtime)
    balance = await watch(registry, sid, "account.balance")
    size = await watch(registry, sid, "box.size")
    raising = await watch(registry, sid, "box.size", condition="value.nope.x")  # raises: logged with the reason
    has_a = await watch(registry, sid, 'tags.has("a")')
    has_b = await watch(registry, sid, 'tags.has("b")')
    assert "membership" in has_b["watching"] and "Set" in has_b["watching"], has_b
    level = await watch(registry, sid, "proto.level")

    expected = [
        (balance, "account.balance 0 → 10", "// writes balance"),  # 10.004 rounded by the class's setter
        (size, "box.size 1 → 8", "// writes size"),  # doubled by the accessor
        (has_b, 'tags.has("b") false → true', "// adds b"),
        (has_a, 'tags.has("a") true → false', "// drops a"),
    ]
    for bp, change, marker in expected:
        stop = stop_of(await run(registry, "continue_execution", session_id=sid))
        assert stop["hit_breakpoints"] == [bp["id"]], (change, stop)
        assert stop["description"] == f"data breakpoint {bp['id']}: {change}"
        # (js-debug names the function global.main)
        assert where(stop)[1] == line(KINDS, marker) and where(stop)[2].split(".")[-1] == "main", stop
        assert helper_free(stop), stop
    for bp in (level, has_a, has_b, balance, size, raising):  # removed: each place is as it was
        await run(registry, "remove_breakpoint", session_id=sid, breakpoint_id=bp["id"])
    end = await run(registry, "continue_execution", session_id=sid)
    assert end.data["state"] == "terminated", end.text
    text = await output_text(registry, sid, "end ")
    assert 'end 200 1 5 10 b {"value":1,"writable":true,"enumerable":true,"configurable":true} size true' in text

    changes = await run(registry, "get_output", session_id=sid, category="changes")
    lines = [e["text"] for e in changes.data["entries"]]
    noted = [text for text in lines if text.split()[1] == raising["id"]]
    assert len(noted) == 1 and "condition raised TypeError" in noted[0] and "(stopped)" not in noted[0], lines


@pytest.mark.parametrize("runtime", ["node", "bun", "js-debug"])
async def test_removed_while_running_and_every_change_logged(registry, runtime):
    sid = await paused_in_kinds(registry, runtime)
    logged = await watch(registry, sid, "counter.value", log_only=True)
    late = await watch(registry, sid, "counter.value", condition="value >= 150")  # ~0.75 s after the start
    running = await run(registry, "continue_execution", session_id=sid, wait_s=0.2)
    assert running.data["state"] == "running", running.text
    await run(registry, "remove_breakpoint", session_id=sid, breakpoint_id=late["id"])  # while it runs
    end = await run(registry, "wait_for_stop", session_id=sid, timeout_s=30)
    assert end.data["state"] == "terminated", end.text  # the removed watch never stopped it
    await output_text(registry, sid, "end 200")
    entries, since, more = [], 0, True
    while more:
        page = await run(registry, "get_output", session_id=sid, category="changes", since=since)
        entries += page.data["entries"]
        since, more = page.data["next_since"], page.data["has_more"]
    olds_news = [e["text"].split(" at ")[0].split(f"{logged['id']} counter.value ")[1].strip() for e in entries]
    assert olds_news == [f"{i - 1} → {i}" for i in range(1, 201)], (len(olds_news), olds_news[-3:])
    assert all(f"{KINDS}:{line(KINDS, '// ticks')} in (anonymous)" in e["text"] for e in entries), entries[0]


def marker_line(path, marker: str) -> int:
    hits = [n for n, text in enumerate(path.read_text().splitlines(), 1) if marker in text]
    assert len(hits) == 1, f"{marker!r} occurs {len(hits)} times in {path}"
    return hits[0]


@pytest.mark.parametrize("backend", ["node", "js-debug", "bun"])
async def test_typescript_places_come_from_the_source_map(registry, tmp_path, backend):
    """tsc's output with a source map: the stop and the change-log line name the .ts file and line (js-debug keeps
    the maps it follows to itself: pairdbg reads the compiled file's own)."""
    node = need_runtime("node")
    if backend == "js-debug":
        need_js_debug()
    elif backend == "bun":
        need_runtime("bun")
    tsc = TESTS / "js" / "tsproject" / "node_modules" / "typescript" / "bin" / "tsc"
    if not tsc.is_file():
        missing_target("tests/js/tsproject/node_modules/typescript is missing: run scripts/setup-targets.sh")
    source = TESTS / "js" / "inspector" / "data_typed.ts"
    built = subprocess.run(
        [
            node,
            str(tsc),
            "--sourceMap",
            "--target",
            "es2020",
            "--module",
            "commonjs",
            "--outDir",
            str(tmp_path),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    program = tmp_path / "data_typed.js"
    ts_line = marker_line(source, "// stop here")
    reply = await run(
        registry,
        "start_debugging",
        program=str(program),
        wait_s=20,
        **({"backend": "dap", "language": "javascript"} if backend == "js-debug" else {"runtime": backend}),
    )
    sid = reply.data["session_id"]
    assert stop_of(reply)["location"]["line"] == ts_line, reply.text
    logged = await watch(registry, sid, "tally.count", log_only=True)
    stopping = await watch(registry, sid, "tally.count", condition="value > 2")
    bumps = marker_line(source, "// bumps count")
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert stop["hit_breakpoints"] == [stopping["id"]] and stop["description"].endswith("tally.count 2 → 5"), stop
    assert (stop["location"]["file"], stop["location"]["line"]) == (str(source), bumps), stop["location"]
    end = await run(registry, "continue_execution", session_id=sid)
    assert end.data["state"] == "terminated", end.text
    await output_text(registry, sid, "typed 5 true")
    changes = await run(registry, "get_output", session_id=sid, category="changes")
    lines = [e["text"] for e in changes.data["entries"] if e["text"].split()[1] == logged["id"]]
    assert len(lines) == 2 and all(f"at data_typed.ts:{bumps} in bump" in text for text in lines), lines
