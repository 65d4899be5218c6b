"""The backend factory against real Node: the language follows the program's extension when none is given, and a
runtime or backend that contradicts the language is refused (before anything starts) instead of ignored."""

from __future__ import annotations

import pytest

from pairdbg.backends.factory import language_of
from support import expect_error, stop_of
from test_inspector_node import FLOW, js, line, need_runtime, where

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]


async def test_language_of_extensions() -> None:
    for ext in (".js", ".mjs", ".cjs", ".jsx"):
        assert language_of(f"a/app{ext}") == "javascript"
    for ext in (".ts", ".mts", ".cts", ".tsx"):
        assert language_of(f"a/app{ext.upper()}") == "typescript"
    assert language_of("b.py") == "python" and language_of("script") == "python"


async def test_a_js_program_without_language_runs_on_node(hub, registry):
    need_runtime("node")
    add_body = line(FLOW, "ADD_BODY")
    program = js(FLOW)
    reply = await registry.run(
        "start_debugging", {"program": program, "breakpoints": [{"file": program, "line": add_body}]}, "agent:test"
    )
    stop = stop_of(reply)
    assert where(stop) == (FLOW, add_body, "add"), reply.text
    session = hub.get(reply.data["session_id"])
    assert session.language == "javascript" and session.backend.dialect.name == "v8"


@pytest.mark.parametrize(
    ("args", "named"),
    [
        ({"language": "python", "runtime": "node"}, "runtime='node'"),
        ({"language": "python", "backend": "inspector"}, "backend='inspector'"),
        ({"runtime": "bun", "backend": "dap"}, "backend='dap'"),
        ({"language": "typescript", "runtime": "node"}, "Node cannot run TypeScript"),
    ],
)
async def test_a_contradicting_runtime_or_backend_is_refused(hub, registry, args, named):
    err = await expect_error(registry, "start_debugging", {"program": js(FLOW), **args}, "INVALID_PARAMETERS")
    assert named in err.message, err.message
    assert hub.sessions == {}


async def test_python_attach_refuses_the_inspector_backend(hub, registry):
    err = await expect_error(
        registry, "attach", {"target": "127.0.0.1:5678", "backend": "inspector"}, "INVALID_PARAMETERS"
    )
    assert "backend='inspector'" in err.message and "python" in err.message
