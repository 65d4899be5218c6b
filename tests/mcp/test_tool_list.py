"""The tool list agents pay for on every turn (issue 14 §1): its budget, lean schemas, groups that appear when a
debug-bridge page or a React Native app connects (with tools/list_changed over stdio, HTTP and the --join relay, in
both protocol generations), `--tools`, calls of unlisted tools, and list_supported_languages."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, types
from mcp.client.subscriptions import ToolsListChanged

from support import until
from support.fake_page import FakePage
from support.mcp import ROOT, http_client

from pairdbg.backends.bridge.config import BridgeConfig
from pairdbg.backends.bridge.service import BridgeService
from pairdbg.backends.hub import Hub
from pairdbg.backends.rn.config import RnConfig
from pairdbg.backends.rn.service import RnService
from support.rn_adapter import FakeAdapter
from pairdbg.mcp_bridge.http import HttpMcpService
from pairdbg.runtime import build_registry

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]

BUDGET_BYTES = 10_000
BUDGET_TOOLS = 26
BRIDGE_TOKEN = "tool-list-bridge-token-1234"
RN_TOKEN = "tool-list-rn-token-123456"
PAGE_TOOLS = {"get_bridge_info", "get_ui_tree", "find_element", "get_dom_snapshot", "click", "type_text", "navigate"}
RN_TOOLS = {"debug_health_check", "debug_list_streams", "debug_get_snapshot", "debug_query_events"}
LISTENERS = {  # every listener on a free port, with known tokens
    "PAIRDBG_BRIDGE_PORT": "0",
    "PAIRDBG_BRIDGE_TOKEN": BRIDGE_TOKEN,
    "WS_PORT": "0",
    "RN_DEBUG_TOKEN": RN_TOKEN,
}


def pairdbg(*extra: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "pairdbg", "--mcp", *extra],
        cwd=str(ROOT),
        env={**os.environ, **LISTENERS, **(env or {})},
    )


def compact(tools: list[types.Tool]) -> str:
    """The tools/list result as the client received it, in compact JSON."""
    return json.dumps(
        [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools], separators=(",", ":")
    )


# Parameters whose name, type and default say all there is (the instructions explain session ids and 1-based lines):
# a description would be paid for on every turn and say nothing more.
SELF_EXPLAINING = {
    "session_id", "args", "env", "stop_on_entry", "file", "line", "start", "count", "limit", "frame", "expression",
    "language", "wait_s", "text", "condition",
}  # fmt: skip


def schema_problems(name: str, schema: dict[str, Any], where: str = "") -> list[str]:
    """Generated titles, anyOf-null wrappers, $defs/$ref and undescribed or default-less parameters, anywhere."""
    problems = []
    for key in ("title", "$defs", "$ref"):
        if key in schema:
            problems.append(f"{name}{where}: has {key}")
    if any(option == {"type": "null"} for option in schema.get("anyOf", [])):
        problems.append(f"{name}{where}: anyOf with null")
    for prop, sub in schema.get("properties", {}).items():
        path = f"{where}.{prop}"
        if not sub.get("description") and prop not in SELF_EXPLAINING:
            problems.append(f"{name}{path}: no description")
        problems += schema_problems(name, sub, path)
    if "items" in schema:
        problems += schema_problems(name, schema["items"], f"{where}[]")
    return problems


# ----- the default list -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_default_list_is_the_debugger_within_budget(mode) -> None:
    async with Client(pairdbg(), mode=mode, cache=None) as client:
        tools = (await client.list_tools()).tools
        names = {t.name for t in tools}
        size = len(compact(tools))
        assert len(tools) <= BUDGET_TOOLS, f"{len(tools)} tools"
        assert size <= BUDGET_BYTES, f"{size} bytes of tools/list"
        assert {"start_debugging", "set_breakpoint", "step_over", "evaluate_expression", "get_variables"} <= names
        assert {"restart_debugging", "wait_for_stop", "get_output", "close_debug_session"} <= names
        assert not names & (PAGE_TOOLS | RN_TOOLS), names & (PAGE_TOOLS | RN_TOOLS)
        problems = [p for t in tools for p in schema_problems(t.name, t.input_schema)]
        assert not problems, problems
        for tool in tools:
            assert tool.description and len(tool.description) <= 120, tool.name
            assert tool.annotations is None or tool.annotations.title is None, f"{tool.name}: title twice"
        instructions = client.instructions or ""
        assert "start_debugging" in instructions
        assert "get_ui_tree" not in instructions and "debug_get_snapshot" not in instructions


async def test_optional_parameters_state_their_defaults() -> None:
    """A parameter with a real default carries it; pydantic's `null` defaults are gone (absent says the same)."""
    hub = Hub()
    registry = build_registry(hub)
    for action in registry.actions.values():
        schema = action.schema()
        for name, field in action.params.model_fields.items():
            prop = schema["properties"][name]
            if field.is_required() and name == "session_id":
                assert name not in schema.get("required", []), f"{action.name}: the registry infers session_id"
            elif field.is_required():
                assert name in schema.get("required", []), f"{action.name}.{name}"
            elif field.default is None:
                assert "default" not in prop, f"{action.name}.{name}: default null"
            else:
                default = field.default if field.default_factory is None else field.default_factory()
                assert prop.get("default") == default, f"{action.name}.{name}: default not stated"


async def test_lean_schema_keeps_what_is_meant() -> None:
    """Pure logic: a property may be named `title`; values (defaults, enums) are not schemas; nested models inline."""
    from typing import Literal

    from pydantic import BaseModel, Field

    from pairdbg.backends.actions.registry import lean_schema

    class Inner(BaseModel):
        title: str = Field(description="a field called title")

    class Params(BaseModel):
        title: str | None = Field(None, description="optional, no default")
        mode: Literal["a", "b"] | None = Field(None, description="optional enum")
        inner: list[Inner] = Field(default_factory=list, description="nested")
        meta: dict[str, str] = Field(default_factory=lambda: {"title": "kept"}, description="a default with title")
        count: int = Field(3, ge=0, le=9, description="bounded")

    schema = lean_schema(Params)
    props = schema["properties"]
    assert props["title"] == {"type": "string", "description": "optional, no default"}
    assert props["mode"] == {"enum": ["a", "b"], "type": "string", "description": "optional enum"}
    assert props["inner"]["items"]["properties"] == {"title": {"description": "a field called title", "type": "string"}}
    assert props["inner"]["default"] == [] and props["meta"]["default"] == {"title": "kept"}
    assert props["count"] == {"default": 3, "description": "bounded", "maximum": 9, "type": "integer"}
    assert "title" not in schema and "$defs" not in schema and "required" not in schema


async def test_tools_all_lists_every_group_at_once() -> None:
    async with Client(pairdbg("--tools", "all"), cache=None) as client:
        tools = (await client.list_tools()).tools
        names = {t.name for t in tools}
        assert len(tools) > BUDGET_TOOLS and names >= PAGE_TOOLS | RN_TOOLS
        assert "get_source_context" in names and "remove_watch" in names  # the "more" group
        instructions = client.instructions or ""
        assert "get_ui_tree" in instructions and "debug_get_snapshot" in instructions
        problems = [p for t in tools for p in schema_problems(t.name, t.input_schema)]
        assert not problems, problems


async def test_the_setting_lists_one_group() -> None:
    async with Client(pairdbg(env={"PAIRDBG_MCP__TOOLS": "web"}), cache=None) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert names >= PAGE_TOOLS and not names & RN_TOOLS and "remove_watch" not in names
        assert "get_ui_tree" in (client.instructions or "")


async def test_an_unknown_group_stops_pairdbg_with_the_choices() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pairdbg", "--mcp", "--tools", "rn,webz",
        cwd=ROOT, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode != 0
    assert "PAIRDBG_MCP__TOOLS" in err.decode() and "'webz'" in err.decode() and "more, rn, web" in err.decode()


async def test_unlisted_tools_answer_and_their_errors_say_how_to_list_them(tmp_path) -> None:
    async with Client(pairdbg(), cache=None) as client:
        missing = await client.call_tool("get_ui_tree", {})
        assert missing.is_error
        error = missing.structured_content["error"]
        assert error["code"] == "NOT_CONNECTED" and error["data"]["tool_group"] == "web"
        assert "--tools web" in error["hint"] and "debug-bridge page connects" in error["hint"]
        assert missing.content[0].text.startswith("NOT_CONNECTED: ") and "\nNext: " in missing.content[0].text
        # How the first page connects is answered before any page is there.
        info = await client.call_tool("get_bridge_info", {})
        assert not info.is_error and info.structured_content["token"] == BRIDGE_TOKEN
        health = await client.call_tool("debug_health_check", {})
        assert not health.is_error and health.structured_content["connected"] is False
        # A rarely used debugger tool works unlisted; a failing call says how to list it.
        (tmp_path / ".vscode").mkdir()
        (tmp_path / ".vscode" / "launch.json").write_text('{"configurations": [{"name": "demo", "type": "debugpy", '
                                                          '"request": "launch", "program": "demo.py"}]}')
        configs = await client.call_tool("list_launch_configs", {"workspace": str(tmp_path)})
        assert not configs.is_error and "demo: start_debugging" in configs.content[0].text, configs.content[0].text
        wrong = await client.call_tool("remove_watch", {"session_id": "S9", "watch_id": "W1"})
        assert wrong.is_error and wrong.structured_content["error"]["code"] == "SESSION_NOT_FOUND"
        assert "--tools more" in wrong.structured_content["error"]["hint"]
        # Strict arguments hold for listed and unlisted tools alike.
        typo = await client.call_tool("get_ui_tree", {"scopee": "@e1"})
        assert typo.is_error and "did you mean 'scope'" in typo.content[0].text


# ----- the list follows the session ---------------------------------------------------------------------------------


class Heard:
    """tools/list_changed as a client hears it: a 2025 client on its connection, a 2026 client on a listen stream."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.count = 0

    async def on_message(self, message: Any) -> None:
        if self.mode == "legacy" and isinstance(message, types.ToolListChangedNotification):
            self.count += 1

    @asynccontextmanager
    async def listening(self, client: Client) -> AsyncIterator[None]:
        if self.mode == "legacy":
            yield
            return

        async def pump(stream) -> None:
            async for event in stream:
                if isinstance(event, ToolsListChanged):
                    self.count += 1

        async with client.listen(tools_list_changed=True) as stream:
            task = asyncio.create_task(pump(stream))
            try:
                yield
            finally:
                task.cancel()


async def follow_the_session(client: Client, heard: Heard, bridge: dict[str, Any], rn_url: str) -> None:
    """A page connects, then a React Native app: each time the client hears list_changed and lists the new group."""
    names = {t.name for t in (await client.list_tools()).tools}
    assert not names & (PAGE_TOOLS | RN_TOOLS)
    page = FakePage(bridge["url"], bridge["token"])
    adapter = FakeAdapter(rn_url, RN_TOKEN)
    try:
        await page.connect()
        await until(lambda: heard.count >= 1, "tools/list_changed after a page connected", timeout=15)
        names = {t.name for t in (await client.list_tools()).tools}
        assert names >= PAGE_TOOLS and not names & RN_TOOLS
        tree = await client.call_tool("get_ui_tree", {})
        assert not tree.is_error and 'button "Greet"' in tree.content[0].text
        await adapter.connect()
        await until(lambda: heard.count >= 2, "tools/list_changed after an app connected", timeout=15)
        names = {t.name for t in (await client.list_tools()).tools}
        assert names >= PAGE_TOOLS | RN_TOOLS
        # An app or page that goes away leaves its tools listed (no flicker, no second notification).
        await page.close()
        await asyncio.sleep(0.5)
        assert {t.name for t in (await client.list_tools()).tools} >= PAGE_TOOLS | RN_TOOLS
        assert heard.count == 2
    finally:
        await page.close()
        await adapter.close()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_stdio_clients_hear_the_list_grow(mode) -> None:
    heard = Heard(mode)
    async with Client(pairdbg(), mode=mode, cache=None, message_handler=heard.on_message) as client:
        bridge = (await client.call_tool("get_bridge_info", {})).structured_content
        health = (await client.call_tool("debug_health_check", {})).structured_content
        rn_url = health["listening"]["url"]
        async with heard.listening(client):
            await follow_the_session(client, heard, bridge, rn_url)


@asynccontextmanager
async def served(tmp_path, monkeypatch) -> AsyncIterator[tuple[Hub, HttpMcpService, BridgeService, RnService]]:
    """A TUI's side in-process: a Hub with both listeners on free ports and its HTTP endpoint."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    hub = Hub()
    bridge = BridgeService(hub, BridgeConfig(port=0, token=BRIDGE_TOKEN))
    rn = RnService(hub, RnConfig(WS_PORT=0, RN_DEBUG_TOKEN=RN_TOKEN))
    hub.add_service(bridge)
    hub.add_service(rn)
    await hub.start_services()
    service = HttpMcpService(hub, build_registry(hub), "127.0.0.1", 0)
    await service.start()
    try:
        yield hub, service, bridge, rn
    finally:
        await service.stop()
        await hub.shutdown()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_http_clients_hear_the_list_grow_and_new_ones_get_the_instructions(tmp_path, monkeypatch, mode):
    heard = Heard(mode)
    async with served(tmp_path, monkeypatch) as (hub, service, bridge, rn):
        async with http_client(service.url, service.token, mode=mode, message_handler=heard.on_message) as client:
            assert "get_ui_tree" not in (client.instructions or "")
            async with heard.listening(client):
                await follow_the_session(client, heard, bridge.info(), rn.url)
        async with http_client(service.url, service.token, mode=mode) as later:
            instructions = later.instructions or ""
            assert "get_ui_tree" in instructions and "debug_get_snapshot" in instructions


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_join_relay_forwards_list_changes(tmp_path, monkeypatch, mode) -> None:
    heard = Heard(mode)
    async with served(tmp_path, monkeypatch) as (hub, service, bridge, rn):
        relay = StdioServerParameters(
            command=sys.executable,
            args=["-m", "pairdbg", "--mcp", "--join"],
            cwd=str(ROOT),
            env={**os.environ, "XDG_RUNTIME_DIR": str(tmp_path)},
        )
        async with Client(relay, mode=mode, cache=None, message_handler=heard.on_message) as client:
            async with heard.listening(client):
                await follow_the_session(client, heard, bridge.info(), rn.url)


# ----- list_supported_languages -------------------------------------------------------------------------------------


async def test_supported_languages_say_what_is_ready_per_backend() -> None:
    hub = Hub()
    reply = await build_registry(hub).run("list_supported_languages", {}, "agent:test")
    rows = {(r["language"], r["backend"]): r for r in reply.data["languages"]}
    ready = [
        ("python", "dap (debugpy)"),
        ("javascript", "inspector (node)"),
        ("javascript", "dap (js-debug on node)"),
        ("typescript", "inspector (bun)"),
    ]
    for key in ready:
        assert rows[key]["installed"] and rows[key]["install"] is None, rows[key]  # the test setup installs them
    assert {"python", "javascript", "typescript"} <= set(reply.data["ready"])
    assert any(backend.startswith("dap (lldb)") for _, backend in rows)  # adapter profiles are listed too
    assert "Ready now: " in reply.text


async def test_supported_languages_say_how_to_get_a_missing_runtime(tmp_path, monkeypatch) -> None:
    """A user with no Bun and no js-debug anywhere pairdbg looks (as in tests/install)."""
    from pairdbg.backends import runtimes

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for name in ("PAIRDBG_BUN", "PAIRDBG_JS_DEBUG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(runtimes, "ROOT", tmp_path / "no-checkout")
    monkeypatch.setenv("PATH", os.pathsep.join([os.path.dirname(runtimes.find_node()), "/usr/bin", "/bin"]))
    assert runtimes.shutil.which("bun") is None, "a bun on PATH would hide what this test checks"
    reply = await build_registry(Hub()).run("list_supported_languages", {}, "agent:test")
    rows = {(r["language"], r["backend"]): r for r in reply.data["languages"]}
    bun = rows[("typescript", "inspector (bun)")]
    assert not bun["installed"] and "pairdbg install bun" in bun["install"]
    js_debug = rows[("javascript", "dap (js-debug on node)")]
    assert not js_debug["installed"] and "pairdbg install js-debug" in js_debug["install"]
    assert rows[("javascript", "inspector (node)")]["installed"]  # JavaScript stays ready on Node
    assert "typescript" in reply.data["missing"] and "javascript" in reply.data["ready"]
    assert "typescript  inspector (bun)" in reply.text and "missing: run `pairdbg install bun`" in reply.text
