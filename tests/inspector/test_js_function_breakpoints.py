"""Function breakpoints by `module:function` on the three JavaScript paths (Node's and Bun's inspectors, js-debug).

None of them matches a function by name, so pairdbg reads the module (jsfunction.py) and binds a line breakpoint on
the function's first body line. The program is the TypeScript fixture project (tests/js/tsproject, built by its own
tsc) and the functions are in the real, pinned semver package it requires and in its own .ts sources (mapped).
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from pairdbg.backends.errors import DebugError, ErrorCode
from support import TESTS, stop_of, targets, until
from test_inspector_node import need_runtime, run
from test_tsproject import MODULES, PATHS, SRC, at, launch, marker_line, tsproject  # noqa: F401 (its fixture)

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]

FAMILY = TESTS / "js" / "jsdebug" / "family.js"  # a worker and a fork, each calling a function of its own
SEMVER = (MODULES / "semver").resolve()  # Node loads a package by its real path (npm links, symlinked folders)


def body_line(path, first_statement: str, after: str) -> int:
    """The line of `first_statement` first found after the line holding `after`."""
    lines = path.read_text().splitlines()
    start = next(n for n, text in enumerate(lines) if after in text)
    return next(n for n, text in enumerate(lines[start:], start + 1) if first_statement in text)


@pytest.mark.usefixtures("tsproject")
@pytest.mark.parametrize("path", PATHS)
async def test_function_breakpoints_bind_before_and_after_their_module_loads(registry, path):
    helper = SRC / "helper.ts"
    sid, reply = await launch(registry, path, [(helper, marker_line(helper, "HELPER_TOP"))])
    assert at(stop_of(reply)) == (str(helper), marker_line(helper, "HELPER_TOP")), reply.text

    # Before semver loads (main.ts requires it after helper.ts): a package path and a .ts function named by its path
    # in the project; neither is bound until its script loads.
    coerce_js, semver_js = SEMVER / "functions" / "coerce.js", SEMVER / "classes" / "semver.js"
    coerce = await run(registry, "set_breakpoint", session_id=sid, function="semver/functions/coerce.js:coerce")
    coerce_line = body_line(coerce_js, "if (version instanceof SemVer)", "const coerce =")
    assert (coerce.data["file"], coerce.data["actual_line"]) == (str(coerce_js), coerce_line), coerce.text
    assert coerce.data["source"] == "if (version instanceof SemVer) {", coerce.text
    assert f"coerce.js:{coerce_line}" in coerce.text, coerce.text
    assert not coerce.data["verified"] and coerce.data["message"], coerce.text  # pending (Node, Bun) or unbound
    main = SRC / "main.ts"
    describe = await run(registry, "set_breakpoint", session_id=sid, function="src/main.ts:describe")
    assert (describe.data["file"], describe.data["actual_line"]) == (str(main), marker_line(main, "MAIN_DESCRIBE"))

    # Names that cannot be found stay listed, unverified, with the reason; a malformed one is refused.
    missing = await run(registry, "set_breakpoint", session_id=sid, function="semver/functions/coerce.js:nothere")
    assert not missing.data["verified"] and "no function nothere" in missing.data["message"], missing.text
    assert "coerce" in missing.data["message"], "the reason names what the file does define"
    nomodule = await run(registry, "set_breakpoint", session_id=sid, function="no-such-package/x.js:f")
    assert not nomodule.data["verified"] and "cannot find module" in nomodule.data["message"], nomodule.text
    with pytest.raises(DebugError) as refused:
        await run(registry, "set_breakpoint", session_id=sid, function="semver/functions/coerce.js:1x")
    assert refused.value.code == ErrorCode.INVALID_PARAMETERS, refused.value

    reply = await run(registry, "continue_execution", session_id=sid, wait_s=20)
    stop = stop_of(reply)
    assert at(stop) == (str(main), marker_line(main, "MAIN_DESCRIBE")), reply.text
    assert stop["hit_breakpoints"] == [describe.data["id"]], reply.text

    reply = await run(registry, "continue_execution", session_id=sid, wait_s=20)
    stop = stop_of(reply)
    assert at(stop) == (str(coerce_js), coerce_line) and stop["hit_breakpoints"] == [coerce.data["id"]], reply.text

    # After their modules loaded (semver's index requires them all): a class method coerce() calls on its way
    # (parse -> new SemVer -> format), and valid(), which runs once coerce() has returned.
    fmt = await run(registry, "set_breakpoint", session_id=sid, function="semver/classes/semver.js:SemVer.format")
    assert fmt.data["file"] == str(semver_js) and fmt.data["verified"], fmt.text
    assert fmt.data["actual_line"] == body_line(semver_js, "this.version =", "  format () {"), fmt.text
    valid_js = SEMVER / "functions" / "valid.js"
    valid = await run(registry, "set_breakpoint", session_id=sid, function="semver/functions/valid.js:valid")
    assert valid.data["verified"], valid.text
    assert valid.data["actual_line"] == body_line(valid_js, "const v = parse(", "const valid ="), valid.text

    reply = await run(registry, "continue_execution", session_id=sid, wait_s=20)
    stop = stop_of(reply)
    assert at(stop) == (str(semver_js), fmt.data["actual_line"]), reply.text
    assert stop["hit_breakpoints"] == [fmt.data["id"]], reply.text
    reply = await run(registry, "continue_execution", session_id=sid, wait_s=20)
    stop = stop_of(reply)
    assert at(stop) == (str(valid_js), valid.data["actual_line"]), reply.text

    listed = await run(registry, "list_breakpoints", session_id=sid)
    by_id = {b["id"]: b for b in listed.data["breakpoints"]}
    for bp in (coerce, fmt, describe, valid):
        assert by_id[bp.data["id"]]["verified"] and by_id[bp.data["id"]]["hits"] == 1, listed.text
    assert not by_id[missing.data["id"]]["verified"] and by_id[missing.data["id"]]["hits"] == 0, listed.text
    await run(registry, "close_debug_session", session_id=sid)


@pytest.mark.parametrize("backend", ["inspector", "dap"])
async def test_a_fork_binds_its_parents_function_breakpoint(registry, backend):
    """A function breakpoint set in the program's session goes to its fork's session, which looks the module up where
    the program does (the fork's own name is only a URL or a process name) and stops there."""
    if backend == "dap":
        from test_jsdebug import need_js_debug

        need_js_debug()
    else:
        need_runtime("node")
    family = FAMILY
    before_fork = body_line(family, "let pending = 2;", "} else {")
    started = await run(
        registry,
        "start_debugging",
        program=str(family),
        language="javascript",
        backend=backend,
        breakpoints=[{"file": str(family), "line": before_fork}],
    )
    assert stop_of(started)["location"]["line"] == before_fork, started.text
    sid = started.data["session_id"]
    set_ = await run(registry, "set_breakpoint", session_id=sid, function="family.js:inChild")
    in_child = body_line(family, "MARK:child", "function inChild")
    assert (set_.data["file"], set_.data["actual_line"]) == (str(family), in_child), set_.text
    await run(registry, "continue_execution", session_id=sid, wait_s=0)
    hub = registry.hub

    def child():
        return next((s for s in hub.sessions.values() if s.parent is not None and s.name.find("worker") < 0), None)

    await until(
        lambda: child() is not None and child().phase.value == "paused",
        lambda: f"the fork paused: {[(s.id, s.name, s.phase.value) for s in hub.sessions.values()]}",
        timeout=30,
    )
    fork = child()
    assert fork.last_stop.location.line == in_child and fork.last_stop.hit_breakpoints == [set_.data["id"]]
    copy = fork.breakpoints[set_.data["id"]]
    assert copy.bound_file == str(family) and copy.state.verified and copy.hits == 1


async def test_an_attached_program_finds_the_module_among_its_loaded_files(registry):
    """Attached, a module path found in none of the program's folders is matched against the files the program has
    loaded (one whose path ends with it), and one it has not loaded stays unverified."""
    from test_inspector_node import JS, start_node_server

    port = targets.free_port()
    proc = await start_node_server(port)
    try:
        reply = await run(registry, "attach", target=f"127.0.0.1:{port}", language="javascript", wait_s=0)
        sid = reply.data["session_id"]
        server = JS / "server.js"
        tick = await run(registry, "set_breakpoint", session_id=sid, function="inspector/server.js:tick")
        # Node may not have run server.js yet when the attach returns: then it binds when the script loads.
        bp = registry.hub.sessions[sid].breakpoints.find(tick.data["id"])
        await until(lambda: bp.state.verified, lambda: f"the breakpoint to bind: {bp}", timeout=10)
        assert bp.bound_file == str(server), bp
        stop = stop_of(await run(registry, "wait_for_stop", session_id=sid, timeout_s=10))
        assert (stop["location"]["line"], stop["hit_breakpoints"]) == (bp.bound_line, [tick.data["id"]])
        assert server.read_text().splitlines()[bp.bound_line - 1].strip() == "count += 1; // TICK", bp
        other = await run(registry, "set_breakpoint", session_id=sid, function="elsewhere/flow.js:main")
        assert not other.data["verified"], other.text
        assert "among the files the program has loaded" in other.data["message"], other.text
        await run(registry, "close_debug_session", session_id=sid, terminate=False)
    finally:
        await targets.stop_process_group(proc)


@pytest.mark.usefixtures("tsproject")
@pytest.mark.parametrize("path", PATHS)
async def test_a_restart_binds_the_function_breakpoint_before_the_program_runs(registry, path):
    """restart_debugging sends every breakpoint with the new start: a function breakpoint is found again before the
    program's first line, so it stops in a module that has not loaded yet, under the same id with its hits."""
    main = SRC / "main.ts"
    sid, reply = await launch(registry, path, [(main, marker_line(main, "MAIN_DESCRIBE"))])
    coerce = await run(registry, "set_breakpoint", session_id=sid, function="semver/functions/coerce.js:coerce")
    await run(registry, "remove_breakpoint", session_id=sid, breakpoint_id="BP1")
    stop = stop_of(await run(registry, "continue_execution", session_id=sid, wait_s=20))
    assert stop["hit_breakpoints"] == [coerce.data["id"]], stop

    again = await run(registry, "restart_debugging", session_id=sid)
    stop = stop_of(again)
    assert at(stop) == (coerce.data["file"], coerce.data["actual_line"]), again.text
    assert stop["hit_breakpoints"] == [coerce.data["id"]], again.text
    listed = await run(registry, "list_breakpoints", session_id=sid)
    (bp,) = listed.data["breakpoints"]
    assert (bp["id"], bp["verified"], bp["hits"]) == (coerce.data["id"], True, 2), listed.text
    await run(registry, "close_debug_session", session_id=sid)


@contextlib.asynccontextmanager
async def attached_loader(registry):
    """load_on_input.js under an inspector, attached to: (its process, the session). Each line on its stdin makes it
    require lazy_mod.js and call into it. The session is let go of and the program ended afterwards."""
    node = need_runtime("node")
    program = TESTS / "js" / "inspector" / "load_on_input.js"
    port = targets.free_port()
    proc = await targets.spawn(
        [node, f"--inspect=127.0.0.1:{port}", str(program)], cwd=program.parent, stdin=asyncio.subprocess.PIPE
    )
    try:
        await targets.read_ws_url(proc.stderr, timeout=10)
        reply = await run(registry, "attach", target=f"127.0.0.1:{port}", language="javascript", wait_s=0)
        sid = reply.data["session_id"]
        yield proc, sid
        await run(registry, "close_debug_session", session_id=sid, terminate=False)
    finally:
        await targets.stop_process_group(proc)


async def call_lazy(proc) -> None:
    proc.stdin.write(b"go\n")
    await proc.stdin.drain()


async def test_an_attached_node_names_its_folder_so_a_module_binds_before_it_loads(registry):
    """Attached, pairdbg asks Node for its main file and working folder: a module next to the program is found on
    disk as for a launch, and its function's breakpoint is set before the module loads, so the first call stops."""
    lazy = TESTS / "js" / "inspector" / "lazy_mod.js"
    async with attached_loader(registry) as (proc, sid):
        bp = await run(registry, "set_breakpoint", session_id=sid, function="lazy_mod.js:compute")
        body = body_line(lazy, "const squared = n * n;", "function compute")
        assert (bp.data["file"], bp.data["actual_line"]) == (str(lazy), body), bp.text
        assert not bp.data["verified"], bp.text  # the module is not loaded yet
        await call_lazy(proc)
        stop = stop_of(await run(registry, "wait_for_stop", session_id=sid, timeout_s=10))
        assert (stop["location"]["file"], stop["location"]["line"]) == (str(lazy), body), stop
        assert stop["hit_breakpoints"] == [bp.data["id"]], stop


async def test_an_attached_program_binds_the_function_when_it_loads_the_module(registry):
    """A module found in no folder of the program is looked for among the files it loads: listed, unverified, saying
    it waits for the module (and that code running as it loads may go by); once the program requires it, the
    breakpoint binds and stops at the next call, under the same id."""
    lazy = TESTS / "js" / "inspector" / "lazy_mod.js"
    async with attached_loader(registry) as (proc, sid):
        pending = await run(registry, "set_breakpoint", session_id=sid, function="inspector/lazy_mod.js:compute")
        assert not pending.data["verified"], pending.text
        message = pending.data["message"]
        assert "pending: it binds when the program loads a file whose path ends with" in message, message
        assert "maybe after its first lines ran" in message, message

        bp = registry.hub.sessions[sid].breakpoints.find(pending.data["id"])
        await call_lazy(proc)
        await until(lambda: bp.state.verified, lambda: f"the breakpoint to bind: {bp}", timeout=10)
        assert not bp.problem and not bp.awaits_load, bp
        if registry.hub.sessions[sid].phase.value != "paused":  # the first call ran as the module was parsed
            await call_lazy(proc)
        stop = stop_of(await run(registry, "wait_for_stop", session_id=sid, timeout_s=10))
        body = body_line(lazy, "const squared = n * n;", "function compute")
        assert (stop["location"]["file"], stop["location"]["line"]) == (str(lazy), body), stop
        assert stop["hit_breakpoints"] == [pending.data["id"]], stop
