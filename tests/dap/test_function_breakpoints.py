"""Function breakpoints that say what will happen (issue 19 §2), on pinned Jinja2 and PyYAML with justMyCode on.

debugpy matches a function breakpoint by a frame's bare code name, in traced code only: `yaml.safe_load` was reported
verified and never stopped. A qualified name now binds on the function's first body line (found in the program, from
its source or its imported objects) and stops there; one that cannot be found is unverified with the reason; a bare
name says what it matches. list_breakpoints counts hits and says whether the program passed a breakpoint unstopped.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
from support import line_of, prog, stop_of
from support.library_venv import library_python, site_file

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]

PROGRAM = "render_names.py"
ME = "agent:test"


def first_body_line(file: str, qualname: str) -> int:
    """The first statement after the docstring of `Class.method` or `function` in `file`, read here independently."""
    tree = ast.parse(Path(file).read_text())
    body = tree.body
    node = None
    for part in qualname.split("."):
        node = next(n for n in body if isinstance(n, ast.FunctionDef | ast.ClassDef) and n.name == part)
        body = node.body
    doc = isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
    return body[1 if doc else 0].lineno


async def listed(registry, sid: str) -> dict[str, dict]:
    reply = await registry.run("list_breakpoints", {"session_id": sid}, ME)
    return {bp["id"]: bp for bp in reply.data["breakpoints"]}


async def test_library_functions_bind_hit_and_are_counted(registry):
    python = library_python()
    yaml_init = site_file(python, "yaml")
    environment = os.path.join(os.path.dirname(site_file(python, "jinja2")), "environment.py")
    started = await registry.run(
        "start_debugging", {"program": prog(PROGRAM), "executable_path": python, "stop_on_entry": True}, ME
    )
    sid = started.data["session_id"]
    assert stop_of(started)["reason"] == "entry"

    # Before the program imported yaml: found in its source on the program's path.
    safe_load = await registry.run("set_breakpoint", {"session_id": sid, "function": "yaml.safe_load"}, ME)
    assert safe_load.data["verified"] is True, safe_load.text
    assert (safe_load.data["file"], safe_load.data["actual_line"]) == (
        yaml_init,
        first_body_line(yaml_init, "safe_load"),
    )
    missing = await registry.run("set_breakpoint", {"session_id": sid, "function": "yaml.no_such_loader"}, ME)
    assert missing.data["verified"] is False and "no_such_loader" in missing.data["message"], missing.text
    bare = await registry.run("set_breakpoint", {"session_id": sid, "function": "display_name"}, ME)
    assert "module.function" in bare.data["message"], bare.text

    stop = stop_of(await registry.run("continue_execution", {"session_id": sid}, ME))
    assert stop["hit_breakpoints"] == [safe_load.data["id"]], stop
    assert stop["location"]["file"] == yaml_init and stop["location"]["function"] == "safe_load", stop["location"]

    # After the import: found through the program's objects (jinja2.Template is re-exported from environment.py).
    render = await registry.run("set_breakpoint", {"session_id": sid, "function": "jinja2.Template.render"}, ME)
    assert render.data["verified"] is True, render.text
    assert (render.data["file"], render.data["actual_line"]) == (
        environment,
        first_body_line(environment, "Template.render"),
    )
    stops = []
    while True:
        reply = await registry.run("continue_execution", {"session_id": sid}, ME)
        if reply.data["state"] != "paused":
            break
        stops.append(reply.data["stop"])
    # Template.render runs first, then the template calls display_name once per person (the bare name matches it).
    hit = [s["hit_breakpoints"] for s in stops]
    assert hit == [[render.data["id"]], [bare.data["id"]], [bare.data["id"]]], [s["location"] for s in stops]
    assert reply.data["state"] == "terminated", reply.text

    books = await listed(registry, sid)
    assert books[safe_load.data["id"]]["hits"] == 1 and books[render.data["id"]]["hits"] == 1, books
    assert books[bare.data["id"]]["hits"] == 2, books
    assert books[safe_load.data["id"]]["passed_without_stopping"] == "no", books
    assert books[missing.data["id"]]["passed_without_stopping"] == "unknown", books
    assert books[missing.data["id"]]["verified"] is False and books[missing.data["id"]]["hits"] == 0, books
    text = (await registry.run("list_breakpoints", {"session_id": sid}, ME)).text
    assert "hits 1, passed without stopping: no" in text and "(not bound)" in text, text


async def test_a_conditional_line_breakpoint_counts_and_says_it_may_be_passed(registry):
    python = library_python()
    line = line_of(PROGRAM, "# DISPLAY")
    started = await registry.run(
        "start_debugging",
        {
            "program": prog(PROGRAM),
            "executable_path": python,
            "breakpoints": [{"file": prog(PROGRAM), "line": line, "condition": "self.first == 'Alan'"}],
        },
        ME,
    )
    sid = started.data["session_id"]
    assert {v["name"]: v["value"] for v in stop_of(started)["locals"]}["name"] == "'Turing, Alan'", started.text
    bp = (await listed(registry, sid))["BP1"]
    assert bp["hits"] == 1 and bp["passed_without_stopping"] == "unknown" and bp["passed_note"] == "conditional", bp


async def test_breakpoints_sharing_a_line_both_stop_or_say_why_not(registry):
    """A target keeps one breakpoint per line (debugpy then named neither as hit): one is sent, one with the same
    settings shares its state and its hits, one with other settings is unverified and says why."""
    loop = prog("loop.py")
    add_body = line_of("loop.py", "total = a + b")
    started = await registry.run(
        "start_debugging", {"program": loop, "breakpoints": [{"file": loop, "line": add_body}]}, ME
    )
    sid = started.data["session_id"]
    assert stop_of(started)["hit_breakpoints"] == ["BP1"]
    # The program's own module by its run name: bound through the running program's objects, onto the same line.
    same = await registry.run("set_breakpoint", {"session_id": sid, "function": "__main__.add"}, ME)
    assert same.data["verified"] is True and same.data["actual_line"] == add_body, same.text
    other = await registry.run(
        "set_breakpoint", {"session_id": sid, "file": loop, "line": add_body, "condition": "a == 99"}, ME
    )
    assert other.data["verified"] is False and "same line" in other.data["message"], other.text
    stop = stop_of(await registry.run("continue_execution", {"session_id": sid}, ME))
    assert stop["hit_breakpoints"] == ["BP1", "BP2"], stop
    books = await listed(registry, sid)
    assert (books["BP1"]["hits"], books["BP2"]["hits"], books["BP3"]["hits"]) == (2, 1, 0), books
