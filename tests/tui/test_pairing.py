"""Shared attention (issue 21): a person in the Pilot-driven TUI and an agent over a real MCP client on one session.
The agent reads what the person looks at (frame, source line, variable, last expression) in one call and hears it
change; notes go both ways (the person's in debug://notes and the agent's next stop report, the agent's in the
Activity pane); a secret the person puts in a note reaches the agent redacted; nothing the agent sends moves the
person's focus."""

from __future__ import annotations

import asyncio
import json
import os

import pytest
from mcp.client.subscriptions import ResourceUpdated

from pairdbg.backends import queries
from pairdbg.backends.focus import HUMAN
from pairdbg.mcp_bridge.notify import FOCUS_URI, NOTES_URI
from pairdbg.tui.app import PairDbgApp
from pairdbg.tui.console import ConsoleInput
from pairdbg.tui.panes import ActivityLog, ConsolePane, status_variants
from pairdbg.tui.stack import StackPane
from pairdbg.tui.source_view import SourceView
from pairdbg.tui.variables import VariablesTree
from support import until
from support.mcp import DEMO, DEMO_BP_LINE, http_client

SIZE = (160, 45)
SECRET = "hunter2-Secret-77"


async def read_json(agent, uri: str) -> dict:
    result = await agent.read_resource(uri)
    return json.loads(result.contents[0].text)


def highlighted_label(tree: VariablesTree) -> str:
    node = tree.cursor_node
    return str(node.label) if node is not None else ""


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_agent_reads_the_persons_focus_and_notes_go_both_ways(hub, registry, mcp_service) -> None:
    app = PairDbgApp(hub, registry)
    async with app.run_test(size=SIZE) as pilot, http_client(mcp_service.url, mcp_service.token) as agent:
        started = await agent.call_tool(
            "start_debugging", {"program": DEMO, "breakpoints": [{"file": DEMO, "line": DEMO_BP_LINE}]}
        )
        sid = started.structured_content["session_id"]
        source = app.query_one(SourceView)
        await until(lambda: source.current_line == DEMO_BP_LINE, "the stop line in the source pane", pilot=pilot)
        person = hub.focus.of(HUMAN)
        # The header's widest form names the interpreter the program runs on.
        python = queries.interpreter(hub.sessions[sid])
        assert python is not None
        widest = status_variants(hub.sessions[sid], None, 0)[0].plain
        assert python[0].replace(os.path.expanduser("~"), "~", 1) in widest, widest

        async with agent.listen(resource_subscriptions=[FOCUS_URI]) as stream:
            heard: list[str] = []

            async def listen() -> None:
                async for event in stream:
                    if isinstance(event, ResourceUpdated):
                        heard.append(event.uri)

            listener = asyncio.create_task(listen())
            try:
                # The person picks the caller's frame in the stack, then the `item` variable in it.
                stack = app.query_one(StackPane)
                stack.focus()
                await pilot.press("down")
                await until(
                    lambda: person.frame == "@f1" and person.frame_place is not None, "frame @f1 loaded", pilot=pilot
                )
                tree = app.query_one(VariablesTree)
                await until(
                    lambda: "item" in " ".join(str(n.label) for n in tree.root.children[0].children),
                    "locals of @f1",
                    pilot=pilot,
                )
                tree.focus()
                for _ in range(5):
                    if highlighted_label(tree).startswith("item"):
                        break
                    await pilot.press("down")
                assert highlighted_label(tree).startswith("item"), highlighted_label(tree)
                await until(
                    lambda: person.variable is not None and person.variable.name == "item", "item selected", pilot=pilot
                )
                await until(lambda: FOCUS_URI in heard, "a debug://focus/human notification", pilot=pilot)
            finally:
                listener.cancel()

        focus = (await agent.call_tool("get_focus", {})).structured_content
        assert focus["attached"] is True and focus["session_id"] == sid
        assert focus["frame"]["handle"] == "@f1" and focus["frame"]["function"] == "line_total"
        assert focus["frame"]["line"] == 18 and focus["frame"]["current"] is True
        assert focus["variable"]["name"] == "item" and "bread" in focus["variable"]["value"]
        assert focus["variable"]["handle"].startswith("@v") and focus["variable"]["current"] is True
        assert focus["cursor"] == {"file": DEMO, "line": 18}
        # The resource says the same.
        assert (await read_json(agent, FOCUS_URI))["variable"]["name"] == "item"

        # Nothing the agent sends moves the person's focus.
        before = (person.session_id, person.frame, person.file, person.line, person.variable)
        await agent.call_tool("get_call_stack", {"session_id": sid})
        await agent.call_tool("get_local_variables", {"session_id": sid, "frame": "@f0"})
        await agent.call_tool("evaluate_expression", {"session_id": sid, "expression": "qty", "frame": "@f0"})
        await agent.call_tool("post_note", {"text": "look at line 11", "on": "orders.py:11"})
        await pilot.pause()
        assert (person.session_id, person.frame, person.file, person.line, person.variable) == before
        tools = {t.name for t in (await agent.list_tools()).tools}
        assert {"get_focus", "post_note"} <= tools and not any("focus" in t and t != "get_focus" for t in tools)

        # The agent's note is in the person's Activity pane.
        activity = app.query_one(ActivityLog)
        await until(
            lambda: any(
                "✎ agent:" in line and "orders.py:11" in line and "look at line 11" in line
                for line in activity.lines_text
            ),
            "the agent's note in the activity pane",
            pilot=pilot,
        )

        # The person writes two notes from the console: one plain, one with a secret pasted into it.
        await pilot.press("ctrl+e")
        for text in ("qty is exactly 10 here", f"db password={SECRET} from the vault"):
            app.query_one(ConsoleInput).load_text(f":note {text}")
            await pilot.press("enter")
        await until(lambda: len(hub.notes.of(sid)) == 3, "the person's two notes", pilot=pilot)
        person_note = hub.notes.of(sid)[1]
        assert person_note.author == HUMAN and person_note.file == DEMO and person_note.line == 18

        notes = (await read_json(agent, NOTES_URI))[sid]["notes"]
        texts = [n["text"] for n in notes]
        assert "qty is exactly 10 here" in texts and "look at line 11" in texts
        assert SECRET not in json.dumps(notes) and "<redacted" in texts[2]

        # The agent's next stop report carries the person's notes (not its own), once.
        stepped = await agent.call_tool("step_over", {"session_id": sid})
        carried = stepped.structured_content.get("notes", [])
        assert [n["author"] for n in carried] == [HUMAN, HUMAN]
        text = stepped.content[0].text
        assert "qty is exactly 10 here" in text and SECRET not in text and SECRET not in json.dumps(carried)
        again = await agent.call_tool("step_over", {"session_id": sid})
        assert "notes" not in again.structured_content


@pytest.mark.asyncio
async def test_get_focus_without_a_person_says_what_is_not_known(hub, registry, mcp_service) -> None:
    async with http_client(mcp_service.url, mcp_service.token) as agent:
        focus = (await agent.call_tool("get_focus", {})).structured_content
        assert focus["attached"] is False and focus["session_id"] is None
        assert any("no person" in u for u in focus["unknown"])
        text = (await agent.call_tool("get_focus", {})).content[0].text
        assert text == "No person is at a pairdbg TUI in this run (headless MCP): nobody is looking at anything."


@pytest.mark.asyncio
async def test_the_person_is_told_which_interpreter_lacks_a_module(hub, registry, tmp_path) -> None:
    broken = tmp_path / "needs.py"
    broken.write_text("import no_such_module_for_pairdbg\n")
    app = PairDbgApp(hub, registry, launch={"program": str(broken)})
    async with app.run_test(size=SIZE) as pilot:
        console = app.query_one(ConsolePane)
        await until(
            lambda: any("has no module 'no_such_module_for_pairdbg'" in line for line in console.lines_text),
            "the missing module in the console",
            pilot=pilot,
        )
        python = queries.interpreter(hub.sessions["S1"])
        assert python is not None
        said = "\n".join(console.lines_text)
        assert f"S1 runs on {python[0]} ({python[1]})" in said and "pairdbg --python PATH" in said
