"""What an agent needs to know before its first call, and what it can leave out (issue 22 §1-3): session_id inferred
when only one session can be meant (never guessed between several for a destructive action), hints on every tool,
server instructions that name the first call of each common task, and structured content that carries handles and
values without repeating the text."""

from __future__ import annotations

import json
import os
import re
import sys

import pytest
from mcp import Client, StdioServerParameters

from pairdbg.backends.hub import Hub
from pairdbg.mcp_bridge.server import instructions
from pairdbg.mcp_bridge.tools import ToolList
from pairdbg.runtime import build_registry, default_services
from pairdbg.settings import Settings
from support import expect_error, line_of, prog, start
from support.mcp import ROOT, text

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(90)]

LOOP = "loop.py"
AGENT = "agent:one"


async def test_one_live_session_needs_no_session_id(registry) -> None:
    sid, _ = await start(registry, LOOP, line_of(LOOP, "total = a + b"), actor=AGENT)
    stepped = await registry.run("step_over", {}, AGENT)
    assert stepped.data["session_id"] == sid
    assert stepped.data["stop"]["location"]["line"] == line_of(LOOP, "return total")
    local = await registry.run("get_local_variables", {}, "agent:another")  # the only one: anyone may mean it
    assert {v["name"] for v in local.data["variables"]} >= {"a", "b", "total"}


async def test_several_sessions_use_the_callers_focus_and_destructive_actions_never_guess(registry) -> None:
    mine, _ = await start(registry, LOOP, line_of(LOOP, "total = a + b"), actor=AGENT)
    theirs, _ = await start(registry, LOOP, line_of(LOOP, "return acc"), actor="human")
    stepped = await registry.run("step_over", {}, AGENT)
    assert stepped.data["session_id"] == mine
    err = await expect_error(registry, "close_debug_session", {}, "INVALID_PARAMETERS", actor=AGENT)
    assert mine in err.message and theirs in err.message and "never picks one of several" in (err.hint or "")
    assert registry.hub.get(mine).phase.value == "paused" and registry.hub.get(theirs).phase.value == "paused"
    stranger = await expect_error(registry, "get_call_stack", {}, "INVALID_PARAMETERS", actor="agent:new")
    assert "several sessions are live" in stranger.message and "pass session_id" in (stranger.hint or "")


async def test_no_session_yet_says_how_to_begin(registry) -> None:
    err = await expect_error(registry, "step_over", {}, "INVALID_PARAMETERS")
    assert err.message == "no debug session yet" and "start_debugging" in (err.hint or "")


async def test_every_tool_has_hints_and_no_required_session_id() -> None:
    hub = Hub()
    registry = build_registry(hub)
    tools = ToolList(hub, registry, "all").tools()
    for tool in tools:
        hints = tool.annotations
        assert hints is not None and hints.open_world_hint is not None, tool.name
        action = registry.actions[tool.name]
        if action.read_only:
            assert hints.read_only_hint is True, tool.name
        else:
            assert hints.destructive_hint is action.destructive, tool.name
        assert "session_id" not in tool.input_schema.get("required", []), tool.name
    by_name = {t.name: t.annotations for t in tools}
    assert by_name["close_debug_session"].destructive_hint is True
    assert by_name["attach"].open_world_hint is True and by_name["step_over"].open_world_hint is False


async def test_the_instructions_name_a_first_call_for_each_common_task_and_every_call_exists() -> None:
    hub = Hub()
    for service in default_services(hub, Settings()):
        hub.add_service(service)
    registry = build_registry(hub)
    text_ = instructions({"web", "rn"})
    assert len(text_) <= 1200, len(text_)
    first_calls = {
        "debug a script": "start_debugging",
        "failing tests": "debug_tests",
        "running program": "attach",
        "web page": "get_bridge_info",
        "React Native": "debug_health_check",
    }
    for task, tool in first_calls.items():
        line = next((line for line in text_.splitlines() if task in line), "")
        assert tool in line, f"the instructions should name {tool} for {task!r}"
    named = set(re.findall(r"\b([a-z]+(?:_[a-z]+)+)\(", text_))
    unknown = {n for n in named if n not in registry.actions}
    assert not unknown, f"the instructions name tools that do not exist: {unknown}"


async def test_structured_content_holds_handles_and_values_not_a_second_rendering() -> None:
    program = prog(LOOP)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pairdbg", "--mcp"],
        cwd=str(ROOT),
        env={**os.environ, "PAIRDBG_BRIDGE_PORT": "0", "WS_PORT": "0"},
    )
    async with Client(params, cache=None) as client:
        started = await client.call_tool(
            "start_debugging", {"program": program, "breakpoints": [{"file": program, "line": 11}]}
        )
        stepped = await client.call_tool("step_over", {})
        for result in (started, stepped):
            assert not result.is_error, text(result)
            data = result.structured_content
            stop = data["stop"]
            assert stop["location"]["file"] == program and "source" not in stop and "output_tail" not in data
            assert stop["locals"]["acc"] == "10" and stop["locals"]["i"] == "4"
            assert len(json.dumps(data, separators=(",", ":"))) <= len(text(result)), text(result)
        handle = stepped.structured_content["stop"]["handles"]["big_list"]  # set by the line stepped over
        assert handle.startswith("@v")
        expanded = await client.call_tool("get_variables", {"ref": handle, "count": 2})
        assert not expanded.is_error and expanded.structured_content["variables"][0]["value"] == "0"


async def test_a_breakpoint_aimed_by_statement_text_binds_at_that_line(registry) -> None:
    program = prog(LOOP)
    started = await registry.run(
        "start_debugging", {"program": program, "breakpoints": [{"file": LOOP, "statement": "return total"}]}, AGENT
    )
    assert started.data["stop"]["location"]["line"] == line_of(LOOP, "return total"), started.text
    placed = await registry.run("set_breakpoint", {"file": program, "statement": "print('step', i, acc)"}, AGENT)
    assert placed.data["line"] == line_of(LOOP, 'print("step", i, acc)') and placed.data["verified"], placed.text
    assert 'print("step", i, acc)' in placed.text  # the bound line's own text comes back
    nearest = await registry.run("set_breakpoint", {"file": LOOP, "statement": "acc", "line": 12}, AGENT)
    assert nearest.data["line"] == line_of(LOOP, "big_dict =") + 1 and "also on lines" in nearest.text, nearest.text
    typo = {"file": LOOP, "statement": "retrun totl"}
    missing = await expect_error(registry, "set_breakpoint", typo, "INVALID_PARAMETERS")
    assert "closest: 3: return total" in (missing.hint or ""), missing.hint


async def test_start_debugging_pauses_on_every_raised_exception_from_the_first_line(registry) -> None:
    crash = "crash.py"
    started = await registry.run("start_debugging", {"program": prog(crash), "pause_on_exceptions": "all"}, AGENT)
    stop = started.data["stop"]
    assert stop["reason"] == "exception" and stop["exception"]["type"].endswith("KeyError"), started.text
    assert stop["location"]["line"] == line_of(crash, 'raise KeyError("handled")')
    listed = await registry.run("list_breakpoints", {}, AGENT)
    assert listed.data["exception_mode"] == "all", listed.text
    restarted = await registry.run("restart_debugging", {}, AGENT)
    assert restarted.data["stop"]["exception"]["type"].endswith("KeyError"), restarted.text
