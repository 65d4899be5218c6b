"""The person decides what agents may do, from the TUI: ctrl+g cycles the agent mode shown in the header, and an
agent's call is refused, then allowed; `s` in the Variables pane reveals (per session) the secrets masked there."""

from __future__ import annotations

import textwrap

import pytest

from pairdbg.backends.actions import Registry
from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.backends.samples import DEMO
from pairdbg.tui.app import PairDbgApp
from pairdbg.tui.panes import StatusBar
from pairdbg.tui.variables import VariablesTree
from support import until

AGENT = "agent:test"
SIZE = (160, 45)
STOP_LINE = 13  # `total = price * qty` in orders.py


def labels(tree: VariablesTree) -> list[str]:
    out: list[str] = []
    stack = list(tree.root.children)
    while stack:
        node = stack.pop(0)
        out.append(str(node.label))
        stack.extend(node.children)
    return out


async def agent_may(registry: Registry, name: str, args: dict) -> bool:
    try:
        await registry.run(name, args, AGENT)
    except DebugError as exc:
        if exc.code == ErrorCode.PERMISSION_DENIED:
            return False
        raise
    return True


@pytest.mark.asyncio
async def test_ctrl_g_changes_what_an_agent_may_do_and_the_header_says_so(core) -> None:
    hub, registry = core
    app = PairDbgApp(hub, registry)
    async with app.run_test(size=SIZE) as pilot:
        started = await registry.run(
            "start_debugging", {"program": DEMO, "breakpoints": [{"file": DEMO, "line": STOP_LINE}]}, AGENT
        )
        sid = started.data["session_id"]
        bar = app.query_one(StatusBar)
        await until(lambda: "agents may: full" in bar.text_plain, "full mode in the header", pilot=pilot)
        evaluate = ("evaluate_expression", {"session_id": sid, "expression": "price"})

        await pilot.press("ctrl+g")  # full -> inspect
        await until(lambda: "agents may: inspect" in bar.text_plain, "inspect in the header", pilot=pilot)
        assert hub.policy.mode == "inspect"
        assert not await agent_may(registry, "step_over", {"session_id": sid})
        assert not await agent_may(registry, *evaluate)
        assert await agent_may(registry, "get_local_variables", {"session_id": sid})

        await pilot.press("ctrl+g")  # inspect -> control
        await until(lambda: "agents may: control" in bar.text_plain, "control in the header", pilot=pilot)
        assert not await agent_may(registry, *evaluate)
        assert await agent_may(registry, "step_over", {"session_id": sid})

        await pilot.press("ctrl+g")  # control -> full
        await until(lambda: "agents may: full" in bar.text_plain, "full again in the header", pilot=pilot)
        assert await agent_may(registry, *evaluate)
        notes = [f"{n.title}: {n.message}" for n in app._notifications]
        assert any(n.startswith("Agent mode: agents: inspect") for n in notes), notes


@pytest.mark.asyncio
async def test_secrets_are_masked_in_variables_until_the_person_reveals_them(core, tmp_path) -> None:
    hub, registry = core
    program = tmp_path / "login.py"
    program.write_text(
        textwrap.dedent(
            """\
            import os
            password = os.environ["PLANT_PASSWORD"]
            user = "ada"
            print(user)
            """
        )
    )
    app = PairDbgApp(hub, registry)
    async with app.run_test(size=SIZE) as pilot:
        args = {
            "program": str(program),
            "breakpoints": [{"file": str(program), "line": 4}],
            "env": {"PLANT_PASSWORD": "hunter2-Secret"},
        }
        await registry.run("start_debugging", args, "human")
        tree = app.query_one(VariablesTree)
        await until(lambda: any(s.startswith("password = ") for s in labels(tree)), "the locals", pilot=pilot)
        shown = next(s for s in labels(tree) if s.startswith("password = "))
        assert shown.startswith("password = <redacted: 14 chars>") and "hunter2" not in shown
        assert any(s.startswith("user = 'ada'") for s in labels(tree))

        tree.focus()
        await pilot.press("s")
        await until(
            lambda: any(s.startswith("password = 'hunter2-Secret'") for s in labels(tree)), "revealed", pilot=pilot
        )
        await pilot.press("s")
        await until(
            lambda: any(s.startswith("password = <redacted: 14 chars>") for s in labels(tree)), "masked", pilot=pilot
        )
