"""Frames of a thread other than the stopped one get handles that work in scopes, variables and evaluate."""

from __future__ import annotations

import pytest

from support import expect_error, line_of, prog, start, stop_of

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]


async def test_another_threads_frames_are_usable_handles(registry) -> None:
    sid, reply = await start(registry, "threads_busy.py", line_of("threads_busy.py", "# breakpoint here"))
    assert stop_of(reply)["thread_name"] == "MainThread"
    threads = await registry.run("list_threads", {"session_id": sid}, "agent:x")
    spinner = {t["name"]: t["id"] for t in threads.data["threads"]}["spinner"]
    stack = await registry.run("get_call_stack", {"session_id": sid, "thread_id": spinner}, "agent:x")
    top = stack.data["frames"][0]
    assert top["function"] == "spin" and top["file"] == prog("threads_busy.py")
    handle = top["handle"]
    assert handle == f"@f{spinner}.0" and handle in stack.text
    scopes = await registry.run("get_scopes", {"session_id": sid, "frame": handle}, "agent:x")
    assert scopes.data["scopes"] and scopes.data["scopes"][0].get("handle")
    local = await registry.run("get_local_variables", {"session_id": sid, "frame": handle}, "agent:x")
    assert "turns" in {v["name"] for v in local.data["variables"]}
    ev = await registry.run("evaluate_expression", {"session_id": sid, "expression": "turns > 0", "frame": handle}, "a")
    assert ev.data["value"] == "True"
    # The stopped thread's own frames keep their @fN names, and a thread frame dies when the program runs on.
    assert (await registry.run("get_call_stack", {"session_id": sid}, "a")).data["frames"][0]["handle"] == "@f0"
    await registry.run("step_over", {"session_id": sid}, "human")
    await expect_error(registry, "get_scopes", {"session_id": sid, "frame": handle}, "PATH_NOT_FOUND", "HANDLE_EXPIRED")
    end = await registry.run("continue_execution", {"session_id": sid}, "human")
    assert end.data["state"] == "terminated"


async def test_a_thread_blocked_in_native_code_says_its_values_cannot_be_read(registry) -> None:
    sid, reply = await start(registry, "threads.py", line_of("threads.py", "ready.set()"))
    threads = await registry.run("list_threads", {"session_id": sid}, "agent:x")
    main_id = {t["name"]: t["id"] for t in threads.data["threads"]}["MainThread"]
    stack = await registry.run("get_call_stack", {"session_id": sid, "thread_id": main_id}, "agent:x")
    module = next(f for f in stack.data["frames"] if f["file"] == prog("threads.py"))
    exc = await expect_error(
        registry, "get_local_variables", {"session_id": sid, "frame": module["handle"]}, "NOT_PAUSED"
    )
    assert "not suspended in Python code" in exc.message
