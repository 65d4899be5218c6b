"""A person moving around the code from the TUI (issue 18 parts 1-4 and 10): the finder over the project, loaded files
and installed modules; go to line, search and go to symbol; breakpoints in a file the program has not loaded yet;
run to cursor and set next statement; inline values. Real debugpy and Node programs behind the real app."""

from __future__ import annotations

import textwrap
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from pairdbg.backends import queries
from pairdbg.backends.actions import Registry
from pairdbg.backends.hub import Hub
from pairdbg.backends.models import Phase
from pairdbg.tui.app import PairDbgApp
from pairdbg.tui.breakpoint_form import BreakpointForm
from pairdbg.tui.finder import Finder
from pairdbg.tui.panes import ActivityLog
from pairdbg.tui.stack import StackPane
from pairdbg.tui.source_view import SourceView
from support import until
from support.core import missing_target, require_debugpy

SIZE = (120, 40)

MAIN = """\
    def start():
        count = 3
        label = "orders"
        return count, label


    def later():
        import helper  # loaded only now: its breakpoint is set before the program has it
        return helper.double(21)


    count, label = start()
    print(label, count)
    print(later())
"""
HELPER = """\
    def double(value):
        result = value * 2
        return result


    class Box:
        def size(self):
            return 1
"""


def write(folder: Path, name: str, body: str) -> str:
    path = folder / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return str(path)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'two'\n", encoding="utf-8")
    write(tmp_path, "main.py", MAIN)
    write(tmp_path, "helper.py", HELPER)
    return tmp_path


@asynccontextmanager
async def stopped(core: tuple[Hub, Registry], program: str, line: int, **extra: Any):
    hub, registry = core
    app = PairDbgApp(hub, registry)
    async with app.run_test(size=SIZE) as pilot:
        args = {"program": program, "breakpoints": [{"file": program, "line": line}], **extra}
        reply = await registry.run("start_debugging", args, "human")
        sid = reply.data["session_id"]
        source = app.query_one(SourceView)
        await until(lambda: source.current_line == line, f"the stop at line {line}", pilot=pilot)
        yield app, pilot, hub.sessions[sid], source


async def type_in_finder(app: PairDbgApp, pilot, text: str) -> Finder:
    await until(lambda: isinstance(app.screen, Finder), "the finder", pilot=pilot)
    finder = app.screen
    assert isinstance(finder, Finder)
    await until(lambda: finder.listing is not None, "the project listing", pilot=pilot)
    for ch in text:
        await pilot.press(ch if ch != " " else "space")
    await pilot.pause()
    return finder


def note(finder: Finder) -> str:
    return str(finder.query_one("#finder-note").render())


@pytest.mark.asyncio
async def test_open_a_second_module_break_there_before_it_loads_and_come_back(core, project):
    require_debugpy()
    main, helper = str(project / "main.py"), str(project / "helper.py")
    async with stopped(core, main, 13) as (app, pilot, session, source):
        await pilot.press("ctrl+o")
        finder = await type_in_finder(app, pilot, "helpr")
        assert "of 3 files" in note(finder) and str(project) in note(finder)  # the project by its pyproject.toml
        await pilot.press("enter")
        await until(lambda: source.path == helper, "helper.py in the source pane", pilot=pilot)
        assert source.current_line is None and source.stop_line == 13  # the stop marker stays in main.py
        assert "▶" not in source.line_text(2)

        # F9 on a line of a module the program has not imported yet.
        source.set_cursor(2)
        await pilot.press("f9")
        await until(lambda: any(bp.file == helper for bp in session.breakpoints.values()), "the bp", pilot=pilot)
        bp = next(bp for bp in session.breakpoints.values() if bp.file == helper)
        assert bp.line == 2
        await until(lambda: source.line_text(2)[0] in "●○", "the gutter mark", pilot=pilot)

        # Escape goes back to the stop; a click in the gutter toggles a breakpoint there.
        await pilot.press("escape")
        assert source.path == main and source.current_line == 13
        await pilot.click(SourceView, offset=(0, 13))  # row 13 of a pane scrolled to the top: line 14
        await until(lambda: any(b.line == 14 and b.file == main for b in session.breakpoints.values()), "click")
        await pilot.click(SourceView, offset=(0, 13))
        await until(lambda: not any(b.line == 14 for b in session.breakpoints.values()), "click again")

        # Choosing the stack's frame also goes back to the stop.
        source.open_file(helper)
        stack = app.query_one(StackPane)
        stack.focus()
        stack.highlighted = 0
        await pilot.press("enter")
        await until(lambda: source.path == main and source.current_line == 13, "back through the stack", pilot=pilot)

        # The program stops in the file being read: the title stops pointing back.
        source.open_file(helper)
        assert source.border_title == "Source · helper.py (esc: back to the stop)"
        await pilot.press("f5")
        await until(lambda: source.path == helper and source.current_line == 2, "the stop in helper", pilot=pilot)
        assert session.last_stop is not None and session.last_stop.hit_breakpoints == [bp.id]
        assert source.border_title == "Source · helper.py"


@pytest.mark.asyncio
async def test_an_installed_module_opens_by_name_and_bad_names_say_why(core, project):
    require_debugpy()
    async with stopped(core, str(project / "main.py"), 13) as (app, pilot, session, source):
        await pilot.press("ctrl+o")
        finder = await type_in_finder(app, pilot, "nosuch.thing")
        await pilot.press("enter")
        await until(lambda: "no module named nosuch" in note(finder), "the unknown module's message", pilot=pilot)
        assert finder.query_one("#finder-input").value == "nosuch.thing"  # kept for editing
        assert isinstance(app.screen, Finder)

        finder.query_one("#finder-input").value = ""
        for ch in "json.decoder":
            await pilot.press(ch)
        await pilot.pause()
        await pilot.press("enter")
        await until(lambda: (source.path or "").endswith("json/decoder.py"), "json/decoder.py", pilot=pilot)
        assert source.stop_line == 13 and source.current_line is None

        # The files the program loaded are candidates too (debugpy's `modules`).
        await pilot.press("ctrl+o")
        finder = await type_in_finder(app, pilot, "zzzqqq")
        assert "no file matches 'zzzqqq'" in note(finder)


@pytest.mark.asyncio
async def test_go_to_line_search_and_symbol(core, project):
    require_debugpy()
    helper = str(project / "helper.py")
    async with stopped(core, str(project / "main.py"), 13) as (app, pilot, session, source):
        await pilot.press("colon")
        finder = await type_in_finder(app, pilot, "99")
        assert "past the end" in note(finder) and "14 lines" in note(finder)
        await pilot.press("enter")
        assert isinstance(app.screen, Finder) and finder.query_one("#finder-input").value == ":99"
        await pilot.press("backspace", "backspace", "7", "enter")
        await until(lambda: source.cursor_line == 7 and not isinstance(app.screen, Finder), "line 7", pilot=pilot)

        await pilot.press("slash")
        finder = await type_in_finder(app, pilot, "count")
        assert "lines match" in note(finder)
        await pilot.press("enter")
        await until(lambda: source.search == "count", "the search", pilot=pilot)
        first = source.cursor_line
        assert first == 2 and source.match_lines() == [2, 4, 12, 13]
        await pilot.press("n")
        assert source.cursor_line == 4
        await pilot.press("N", "N")
        assert source.cursor_line == 13  # wraps around
        style = source.get_component_rich_style("source--match")
        strip = source._render(2, 0, 80)
        assert any(seg.text == "count" and seg.style and seg.style.bgcolor == style.bgcolor for seg in strip)

        source.open_file(helper)
        await pilot.press("at")
        finder = await type_in_finder(app, pilot, "size")
        await pilot.press("enter")
        await until(lambda: source.cursor_line == 7, "Box.size", pilot=pilot)
        await pilot.press("at")
        finder = await type_in_finder(app, pilot, "zzz")
        assert "no function or class matches" in note(finder)
        await pilot.press("escape")


@pytest.mark.asyncio
async def test_breakpoint_form_checks_and_sets_a_condition(core, project):
    require_debugpy()
    main = str(project / "main.py")
    async with stopped(core, main, 13) as (app, pilot, session, source):
        source.set_cursor(14)
        await pilot.press("f21")  # shift+F9 as terminals send it
        await until(lambda: isinstance(app.screen, BreakpointForm), "the form", pilot=pilot)
        form = app.screen
        for ch in "count ==":
            await pilot.press(ch if ch != " " else "space")
        await pilot.press("enter")
        assert "does not parse" in str(form.query_one("#bp-error").render())
        assert form.query_one("#bp-condition").value == "count =="
        await pilot.press("space", "3", "tab", "x", "enter")
        assert "not a hit count" in str(form.query_one("#bp-error").render())
        await pilot.press("backspace", "2", "enter")
        await until(lambda: not isinstance(app.screen, BreakpointForm), "the form closes", pilot=pilot)
        bp = next(b for b in session.breakpoints.values() if b.line == 14)
        assert (bp.condition, bp.hit_condition) == ("count == 3", "2")


@pytest.mark.asyncio
async def test_run_to_cursor_and_set_next_statement(core, project):
    require_debugpy()
    main = str(project / "main.py")
    async with stopped(core, main, 2) as (app, pilot, session, source):
        source.set_cursor(4)
        await pilot.press("ctrl+f10")
        await until(lambda: session.last_stop is not None and session.last_stop.location.line == 4, "line 4")
        await until(lambda: not any(b.temporary for b in session.breakpoints.values()), "temporary bp removed")
        assert [b.line for b in session.breakpoints.values()] == [2]
        await until(lambda: source.current_line == 4, "the marker on line 4", pilot=pilot)

        # Inline values: the function's locals at the end of the lines that use them.
        await until(lambda: "count = 3" in source.line_text(2), "inline value of count", pilot=pilot)
        assert "label = " in source.line_text(3) and "'orders'" in source.line_text(3)
        assert "count = 3" not in source.line_text(13)  # not the module's lines: outside the function

        source.set_cursor(2)
        await pilot.press("ctrl+f22")  # ctrl+shift+F10
        await until(lambda: session.last_stop.location.line == 2 and session.last_stop.reason == "goto", "goto")
        await until(lambda: source.current_line == 2, "the marker back on line 2", pilot=pilot)
        activity = " ".join(app.query_one(ActivityLog).lines_text)
        assert "run_to_line" in activity and "goto_line" in activity  # through the registry, as an agent sees

        # Stopped elsewhere first (a breakpoint on the way): the temporary breakpoint goes all the same.
        await app.registry.run("set_breakpoint", {"session_id": session.id, "file": main, "line": 13}, "human")
        source.set_cursor(14)
        await pilot.press("ctrl+f10")
        await until(lambda: session.last_stop.location.line == 13, "the stop at the breakpoint on the way")
        await until(lambda: not any(b.temporary for b in session.breakpoints.values()), "temporary bp removed")
        assert sorted(b.line for b in session.breakpoints.values()) == [2, 13]

        # A disabled breakpoint stays in the gutter, marked, and says so on the cursor line.
        bp13 = next(b for b in session.breakpoints.values() if b.line == 13)
        args = {"session_id": session.id, "breakpoint_id": bp13.id, "enabled": False}
        await app.registry.run("update_breakpoint", args, "human")
        source.set_cursor(13)
        await until(lambda: source.line_text(13).startswith("◌"), "the disabled mark", pilot=pilot)
        assert f"{bp13.id} disabled" in source.line_text(13)


NODE_MAIN = """\
    let hits = 0;
    setTimeout(() => {
      const second = require("./second.js");
      hits = second.twice(4);
      console.log(hits);
    }, 300);
"""
NODE_SECOND = """\
    function twice(n) {
      const out = n * 2;
      return out;
    }
    module.exports = { twice };
"""


def need_runtime(backend: str, runtime: str) -> None:
    from pairdbg.backends.runtimes import TargetMissing, find_bun, find_js_debug, find_node

    try:
        find_bun() if runtime == "bun" else find_node()
        if backend == "dap":
            find_js_debug()
    except TargetMissing as exc:
        missing_target(str(exc))


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("backend", "runtime"),
    [("inspector", "node"), ("dap", "node"), ("inspector", "bun")],
    ids=["node-inspector", "node-js-debug", "bun-inspector"],
)
async def test_js_f9_in_a_second_file_before_it_loads_then_run_to_cursor(core, tmp_path, backend, runtime):
    need_runtime(backend, runtime)
    (tmp_path / "package.json").write_text('{"name": "two"}', encoding="utf-8")
    main = write(tmp_path, "main.js", NODE_MAIN)
    second = write(tmp_path, "second.js", NODE_SECOND)
    async with stopped(core, main, 2, backend=backend, runtime=runtime) as (app, pilot, session, source):
        await pilot.press("ctrl+o")
        await type_in_finder(app, pilot, "second")
        await pilot.press("enter")
        await until(lambda: source.path == second, "second.js shown", pilot=pilot)
        source.set_cursor(2)
        await pilot.press("f9")
        await until(lambda: any(b.file == second for b in session.breakpoints.values()), "the bp", pilot=pilot)
        await until(lambda: source.line_text(2)[0] in "●○", "the gutter mark", pilot=pilot)
        if source.line_text(2)[0] == "○":  # not bound yet: the reason is on the line
            assert "pending" in source.line_text(2)
        source.set_cursor(3)
        await pilot.press("ctrl+f22")  # no goto on this backend: refused with the reason
        await until(
            lambda: "goto_line: CAPABILITY_UNSUPPORTED" in " ".join(str(n.title) for n in app._notifications),
            "the refusal",
            pilot=pilot,
        )
        await pilot.press("f5")
        await until(lambda: source.path == second and source.current_line == 2, "the stop in second.js", pilot=pilot)
        assert session.phase == Phase.PAUSED
        await until(lambda: "n = 4" in source.line_text(1), "the argument's inline value", pilot=pilot)

        # Run to cursor on this backend too: a temporary breakpoint, gone once the program stops there.
        source.set_cursor(3)
        await pilot.press("ctrl+f10")
        await until(lambda: source.current_line == 3, "the stop at the cursor", pilot=pilot)
        await until(lambda: not any(b.temporary for b in session.breakpoints.values()), "temporary bp removed")
        loaded = await queries.loaded_sources(session)
        assert second in loaded and main in loaded  # what the finder lists besides the project
