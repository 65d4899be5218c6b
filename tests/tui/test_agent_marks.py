"""The agents' focus, visible to the person (issue 21 part 2): a person in the Pilot-driven TUI and an agent over a real
MCP client on one debugpy session. What the agent reads (a frame, a variable, a file's line) is marked ◆ with its
name on the person's screen; an agent never moves the person's panes unless "follow agent" (F7) is on; what the
person hands over (F8) is in the agent's get_focus."""

from __future__ import annotations

import pytest

from pairdbg.backends.focus import HUMAN
from pairdbg.tui import agent_marks
from pairdbg.tui.app import PairDbgApp
from pairdbg.tui.source_view import SourceView
from pairdbg.tui.stack import StackPane
from pairdbg.tui.variables import VariablesTree
from support import until
from support.mcp import DEMO, DEMO_BP_LINE, http_client

SIZE = (160, 45)
CALLER_LINE = 18  # line_total's call of apply_discount: frame @f1 at the demo's breakpoint


def row_text(stack: StackPane, handle: str) -> str:
    index = stack.index_of(handle)
    return str(stack.get_option_at_index(index).prompt) if index is not None else ""


def tree_labels(tree: VariablesTree) -> list[str]:
    found, stack = [], list(tree.root.children)
    while stack:
        node = stack.pop()
        found.append(str(node.label))
        stack.extend(node.children)
    return found


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_the_person_sees_where_the_agent_looks_follows_it_and_hands_focus_over(
    hub, registry, mcp_service, monkeypatch
) -> None:
    app = PairDbgApp(hub, registry)
    async with app.run_test(size=SIZE) as pilot, http_client(mcp_service.url, mcp_service.token) as agent:
        started = await agent.call_tool(
            "start_debugging", {"program": DEMO, "breakpoints": [{"file": DEMO, "line": DEMO_BP_LINE}]}
        )
        sid = started.structured_content["session_id"]
        source, stack = app.query_one(SourceView), app.query_one(StackPane)
        tree = app.query_one(VariablesTree)
        await until(lambda: source.current_line == DEMO_BP_LINE, "the stop line in the source pane", pilot=pilot)
        await until(lambda: stack.index_of("@f1") is not None, "the stack's frames", pilot=pilot)
        person = hub.focus.of(HUMAN)
        assert "◆" not in source.line_text(CALLER_LINE) and "◆" not in row_text(stack, "@f1")

        # The agent reads the caller's locals: its name marks that frame's line and stack row; the person stays.
        locals_ = await agent.call_tool("get_local_variables", {"session_id": sid, "frame": "@f1"})
        actor = next(a for a, _ in hub.focus.agents())
        name = actor.removeprefix("agent:")
        mark = f"◆ {name}"
        await until(lambda: mark in source.line_text(CALLER_LINE), "the agent's mark on line 18", pilot=pilot)
        gutter = source.line_text(CALLER_LINE)[:8]
        assert gutter.endswith("◆") and str(CALLER_LINE) in gutter, gutter
        await until(lambda: mark in row_text(stack, "@f1"), "the agent's mark on frame @f1", pilot=pilot)
        assert mark not in row_text(stack, "@f0")
        assert person.frame == "@f0" and source.cursor_line == DEMO_BP_LINE and stack.selected == "@f0"

        # It expands `item`; the person's tree does not show @f1's locals yet, so nothing there is marked.
        item = next(v for v in locals_.structured_content["variables"] if v["name"] == "item")
        await agent.call_tool("get_variables", {"session_id": sid, "ref": item["handle"]})
        await pilot.pause()
        assert person.frame == "@f0" and not any(mark in label for label in tree_labels(tree))

        # Follow agent on: the person's panes go where the agent looks (its frame, and the variable it expanded).
        await pilot.press("f7")
        await until(lambda: person.frame == "@f1" and stack.selected == "@f1", "the person follows to @f1", pilot=pilot)
        await until(
            lambda: any(label.startswith("item") and mark in label for label in tree_labels(tree)),
            "the agent's mark on `item` in the person's tree",
            pilot=pilot,
        )
        await agent.call_tool("get_source_context", {"session_id": sid, "file": DEMO, "line": 34, "context": 1})
        await until(lambda: source.cursor_line == 34, "the person's source follows to line 34", pilot=pilot)
        assert mark in source.line_text(34) and mark not in source.line_text(CALLER_LINE)

        # Follow agent off: the agent's reads mark, and move nothing of the person's.
        await pilot.press("f7")
        await agent.call_tool("get_local_variables", {"session_id": sid, "frame": "@f0"})
        await until(lambda: mark in source.line_text(DEMO_BP_LINE), "the agent's mark on line 13", pilot=pilot)
        await until(lambda: mark in row_text(stack, "@f0"), "the agent's mark on frame @f0", pilot=pilot)
        assert person.frame == "@f1" and stack.selected == "@f1" and source.cursor_line == 34

        # The person hands their selection over: the agent's get_focus has it.
        assert "Handed" not in (await agent.call_tool("get_focus", {})).content[0].text
        await pilot.press("f8")
        reply = await agent.call_tool("get_focus", {})
        handed = reply.structured_content["handed"]
        assert handed["session_id"] == sid and handed["current"] is True
        assert handed["frame"]["handle"] == "@f1" and handed["frame"]["function"] == "line_total"
        assert handed["cursor"] == {"file": DEMO, "line": 34}
        text = reply.content[0].text
        assert "Handed to you" in text and "@f1 line_total" in text, text

        # A step: the frame and variable marks belonged to the old stop and go; the agent's stop moves nothing.
        await agent.call_tool("step_over", {"session_id": sid})
        await until(lambda: source.current_line == DEMO_BP_LINE + 1, "the next line", pilot=pilot)
        await until(
            lambda: all(mark not in row_text(stack, h) for h in ("@f0", "@f1")), "old stop's marks gone", pilot=pilot
        )
        handed = (await agent.call_tool("get_focus", {})).structured_content["handed"]
        assert handed["current"] is False

        # Marks fade: dim after FRESH_S, gone after FADE_S (shortened here); a read makes it fresh again.
        monkeypatch.setattr(agent_marks, "FRESH_S", 0.3)
        monkeypatch.setattr(agent_marks, "FADE_S", 0.8)
        await agent.call_tool("get_source_context", {"session_id": sid, "file": DEMO, "line": 25, "context": 0})
        await until(lambda: mark in source.line_text(25), "a fresh mark on line 25", pilot=pilot)
        assert source.agent_marks[(DEMO, 25)].fresh
        dimmed = lambda: getattr(source.agent_marks.get((DEMO, 25)), "fresh", True) is False  # noqa: E731
        await until(dimmed, "the mark dims", pilot=pilot)
        await until(lambda: "◆" not in source.line_text(25), "the mark goes", pilot=pilot)
        assert (DEMO, 25) not in source.agent_marks


@pytest.mark.asyncio
async def test_the_persons_reads_move_no_agent_focus(hub, registry, mcp_service) -> None:
    """The person's own panes read through the same actions; only agents' reads become marks."""
    async with http_client(mcp_service.url, mcp_service.token) as agent:
        started = await agent.call_tool(
            "start_debugging", {"program": DEMO, "breakpoints": [{"file": DEMO, "line": DEMO_BP_LINE}]}
        )
        sid = started.structured_content["session_id"]
        (actor, focus), *_ = hub.focus.agents()
        before = (focus.frame, focus.frame_place, focus.changed_at)
        await registry.run("get_local_variables", {"session_id": sid, "frame": "@f1"}, HUMAN)
        person = hub.focus.of(HUMAN)
        assert person.frame_place is None and person.read_at_stop is None
        assert (focus.frame, focus.frame_place, focus.changed_at) == before
        await registry.run("get_local_variables", {"session_id": sid, "frame": "@f1"}, actor)
        assert focus.frame == "@f1" and focus.frame_place is not None and focus.frame_place.function == "line_total"
