"""The person's panes beyond the stop view (issue 18, parts 5-9 and 11): watches shared with agents, threads and
asyncio tasks in the call stack, exception filters, the console's history, completion and multi-line input, values
edited, copied and read whole, and the stop/restart keys. Real debugpy (and one real Node) programs behind them."""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from pairdbg.backends.actions import Registry
from pairdbg.backends.hub import Hub
from support import targets
from support.targets import TargetMissing
from pairdbg.backends.models import Phase
from pairdbg.backends.samples import DEMO
from pairdbg.mcp_bridge.http import HttpMcpService
from pairdbg.tui.app import PairDbgApp
from pairdbg.tui.console import ConsoleHistory, ConsoleInput, unfinished
from pairdbg.tui.edit_prompt import EditPrompt
from pairdbg.tui.exception_filters import ExceptionFiltersPane
from pairdbg.tui.footer import FittingFooter, FooterKey
from pairdbg.tui.keys import KeysScreen
from pairdbg.tui.panes import ActivityLog, BreakpointsPane, ConsolePane
from pairdbg.tui.source_view import SourceView
from pairdbg.tui.stack import StackPane
from pairdbg.tui.value_screen import ValueScreen
from pairdbg.tui.variables import VariablesTree
from pairdbg.tui.watches import WatchesPane
from support import TESTS, line_of, missing_target, prog, until
from support.mcp import http_client

pytestmark = [pytest.mark.timeout(120)]

AGENT = "agent:test"
STOP_LINE = 13  # `total = price * qty` in orders.py: price 2.5, qty 4 at the first hit
SIZE = (160, 45)


@asynccontextmanager
async def stopped(
    core: tuple[Hub, Registry], program: str, line: int, size: tuple[int, int] = SIZE, **extra: Any
) -> AsyncIterator[tuple[PairDbgApp, Any, str]]:
    """The app with `program` started by the person (the TUI's own launch) and stopped at `line`."""
    hub, registry = core
    launch = {"program": program, "breakpoints": [{"file": program, "line": line}], **extra}
    app = PairDbgApp(hub, registry, launch=launch)
    async with app.run_test(size=size) as pilot:
        source = app.query_one(SourceView)
        await until(lambda: source.current_line == line, f"the stop at line {line}", pilot=pilot)
        sid = app.session_id
        assert sid is not None
        yield app, pilot, sid


def watch_rows(app: PairDbgApp) -> list[str]:
    pane = app.query_one(WatchesPane)
    return [str(pane.get_option_at_index(i).prompt) for i in range(pane.option_count)]


def stack_rows(app: PairDbgApp) -> list[tuple[str | None, str]]:
    pane = app.query_one(StackPane)
    return [(pane.get_option_at_index(i).id, str(pane.get_option_at_index(i).prompt)) for i in range(pane.option_count)]


def notes(app: PairDbgApp) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


def activity(app: PairDbgApp) -> list[str]:
    return app.query_one(ActivityLog).lines_text


async def type_in_prompt(app: PairDbgApp, pilot: Any, text: str, *, clear: bool = True) -> None:
    await until(lambda: isinstance(app.screen, EditPrompt), "the prompt", pilot=pilot)
    field = app.screen.query_one("#edit-input")
    if clear:
        field.value = ""
    field.insert_text_at_cursor(text)
    await pilot.press("enter")


def write(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return str(path)


# ----- 5. watches ------------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_watches_are_added_edited_removed_and_marked_when_changed(core):
    hub, registry = core
    async with stopped(core, DEMO, STOP_LINE) as (app, pilot, sid):
        session = hub.sessions[sid]
        app.query_one(WatchesPane).focus()
        await pilot.press("a")
        await type_in_prompt(app, pilot, "qty * 2")
        await until(lambda: any("qty * 2 = 8" in r for r in watch_rows(app)), "the new watch's value", pilot=pilot)

        await pilot.press("a")  # a watch that raises is kept, its error is its value
        await type_in_prompt(app, pilot, "item['name']")
        await until(
            lambda: any("item['name'] = NameError: name 'item' is not defined" in r for r in watch_rows(app)),
            "the raising watch's message",
            pilot=pilot,
        )
        assert not any("Traceback" in r for r in watch_rows(app))

        # The values follow the frame the person selects: line_total's frame has `item`.
        stack = app.query_one(StackPane)
        stack.focus()
        await pilot.press("down")
        await until(lambda: app.frame == "@f1", "frame @f1 selected", pilot=pilot)
        await until(lambda: any("item['name'] = 'bread'" in r for r in watch_rows(app)), "item in @f1", pilot=pilot)
        await pilot.press("up")
        await until(lambda: any("NameError" in r for r in watch_rows(app)), "back in @f0", pilot=pilot)

        # Edit: the second watch becomes `price`.
        pane = app.query_one(WatchesPane)
        pane.focus()
        pane.highlighted = 1
        await pilot.press("enter")  # as `e`
        await until(lambda: isinstance(app.screen, EditPrompt), "the edit prompt", pilot=pilot)
        assert app.screen.query_one("#edit-input").value == "item['name']"  # the text to edit
        await type_in_prompt(app, pilot, "price")
        await until(lambda: any("price = 2.5" in r for r in watch_rows(app)), "the edited watch", pilot=pilot)
        assert [w.expression for w in session.watches.values()] == ["qty * 2", "price"]

        # The next hit (rolls: price 0.45, qty 10): both values changed, and marked so.
        await pilot.press("f5")
        await until(lambda: session.stop_number == 2, "the second hit", pilot=pilot)
        await until(
            lambda: any("qty * 2 = 20" in r and "changed" in r for r in watch_rows(app)), "changed mark", pilot=pilot
        )
        assert any("price = 0.45" in r and "changed" in r for r in watch_rows(app))

        pane.focus()
        pane.highlighted = 0
        await pilot.press("d")
        await until(lambda: list(session.watches) == ["W2"], "W1 removed", pilot=pilot)
        await until(lambda: not any("qty * 2" in r for r in watch_rows(app)), "W1 gone from the pane", pilot=pilot)
        for action in ("add_watch", "edit_watch", "remove_watch"):
            assert any("● human" in line and action in line for line in activity(app)), action


@pytest.mark.asyncio
async def test_an_agents_watch_shows_with_its_name_and_the_persons_is_visible_to_the_agent(core):
    hub, registry = core
    async with stopped(core, DEMO, STOP_LINE) as (app, pilot, sid):
        # The agent adds a watch the way its MCP tool does: through the registry, as agent:<client>.
        await registry.run("add_watch", {"session_id": sid, "expression": "price + 1"}, AGENT)
        await until(
            lambda: any("price + 1 = 3.5" in r and f"({AGENT})" in r and "◆" in r for r in watch_rows(app)),
            "the agent's watch with its name",
            pilot=pilot,
        )
        app.query_one(WatchesPane).focus()
        await pilot.press("a")
        await type_in_prompt(app, pilot, "qty")
        await until(lambda: len(hub.sessions[sid].watches) == 2, "the person's watch", pilot=pilot)
        seen = await registry.run("list_watches", {"session_id": sid}, AGENT)
        by_expression = {w["expression"]: w for w in seen.data["watches"]}
        assert by_expression["qty"]["added_by"] == "human" and by_expression["qty"]["value"] == "4"
        assert by_expression["price + 1"]["added_by"] == AGENT
        assert "qty = 4  (added by human)" in seen.text
        assert any(f"◆ {AGENT}" in line and "add_watch" in line for line in activity(app))


@pytest.mark.asyncio
async def test_an_agent_over_mcp_and_the_person_share_one_watch_list(core, tmp_path, monkeypatch):
    """The same, end to end: a real MCP client over the TUI's own HTTP endpoint."""
    hub, registry = core
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))  # this TUI's endpoint file stays out of the user's
    http = HttpMcpService(hub, registry, "127.0.0.1", 0, publish_endpoint=False, tools="more")
    launch = {"program": DEMO, "breakpoints": [{"file": DEMO, "line": STOP_LINE}]}
    app = PairDbgApp(hub, registry, http, launch=launch)
    async with app.run_test(size=SIZE) as pilot:
        source = app.query_one(SourceView)
        await until(lambda: source.current_line == STOP_LINE and app.session_id, "the stop", pilot=pilot)
        sid = app.session_id
        async with http_client(http.url, http.token) as client:
            added = await client.call_tool("add_watch", {"session_id": sid, "expression": "qty * 3"})
            assert not added.is_error, added
            await until(
                lambda: any("qty * 3 = 12" in r and "(agent:" in r and "◆" in r for r in watch_rows(app)),
                "the MCP agent's watch, with its name, in the person's pane",
                pilot=pilot,
            )
            app.query_one(WatchesPane).focus()
            await pilot.press("a")
            await type_in_prompt(app, pilot, "price")
            await until(lambda: len(hub.sessions[sid].watches) == 2, "the person's watch", pilot=pilot)
            listed = await client.call_tool("list_watches", {"session_id": sid})
            watches = listed.structured_content["watches"]
            assert [(w["expression"], w["added_by"]) for w in watches][1] == ("price", "human")
            assert watches[0]["added_by"].startswith("agent:")


@pytest.mark.asyncio
async def test_a_variable_can_be_watched_from_the_variables_pane(core):
    async with stopped(core, DEMO, STOP_LINE) as (app, pilot, sid):
        tree = app.query_one(VariablesTree)
        await until(lambda: select_variable(tree, "qty"), "qty in the variables pane", pilot=pilot)
        tree.focus()
        await pilot.press("w")
        await until(lambda: isinstance(app.screen, EditPrompt), "the watch prompt", pilot=pilot)
        assert app.screen.query_one("#edit-input").value == "qty"
        await pilot.press("enter")
        await until(lambda: any("qty = 4" in r for r in watch_rows(app)), "qty watched", pilot=pilot)


# ----- 6. threads and tasks ------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_call_stack_shows_every_thread_and_another_threads_frame_shows_its_source_and_values(core):
    hub, _ = core
    program = prog("threads_busy.py")
    async with stopped(core, program, line_of("threads_busy.py", "# breakpoint here")) as (app, pilot, sid):
        await until(
            lambda: any(i and i.startswith("thread:") and "spinner" in t for i, t in stack_rows(app)),
            "the spinner thread in the call stack",
            pilot=pilot,
        )
        rows = stack_rows(app)
        main = next(i for i, t in rows if i and i.startswith("thread:") and "MainThread" in t)
        assert "stopped here" in dict(rows)[main] and any(i == "@f0" for i, _ in rows)
        spinner_row = next(i for i, t in rows if i and "spinner" in t)
        spinner = int(spinner_row.removeprefix("thread:"))
        stack = app.query_one(StackPane)
        stack.focus()
        stack.highlighted = [i for i, _ in rows].index(spinner_row)
        await pilot.press("enter")  # open the thread: its frames are read
        handle = f"@f{spinner}.0"
        await until(lambda: any(i == handle for i, _ in stack_rows(app)), "the spinner's frames", pilot=pilot)
        assert "spin" in dict(stack_rows(app))[handle]
        stack.highlighted = [i for i, _ in stack_rows(app)].index(handle)
        source = app.query_one(SourceView)
        await until(lambda: app.frame == handle, "the spinner's frame selected", pilot=pilot)
        await until(lambda: source.current_line == line_of("threads_busy.py", "turns += 1"), "its line", pilot=pilot)
        assert hub.focus.of("human").thread_id == spinner  # the person's focus, kept in the core
        tree = app.query_one(VariablesTree)
        await until(lambda: select_variable(tree, "turns"), "the spinner's local in the variables pane", pilot=pilot)


@pytest.mark.asyncio
async def test_asyncio_tasks_show_under_the_stopped_thread_with_where_they_wait(core):
    program = prog("tasks.py")
    async with stopped(core, program, line_of("tasks.py", "# stop here")) as (app, pilot, sid):
        stack = app.query_one(StackPane)
        await until(lambda: any(i == "tasks" for i, _ in stack_rows(app)), "the tasks' opener", pilot=pilot)
        stack.focus()
        stack.highlighted = [i for i, _ in stack_rows(app)].index("tasks")
        await pilot.press("enter")  # read on demand: a stop alone asks the debugger nothing
        await until(
            lambda: any(i == "task:0" for i, _ in stack_rows(app)), "the asyncio tasks in the call stack", pilot=pilot
        )
        rows = dict(stack_rows(app))
        texts = "\n".join(rows.values())
        assert "asyncio tasks (3)" in texts, texts
        fetcher = next(t for t in rows.values() if "fetcher" in t)
        assert "fetch tasks.py:5 → sleep" in fetcher and "awaits <Future" in fetcher
        current = next(t for t in rows.values() if "* " in t and "Task-1" in t)
        assert "running" in current
        ids = [i for i, _ in stack_rows(app)]
        stack.highlighted = ids.index(next(i for i, t in stack_rows(app) if "fetcher" in t))
        source = app.query_one(SourceView)
        await until(lambda: source.current_line == 5, "the fetcher's await in the source", pilot=pilot)
        # Opened once, the tasks are read again at the next stop.
        session = app.session
        await pilot.press("f10")
        await until(lambda: session.stop_number == 2, "the step", pilot=pilot)
        await until(lambda: any(i == "task:0" for i, _ in stack_rows(app)), "the tasks at the new stop", pilot=pilot)


@pytest.mark.asyncio
async def test_a_single_threaded_program_without_asyncio_keeps_the_plain_frame_list(core):
    hub, _ = core
    async with stopped(core, DEMO, STOP_LINE) as (app, pilot, sid):
        await until(lambda: stack_rows(app)[:1] and stack_rows(app)[0][0] == "@f0", "frames", pilot=pilot)
        await pilot.pause(0.3)
        assert not any(i and i.startswith(("thread:", "task:")) for i, _ in stack_rows(app))
        assert stack_rows(app)[-1] == ("tasks", "▸ asyncio tasks (enter lists them)")
        stack = app.query_one(StackPane)
        stack.focus()
        stack.highlighted = stack.option_count - 1
        await pilot.press("enter")
        await until(lambda: "no loop runs" in stack_rows(app)[-1][1], "no loop, said", pilot=pilot)
        # Nothing was imported into a program that never used asyncio.
        reply = await hub.sessions[sid].evaluate("'asyncio' in __import__('sys').modules", "@f0")
        assert reply.value == "False"


@pytest.mark.asyncio
async def test_l_lists_the_library_frames_just_my_code_hides_greyed_and_a_note_says_where_they_are(core):
    """Jinja2 runs three frames of its own between render_names.py's display_name and render: hidden, the stack
    says so in one dim line where they are; l lists them greyed, with handles that show their source and values."""
    from support.library_venv import library_python

    python = library_python()
    program = prog("render_names.py")
    line = line_of("render_names.py", "# DISPLAY")
    async with stopped(core, program, line, executable_path=python) as (app, pilot, sid):
        note = "┄ 3 library frames hidden (jinja2, <template>) · l lists them"
        await until(lambda: (None, note) in stack_rows(app), lambda: f"the hidden frames' note in {stack_rows(app)}")
        ids = [i for i, _ in stack_rows(app)]
        assert ids == ["@f0", None, "@f1", "@f2", "@f3", "tasks"], stack_rows(app)

        stack = app.query_one(StackPane)
        stack.focus()
        await pilot.press("l")
        await until(lambda: "@f0+3" in [i for i, _ in stack_rows(app)], "the library frames listed", pilot=pilot)
        rows = stack_rows(app)
        assert [i for i, _ in rows] == ["@f0", None, "@f0+1", "@f0+2", "@f0+3", "@f1", "@f2", "@f3", "tasks"], rows
        assert rows[1][1] == "┄ 3 library frames (jinja2, <template>) · l hides them"
        library_row = stack.get_option_at_index(4).prompt
        assert library_row.style == "dim" and "render" in library_row.plain  # Template.render, greyed
        assert str(stack.get_option_at_index(0).prompt.style) == ""

        # A library frame is a frame like any other: its source and its locals.
        stack.highlighted = 4
        tree = app.query_one(VariablesTree)
        await until(lambda: app.frame == "@f0+3", "the library frame selected", pilot=pilot)
        source = app.query_one(SourceView)
        await until(lambda: (source.path or "").endswith("jinja2/environment.py"), "its source", pilot=pilot)
        await until(
            lambda: any(str(n.label).startswith("self = ") for n in tree.root.children[0].children),
            "its locals",
            pilot=pilot,
        )

        await pilot.press("l")  # hidden again: the selected library frame gives way to the stop's frame
        await until(lambda: (None, note) in stack_rows(app), "hidden again", pilot=pilot)
        await until(lambda: app.frame == "@f0", "back at the stop's frame", pilot=pilot)
        assert "@f0+3" not in [i for i, _ in stack_rows(app)]


# ----- 7. exception filters ----------------------------------------------------------------------------------------


def filter_rows(app: PairDbgApp) -> list[str]:
    pane = app.query_one(ExceptionFiltersPane)
    return [str(pane.get_option_at_index(i).prompt) for i in range(pane.option_count)]


@pytest.mark.asyncio
async def test_debugpy_exception_filters_are_switched_in_the_breakpoints_column(core, tmp_path):
    hub, _ = core
    program = write(
        tmp_path,
        "caught.py",
        """\
        def risky():
            raise KeyError("inside")


        x = 1
        try:
            risky()
        except KeyError:
            pass
        print("done")
        """,
    )
    async with stopped(core, program, 5) as (app, pilot, sid):
        session = hub.sessions[sid]
        await until(lambda: len(filter_rows(app)) == 3, "debugpy's three filters", pilot=pilot)
        rows = filter_rows(app)
        assert rows[0].startswith("☐ Raised Exceptions") and "Break whenever any exception is raised" in rows[0]
        assert rows[1].startswith("☑ Uncaught Exceptions") and rows[2].startswith("☐ User Uncaught Exceptions")
        pane = app.query_one(ExceptionFiltersPane)
        pane.focus()
        pane.highlighted = 0
        await pilot.press("space")
        await until(lambda: filter_rows(app)[0].startswith("☑ Raised"), "raised switched on", pilot=pilot)
        assert session.breakpoints.active_exception_filters() == ["raised", "uncaught"]
        assert any("Raised Exceptions on: Break whenever any exception is raised" in n for n in notes(app))
        assert any("● human" in line and "set_exception_filters" in line for line in activity(app))
        await pilot.press("f5")  # the caught KeyError now stops the program
        await until(lambda: session.stop_number == 2 and session.last_stop.reason == "exception", "stop", pilot=pilot)
        assert session.last_stop.exception.type == "KeyError"


@pytest.mark.asyncio
async def test_node_exception_filters_and_console_completion(core, tmp_path):
    try:
        targets.find_node()
    except TargetMissing as exc:
        missing_target(str(exc))
    hub, _ = core
    program = write(
        tmp_path,
        "shop.js",
        """\
        const basket = { apples: 3, apricots: 2, bread: 1 };
        function total(b) {
          let sum = 0;
          for (const k of Object.keys(b)) sum += b[k];
          return sum; // stop here
        }
        try { JSON.parse("{"); } catch (e) { console.log("caught", e.name); }
        console.log(total(basket));
        try { JSON.parse("{"); } catch (e) { console.log("caught again"); }
        """,
    )
    async with stopped(core, program, 5) as (app, pilot, sid):
        session = hub.sessions[sid]
        assert session.backend.kind == "inspector"
        await until(lambda: len(filter_rows(app)) == 2, "the engine's two filters", pilot=pilot)
        assert filter_rows(app)[0].startswith("☐ Caught exceptions") and filter_rows(app)[1].startswith("☑ Uncaught")

        console = app.query_one(ConsoleInput)
        console.focus()
        await pilot.press(*"b.ap", "tab")  # the object's own property names
        await until(lambda: "apples" in console.completion_note, "the completions listed", pilot=pilot)
        assert console.text == "b.ap" and "apricots" in console.completion_note  # two: their common prefix
        await pilot.press(*"p", "tab")
        await until(lambda: console.text == "b.apples", "the one completion applied", pilot=pilot)
        await pilot.press("enter")
        lines = app.query_one(ConsolePane).lines_text
        await until(lambda: any(line.startswith("= 3") for line in lines), "b.apples evaluated", pilot=pilot)
        await pilot.press(*"nosuch.x", "enter")  # the program's exception, not a parameter error
        await until(
            lambda: any(line.startswith("✗ ReferenceError: nosuch is not defined") for line in lines),
            "the ReferenceError",
            pilot=pilot,
        )

        pane = app.query_one(ExceptionFiltersPane)
        pane.focus()
        pane.highlighted = 0
        await pilot.press("space")
        await until(lambda: filter_rows(app)[0].startswith("☑ Caught"), "caught exceptions on", pilot=pilot)
        await pilot.press("f5")  # the second JSON.parse throws and is caught: it stops now
        await until(lambda: session.stop_number == 2, "the caught exception's stop", pilot=pilot)
        assert session.last_stop.reason == "exception" and session.last_stop.location.line == 9


# ----- 8. console ----------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_console_history_completion_multiline_and_raised_exceptions(core, data_home):
    async with stopped(core, DEMO, STOP_LINE) as (app, pilot, sid):
        console = app.query_one(ConsoleInput)
        lines = app.query_one(ConsolePane).lines_text
        await pilot.press("ctrl+e")
        assert app.focused is console
        await pilot.press(*"qty", "enter")
        await until(lambda: "= 4  (int)" in lines, "qty", pilot=pilot)
        await pilot.press(*"1/0", "enter")
        await until(lambda: "✗ ZeroDivisionError: division by zero" in lines, "the exception", pilot=pilot)
        assert not any("INVALID_PARAMETERS" in line for line in lines)

        # A block: the `:` line continues, the body continues, an empty line runs it.
        await pilot.press(*"for i in range(2):", "enter")
        assert console.text == "for i in range(2):\n"
        await pilot.press(*"    print('row', i)", "enter")
        assert "print" in console.text  # still typing
        await pilot.press("enter")
        await until(lambda: "row 0" in lines and "row 1" in lines, "the block's output", pilot=pilot)
        assert "... for i in range(2):" not in lines and "...     print('row', i)" in lines

        # History: up walks back, down forward, and back to the (empty) draft.
        await pilot.press("up")
        assert console.text.startswith("for i in range(2):")
        await pilot.press("up")  # on the block's first line: the entry before it
        await pilot.press("up")
        assert console.text == "1/0"
        await pilot.press("down")
        assert console.text.startswith("for i")
        await pilot.press("down", "down", "down")
        assert console.text == ""

        # Tab completes from the debugger (debugpy's completions in the selected frame).
        await pilot.press(*"pri", "tab")
        note = console
        await until(lambda: "print" in note.completion_note and "price" in note.completion_note, "two", pilot=pilot)
        await pilot.press(*"ce.is_", "tab")
        await until(lambda: console.text == "price.is_integer", "completed", pilot=pilot)
        await pilot.press("tab")  # after a name tab completes (here it is whole already): focus stays
        assert app.focused is console and console.text == "price.is_integer"

    saved = [json.loads(line) for line in (data_home / "pairdbg" / "console_history.jsonl").read_text().splitlines()]
    assert saved == ["qty", "1/0", "for i in range(2):\n    print('row', i)"]
    again = ConsoleHistory()  # the next run reads them back
    assert again.back("") == "for i in range(2):\n    print('row', i)" and again.back("") == "1/0"


def test_history_is_bounded_and_a_torn_line_is_skipped(tmp_path):
    path = tmp_path / "h.jsonl"
    history = ConsoleHistory(path, limit=3)
    for n in range(5):
        history.add(f"x{n}")
    history.add("x4")  # the same as the last: not kept twice
    assert history.entries == ["x2", "x3", "x4"]
    path.write_text(path.read_text() + '"torn', encoding="utf-8")
    assert ConsoleHistory(path, limit=3).entries == ["x2", "x3", "x4"]


def test_which_lines_continue():
    assert unfinished("if x:") and unfinished("a = (1,") and unfinished("s = 'abc") and unfinished("x = 1 \\")
    assert not unfinished("x + 1") and not unfinished("f(a)[0]")
    assert unfinished("for i in r:\n    pass") and not unfinished("for i in r:\n    pass\n")


# ----- 9. variables ---------------------------------------------------------------------------------------------


def select_variable(tree: VariablesTree, name: str) -> bool:
    """Put the tree's cursor on the value called `name` (in an open node); False while it is not there (a node the
    tree has not laid out yet has no line: the cursor would stay elsewhere and the next key act there)."""
    stack = list(tree.root.children)
    while stack:
        node = stack.pop(0)
        view = node.data.view if node.data else None
        if view is not None and view.name == name:
            tree.move_cursor(node)
            return tree.cursor_node is node
        if node.is_expanded:
            stack.extend(node.children)
    return False


@pytest.mark.asyncio
async def test_a_value_is_set_in_place_and_bad_input_stays_for_editing(core):
    hub, _ = core
    async with stopped(core, DEMO, STOP_LINE) as (app, pilot, sid):
        session = hub.sessions[sid]
        tree = app.query_one(VariablesTree)
        await until(lambda: select_variable(tree, "qty"), "qty", pilot=pilot)
        tree.focus()
        await pilot.press("e")
        await until(lambda: isinstance(app.screen, EditPrompt), "the edit prompt", pilot=pilot)
        assert app.screen.query_one("#edit-input").value == "4"
        await type_in_prompt(app, pilot, "5 +")  # does not parse: said in the prompt, the text stays
        prompt = app.screen
        await until(
            lambda: "SyntaxError" in getattr(prompt, "error_text", ""),
            lambda: f"the parse error, not {getattr(prompt, 'error_text', '')!r}",
            pilot=pilot,
        )
        assert isinstance(app.screen, EditPrompt) and app.screen.query_one("#edit-input").value == "5 +"
        assert "\n" not in prompt.error_text and "Traceback" not in prompt.error_text
        await type_in_prompt(app, pilot, "5 + 6")
        await until(lambda: not isinstance(app.screen, EditPrompt), "the prompt closes", pilot=pilot)
        await until(lambda: any(str(n.label).startswith("qty = 11") for n in walk(tree)), "the new value", pilot=pilot)
        assert (await session.evaluate("qty", "@f0")).value == "11"  # in the program, not only on screen
        assert any("● human" in line and "set_variable_value" in line for line in activity(app))
        # Enter on a leaf edits it too.
        await until(lambda: select_variable(tree, "price"), "price", pilot=pilot)
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, EditPrompt), "enter edits", pilot=pilot)
        await pilot.press("escape")


@pytest.mark.asyncio
async def test_b_in_variables_sets_a_data_breakpoint_the_breakpoints_pane_lists_with_its_hits(core, tmp_path):
    hub, _ = core
    program = write(
        tmp_path,
        "cart.py",
        """\
        class Cart:
            def __init__(self):
                self.total = 0


        def add(cart, price):
            cart.total += price


        cart = Cart()
        for price in (3, 4):
            add(cart, price)
        print("total", cart.total)
        """,
    )
    async with stopped(core, program, 11) as (app, pilot, sid):
        session = hub.sessions[sid]
        tree = app.query_one(VariablesTree)
        tree.focus()
        # A module global cannot be watched on Python 3.11 (no dict watchers before 3.12): the refusal is one line
        # in the pane, nothing is set.
        await until(lambda: select_variable(tree, "cart"), "cart", pilot=pilot)
        await pilot.press("b")
        await until(lambda: "INVALID_PARAMETERS" in tree.said, "the refusal in the pane", pilot=pilot)
        assert "\n" not in tree.said and "dict watchers arrived in 3.12" in tree.said
        assert not any(bp.kind == "data" for bp in session.breakpoints.values())

        await pilot.press("enter")  # open cart, then b on its attribute
        await until(lambda: select_variable(tree, "total"), "cart.total", pilot=pilot)
        await pilot.press("b")
        await until(
            lambda: re.match(r"DB\d+ on cart\.total: stops when it changes$", tree.said),
            lambda: f"the data breakpoint said, not {tree.said}",
            pilot=pilot,
        )
        (bp,) = [bp for bp in session.breakpoints.values() if bp.kind == "data"]  # the refused one was not kept
        assert tree.said.startswith(f"{bp.id} on")
        assert bp.expression == "cart.total" and not bp.log_only and bp.set_by == "human"
        assert any("● human" in line and "set_data_breakpoint" in line and "✓" in line for line in activity(app))
        pane = app.query_one(BreakpointsPane)

        def row(bp_id: str) -> str:
            rows = [str(pane.get_option_at_index(i).prompt) for i in range(pane.option_count)]
            return next((r for r in rows if f" {bp_id} " in r), "")

        await until(lambda: row(bp.id).startswith(f"● {bp.id} cart.total  stops on write"), lambda: row(bp.id))
        assert "?" not in row(bp.id) and "hit" not in row(bp.id)
        await pilot.press("f5")  # add() writes cart.total: the program stops there, counted
        await until(lambda: session.phase == Phase.PAUSED and session.stop_number > 1, "the write's stop", pilot=pilot)
        assert session.last_stop.location.line == 7
        await until(lambda: row(bp.id).endswith("1 hit"), lambda: f"the hit in {row(bp.id)!r}", pilot=pilot)

        # Shift+B: a log-only one, on the same object reached from add()'s frame.
        await until(lambda: select_variable(tree, "cart"), "cart in add()'s frame", pilot=pilot)
        await pilot.press("enter")
        await until(lambda: select_variable(tree, "total"), "total", pilot=pilot)
        await pilot.press("B")
        await until(lambda: "logs its changes" in tree.said, "the log-only one", pilot=pilot)
        logged = next(b for b in session.breakpoints.values() if b.kind == "data" and b.id != bp.id)
        assert logged.log_only and logged.expression == "cart.total"
        await until(lambda: f"{logged.id} cart.total  logs changes" in row(logged.id), lambda: row(logged.id))


def walk(tree: VariablesTree) -> list[Any]:
    out, stack = [], list(tree.root.children)
    while stack:
        node = stack.pop(0)
        out.append(node)
        stack.extend(node.children)
    return out


@pytest.mark.asyncio
async def test_a_long_value_is_copied_whole_and_read_in_full(core, tmp_path):
    program = write(
        tmp_path,
        "long.py",
        """\
        text = "ab" * 400 + "END"
        n = len(text)
        print(n)
        """,
    )
    async with stopped(core, program, 3) as (app, pilot, sid):
        tree = app.query_one(VariablesTree)
        await until(lambda: select_variable(tree, "text"), "text", pilot=pilot)
        label = next(str(n.label) for n in walk(tree) if str(n.label).startswith("text ="))
        assert label.endswith("…  str") or "…" in label  # cut on screen, with an ellipsis
        tree.focus()
        await pilot.press("y")
        await until(lambda: app.clipboard.endswith("END'"), "the whole value on the clipboard", pilot=pilot)
        assert app.clipboard == repr("ab" * 400 + "END")
        assert any("copied text (805 characters) to the clipboard" in n for n in notes(app))
        await pilot.press("v")
        await until(lambda: isinstance(app.screen, ValueScreen), "the whole-value view", pilot=pilot)
        assert app.screen.text == repr("ab" * 400 + "END")
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, ValueScreen), "closed", pilot=pilot)


# ----- 11. stop and restart keys ------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_shift_f5_stops_ctrl_shift_f5_restarts_and_keys_after_the_end_say_so(core, tmp_path):
    hub, registry = core
    program = write(
        tmp_path,
        "short.py",
        """\
        a = 1
        b = a + 1
        print("b", b)
        """,
    )
    async with stopped(core, program, 2) as (app, pilot, sid):
        shown = {b.binding.description for b in app.active_bindings.values() if b.binding.show}
        assert {"Over", "Continue", "Stop", "Restart"} <= shown and "Pause" not in shown, shown
        conditional = {"session_id": sid, "file": program, "line": 3, "condition": "b > 1"}
        await registry.run("set_breakpoint", conditional, AGENT)
        first = hub.sessions[sid]
        await pilot.press("ctrl+shift+f5")  # the program starts again as the same session (same id)
        await until(lambda: hub.sessions.get(sid) not in (None, first), "the session restarted", pilot=pilot)
        assert app.session_id == sid
        new = hub.sessions[sid]
        await until(lambda: new.phase == Phase.PAUSED, "the restarted program stopped", pilot=pilot)
        assert sorted((b.line, b.condition) for b in new.breakpoints.values()) == [(2, None), (3, "b > 1")]
        await until(
            lambda: any("● human" in line and "restart_debugging" in line and "✓" in line for line in activity(app)),
            "the restart in the activity pane",
            pilot=pilot,
        )
        await until(lambda: any(n.startswith(f"Restart: Restarted {sid} (") for n in notes(app)), "said", pilot=pilot)

        await pilot.press("f5")  # to line 3 (its condition holds), then to the end
        await until(lambda: new.phase == Phase.PAUSED and new.last_stop.location.line == 3, "line 3", pilot=pilot)
        await pilot.press("f5")
        await until(lambda: new.phase == Phase.TERMINATED, "the end", pilot=pilot)
        await pilot.press("f10")
        await until(
            lambda: any("The program has ended (exit code 0). Restart it with ctrl+shift+F5." in n for n in notes(app)),
            "the person-words answer",
            pilot=pilot,
        )
        shown = {b.binding.description for b in app.active_bindings.values() if b.binding.show}
        assert "Restart" in shown and "Over" not in shown and "Stop" not in shown, shown

        await pilot.press("ctrl+shift+f5")  # an ended program restarts too
        await until(lambda: hub.sessions.get(sid) not in (None, new), "restarted again", pilot=pilot)
        again = app.session
        assert again is hub.sessions[sid]
        await until(lambda: again.phase == Phase.PAUSED, "stopped again", pilot=pilot)
        await pilot.press("shift+f5")
        await until(lambda: sid not in hub.sessions, "the session closed", pilot=pilot)
        assert again.phase.ended


# ----- keys: F1 lists them all, from the bindings ------------------------------------------------------------------


@pytest.mark.asyncio
async def test_f1_lists_every_key_from_the_bindings_and_fits_80x24(core):
    async with stopped(core, DEMO, STOP_LINE, size=(80, 24)) as (app, pilot, sid):
        await pilot.press("f1")
        await until(lambda: isinstance(app.screen, KeysScreen), "the keys screen", pilot=pilot)
        text = app.screen.text.plain
        for pane, key in (
            ("Watches", "Add watch"),
            ("Variables", "Whole value"),
            ("Pause on exceptions", "On/off"),
            ("Call stack", "Show/hide library frames"),
        ):
            assert pane in text and key in text, (pane, key)
        for shown in ("Restart", "Stop", "Over", "shift+enter or ctrl+j new line"):
            assert shown in text, shown
        # Keys as a person presses them: shift+f9, not the f21 some terminals send for it.
        assert "f21" not in text and "f22" not in text and "Options" in text
        box = app.screen.query_one("Vertical").region
        assert box.right <= 80 and box.bottom <= 24
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, KeysScreen), "closed", pilot=pilot)


@pytest.mark.asyncio
async def test_the_footer_at_80_columns_shows_whole_keys_and_ends_with_an_ellipsis_f1_opens(core):
    async with stopped(core, DEMO, STOP_LINE, size=(80, 24)) as (app, pilot, sid):
        footer = app.query_one(FittingFooter)
        await until(lambda: footer.query(FooterKey), "the footer's keys", pilot=pilot)
        await pilot.pause()
        keys = list(footer.query(FooterKey))
        assert keys[-1].key_display in ("…", "… f1") and keys[-1].action == "keys", [k.key_display for k in keys]
        assert all(k.region.right <= 80 and k.region.width > 0 for k in keys), [(k.key_display, k.region) for k in keys]
        shown = [k.description for k in keys[:-1]]
        assert shown[:3] == ["Pane", "Quit", "Over"] and "Restart" not in shown  # the most pressed first
        assert "Stack" in shown  # F2, the narrow layout's way to the call stack, keeps its place
        await pilot.press("f1")  # the hint's key lists the rest
        await until(lambda: isinstance(app.screen, KeysScreen), "the keys screen", pilot=pilot)
        assert "Restart" in app.screen.text.plain


@pytest.mark.asyncio
async def test_node_async_callers_show_as_their_own_segment_of_the_stack(core):
    try:
        targets.find_node()
    except TargetMissing as exc:
        missing_target(str(exc))
    program = str(TESTS / "js" / "inspector" / "async.js")
    inner = next(n for n, text in enumerate(Path(program).read_text().splitlines(), 1) if "// INNER" in text)
    async with stopped(core, program, inner) as (app, pilot, sid):
        await until(lambda: any("async callers" in t for _, t in stack_rows(app)), "the async segment", pilot=pilot)
        rows = stack_rows(app)
        texts = [t for _, t in rows]
        boundary = next(i for i, t in enumerate(texts) if "async callers" in t)
        assert rows[0][0] == "@f0" and "fetchValue" in texts[0] and boundary > 0
        assert any("outer" in t and "[async" in t for t in texts[boundary + 1 :]), texts
