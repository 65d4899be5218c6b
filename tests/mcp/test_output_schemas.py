"""outputSchema (issue 22 §2): the tools whose structured content has a stable shape declare it, generated from the
models the content passes through (mcp_bridge/results.py), so the two cannot drift. The default list declares them
only with PAIRDBG_MCP__OUTPUT_SCHEMAS (they would quadruple the list every agent pays for); the tests' servers turn
it on (support.mcp.stdio_params), so the SDK client checks every structured result of every scenario. Here a debug
session's results are also checked explicitly, call by call, against the schemas the server listed."""

from __future__ import annotations

import logging

import jsonschema
import pytest
from mcp import Client

from support.mcp import DEMO, DEMO_BP_LINE, stdio_params, text

from pairdbg.backends.hub import Hub
from pairdbg.mcp_bridge.profiles import NAMES, load
from pairdbg.mcp_bridge.results import RESULTS, lean, output_schema, structured
from pairdbg.mcp_bridge.tools import ToolList
from pairdbg.runtime import build_registry

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]


def check(schema: dict) -> None:
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object"  # MCP: structured content is an object


def for_people(schema, where: str = "") -> list[str]:
    """Keys only people read (titles, descriptions, defaults), anywhere but as a property's name."""
    if isinstance(schema, list):
        return [found for item in schema for found in for_people(item, where)]
    if not isinstance(schema, dict):
        return []
    found = [f"{where}.{key}" for key in ("title", "description", "default") if key in schema]
    for key, value in schema.items():
        if key == "properties":
            found += [f for name, sub in value.items() for f in for_people(sub, f"{where}.{name}")]
        elif key not in ("enum", "const", "required"):
            found += for_people(value, f"{where}.{key}")
    return found


async def test_every_declared_shape_is_an_object_schema() -> None:
    for name in RESULTS:
        schema = output_schema(name)
        check(schema)
        assert not for_people(schema), (name, for_people(schema))  # compact: programs read these
    for profile in NAMES:
        for spec in load(profile, Hub()).tools:
            if spec.output_schema is not None:
                check(spec.output_schema)


async def test_the_setting_declares_the_schemas_and_the_default_list_does_not() -> None:
    hub = Hub()
    registry = build_registry(hub)
    plain = ToolList(hub, registry).tools()
    declared = ToolList(hub, registry, output_schemas=True).tools()
    assert all(t.output_schema is None for t in plain)
    by_name = {t.name: t.output_schema for t in declared}
    stable = [name for name in by_name if name in RESULTS]
    assert len(stable) >= 18, stable  # every control action, stack, variables, breakpoints, output, sessions
    for name, schema in by_name.items():
        assert schema == output_schema(name), name


async def test_content_the_schema_refuses_is_refused_and_still_sent(caplog) -> None:
    schema = output_schema("step_over")
    validator = jsonschema.Draft202012Validator(schema)
    assert not list(validator.iter_errors({"session_id": "S1", "state": "running", "pending": True}))
    assert list(validator.iter_errors({"session_id": "S1", "state": "sleeping", "pending": False}))
    no_place = {"session_id": "S1", "state": "paused", "pending": False, "stop": {"state": "paused", "reason": "step"}}
    assert list(validator.iter_errors(no_place))
    # A reply the model refuses (a bug) is logged and sent as it is: the call does not fail because of it.
    with caplog.at_level(logging.WARNING, logger="pairdbg.mcp_bridge.results"):
        assert structured("step_over", no_place) == lean(no_place)
    assert "does not match its schema" in caplog.text


async def test_a_debug_session_s_results_match_the_schemas_the_server_listed() -> None:
    checked: set[str] = set()
    async with Client(stdio_params(), mode="legacy", cache=None) as client:
        schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}

        async def call(name: str, **args) -> dict:
            result = await client.call_tool(name, args)
            assert not result.is_error, f"{name}: {text(result)}"
            content = result.structured_content
            if schemas.get(name) is not None:
                jsonschema.validate(content, schemas[name])  # the SDK checked too; this says which call
                checked.add(name)
            return content

        started = await call("start_debugging", program=DEMO, breakpoints=[{"file": DEMO, "line": DEMO_BP_LINE}])
        assert started["stop"]["location"]["line"] == DEMO_BP_LINE
        await call("list_debug_sessions")
        await call("set_breakpoint", file=DEMO, line=DEMO_BP_LINE + 1)
        await call("list_breakpoints")
        await call("get_call_stack")
        await call("get_local_variables")
        await call("evaluate_expression", expression="price * qty")
        await call("step_over")
        inner = await call("step_into")
        handle = next(iter((inner["stop"].get("handles") or {}).values()), None)
        if handle is not None:
            await call("get_variables", ref=handle)
        await call("pause_execution")
        await call("continue_execution")
        await call("wait_for_stop", timeout_s=0)
        await call("get_output")
        await call("remove_breakpoint", breakpoint_id="BP2")
        await call("restart_debugging")
        await call("remove_breakpoint", breakpoint_id="BP1")
        failed = await call("continue_execution")  # the demo's own check fails: an exception stop
        assert failed["stop"]["exception"]["type"] == "AssertionError", failed
        ended = await call("continue_execution")
        assert ended["state"] in ("terminated", "running"), ended  # its end (exit code), or still ending
        await call("close_debug_session")
    expected = {
        "start_debugging", "list_debug_sessions", "set_breakpoint", "list_breakpoints", "get_call_stack",
        "get_local_variables", "evaluate_expression", "step_over", "step_into", "pause_execution",
        "continue_execution", "wait_for_stop", "get_output", "remove_breakpoint", "restart_debugging",
        "close_debug_session",
    }  # fmt: skip
    assert expected <= checked, expected - checked
