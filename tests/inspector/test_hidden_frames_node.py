"""Stacks that say what they hide (issue 19 §3) on Node: the inspector backend and js-debug leave Node's own frames
(node:internal/…) out of the stack; every stack now says how many, where, and lists them when asked."""

from __future__ import annotations

import pytest
from support import stop_of
from test_inspector_node import FLOW, launch, line, run
from test_jsdebug import need_js_debug

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]


@pytest.mark.parametrize(("backend", "package"), [("inspector", "node internals"), ("dap", "<node_internals>")])
async def test_node_internals_are_named_where_they_are_left_out(registry, backend, package):
    if backend == "dap":
        need_js_debug()
    sid, started = await launch(registry, "node", FLOW, (FLOW, line(FLOW, "ADD_BODY")), backend=backend)
    stop = stop_of(started)
    assert [f["handle"] for f in stop["stack"]] == ["@f0", "@f1", "@f2"], started.text
    (group,) = stop["hidden_frames"]
    assert group["packages"] == [package] and group["after"] == "@f2" and group.get("before") is None, group
    assert group["count"] >= 3 and len(group["handles"]) == group["count"], group
    assert f"library frames hidden ({package}) below @f2" in started.text, started.text

    stack = await run(registry, "get_call_stack", session_id=sid)
    assert stack.data["total"] == 3 and len(stack.data["frames"]) == 3, stack.text  # no page of hidden frames
    full = await run(registry, "get_call_stack", session_id=sid, include_library=True)
    frames = full.data["frames"]
    assert [f.get("library", False) for f in frames] == [False] * 3 + [True] * group["count"], full.text
    assert [f["handle"] for f in frames[3:]] == group["handles"]
    assert any(f["function"] == "Module._compile" for f in frames[3:]), full.text
    # A hidden frame is a frame of the pause like the others.
    compile_frame = next(f["handle"] for f in frames if f["function"] == "Module._compile")
    kind = await run(registry, "evaluate_expression", session_id=sid, frame=compile_frame, expression="typeof content")
    assert kind.data["value"] in ('"string"', "'string'", "string"), kind.text
    await run(registry, "close_debug_session", session_id=sid)
