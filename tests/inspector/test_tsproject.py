"""A TypeScript project compiled by the real tsc (external maps, sourceRoot, outDir src -> dist) and real npm packages
(marked: minified, mapped to .ts sources it does not ship; semver: plain CommonJS), on the three JavaScript paths:
the inspector on Node, the inspector on Bun, and js-debug.

Breakpoints are given on the original lines at launch; they must bind and hit, also in modules that run the moment
they load (a required helper's top-level code, semver's files in node_modules). The project (tests/js/tsproject) is
installed by scripts/setup-targets.sh and compiled once per test session here, with its own pinned tsc.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from support import TESTS, missing_target, stop_of
from test_inspector_node import need_runtime, output_text, run

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(90)]

PROJECT = TESTS / "js" / "tsproject"
SRC, DIST, MODULES = PROJECT / "src", PROJECT / "dist", PROJECT / "node_modules"
PATHS = ["node", "bun", "js-debug"]
WRAPPER = {"exports", "require", "module", "__filename", "__dirname"}


def marker_line(path, marker: str) -> int:
    hits = [n for n, text in enumerate(open(path).read().splitlines(), 1) if marker in text]
    assert len(hits) == 1, f"{marker!r} occurs {len(hits)} times in {path}"
    return hits[0]


@pytest.fixture(scope="module")
def tsproject():
    """tests/js/tsproject built by its own tsc into dist/ (fresh: maps and lines match the sources)."""
    tsc = MODULES / "typescript" / "bin" / "tsc"
    missing = [p for p in ("typescript", "marked", "semver") if not (MODULES / p / "package.json").is_file()]
    if missing:
        message = f"tests/js/tsproject lacks {', '.join(missing)}: run scripts/setup-targets.sh"
        missing_target(message)
    node = need_runtime("node")
    shutil.rmtree(DIST, ignore_errors=True)
    built = subprocess.run([node, str(tsc), "-p", str(PROJECT)], capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stdout + built.stderr
    assert (DIST / "main.js.map").is_file() and (DIST / "helper.js.map").is_file()
    return PROJECT


def need_path(path: str) -> None:
    if path == "js-debug":
        from test_jsdebug import need_js_debug

        need_js_debug()
    else:
        need_runtime(path)


async def launch(registry, path: str, breakpoints: list[tuple[object, int]], **kw):
    need_path(path)
    args = {
        "program": str(DIST / "main.js"),
        "language": "javascript",
        "breakpoints": [{"file": str(file), "line": line} for file, line in breakpoints],
        "wait_s": 20,
        **kw,
    }
    if path == "js-debug":
        args["backend"] = "dap"
    else:
        args["runtime"] = path
    reply = await run(registry, "start_debugging", **args)
    return reply.data["session_id"], reply


def at(stop: dict) -> tuple[str, int]:
    return stop["location"]["file"], stop["location"]["line"]


@pytest.mark.parametrize("path", PATHS)
async def test_ts_breakpoints_given_at_launch_bind_and_hit(registry, tsproject, path):
    helper, main = SRC / "helper.ts", SRC / "main.ts"
    helper_top, describe, call = (
        marker_line(helper, "HELPER_TOP"),
        marker_line(main, "MAIN_DESCRIBE"),
        marker_line(main, "MAIN_CALL"),
    )
    # helper.ts's last line runs while main.js is still requiring it: the first stop.
    sid, reply = await launch(registry, path, [(helper, helper_top), (main, describe)])
    stop = stop_of(reply)
    assert at(stop) == (str(helper), helper_top) and stop["hit_breakpoints"] == ["BP1"], reply.text
    assert "export const loaded: Totals = total([1, 2, 3]);" in reply.text, "the window shows the .ts source"
    names = {v["name"] for v in stop["locals"]}  # the CommonJS wrapper's names are left out of the module's top
    assert "total" in names and not names & WRAPPER, reply.text
    asked = await run(registry, "get_local_variables", session_id=sid, include_special=True)
    assert {"exports", "require", "module"} <= {v["name"] for v in asked.data["variables"]}, asked.text
    source = await run(registry, "get_source_context", session_id=sid)
    assert source.data["file"] == str(helper), source.text
    assert any(r["current"] and "HELPER_TOP" in r["text"] for r in source.data["lines"]), source.text

    reply = await run(registry, "continue_execution", session_id=sid, wait_s=15)
    stop = stop_of(reply)
    assert at(stop) == (str(main), describe) and stop["hit_breakpoints"] == ["BP2"], reply.text
    assert (stop["stack"][1]["file"], stop["stack"][1]["line"]) == (str(main), call), reply.text
    listed = await run(registry, "list_breakpoints", session_id=sid)
    states = {b["id"]: (b["verified"], b["actual_line"]) for b in listed.data["breakpoints"]}
    assert states == {"BP1": (True, helper_top), "BP2": (True, describe)}, listed.text

    ended = await run(registry, "continue_execution", session_id=sid, wait_s=15)
    assert ended.data["state"] == "terminated", ended.text
    assert "nums: 3 values, sum 15 6 7.8.0 <p><em>hi</em></p> 1,4,9" in await output_text(registry, sid, "nums")


@pytest.mark.parametrize("path", PATHS)
async def test_library_frames_map_to_sources_only_the_map_holds(registry, tsproject, path):
    render = SRC / "render.ts"
    sid, reply = await launch(registry, path, [(render, marker_line(render, "RENDER_PARSE"))])
    assert stop_of(reply)["location"]["file"] == str(render), reply.text
    reply = await run(registry, "step_into", session_id=sid)
    stop = stop_of(reply)
    library = str(MODULES / "marked" / "src" / "marked.ts")
    assert stop["location"]["file"] == library, reply.text  # an absolute path, through marked's own map
    assert not os.path.exists(library), "marked does not ship its src/: the text comes from sourcesContent"
    assert "markedInstance.parse(src, opt)" in reply.text, reply.text
    # marked is minified (`function x(l,e)`): its locals go by the names its map gives them (js-debug renames them
    # itself; the inspector paths show both, `src (l)`, as the minified name is what evaluates).
    names = sorted(v["name"] for v in stop["locals"] if v["name"] not in ("this", "arguments"))
    assert [n.split(" ")[0] for n in names] == ["opt", "src"], reply.text
    if path != "js-debug":
        minified = {n: n.split("(")[1].rstrip(")") for n in names}
        shown = await run(registry, "evaluate_expression", session_id=sid, expression=minified[names[1]])
        assert shown.data["value"] == '"*hi*"', shown.text
    source = await run(registry, "get_source_context", session_id=sid)
    current = [r["text"] for r in source.data["lines"] if r["current"]]
    assert current == ["  return markedInstance.parse(src, opt);"], source.text
    await run(registry, "close_debug_session", session_id=sid)


@pytest.mark.parametrize("path", PATHS)
async def test_breakpoints_in_modules_that_run_as_they_load(registry, tsproject, path):
    """A node_modules file's top-level line, a required plain-JS helper's function called the moment it loads, and a
    node_modules function called at once from main: each must hit, in load order (Bun's issue: verified, never hit)."""
    constants = MODULES / "semver" / "internal" / "constants.js"
    eager = PROJECT / "lib" / "eager.js"
    valid = MODULES / "semver" / "functions" / "valid.js"
    lines = [
        (constants, marker_line(constants, "const MAX_LENGTH = 256")),
        (eager, marker_line(eager, "EAGER_SQUARE")),
        (valid, marker_line(valid, "const v = parse(version, options)")),
    ]
    sid, reply = await launch(registry, path, lines)
    stop = stop_of(reply)
    assert at(stop) == (str(constants), lines[0][1]) and stop["hit_breakpoints"] == ["BP1"], reply.text
    reply = await run(registry, "continue_execution", session_id=sid, wait_s=15)
    stop = stop_of(reply)
    assert at(stop) == (str(eager), lines[1][1]) and stop["hit_breakpoints"] == ["BP2"], reply.text
    assert {v["name"]: v["value"] for v in stop["locals"]}["n"] == "1", reply.text  # the first call, at load
    await run(registry, "remove_breakpoint", session_id=sid, breakpoint_id="BP2")
    reply = await run(registry, "continue_execution", session_id=sid, wait_s=15)
    stop = stop_of(reply)
    assert at(stop) == (str(valid), lines[2][1]) and stop["hit_breakpoints"] == ["BP3"], reply.text
    listed = await run(registry, "list_breakpoints", session_id=sid)
    assert all(b["verified"] for b in listed.data["breakpoints"]), listed.text
    ended = await run(registry, "continue_execution", session_id=sid, wait_s=15)
    assert ended.data["state"] == "terminated", ended.text


@pytest.mark.parametrize("path", ["node", "bun"])
async def test_ts_breakpoints_bind_where_no_project_root_says_where_the_compiled_files_are(
    registry, tsproject, tmp_path, path
):
    """The project copied where no package.json or tsconfig.json is found above the sources: the compiled file of a
    .ts is not known ahead, so the first file named like it (helper.js) is stopped before it runs, and bound."""
    copy = tmp_path / "app"
    for part in ("src", "dist", "lib"):
        shutil.copytree(PROJECT / part, copy / part)
    (copy / "node_modules").symlink_to(MODULES)
    helper = copy / "src" / "helper.ts"
    top, body = marker_line(helper, "HELPER_TOP"), marker_line(helper, "HELPER_SUM")
    need_path(path)
    reply = await run(
        registry,
        "start_debugging",
        program=str(copy / "dist" / "main.js"),
        language="javascript",
        runtime=path,
        breakpoints=[{"file": str(helper), "line": body}, {"file": str(helper), "line": top}],
        wait_s=20,
    )
    sid = reply.data["session_id"]
    stop = stop_of(reply)  # helper.ts's last line runs as the module loads, and calls total([1, 2, 3])
    assert at(stop) == (str(helper), top) and stop["hit_breakpoints"] == ["BP2"], reply.text
    reply = await run(registry, "continue_execution", session_id=sid, wait_s=15)
    stop = stop_of(reply)
    assert at(stop) == (str(helper), body) and stop["hit_breakpoints"] == ["BP1"], reply.text
    listed = await run(registry, "list_breakpoints", session_id=sid)
    assert all(b["verified"] for b in listed.data["breakpoints"]), listed.text
    await run(registry, "close_debug_session", session_id=sid)


async def test_bun_running_the_ts_sources_stops_in_es_modules_before_the_entry(registry, tsproject):
    """Bun runs src/main.ts itself: helper.ts is an ES module, evaluated (its last line too) before main.ts's first
    line, where Bun's entry stop is. Its breakpoints hit in order and the entry stop is not mistaken for one."""
    helper, main = SRC / "helper.ts", SRC / "main.ts"
    top, body, describe = (
        marker_line(helper, "HELPER_TOP"),
        marker_line(helper, "HELPER_SUM"),
        marker_line(main, "MAIN_DESCRIBE"),
    )
    need_path("bun")
    reply = await run(
        registry,
        "start_debugging",
        program=str(main),
        runtime="bun",
        breakpoints=[
            {"file": str(helper), "line": top},
            {"file": str(helper), "line": body},
            {"file": str(main), "line": describe},
        ],
        wait_s=20,
    )
    sid = reply.data["session_id"]
    stop = stop_of(reply)
    assert at(stop) == (str(helper), top) and stop["hit_breakpoints"] == ["BP1"], reply.text
    reply = await run(registry, "continue_execution", session_id=sid, wait_s=15)
    stop = stop_of(reply)
    assert at(stop) == (str(helper), body) and stop["hit_breakpoints"] == ["BP2"], reply.text
    await run(registry, "remove_breakpoint", session_id=sid, breakpoint_id="BP2")  # the loop would stop again
    reply = await run(registry, "continue_execution", session_id=sid, wait_s=15)
    stop = stop_of(reply)
    assert at(stop) == (str(main), describe) and stop["hit_breakpoints"] == ["BP3"], reply.text
    await run(registry, "close_debug_session", session_id=sid)
