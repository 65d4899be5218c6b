"""Bounded everywhere (issue 20): profiles and prompts keep the default surface's argument limits and its
120-character echo rule, prompt arguments are validated like tool arguments, and the mcp-debugger profile's records
have a count and size limit, so no reply grows with what an agent sends."""

from __future__ import annotations

import json

import pytest
from mcp import Client, MCPError

from pairdbg.mcp_bridge.profiles import NAMES
from pairdbg.mcp_bridge.profiles.mcp_debugger import MAX_RECORDS
from pairdbg.mcp_bridge.server import build_server

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]

BIG = "Q" * 1_000_000  # one 1 MB argument
REPLY_CHARS = 4000  # an error says what is wrong in a few lines, never the input again


def said(outcome) -> str:
    """Everything a tool call or prompt answered: the result's text, or the protocol error's message and data."""
    if isinstance(outcome, MCPError):
        return f"{outcome} {json.dumps(outcome.error.data) if outcome.error.data else ''}"
    return " ".join(getattr(block, "text", "") for block in outcome.content)


async def outcome_of(call):
    try:
        return await call
    except MCPError as exc:
        return exc


def filled(schema: dict) -> dict:
    """Every argument of a tool given: strings 1 MB long, other kinds a plain value."""
    plain = {"integer": 1, "number": 1, "boolean": False, "array": [], "object": {}}

    def kind(spec: dict) -> str | None:  # a union such as ["number", "string"]: its string, the long one
        kinds = spec.get("type")
        return ("string" if "string" in kinds else kinds[0]) if isinstance(kinds, list) else kinds

    return {
        name: BIG if kind(spec) == "string" else plain.get(kind(spec), BIG)
        for name, spec in schema.get("properties", {}).items()
    }


@pytest.mark.parametrize("profile", NAMES)
async def test_profile_errors_never_echo_a_long_argument(hub, registry, profile) -> None:
    server, notifier = build_server(hub, registry, profile=profile)
    try:
        async with Client(server) as client:
            for tool in (await client.list_tools()).tools:
                text = said(await outcome_of(client.call_tool(tool.name, filled(tool.input_schema))))
                assert len(text) <= REPLY_CHARS and BIG[:200] not in text, f"{profile} {tool.name}: {len(text)}"
            unknown = said(await outcome_of(client.call_tool(BIG, {})))
            assert len(unknown) <= REPLY_CHARS, f"{profile}: an unknown tool's name echoed ({len(unknown)} chars)"
    finally:
        notifier.close()


async def test_mcp_debugger_records_have_a_count_and_size_limit(hub, registry) -> None:
    server, notifier = build_server(hub, registry, profile="mcp-debugger")
    try:
        async with Client(server) as client:
            huge = said(await outcome_of(client.call_tool("create_debug_session", {"language": "python", "name": BIG})))
            assert len(huge) <= REPLY_CHARS and "name" in huge, huge[:300]
            name = "n" * 200
            for n in range(MAX_RECORDS):
                made = await client.call_tool("create_debug_session", {"language": "python", "name": name})
                assert not made.is_error, (n, said(made))
            over = await outcome_of(client.call_tool("create_debug_session", {"language": "python", "name": name}))
            # mcp-debugger 0.24.2 answers a failure as success:false and never sets isError
            assert json.loads(said(over))["success"] is False, said(over)
            assert not over.is_error and f"at most {MAX_RECORDS} sessions" in said(over), said(over)
            listed = said(await client.call_tool("list_debug_sessions", {}))
            assert len(listed) <= MAX_RECORDS * 1000, len(listed)
            assert json.loads(listed)["count"] == MAX_RECORDS
    finally:
        notifier.close()


@pytest.mark.parametrize("profile", [None, "webkit-inspector"])
async def test_prompt_arguments_are_validated_like_tool_arguments(hub, registry, profile) -> None:
    server, notifier = build_server(hub, registry, profile=profile)
    try:
        async with Client(server) as client:
            prompts = {p.name: p for p in (await client.list_prompts()).prompts}
            assert "investigate_condition" in prompts
            bad = [
                (BIG, {"session_id": "S1"}),  # an unknown prompt with a 1 MB name
                ("investigate_condition", {"session_id": "S1"}),  # a required argument missing
                ("investigate_condition", {"session_id": "S1", "expression": "x", "extra": "y"}),  # unknown
                ("investigate_condition", {"session_id": "S1", "expression": BIG}),  # over the expression limit
                ("investigate_condition", {"session_id": BIG, "expression": "x"}),
                ("investigate_condition", {"session_id": "S1", "expression": "a\x00b"}),
            ]
            for name, args in bad:
                outcome = await outcome_of(client.get_prompt(name, args))
                assert isinstance(outcome, MCPError), f"{name[:40]} {list(args)}: accepted"
                assert outcome.error.code == -32602 and len(said(outcome)) <= REPLY_CHARS, said(outcome)[:300]
            fine = await client.get_prompt("investigate_condition", {"session_id": "S1", "expression": "a > b"})
            assert "a > b" in fine.messages[0].content.text
    finally:
        notifier.close()


async def test_a_minified_line_is_cut_in_source_replies(hub, registry, tmp_path) -> None:
    """One 5 MB line (a minified bundle) in a source listing or a stop report is shown cut, with its length."""
    program = tmp_path / "bundle.py"
    program.write_text("x = 1\nDATA = '" + "z" * 5_000_000 + "'\ny = 2\n")
    reply = await registry.run(
        "start_debugging",
        {"program": str(program), "breakpoints": [{"file": str(program), "line": 3}], "wait_s": 15},
        "human",
    )
    assert len(reply.text) < 20_000 and len(json.dumps(reply.data)) < 40_000, len(reply.text)
    listing = await registry.run("get_source_context", {"file": str(program), "line": 2, "context": 5}, "human")
    assert len(listing.text) < 20_000 and "5000009 chars" in listing.text, len(listing.text)


async def test_an_oversized_reply_becomes_a_limit_error() -> None:
    """The last bound, for a reply no earlier limit caught: a clear LIMIT_EXCEEDED instead of megabytes."""
    from mcp.types import CallToolResult, TextContent

    from pairdbg.mcp_bridge.serving import MAX_REPLY_CHARS, bounded_result

    small = CallToolResult(content=[TextContent(text="ok")], structured_content={"a": 1})
    assert bounded_result(small) is small
    huge = CallToolResult(content=[TextContent(text="x")], structured_content={"a": "y" * (MAX_REPLY_CHARS + 1)})
    answered = bounded_result(huge)
    assert answered.is_error and answered.structured_content["error"]["code"] == "LIMIT_EXCEEDED"
    assert len(answered.content[0].text) < 400
