"""The secret-planting test: a Python program (debugpy) and a Node program (the inspector) hold a local `password`,
an AWS-shaped key and a `TOKEN` environment value and print a `Bearer` JWT. Driven by a real MCP client over stdio,
no planted secret may reach the agent on any surface (stop report text and structured content, locals, variables,
evaluate, output, the session and output resources, the analyze_crash prompt), while `<redacted: N chars>` with the
right N does; the person (actor "human") sees the real values; PAIRDBG_AGENTS__REDACT=false turns it off."""

from __future__ import annotations

import json
import os

import pytest
from mcp import Client, StdioServerParameters

from pairdbg.backends.hub import Hub
from support import targets
from support.targets import TargetMissing
from pairdbg.runtime import build_registry
from support import TESTS, missing_target, prog, require_debugpy, until
from support.mcp import stdio_params, text

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJlLXBsYW50ZWQ"
PASSWORD = "hunter2-Secret"
AWS = "AKIAIOSFODNN7EXAMPLE"
TOKEN = "tok-9f8e7d6c5b4a3921"
PLANTED = {"PLANT_PASSWORD": PASSWORD, "PLANT_AWS": AWS, "TOKEN": TOKEN, "PLANT_JWT": JWT}
SECRETS = (PASSWORD, AWS, TOKEN, JWT, JWT.split(".")[1])
MARKS = {f"<redacted: {len(s)} chars>" for s in (PASSWORD, AWS, TOKEN, JWT)}


def program(language: str) -> tuple[str, int, str]:
    """The program, its `stop here` line and the expression that reads TOKEN from the environment."""
    if language == "python":
        require_debugpy()
        path, env_token = prog("secrets.py"), "os.environ['TOKEN']"
    else:
        try:
            targets.find_node()
        except TargetMissing as exc:
            missing_target(str(exc))
        path, env_token = str(TESTS / "js" / "secrets.js"), "process.env.TOKEN"
    with open(path) as fh:
        line = next(n for n, t in enumerate(fh, 1) if "stop here" in t)
    return path, line, env_token


def params(**env: str) -> StdioServerParameters:
    base = stdio_params()
    return StdioServerParameters(command=base.command, args=base.args, cwd=base.cwd, env={**os.environ, **env})


async def agent_surfaces(client: Client, path: str, line: int, env_token: str) -> dict[str, str]:
    """Everything the agent receives on the way through one stop, by surface."""
    seen: dict[str, str] = {}

    async def tool(name: str, label: str | None = None, **args) -> dict:
        result = await client.call_tool(name, args)
        assert not result.is_error, f"{name}: {text(result)}"
        label = label or (f"{name} {args['expression']}" if "expression" in args else name)
        seen[label] = text(result) + "\n" + json.dumps(result.structured_content)
        return result.structured_content

    started = await tool(
        "start_debugging", program=path, breakpoints=[{"file": path, "line": line}], env=PLANTED, wait_s=20
    )
    sid = started["session_id"]
    assert started["state"] == "paused", seen
    # Output travels apart from the stop event: wait until both printed lines are in before reading it.
    out = {"entries": []}

    async def printed() -> bool:
        nonlocal out
        out = (await client.call_tool("get_output", {"session_id": sid})).structured_content
        return "the password is" in "".join(e["text"] for e in out["entries"])

    await until(printed, "the program's output")
    await tool("get_output", session_id=sid)
    locals_ = await tool("get_local_variables", session_id=sid)
    handles = {v["name"]: v.get("handle") for v in locals_["variables"]}
    await tool("get_variables", "get_variables config", session_id=sid, ref=handles["config"])
    # A secret-named container keeps its handle, and its members stay hidden when it is expanded.
    members = await tool("get_variables", "get_variables credentials", session_id=sid, ref=handles["credentials"])
    assert {v["name"].strip("'\"") for v in members["variables"]} >= {"login", "code"}
    await tool("evaluate_expression", session_id=sid, expression="password")
    await tool("evaluate_expression", session_id=sid, expression=env_token)
    await tool("evaluate_expression", session_id=sid, expression="config")
    # An error that quotes a value the session already hid ("invalid literal for int(): 'hunter2-Secret'").
    bad = "int(password)" if env_token.startswith("os.") else "JSON.parse(password)"
    failed = await client.call_tool("evaluate_expression", {"session_id": sid, "expression": bad})
    assert failed.is_error, text(failed)
    seen["evaluate error"] = text(failed) + "\n" + json.dumps(failed.structured_content)
    await tool("list_debug_sessions")
    for uri in (f"debug://sessions/{sid}", f"debug://sessions/{sid}/output"):
        seen[uri] = (await client.read_resource(uri)).contents[0].text
    prompt = await client.get_prompt("analyze_crash", {"session_id": sid})
    seen["prompt analyze_crash"] = prompt.messages[0].content.text
    await tool("close_debug_session", session_id=sid)
    return seen


@pytest.mark.parametrize("language", ["python", "javascript"])
async def test_no_planted_secret_reaches_an_agent(language: str) -> None:
    path, line, env_token = program(language)
    async with Client(params(), cache=None) as client:
        seen = await agent_surfaces(client, path, line, env_token)
    leaks = [(surface, secret) for surface, body in seen.items() for secret in SECRETS if secret in body]
    assert not leaks, f"secrets reached the agent: {leaks}"
    everything = "\n".join(seen.values())
    missing = [m for m in MARKS if m not in everything]
    assert not missing, f"markers missing (wrong N?): {missing}"
    # Each surface that showed a planted value shows its marker instead (not only somewhere in the run).
    pw = f"<redacted: {len(PASSWORD)} chars>"
    for surface in (
        "start_debugging",
        "get_local_variables",
        "get_variables config",
        "get_variables credentials",
        "evaluate_expression password",
        "evaluate error",
    ):
        assert pw in seen[surface], (surface, seen[surface])
    assert f"<redacted: {len(AWS)} chars>" in seen["get_local_variables"]
    assert f"<redacted: {len(TOKEN)} chars>" in seen["get_local_variables"]
    assert f"<redacted: {len(TOKEN)} chars>" in seen[f"evaluate_expression {env_token}"]
    assert f"Bearer <redacted: {len(JWT)} chars>" in seen["get_output"]
    assert f"the password is {pw}" in seen["debug://sessions/S1/output"]
    assert pw in seen["debug://sessions/S1"] and pw in seen["prompt analyze_crash"]


async def test_the_off_setting_hands_agents_real_values() -> None:
    path, line, env_token = program("python")
    async with Client(params(PAIRDBG_AGENTS__REDACT="false"), cache=None) as client:
        seen = await agent_surfaces(client, path, line, env_token)
    everything = "\n".join(seen.values())
    assert all(secret in everything for secret in (PASSWORD, AWS, TOKEN, JWT))
    assert "<redacted" not in everything


@pytest.mark.parametrize("language", ["python", "javascript"])
async def test_the_person_sees_real_values(language: str) -> None:
    path, line, env_token = program(language)
    hub = Hub()
    registry = build_registry(hub)
    try:
        started = await registry.run(
            "start_debugging", {"program": path, "breakpoints": [{"file": path, "line": line}], "env": PLANTED}, "human"
        )
        sid = started.data["session_id"]
        mine = await registry.run("get_local_variables", {"session_id": sid}, "human")
        theirs = await registry.run("get_local_variables", {"session_id": sid}, "agent:test")
        assert PASSWORD in mine.text and AWS in mine.text and TOKEN in mine.text
        assert PASSWORD not in theirs.text and "<redacted: 14 chars>" in theirs.text
        value = await registry.run("evaluate_expression", {"session_id": sid, "expression": env_token}, "human")
        assert TOKEN in value.data["value"]
    finally:
        await hub.shutdown()
