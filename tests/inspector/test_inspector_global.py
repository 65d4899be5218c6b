"""Global evaluation on a running JavaScript program, and its limits (real Node)."""

from __future__ import annotations

import pytest

from pairdbg.backends.errors import DebugError, ErrorCode


@pytest.mark.asyncio
async def test_evaluate_globally_while_running_and_by_value(registry, tmp_path) -> None:
    program = tmp_path / "g.js"
    program.write_text("globalThis.cfg = {a: 1, b: [1, 2]};\nsetInterval(() => {}, 100);\n")
    started = await registry.run(
        "start_debugging", {"program": str(program), "language": "javascript", "wait_s": 0.3}, "agent:test"
    )
    assert started.data["state"] == "running"
    preview = await registry.run("evaluate_expression", {"session_id": "S1", "expression": "cfg"}, "agent:test")
    assert preview.data["value"] == "{a: 1, b: Array(2)}" and "handle" not in preview.data  # no handle while running
    whole = await registry.run(
        "evaluate_expression", {"session_id": "S1", "expression": "cfg", "return_by_value": True}, "agent:test"
    )
    assert whole.data["value"] == '{"a": 1, "b": [1, 2]}'
    with pytest.raises(DebugError) as err:
        await registry.run("evaluate_expression", {"session_id": "S1", "expression": "nope"}, "agent:test")
    assert err.value.code == ErrorCode.EVALUATION_FAILED and "ReferenceError" in err.value.message


@pytest.mark.asyncio
async def test_python_sessions_cannot_evaluate_globally(registry, tmp_path) -> None:
    program = tmp_path / "p.py"
    program.write_text("x = 1\n")
    await registry.run("start_debugging", {"program": str(program), "stop_on_entry": True}, "agent:test")
    with pytest.raises(DebugError) as err:
        await registry.run("evaluate_expression", {"session_id": "S1", "expression": "1", "frame": "global"}, "h")
    assert err.value.code == ErrorCode.CAPABILITY_UNSUPPORTED
