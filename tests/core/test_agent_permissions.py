"""Agent modes, enforced once in the registry, over real debugpy sessions: what an agent may do in inspect, control
and full mode, that people are never refused, and that a mode change is an event both front ends hear."""

from __future__ import annotations

import pytest

from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.backends.events import ActionPerformed
from pairdbg.backends.policy import AgentModeChanged, Level
from support import expect_error, line_of, prog, start

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]

LOOP = "loop.py"
AGENT = "agent:test"
READS = [
    ("list_debug_sessions", {}),
    ("get_local_variables", {}),
    ("get_call_stack", {}),
    ("get_output", {}),
    ("list_breakpoints", {}),
    ("get_source_context", {}),
]


async def paused(registry) -> str:
    sid, _ = await start(registry, LOOP, line_of(LOOP, "total = a + b"))
    return sid


async def allowed(registry, name: str, args: dict) -> None:
    try:
        await registry.run(name, args, AGENT)
    except DebugError as exc:
        assert exc.code != ErrorCode.PERMISSION_DENIED, f"{name} refused: {exc.text()}"


def refused_text(exc: DebugError, mode: str, needs: str) -> None:
    text = exc.text()
    assert f"agent mode is {mode}" in text and f"needs {needs}" in text, text
    assert "TUI" in text and f"PAIRDBG_AGENTS__MODE={needs}" in text, text
    assert exc.data == {"mode": mode, "needs": needs}


async def test_inspect_mode_lets_agents_read_only(hub, registry) -> None:
    sid = await paused(registry)
    await registry.run("set_agent_mode", {"mode": "inspect"}, "human")
    for name, args in READS:
        await allowed(registry, name, {"session_id": sid, **args} if name != "list_debug_sessions" else args)
    listed = await registry.run("list_debug_sessions", {}, AGENT)
    assert listed.data["agent_mode"] == "inspect" and "Agent mode: inspect" in listed.text
    for name, args, needs in [
        ("step_over", {"session_id": sid}, "control"),
        ("continue_execution", {"session_id": sid, "wait_s": 0}, "control"),
        ("set_breakpoint", {"session_id": sid, "file": prog(LOOP), "line": line_of(LOOP, "return acc")}, "control"),
        ("evaluate_expression", {"session_id": sid, "expression": "a + b"}, "full"),
        ("set_variable_value", {"session_id": sid, "name": "a", "value": "5"}, "full"),
        ("close_debug_session", {"session_id": sid}, "full"),
        ("start_debugging", {"program": prog(LOOP)}, "full"),
    ]:
        refused_text(await expect_error(registry, name, args, ErrorCode.PERMISSION_DENIED), "inspect", needs)
    assert hub.get(sid).stop_number == 1 and len(hub.sessions) == 1  # nothing refused ran
    # The person is never refused, whatever the mode.
    stepped = await registry.run("step_over", {"session_id": sid}, "human")
    assert stepped.data["state"] == "paused"


async def test_control_mode_adds_stepping_and_breakpoints_not_code(hub, registry) -> None:
    sid = await paused(registry)
    await registry.run("set_agent_mode", {"mode": "control"}, "human")
    stepped = await registry.run("step_over", {"session_id": sid}, AGENT)
    assert stepped.data["state"] == "paused"
    bp = await registry.run(
        "set_breakpoint", {"session_id": sid, "file": prog(LOOP), "line": line_of(LOOP, "return acc")}, AGENT
    )
    await registry.run("remove_breakpoint", {"session_id": sid, "breakpoint_id": bp.data["id"]}, AGENT)
    # A condition is code the program runs: full mode only, even on an action control allows.
    exc = await expect_error(
        registry,
        "set_breakpoint",
        {"session_id": sid, "file": prog(LOOP), "line": line_of(LOOP, "return acc"), "condition": "acc > 1"},
        ErrorCode.PERMISSION_DENIED,
    )
    refused_text(exc, "control", "full")
    assert "condition" in exc.message
    for name, args in [
        ("evaluate_expression", {"session_id": sid, "expression": "a"}),
        ("add_watch", {"session_id": sid, "expression": "a"}),
        ("restart_debugging", {"session_id": sid}),
        ("close_debug_session", {"session_id": sid}),
    ]:
        refused_text(await expect_error(registry, name, args, ErrorCode.PERMISSION_DENIED), "control", "full")


async def test_full_mode_is_todays_behaviour_but_the_mode_is_the_persons(hub, registry) -> None:
    assert hub.policy.mode == "full"  # the default
    sid = await paused(registry)
    value = await registry.run("evaluate_expression", {"session_id": sid, "expression": "a + b"}, AGENT)
    assert value.data["value"] == "0"
    await registry.run("set_variable_value", {"session_id": sid, "name": "a", "value": "5"}, AGENT)
    exc = await expect_error(registry, "set_agent_mode", {"mode": "full"}, ErrorCode.PERMISSION_DENIED)
    assert "person" in exc.message
    await registry.run("close_debug_session", {"session_id": sid}, AGENT)


async def test_a_mode_change_is_an_event_and_a_refusal_is_announced(hub, registry) -> None:
    heard: list = []
    hub.bus.add_listener(heard.append)
    await registry.run("set_agent_mode", {"mode": "inspect"}, "human")
    changes = [e for e in heard if isinstance(e, AgentModeChanged)]
    assert [(e.mode, e.by) for e in changes] == [("inspect", "human")]
    await expect_error(registry, "start_debugging", {"program": prog(LOOP)}, ErrorCode.PERMISSION_DENIED)
    refusals = [e for e in heard if isinstance(e, ActionPerformed) and e.action == "start_debugging"]
    assert refusals and not refusals[-1].ok and "PERMISSION_DENIED" in refusals[-1].outcome
    await registry.run("set_agent_mode", {"mode": "full"}, "human")
    assert hub.policy.mode == "full"


async def test_every_action_has_a_level(registry) -> None:
    levels = {a.name: a.level for a in registry.actions.values()}
    assert all(isinstance(level, Level) for level in levels.values())
    assert levels["get_variables"] == Level.INSPECT and levels["step_over"] == Level.CONTROL
    assert levels["evaluate_expression"] == Level.FULL and levels["set_agent_mode"] == Level.HUMAN
    # Every read-only action is inspect; nothing that is not read-only is.
    # inspect-level actions read state; the one exception writes only what agents and the person tell each other
    assert all((a.level == Level.INSPECT) == a.read_only for a in registry.actions.values() if a.name != "post_note")
    assert registry.actions["post_note"].level == Level.INSPECT and not registry.actions["post_note"].read_only


async def test_the_settings_set_the_mode_and_redaction(monkeypatch) -> None:
    from pydantic import ValidationError

    from pairdbg.runtime import Runtime
    from pairdbg.settings import Settings

    monkeypatch.setenv("PAIRDBG_AGENTS__MODE", "control")
    monkeypatch.setenv("PAIRDBG_AGENTS__REDACT", "false")
    runtime = Runtime(Settings())
    assert runtime.hub.policy.mode == "control" and runtime.hub.policy.redact is False
    assert not runtime.hub.policy.redacts("agent:x")
    monkeypatch.setenv("PAIRDBG_AGENTS__MODE", "everything")
    with pytest.raises(ValidationError, match="inspect"):
        Settings()


async def test_a_hit_condition_is_a_count_never_code(hub, registry, tmp_path) -> None:
    # debugpy eval()s a hit condition that is not a plain count, so a control-mode agent could run code through it.
    sid = await paused(registry)
    await registry.run("set_agent_mode", {"mode": "control"}, "human")
    mark = tmp_path / "ran"
    where = {"session_id": sid, "file": prog(LOOP), "line": line_of(LOOP, "return acc")}
    for text in (f"open({str(mark)!r}, 'w') and False", "=3", "3 or 1", ">= x"):
        exc = await expect_error(
            registry, "set_breakpoint", {**where, "hit_condition": text}, ErrorCode.INVALID_PARAMETERS
        )
        assert "'3'" in (exc.hint or "") and "'%3'" in (exc.hint or ""), exc.text()
    bp = await registry.run("set_breakpoint", {**where, "hit_condition": " >= 2 "}, AGENT)
    for text in ("__import__('os')", "2 if True else 1"):
        await expect_error(
            registry,
            "update_breakpoint",
            {"session_id": sid, "breakpoint_id": bp.data["id"], "hit_condition": text},
            ErrorCode.INVALID_PARAMETERS,
        )
    for text in ("%2", "==1", "<5", "4"):
        await registry.run(
            "update_breakpoint", {"session_id": sid, "breakpoint_id": bp.data["id"], "hit_condition": text}, AGENT
        )
    await registry.run("continue_execution", {"session_id": sid, "wait_s": 5}, AGENT)
    assert not mark.exists()
