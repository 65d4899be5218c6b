"""The inspector backend against real browsers: headless Chromium (CDP) and WebKitGTK's MiniBrowser under Xvfb (the
WebKit Inspector Protocol, the page multiplexed through Target.sendMessageToTarget). No mocks.

The page (tests/js/browser/) calls tick(n) from a 100 ms timer, so breakpoints are hit without reloading it. Every
test drives the same actions an agent would (through the registry), on a browser it starts and stops itself; the
leak guard in conftest proves the browser's whole process group is gone afterwards. Under CI=true a missing browser
fails (conftest turns skips into failures); elsewhere the test skips with the install command.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import pytest
import pytest_asyncio

from support import targets
from support.targets import TargetMissing
from support import expect_error, missing_target, until
from support import TESTS

pytestmark = pytest.mark.timeout(60)

SITE = TESTS / "js" / "browser"
APP = SITE / "app.js"
TITLE = "pairdbg browser page"
ACTOR = "agent:test"
BROWSERS = ("chromium", "webkit")


def line_of(marker: str) -> int:
    """1-based line of the page script holding `MARK:<marker>`."""
    for number, text in enumerate(APP.read_text().splitlines(), 1):
        if f"MARK:{marker}" in text:
            return number
    raise AssertionError(f"MARK:{marker} not in {APP}")


TICK, AFTER, THROW, ASYNC = line_of("tick"), line_of("after"), line_of("throw"), line_of("async")


def need(*finders) -> None:
    """A missing browser fails under CI=true and skips (with the install hint) elsewhere."""
    for find in finders:
        try:
            find()
        except TargetMissing as exc:
            missing_target(str(exc))


@dataclass
class Browser:
    kind: str
    port: int
    proc: asyncio.subprocess.Process
    ws_url: str
    page_url: str
    app_url: str

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def alive(self) -> bool:
        return self.proc.returncode is None and bool(targets.group_members(self.proc.pid))

    async def stop(self) -> None:
        """Stop the browser's whole process group and prove nothing of it (nor its temp dirs) is left."""
        await targets.stop_process_group(self.proc)
        assert self.proc.returncode is not None
        assert targets.group_members(self.proc.pid) == [], f"{self.kind}: process group outlived its stop"
        for path in getattr(self.proc, "pairdbg_tempdirs", ()):
            assert not os.path.exists(path), f"{self.kind}: temporary directory {path} left behind"


@pytest.fixture
def site():
    base, close = targets.serve_directory(SITE)
    yield base
    close()


@asynccontextmanager
async def running(kind: str, base: str) -> AsyncIterator[Browser]:
    if kind == "chromium":
        need(targets.find_chromium)
        launch = targets.launch_chromium
    else:
        need(targets.find_minibrowser, targets.find_xvfb_run)
        launch = targets.launch_minibrowser
    port = targets.free_port()
    page = base + "index.html"
    proc, ws_url = await launch(page, port)
    browser = Browser(kind, port, proc, ws_url, page, base + "app.js")
    try:
        yield browser
    finally:
        await browser.stop()


@pytest_asyncio.fixture(params=BROWSERS)
async def browser(request, hub, site) -> AsyncIterator[Browser]:
    """A browser on the test page; requested after `hub`, so it is stopped before the hub's leak check runs."""
    async with running(request.param, site) as b:
        yield b


# ----- helpers ----------------------------------------------------------------------------------------------------


async def run(registry, action: str, **args):
    return await registry.run(action, args, ACTOR)


async def attach(registry, browser: Browser) -> str:
    reply = await run(registry, "attach", target=browser.target, language="javascript", wait_s=0)
    assert reply.data["state"] == "running", reply.text
    return reply.data["session_id"]


def stop_of(reply) -> dict:
    assert reply.data.get("state") == "paused", f"expected a stop, got:\n{reply.text}"
    return reply.data["stop"]


def locals_of(stop: dict) -> dict[str, str]:
    return {v["name"]: v["value"] for v in stop["locals"]}


async def evaluate(registry, sid: str, expression: str, frame: str = "@f0") -> str:
    return (await run(registry, "evaluate_expression", session_id=sid, expression=expression, frame=frame)).data[
        "value"
    ]


async def output_texts(registry, sid: str) -> list[str]:
    reply = await run(registry, "get_output", session_id=sid, limit=1000)
    return [e["text"] for e in reply.data["entries"]]


async def wait_for_output(registry, sid: str, needle: str, timeout: float = 15.0) -> list[str]:
    """Poll get_output (bounded) until an entry contains `needle`; returns the entries seen."""
    texts: list[str] = []

    async def arrived() -> bool:
        nonlocal texts
        texts = await output_texts(registry, sid)
        return any(needle in t for t in texts)

    await until(arrived, lambda: f"output containing {needle!r}; last entries: {texts[-5:]}", timeout=timeout)
    return texts


# ----- the workflow -----------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_page_breakpoint_workflow(registry, hub, browser):
    """attach → breakpoint by URL → stop with fetched source and locals → evaluate → scopes → set a variable →
    step → conditional breakpoint → remove, continue → console output → detach leaves the browser → stop it."""
    sid = await attach(registry, browser)

    bp = await run(registry, "set_breakpoint", session_id=sid, file=browser.app_url, line=TICK)
    bp_id = bp.data["id"]

    stop = stop_of(await run(registry, "wait_for_stop", session_id=sid, timeout_s=20))
    assert stop["reason"] == "breakpoint", stop
    assert stop["hit_breakpoints"] == [bp_id]
    assert stop["location"]["file"] == browser.app_url
    assert stop["location"]["line"] == TICK
    assert stop["location"]["function"] == "tick"
    # No local file: the source lines came from the target (Debugger.getScriptSource).
    current = [s for s in stop["source"] if s["current"]]
    assert current and current[0]["line"] == TICK and "MARK:tick" in current[0]["text"], stop["source"]
    assert len(stop["source"]) > 1
    n = int(locals_of(stop)["n"])
    assert n >= 1

    listed = await run(registry, "list_breakpoints", session_id=sid)
    (view,) = listed.data["breakpoints"]
    assert view["verified"] and view["actual_line"] == TICK, view

    assert await evaluate(registry, sid, "n * 2") == str(n * 2)
    assert await evaluate(registry, sid, "document.title") == f'"{TITLE}"'

    scopes = (await run(registry, "get_scopes", session_id=sid, frame="@f0")).data["scopes"]
    assert scopes[0]["name"] == "Locals" and scopes[0]["handle"], scopes
    assert any(s["name"].startswith("Global") for s in scopes), scopes
    variables = (await run(registry, "get_variables", session_id=sid, ref=scopes[0]["handle"])).data["variables"]
    assert {v["name"]: v["value"] for v in variables}["n"] == str(n)

    changed = await run(registry, "set_variable_value", session_id=sid, name="n", value="1000")
    assert changed.data["value"] == "1000"
    assert await evaluate(registry, sid, "n") == "1000"

    stepped = stop_of(await run(registry, "step_over", session_id=sid, wait_s=10))
    assert stepped["reason"] == "step", stepped
    assert stepped["location"]["line"] == AFTER
    assert locals_of(stepped)["doubled"] == "2000"  # computed from the value we set

    await run(registry, "remove_breakpoint", session_id=sid, breakpoint_id=bp_id)
    cond = await run(
        registry, "set_breakpoint", session_id=sid, file=browser.app_url, line=TICK, condition="n % 5 === 0"
    )
    first = stop_of(await run(registry, "continue_execution", session_id=sid, wait_s=10))
    assert first["location"]["line"] == TICK and first["hit_breakpoints"] == [cond.data["id"]], first
    n1 = int(locals_of(first)["n"])
    assert n1 % 5 == 0
    second = stop_of(await run(registry, "continue_execution", session_id=sid, wait_s=10))
    n2 = int(locals_of(second)["n"])
    assert n2 == n1 + 5, (n1, n2)  # the ticks in between ran without stopping

    await run(registry, "remove_breakpoint", session_id=sid, breakpoint_id=cond.data["id"])
    resumed = await run(registry, "continue_execution", session_id=sid, wait_s=0)
    assert resumed.data["state"] == "running", resumed.text

    # The page's console.log reaches get_output, including the tick whose n we changed.
    await wait_for_output(registry, sid, f"tick {n2 + 2} doubled")
    texts = await output_texts(registry, sid)
    assert any("tick 1000 doubled 2000" in t for t in texts), texts[-10:]
    entries = (await run(registry, "get_output", session_id=sid, limit=1000)).data["entries"]
    assert {e["category"] for e in entries if "doubled" in e["text"]} == {"console"}

    await run(registry, "close_debug_session", session_id=sid, terminate=False)
    assert browser.alive(), "detaching must leave the browser running: it is not ours"
    # It still serves its inspector, and runs its timer unpaused: a new session sees ticks go on.
    again = await attach(registry, browser)
    await run(registry, "set_breakpoint", session_id=again, file=browser.app_url, line=TICK)
    later = stop_of(await run(registry, "wait_for_stop", session_id=again, timeout_s=10))
    assert int(locals_of(later)["n"]) > n2
    await run(registry, "close_debug_session", session_id=again, terminate=False)
    assert browser.alive()

    await browser.stop()
    assert not browser.alive()


@pytest.mark.asyncio
async def test_pause_execution_on_running_page(registry, hub, browser):
    """connect_debugger with the page's ws:// URL, then interrupt the running page."""
    reply = await run(registry, "connect_debugger", websocket_url=browser.ws_url, wait_s=0)
    sid = reply.data["session_id"]
    assert reply.data["state"] == "running", reply.text
    await wait_for_output(registry, sid, "doubled")  # the page script runs

    paused = stop_of(await run(registry, "pause_execution", session_id=sid, wait_s=10))
    assert paused["reason"] == "pause", paused
    assert paused["location"]["file"] == browser.app_url, paused["location"]
    assert paused["location"]["line"] >= 1 and paused["stack"], paused
    counter = int(await evaluate(registry, sid, "counter"))
    assert counter >= 1

    # Detaching while paused must let the page run on (it is not ours to leave frozen).
    await run(registry, "close_debug_session", session_id=sid, terminate=False)
    assert browser.alive()
    again = await attach(registry, browser)
    await wait_for_output(registry, again, f"tick {counter + 3} doubled")
    assert hub.sessions[again].phase.value == "running"
    await run(registry, "close_debug_session", session_id=again, terminate=False)


@pytest.mark.asyncio
async def test_browser_gone_while_attached(registry, hub, browser):
    """The browser exits under an attached session: it says so (reconnecting), and closing it is quick."""
    sid = await attach(registry, browser)
    await wait_for_output(registry, sid, "doubled")
    await browser.stop()
    session = hub.sessions[sid]
    await until(lambda: session.phase.value == "reconnecting", "the session to notice the browser is gone", timeout=10)
    assert "lost" in (session.error or ""), session.error
    await expect_error(
        registry, "pause_execution", {"session_id": sid}, "NOT_CONNECTED"
    )  # the target is gone: not connected, maybe back later
    loop = asyncio.get_running_loop()
    began = loop.time()
    await run(registry, "close_debug_session", session_id=sid)
    assert loop.time() - began < 3
    assert sid not in hub.sessions


@pytest.mark.asyncio
async def test_pause_on_caught_exceptions(registry, hub, browser):
    sid = await attach(registry, browser)
    await wait_for_output(registry, sid, "doubled")

    await run(registry, "set_pause_on_exceptions", session_id=sid, mode="all")
    stop = stop_of(await run(registry, "wait_for_stop", session_id=sid, timeout_s=10))
    assert stop["reason"] == "exception", stop
    assert stop["location"]["file"] == browser.app_url
    assert stop["location"]["line"] == THROW
    assert stop["location"]["function"] == "guarded"
    assert stop["exception"]["type"] == "RangeError", stop["exception"]
    assert stop["exception"]["message"].startswith("caught tick "), stop["exception"]
    assert stop["exception"].get("break_mode") != "uncaught", stop["exception"]

    await run(registry, "set_pause_on_exceptions", session_id=sid, mode="none")
    resumed = await run(registry, "continue_execution", session_id=sid, wait_s=0.5)
    assert resumed.data["state"] == "running", resumed.text
    await run(registry, "close_debug_session", session_id=sid, terminate=False)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "browser",
    BROWSERS,
    indirect=True,
)
async def test_async_frames_in_call_stack(registry, hub, browser):
    """settle() awaits a timer; paused after the await, the stack shows the interval callback that called it, and
    only the page's own frames (no engine internals, every line 1-based)."""
    sid = await attach(registry, browser)
    await run(registry, "set_breakpoint", session_id=sid, file=browser.app_url, line=ASYNC)
    stop = stop_of(await run(registry, "wait_for_stop", session_id=sid, timeout_s=20))
    assert stop["location"]["line"] == ASYNC and stop["location"]["function"] == "settle", stop["location"]

    frames = (await run(registry, "get_call_stack", session_id=sid)).data["frames"]
    assert frames[0]["function"] == "settle"
    async_frames = [f for f in frames if "[async" in f["function"]]
    assert async_frames, frames
    caller = line_of_text("settle(counter);")
    assert any(f["file"] == browser.app_url and f["line"] == caller for f in async_frames), frames
    await expect_error(
        registry,
        "evaluate_expression",
        {"session_id": sid, "expression": "1", "frame": async_frames[0]["handle"]},
        "INVALID_PARAMETERS",
    )
    shown = [(f["function"], f["file"], f["line"]) for f in frames]
    assert all(f["file"] == browser.app_url and f["line"] >= 1 for f in frames), shown
    assert not any("[async async]" in f["function"] for f in frames), shown
    await run(registry, "close_debug_session", session_id=sid, terminate=False)


def line_of_text(text: str) -> int:
    for number, line in enumerate(APP.read_text().splitlines(), 1):
        if text in line:
            return number
    raise AssertionError(f"{text!r} not in {APP}")


@pytest.mark.asyncio
async def test_attach_where_nothing_listens(registry, hub):
    port = targets.free_port()
    exc = await expect_error(
        registry, "attach", {"target": f"127.0.0.1:{port}", "language": "javascript"}, "CONNECTION_FAILED"
    )
    assert str(port) in exc.message
    assert exc.hint, exc
    assert hub.sessions == {}


# ----- regressions: each of these once failed against a real browser ----------------------------------------------


@pytest.mark.asyncio
async def test_attach_to_the_page_server_hints_at_the_debugging_port(registry, hub, site):
    target = site.removeprefix("http://").rstrip("/")
    exc = await expect_error(registry, "attach", {"target": target, "language": "javascript"}, "CONNECTION_FAILED")
    assert exc.hint, exc.text()


@pytest.mark.asyncio
@pytest.mark.parametrize("browser", ["chromium"], indirect=True)
async def test_get_source_context_at_a_page_stop(registry, hub, browser):
    sid = await attach(registry, browser)
    await run(registry, "set_breakpoint", session_id=sid, file=browser.app_url, line=TICK)
    stop_of(await run(registry, "wait_for_stop", session_id=sid, timeout_s=20))
    reply = await run(registry, "get_source_context", session_id=sid)
    assert reply.data["file"] == browser.app_url
    assert [r["text"] for r in reply.data["lines"] if r["current"]] == [APP.read_text().splitlines()[TICK - 1]]


@pytest.mark.asyncio
@pytest.mark.parametrize("browser", BROWSERS, indirect=True)
async def test_dom_element_can_be_expanded(registry, hub, browser):
    sid = await attach(registry, browser)
    await run(registry, "set_breakpoint", session_id=sid, file=browser.app_url, line=TICK)
    stop_of(await run(registry, "wait_for_stop", session_id=sid, timeout_s=20))
    element = await run(registry, "evaluate_expression", session_id=sid, expression="document.getElementById('out')")
    assert element.data["handle"], element.text
    assert "HTMLParagraphElement" in element.data["value"]
    children = await run(registry, "get_variables", session_id=sid, ref=element.data["handle"], names=["id", "tagName"])
    assert {v["name"]: v["value"] for v in children.data["variables"]} == {"id": '"out"', "tagName": '"P"'}


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["chromium", "webkit"])
async def test_source_is_fetched_again_after_the_page_script_changes(registry, hub, tmp_path, kind):
    copy = tmp_path / "site"
    shutil.copytree(SITE, copy)
    base, close = targets.serve_directory(copy)
    try:
        async with running(kind, base) as browser:
            sid = await attach(registry, browser)
            bp = await run(registry, "set_breakpoint", session_id=sid, file=browser.app_url, line=TICK)
            before = stop_of(await run(registry, "wait_for_stop", session_id=sid, timeout_s=20))
            assert "MARK:tick" in next(s["text"] for s in before["source"] if s["current"])

            script = copy / "app.js"  # one line more at the top, and a new console text to know the reload ran
            script.write_text("// inserted\n" + script.read_text().replace('"tick "', '"v2 tick "'))
            await run(registry, "remove_breakpoint", session_id=sid, breakpoint_id=bp.data["id"])
            await evaluate(registry, sid, "setTimeout(() => location.reload(), 0)")
            await run(registry, "continue_execution", session_id=sid, wait_s=0)
            await wait_for_output(registry, sid, "v2 tick")

            await run(registry, "set_breakpoint", session_id=sid, file=browser.app_url, line=TICK + 1)
            after = stop_of(await run(registry, "wait_for_stop", session_id=sid, timeout_s=10))
            assert after["location"]["line"] == TICK + 1 and after["location"]["function"] == "tick"
            current = next(s["text"] for s in after["source"] if s["current"])
            assert "MARK:tick" in current, after["source"]
            await run(registry, "close_debug_session", session_id=sid, terminate=False)
    finally:
        close()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "browser",
    BROWSERS,
    indirect=True,
)
async def test_breakpoints_after_a_cross_origin_navigation(registry, hub, browser):
    """The page navigates from 127.0.0.1 to localhost (another site): the session follows it."""
    sid = await attach(registry, browser)
    bp = await run(registry, "set_breakpoint", session_id=sid, file=browser.app_url, line=TICK)
    stop_of(await run(registry, "wait_for_stop", session_id=sid, timeout_s=20))
    other = browser.page_url.replace("127.0.0.1", "localhost")
    await run(registry, "remove_breakpoint", session_id=sid, breakpoint_id=bp.data["id"])
    await run(registry, "set_breakpoint", session_id=sid, file=other.replace("index.html", "app.js"), line=TICK)
    await evaluate(registry, sid, f"setTimeout(() => {{ location.href = {other!r}; }}, 0)")
    await run(registry, "continue_execution", session_id=sid, wait_s=0)
    stop = stop_of(await run(registry, "wait_for_stop", session_id=sid, timeout_s=5))
    assert stop["location"]["file"] == other.replace("index.html", "app.js")
    assert await evaluate(registry, sid, "location.href") == f'"{other}"'
    await run(registry, "close_debug_session", session_id=sid, terminate=False)
