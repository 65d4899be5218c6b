"""Benchmark: the person's selection in the TUI -> the agent's `debug://focus/human` notification (target <= 50 ms),
and an agent's read -> its ◆ mark in the person's source pane (target <= 100 ms).

One process, as in a real run: the TUI (driven by Textual's pilot, headless), the MCP endpoint over Streamable HTTP
and a real MCP client listening for resource updates, on one debugpy session stopped in the demo. Each sample is a
key the person presses (moving the source cursor, or the variables pane's selection) until the agent's client has
the notification; pilot's own wait for the key to be handled is included. The other way, each sample is the agent's
get_local_variables on the other frame until the person's source pane renders the mark on that frame's line (the
widget's own render of that row, which the next screen refresh paints; headless, so no terminal write is timed).
With --terminal, the agent's read -> mark is timed on a real screen instead: `pairdbg demo` in a pseudo-terminal read
by a terminal emulator, the agent a real MCP client on the TUI's HTTP endpoint.
Run: .venv/bin/python scripts/bench_focus.py [--runs 30] [--terminal]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import sys
import tempfile
import time
from pathlib import Path

from mcp.client.subscriptions import ResourceUpdated

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # support.mcp: the test suite's MCP client helper
sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import median_line  # noqa: E402
from support.mcp import DEMO, DEMO_BP_LINE, http_client  # noqa: E402

from pairdbg.backends.focus import FocusChanged  # noqa: E402
from pairdbg.backends.hub import Hub  # noqa: E402
from pairdbg.mcp_bridge.http import HttpMcpService  # noqa: E402
from pairdbg.mcp_bridge.notify import FOCUS_URI  # noqa: E402
from pairdbg.runtime import build_registry  # noqa: E402
from pairdbg.tui.app import PairDbgApp  # noqa: E402
from pairdbg.tui.source_view import SourceView  # noqa: E402
from pairdbg.tui.variables import VariablesTree  # noqa: E402


async def wait_until(condition, pilot, timeout: float = 20.0) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("the TUI never got there")
        await pilot.pause(0.02)


async def measure(runs: int) -> dict[str, list[float]]:
    os.environ["XDG_RUNTIME_DIR"] = tempfile.mkdtemp()  # the endpoint entry goes there, not the user's
    hub = Hub()
    registry = build_registry(hub)
    service = HttpMcpService(hub, registry, "127.0.0.1", 0)
    await service.start()
    app = PairDbgApp(hub, registry)
    figures: dict[str, list[float]] = {"source cursor": [], "variable selection": []}
    changed_at: list[float] = []  # when the core announced each change of the person's focus
    hub.bus.add_listener(lambda e: changed_at.append(time.perf_counter()) if isinstance(e, FocusChanged) else None)
    core_to_agent: list[float] = []
    try:
        async with app.run_test(size=(160, 45)) as pilot, http_client(service.url, service.token) as agent:
            started = await agent.call_tool(
                "start_debugging", {"program": DEMO, "breakpoints": [{"file": DEMO, "line": DEMO_BP_LINE}]}
            )
            source = app.query_one(SourceView)
            tree = app.query_one(VariablesTree)
            await wait_until(lambda: source.current_line == DEMO_BP_LINE, pilot)
            await wait_until(lambda: bool(tree.root.children) and len(tree.root.children[0].children) >= 2, pilot)
            arrived: asyncio.Queue[float] = asyncio.Queue()
            async with agent.listen(resource_subscriptions=[FOCUS_URI]) as stream:

                async def listen() -> None:
                    async for event in stream:
                        if isinstance(event, ResourceUpdated) and event.uri == FOCUS_URI:
                            arrived.put_nowait(time.perf_counter())

                listener = asyncio.create_task(listen())
                await pilot.pause(0.3)
                for name, widget in (("source cursor", source), ("variable selection", tree)):
                    widget.focus()
                    if widget is tree:  # onto the first local, so every key moves between two variables
                        while (
                            tree.cursor_node is None
                            or tree.cursor_node.data is None
                            or tree.cursor_node.data.view is None
                        ):
                            await pilot.press("down")
                    await pilot.pause(0.3)
                    while not arrived.empty():
                        arrived.get_nowait()
                    for i in range(runs):
                        key = "down" if i % 2 == 0 else "up"
                        changed_at.clear()
                        start = time.perf_counter()
                        await pilot.press(key)
                        end = await asyncio.wait_for(arrived.get(), 5)
                        figures[name].append((end - start) * 1000)
                        if changed_at:
                            core_to_agent.append((end - changed_at[0]) * 1000)
                        await pilot.pause(0.05)  # let a late duplicate land before the next sample
                        while not arrived.empty():
                            arrived.get_nowait()
                listener.cancel()
            figures["agent's read -> ◆ mark"] = await agent_read_to_mark(
                app, hub, agent, started.structured_content["session_id"], runs
            )
    finally:
        await service.stop()
        await hub.shutdown()
    figures["(core's FocusChanged -> agent)"] = core_to_agent
    return figures


async def agent_read_to_mark(app, hub, agent, sid: str, runs: int) -> list[float]:
    """The agent reads @f1 and @f0 in turn (lines 18 and 13); each sample ends when the person's source pane shows
    the agent's mark on the new line and no longer on the old one."""
    source = app.query_one(SourceView)
    await agent.call_tool("get_local_variables", {"session_id": sid, "frame": "@f0"})
    actor = next(a for a, _ in hub.focus.agents())
    mark = f"◆ {actor.removeprefix('agent:')}"
    samples: list[float] = []
    for i in range(runs):
        (frame, line), (_, old) = ((("@f1", 18), ("@f0", DEMO_BP_LINE)), (("@f0", DEMO_BP_LINE), ("@f1", 18)))[i % 2]
        start = time.perf_counter()
        call = asyncio.create_task(agent.call_tool("get_local_variables", {"session_id": sid, "frame": frame}))
        while mark not in source.line_text(line) or mark in source.line_text(old):
            if time.perf_counter() - start > 5:
                raise TimeoutError("the agent's mark never showed")
            await asyncio.sleep(0.001)
        samples.append((time.perf_counter() - start) * 1000)
        await call
        await asyncio.sleep(0.05)
    return samples


def mark_row(display: list[str], line: int, mark: str) -> bool:
    """The screen's source pane shows `mark` in the gutter of `line` (`  44◆    main()`)."""
    gutter = re.compile(rf"[│ ●○◌▶›]\s*{line}{mark}")
    return any(gutter.search(row) for row in display)


async def in_a_terminal(runs: int) -> dict[str, list[float]]:
    """The agent's read -> its mark on a real screen: `pairdbg demo` in a pseudo-terminal read by a terminal emulator
    (pyte), a real MCP client on the TUI's HTTP endpoint; each sample ends when the emulated screen shows the mark on
    the new frame's line and no longer on the old one."""
    from support.terminal import Terminal, marked_line

    state = tempfile.mkdtemp()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        **os.environ,
        "XDG_RUNTIME_DIR": state,
        "PAIRDBG_MCP__PORT": str(port),
        "PAIRDBG_RN__WS_PORT": "0",
        "PAIRDBG_BRIDGE__PORT": "0",
        "TERM": "xterm-256color",
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed pairdbg runs from bytecode
    term = Terminal([str(ROOT / ".venv" / "bin" / "pairdbg"), "demo"], env, 160, 45)
    samples: list[float] = []
    try:
        await asyncio.to_thread(term.wait_for, lambda display: marked_line(display) is not None)
        entry = None
        deadline = time.perf_counter() + 20
        while entry is None:
            found = list(Path(state, "pairdbg").glob("endpoint-*.json"))
            if found:
                entry = json.loads(found[0].read_text())
            elif time.perf_counter() > deadline:
                raise TimeoutError("the TUI wrote no endpoint entry")
            else:
                await asyncio.sleep(0.1)
        async with http_client(entry["url"], entry["token"]) as agent:
            stack = await agent.call_tool("get_call_stack", {})
            frames = stack.structured_content["frames"]
            places = [("@f0", frames[0]["line"]), ("@f1", frames[1]["line"])]
            await agent.call_tool("get_local_variables", {"frame": "@f0"})
            await asyncio.sleep(1.0)
            mark = "◆"
            for i in range(runs):
                (frame, line), (_, old) = (places[1], places[0]) if i % 2 == 0 else (places[0], places[1])
                start = time.perf_counter()
                call = asyncio.create_task(agent.call_tool("get_local_variables", {"frame": frame}))
                seen = await asyncio.to_thread(
                    term.wait_for,
                    lambda display, line=line, old=old: (
                        mark_row(display, line, mark) and not mark_row(display, old, mark)
                    ),
                    5,
                )
                samples.append((seen - start) * 1000)
                await call
                await asyncio.sleep(0.1)
                await asyncio.to_thread(term.settle, 0.05)
    finally:
        term.close()
    return {"agent's read -> ◆ mark on a real screen": samples}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument(
        "--terminal", action="store_true", help="time the agent's mark on a real screen (pty + pyte) instead"
    )
    args = parser.parse_args()
    if args.terminal:
        figures = asyncio.run(in_a_terminal(args.runs))
        print("agent's read -> its mark on the person's screen, ms (target <= 100):")
        for name, values in figures.items():
            print(median_line(name, values, 30))
        return
    figures = asyncio.run(measure(args.runs))
    print("person's selection -> agent's debug://focus/human notification, ms (target <= 50);")
    print("agent's read -> its mark in the person's source pane, ms (target <= 100):")
    for name, values in figures.items():
        print(median_line(name, values, 30))


if __name__ == "__main__":
    main()
