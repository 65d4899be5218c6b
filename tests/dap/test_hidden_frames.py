"""Stacks that say what they hide (issue 19 §3), on pinned Jinja2 with justMyCode on.

Between the program's display_name and its render, Jinja2 runs three frames of its own (runtime.call, the compiled
template's root, Template.render) that justMyCode leaves out of the stack. Every stack now says so, with handles for
them, and get_call_stack(include_library=true) lists them so their locals can be read without a restart.
"""

from __future__ import annotations

import os

import pytest
from support import line_of, prog, stop_of
from support.library_venv import library_python, site_file

from pairdbg.backends import queries

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]

PROGRAM = "render_names.py"
ME = "agent:test"
HIDDEN = "3 library frames hidden (jinja2, <template>) between @f0 and @f1"


async def stopped_in_display_name(registry, **extra):
    python = library_python()
    path = prog(PROGRAM)
    started = await registry.run(
        "start_debugging",
        {
            "program": path,
            "executable_path": python,
            "breakpoints": [{"file": path, "line": line_of(PROGRAM, "# DISPLAY")}],
            **extra,
        },
        ME,
    )
    return started.data["session_id"], started, python


async def test_the_stop_report_and_the_stack_say_what_they_hide(registry):
    sid, started, python = await stopped_in_display_name(registry)
    stop = stop_of(started)
    assert [f["function"] for f in stop["stack"]] == ["display_name", "render", "main", "<module>"]
    (group,) = stop["hidden_frames"]
    assert group["count"] == 3 and group["packages"] == ["jinja2", "<template>"], group
    assert (group["after"], group["before"]) == ("@f0", "@f1") and group["handles"] == ["@f0+1", "@f0+2", "@f0+3"]
    assert HIDDEN + " (@f0+1…@f0+3)" in started.text, started.text

    stack = await registry.run("get_call_stack", {"session_id": sid}, ME)
    assert HIDDEN + ": include_library=true lists them" in stack.text, stack.text
    assert [f["handle"] for f in stack.data["frames"]] == ["@f0", "@f1", "@f2", "@f3"]
    assert stack.data["hidden_frames"][0]["count"] == 3

    environment = os.path.join(os.path.dirname(site_file(python, "jinja2")), "environment.py")
    full = await registry.run("get_call_stack", {"session_id": sid, "include_library": True}, ME)
    frames = full.data["frames"]
    assert [(f["handle"], f["function"], f.get("library", False)) for f in frames] == [
        ("@f0", "display_name", False),
        ("@f0+1", "call", True),
        ("@f0+2", "root", True),
        ("@f0+3", "render", True),
        ("@f1", "render", False),
        ("@f2", "main", False),
        ("@f3", "<module>", False),
    ], full.text
    assert frames[3]["file"] == environment and full.data["total"] == 7
    assert "(library)" in full.text and "hidden" not in full.text

    # A hidden frame's handle reads its locals and evaluates there, with justMyCode still on.
    locals_ = await registry.run("get_local_variables", {"session_id": sid, "frame": "@f0+3"}, ME)
    names = {v["name"]: v for v in locals_.data["variables"]}
    assert names["self"]["type"] == "Template" and "people" in names["kwargs"]["value"], locals_.text
    kind = await registry.run(
        "evaluate_expression", {"session_id": sid, "frame": "@f0+3", "expression": "len(kwargs['people'])"}, ME
    )
    assert kind.data["value"] == "2"
    # The handles are the stop's: after a step they are gone, and the new stop says what it hides again.
    stepped = stop_of(await registry.run("continue_execution", {"session_id": sid}, ME))
    assert stepped["hidden_frames"][0]["count"] == 3
    session = registry.hub.sessions[sid]
    view = await queries.frame_view(session, "@f0", 50, include_library=True)
    assert [bool(f.library) for f in view.frames] == [False, True, True, True, False, False, False]
    assert view.hidden[0].text() == HIDDEN


async def test_nothing_is_hidden_with_just_my_code_off(registry):
    sid, started, _ = await stopped_in_display_name(registry, just_my_code=False)
    stop = stop_of(started)
    assert stop["hidden_frames"] == [] and "hidden" not in started.text
    assert [f["function"] for f in stop["stack"]][:5] == ["display_name", "call", "root", "render", "render"]
    full = await registry.run("get_call_stack", {"session_id": sid, "include_library": True}, ME)
    assert not any(f.get("library") for f in full.data["frames"])


async def test_frames_an_exception_unwound_are_listed_and_read(registry):
    """justMyCode stops an exception raised in the stdlib's json at the caller's line; the frames it unwound (json's,
    down to where it was raised) are named above @f0 and read like any frame, without a restart."""
    from support import start

    sid, reply = await start(registry, "lib_error.py")
    stop = stop_of(reply)
    assert stop["location"]["function"] == "load" and stop["exception"]["type"] == "JSONDecodeError"
    (group,) = stop["hidden_frames"]
    assert group["unwound"] is True and group["packages"] == ["json"] and group["before"] == "@f0", group
    assert group["handles"][-1] == "@f0-1" and group["count"] == len(group["handles"]) >= 2, group
    assert f"{group['count']} frames unwound by the exception (json) above @f0" in reply.text, reply.text

    full = await registry.run("get_call_stack", {"session_id": sid, "include_library": True}, ME)
    frames = full.data["frames"]
    assert frames[0]["function"] == "raw_decode" and frames[0]["unwound"] is True, full.text  # where it was raised
    assert [f["function"] for f in frames][group["count"] - 1 : group["count"] + 1] == ["loads", "load"]
    assert "(unwound)" in full.text
    outer = await registry.run("get_local_variables", {"session_id": sid, "frame": "@f0-1"}, ME)  # json.loads
    assert {v["name"]: v["value"] for v in outer.data["variables"]}["s"] == "'{broken'", outer.text
    raised = await registry.run(
        "evaluate_expression", {"session_id": sid, "frame": group["handles"][0], "expression": "s[idx:]"}, ME
    )
    assert raised.data["value"] == "'{broken'", raised.text


async def test_the_stop_report_shows_a_library_raise_site(registry):
    """Bad YAML read by pinned PyYAML: the ScannerError is raised deep in yaml's scanner, which justMyCode hides; the
    stop report still shows that line (±2) and its locals, marked as hidden library code, with the frame's handle."""
    from support import start

    python = library_python()
    sid, reply = await start(registry, "bad_settings.py", executable_path=python)
    stop = stop_of(reply)
    assert stop["location"]["function"] == "load_settings" and stop["exception"]["type"] == "ScannerError"
    site = stop["raise_site"]
    scanner = os.path.join(os.path.dirname(site_file(python, "yaml")), "scanner.py")
    assert (site["function"], site["file"], site["package"]) == ("fetch_more_tokens", scanner, "yaml"), site
    assert site["handle"] == stop["hidden_frames"][0]["handles"][0], site  # the innermost unwound frame
    current = [s for s in site["source"] if s["current"]]
    assert len(current) == 1 and "raise ScannerError" in current[0]["text"] and len(site["source"]) == 5, site
    assert {v["name"]: v["value"] for v in site["locals"]}["ch"] == "'\\t'", site  # the tab that broke it
    assert site["locals_total"] >= len(site["locals"]) and len(site["locals"]) <= 8
    marker = f"Raise site {site['handle']}, library code hidden by just_my_code (yaml): scanner.py:"
    assert marker in reply.text and "'\\t'" in reply.text.split(marker, 1)[1], reply.text

    # The handle reads on, like any frame.
    more = await registry.run(
        "evaluate_expression", {"session_id": sid, "frame": site["handle"], "expression": "ch"}, ME
    )
    assert more.data["value"] == "'\\t'", more.text


async def test_no_raise_site_when_it_is_shown_or_nothing_is_hidden(registry):
    from support import start

    _, own = await start(registry, "crash.py")  # raised in the program's own code: the stop is there already
    assert stop_of(own).get("raise_site") is None and "Raise site" not in own.text
    python = library_python()
    _, off = await start(registry, "bad_settings.py", executable_path=python, just_my_code=False)
    stop = stop_of(off)  # nothing hidden: the stop is at the raise itself
    assert stop["location"]["function"] == "fetch_more_tokens" and stop.get("raise_site") is None, off.text
