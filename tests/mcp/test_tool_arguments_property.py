"""Every tool, called with arguments generated from its input schema (and junk), answers with a structured result and
leaves the server alive (issue 13); runs against a real `pairdbg --mcp` with a paused debugpy session."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from mcp import Client
from support import line_of, prog
from support.mcp import stdio_params, text

SLEEPER = "sleeper.py"
EXAMPLES_PER_TOOL = 12
TIME_CAP_S = 45.0  # generation stops here; setup and teardown fit in the rest of the minute
CALL_TIMEOUT_S = 20.0
STRUCTURED = re.compile(r"^[A-Z][A-Z_]+: \S")

# Strings that probe the edges; the rest are drawn at random.
EDGE_TEXT = ["", "S1", "@f0", "@f99", "@v1", "@v999999", "@e1", "\x00", "a\x00b", "/", "../../etc/passwd"]
HUGE_TEXT = st.builds(lambda: "x" * 20_000)
EDGE_INT = [-1, 0, 1, 2**31 - 1, 2**31, 2**63, 10**30]
JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20)
)
# Waits are bounded so a legitimately waiting call cannot use up the test's minute.
WAIT_KEYS = {"wait_s": st.floats(0, 1), "timeout_s": st.floats(0, 1), "settle_ms": st.integers(0, 300)}


def strategy(schema: dict[str, Any], defs: dict[str, Any], key: str = "") -> st.SearchStrategy:
    if key in WAIT_KEYS:
        return WAIT_KEYS[key]
    if key == "session_id":
        return st.one_of(st.just("S1"), st.sampled_from(["S2", "S99", ""]), st.text(max_size=8))
    if "$ref" in schema:
        return strategy(defs[schema["$ref"].split("/")[-1]], defs, key)
    if "anyOf" in schema:
        return st.one_of([strategy(s, defs, key) for s in schema["anyOf"]])
    if "enum" in schema:
        return st.one_of(st.sampled_from(schema["enum"]), st.text(max_size=10))
    if "const" in schema:
        return st.just(schema["const"])
    kind = schema.get("type")
    if kind == "string":
        return st.one_of(st.sampled_from(EDGE_TEXT), HUGE_TEXT, st.text(max_size=40))
    if kind == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        return st.one_of(st.sampled_from(EDGE_INT), st.integers(low, high), st.integers(-5, 50))
    if kind == "number":
        return st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.floats(0, 5))
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        return st.lists(strategy(schema.get("items", {}), defs, key), max_size=4)
    if kind == "object" and "properties" in schema:
        return arguments(schema, defs)
    if kind == "object":
        return st.dictionaries(st.text(max_size=10), st.text(max_size=20), max_size=3)
    return JUNK


def arguments(schema: dict[str, Any], defs: dict[str, Any]) -> st.SearchStrategy:
    props = schema.get("properties", {})
    required = set(schema.get("required", []))
    fixed = {k: strategy(v, defs, k) for k, v in props.items() if k in required}
    optional = {k: strategy(v, defs, k) for k, v in props.items() if k not in required}
    plain = st.fixed_dictionaries(fixed, optional=optional)
    # now and then a junk key, or a required argument left out
    junk_key = st.builds(lambda d, k, v: {**d, k: v}, plain, st.text(min_size=1, max_size=12), JUNK)
    dropped = plain.map(lambda d: dict(list(d.items())[1:]))
    return st.one_of(plain, plain, plain, junk_key, dropped)


class Server:
    """A real `pairdbg --mcp` driven from a loop in its own thread, so hypothesis's synchronous tests can call it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.client: Client | None = None
        self.empty = ""  # a folder with no project in it, where debug_tests is sent
        self.ready = threading.Event()
        self.done: asyncio.Event | None = None
        self.task = asyncio.run_coroutine_threadsafe(self._hold(), self.loop)

    async def _hold(self) -> None:
        """Enter and leave the client in one task (anyio's cancel scopes require it)."""
        self.done = asyncio.Event()
        async with Client(stdio_params("--tools", "all"), cache=None) as client:  # every tool, listed or not
            self.client = client
            self.ready.set()
            await self.done.wait()

    def run(self, coro, timeout: float = CALL_TIMEOUT_S):
        return asyncio.run_coroutine_threadsafe(asyncio.wait_for(coro, timeout), self.loop).result(timeout + 5)

    def close(self) -> None:
        if self.done is not None:
            self.loop.call_soon_threadsafe(self.done.set)
        self.task.result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    async def ensure_paused(self, sessions: dict | None = None) -> None:
        """Keep a paused session live, so session tools reach a real target."""
        if sessions is None:
            sessions = (await self.client.call_tool("list_debug_sessions", {})).structured_content or {}
        if any(s.get("state") == "paused" for s in sessions.get("sessions", [])):
            return
        path = prog(SLEEPER)
        await self.client.call_tool(
            "start_debugging",
            {"program": path, "breakpoints": [{"file": path, "line": line_of(SLEEPER, "return n + 1")}], "wait_s": 10},
        )


@pytest.fixture
def server(proc_guard, tmp_path):
    s = Server()
    s.empty = str(tmp_path)
    try:
        assert s.ready.wait(30), "pairdbg --mcp did not start"
        s.run(s.ensure_paused(), 30)
        yield s
    finally:
        s.close()


def test_every_tool_answers_generated_arguments_with_a_structured_result(server):
    tools = server.run(server.client.list_tools()).tools
    by_name = {t.name: arguments(t.input_schema, t.input_schema.get("$defs", {})) for t in tools}
    waits = {t.name: [k for k in WAIT_KEYS if k in t.input_schema.get("properties", {})] for t in tools}
    tried: list[str] = []
    failures: list[str] = []
    slow: list[tuple[float, str]] = []
    ends = time.monotonic() + TIME_CAP_S

    settings_for = settings(
        max_examples=EXAMPLES_PER_TOOL,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )

    def call_one(name: str, args: dict[str, Any]) -> None:
        if time.monotonic() > ends:
            return
        for key in waits[name]:  # a default wait (wait_for_stop's is 30 s) would be a legitimate wait, not a hang
            args.setdefault(key, 1)
        if name == "debug_tests":  # its default folder is the server's, pairdbg's own: never run that suite here
            args["cwd"] = server.empty
        tried.append(name)
        began = time.monotonic()
        shown = f"{name}({str(args)[:200]})"
        try:
            result = server.run(server.client.call_tool(name, args))
        except Exception as exc:  # a protocol error or a hung call
            failures.append(f"{shown}: raised {exc.__class__.__name__}: {str(exc)[:200]}")
            return
        slow.append((time.monotonic() - began, name))
        body = text(result) if result.content else ""
        if result.is_error:
            code = ((result.structured_content or {}).get("error") or {}).get("code")
            if not STRUCTURED.match(body) or not code or code == "INTERNAL":
                failures.append(f"{shown}: unstructured or internal error: {body[:300]}")
        elif not isinstance(result.structured_content, dict):
            failures.append(f"{shown}: ok without structured content: {body[:200]}")
        try:
            alive = server.run(server.client.call_tool("list_debug_sessions", {}), 10)
            assert not alive.is_error
            server.run(server.ensure_paused(alive.structured_content or {}), 30)
        except Exception as exc:
            failures.append(f"{shown}: the server stopped answering: {exc!r}"[:400])
            raise

    def run_tool(name: str) -> None:
        @settings_for
        @given(by_name[name])
        def one(args):
            call_one(name, args)

        one()

    for name in sorted(by_name):  # each tool its own run, so every tool gets its share of the examples
        run_tool(name)
    print("slowest calls:", sorted(slow, reverse=True)[:8])
    print(f"\nproperty test: {len(tried)} calls over {len(set(tried))} tools, {len(failures)} failures")
    assert not failures, f"{len(failures)} of {len(tried)} calls failed:\n" + "\n".join(failures[:30])
    assert len(set(tried)) == len(tools), f"tools never tried: {sorted(set(by_name) - set(tried))}"
