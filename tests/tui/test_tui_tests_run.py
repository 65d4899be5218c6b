"""`pairdbg test` (issue 19 §1): the command line's launch runs debug_tests in the TUI on the project in the current
folder; the window shows the failing test's line and names the test over it. Its refusals come before a window.
The launch starts before the app loads (run_tui): the app shows what happened meanwhile, a launch that fails then
says so in the window, and quitting while it starts leaves nothing running."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pairdbg import cli
from pairdbg.backends.events import EventBus, OutputAppended, PhaseChanged, SessionAdded
from pairdbg.backends.focus import HUMAN
from pairdbg.backends.models import OutputEntry, Phase
from pairdbg.tui.app import PairDbgApp
from pairdbg.tui.early import EarlyEvents
from pairdbg.tui.panes import ActivityLog, ConsolePane, ExceptionBanner
from pairdbg.tui.source_view import SourceView
from support import PROGRAMS, ROOT, line_of, pid_alive, until
from support.terminal import CTRL_Q, Terminal

SUITE = PROGRAMS / "pytest_suite"


def test_pairdbg_test_is_debug_tests_on_this_folder_with_the_runners_arguments(monkeypatch) -> None:
    monkeypatch.chdir(SUITE)
    launch = cli._tests_launch(cli.parse(["--python", sys.executable, "test", "-k", "discount", "-x"]))
    assert launch == {
        "action": "debug_tests", "args": ["-k", "discount", "-x"], "cwd": str(SUITE), "executable_path": sys.executable,
    }  # fmt: skip


def test_pairdbg_test_refuses_breakpoints_before_a_window_opens(tmp_path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pairdbg", "-b", "x.py:3", "test"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
        env={**os.environ, "XDG_RUNTIME_DIR": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode != 0 and "pairdbg test: -b is not taken here" in done.stderr


@pytest.mark.asyncio
async def test_the_tui_stops_at_the_failing_test_and_names_it(core, monkeypatch) -> None:
    hub, registry = core
    monkeypatch.chdir(SUITE)
    launch = cli._tests_launch(cli.parse(["test", "-k", "test_discount_fails"]))
    app = PairDbgApp(hub, registry, launch=launch)
    line = line_of("pytest_suite/test_orders.py", "assert price == 180")
    async with app.run_test(size=(160, 45)) as pilot:
        source = app.query_one(SourceView)
        await until(lambda: source.current_line == line, "the stop at the failing assertion", timeout=60, pilot=pilot)
        assert source.path == str(SUITE / "test_orders.py")
        banner = app.query_one(ExceptionBanner).text_plain
        assert banner.startswith("✗ test test_orders.py::test_discount_fails failed: AssertionError"), banner


# ----- the launch starts before the app (run_tui): what the app shows once it is up -------------------------------

FAILING_AFTER_OUTPUT = """
def test_prints_then_fails():
    print("written before the window was up")
    assert 1 + 1 == 3, "arithmetic"
"""


@pytest.mark.asyncio
async def test_a_launch_that_stopped_before_the_app_was_up_is_shown_whole(core, tmp_path) -> None:
    """run_tui starts the launch before Textual loads, so the stop may come before the window exists. Everything
    the Hub said meanwhile (the session, its stop, the program's output, the launch's activity line) and the
    launch's reply are on screen once the app mounts."""
    hub, registry = core
    (tmp_path / "test_early.py").write_text(FAILING_AFTER_OUTPUT)
    launch = {"action": "debug_tests", "args": ["-s", "-p", "no:cacheprovider"], "cwd": str(tmp_path)}
    early = EarlyEvents(hub.bus)  # as run_tui: listening before the launch's first event
    args = {key: value for key, value in launch.items() if key != "action"}
    launched = asyncio.ensure_future(registry.run("debug_tests", args, HUMAN))
    reply = await asyncio.wait_for(asyncio.shield(launched), 60)
    assert reply.data["state"] == "paused", reply.text  # stopped with no app at all
    app = PairDbgApp(hub, registry, launch=launch, launched=launched, early=early)
    line = (tmp_path / "test_early.py").read_text().splitlines().index('    assert 1 + 1 == 3, "arithmetic"') + 1
    async with app.run_test(size=(160, 45)) as pilot:
        source = app.query_one(SourceView)
        await until(lambda: source.current_line == line, "the failing assertion marked", timeout=30, pilot=pilot)
        assert source.path == str(tmp_path / "test_early.py")
        banner = app.query_one(ExceptionBanner).text_plain
        assert banner.startswith("✗ test test_early.py::test_prints_then_fails failed: AssertionError"), banner
        shown = app.query_one(ConsolePane).lines_text
        early_output = "written before the window was up"
        await until(lambda: any(early_output in text for text in shown), "the early output in the console", pilot=pilot)
        said = "✗ test test_early.py::test_prints_then_fails failed: AssertionError: arithmetic"
        assert any(text.startswith(said) for text in shown), shown
        assert any(text.startswith("S1 runs on ") for text in shown), shown  # the launch's reply, shown
        activity = app.query_one(ActivityLog).lines_text
        assert any("● human" in text and "debug_tests" in text for text in activity), activity
        assert app.session_id == reply.data["session_id"]


def test_early_events_keep_a_sessions_events_through_an_output_flood() -> None:
    """Output and the session's other events are bounded apart: a flood drops only the oldest output (counted),
    and what is handed over keeps its order."""
    bus = EventBus()
    early = EarlyEvents(bus, max_output=3)
    bus.publish(SessionAdded("S1", name="p"))
    for n in range(10):
        bus.publish(OutputAppended("S1", entry=OutputEntry(seq=n + 1, category="stdout", text=f"{n}\n")))
    bus.publish(PhaseChanged("S1", phase=Phase.PAUSED))
    heard = early.take()
    assert [type(e).__name__ for e in heard] == ["SessionAdded", *["OutputAppended"] * 3, "PhaseChanged"]
    assert [e.entry.text for e in heard if isinstance(e, OutputAppended)] == ["7\n", "8\n", "9\n"]
    assert early.dropped_output == 7
    bus.publish(SessionAdded("S2", name="q"))
    assert early.take() == []  # no longer listening


# ----- the real command in a terminal: a launch that fails, a quit while it starts --------------------------------


def pairdbg_in(folder: Path, run_dir: Path, *args: str) -> Terminal:
    env = {**os.environ, "TERM": "xterm-256color", "XDG_RUNTIME_DIR": str(run_dir)}
    argv = [str(Path(sys.executable).with_name("pairdbg")), "--no-http", *args]
    return Terminal(argv, env, 140, 40, cwd=str(folder))


def started_under(run_dir: Path) -> list[int]:
    """Processes started under a pairdbg whose XDG_RUNTIME_DIR is `run_dir` (a folder of the test's own): its
    debug adapter, the test run, what that started."""
    mark = f"XDG_RUNTIME_DIR={run_dir}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                environ = (entry / "environ").read_bytes().split(b"\0")
            except OSError:
                continue
            if mark in environ and pid_alive(int(entry.name)):
                found.append(int(entry.name))
    return found


def ended(term: Terminal, within_s: float) -> int | None:
    """pairdbg's exit code once it has ended (reading its screen meanwhile: a full terminal would block it)."""
    deadline = time.monotonic() + within_s
    while term.proc.poll() is None and time.monotonic() < deadline:
        term.pump(0.05)
    return term.proc.poll()


def test_a_launch_that_fails_before_the_window_is_up_says_why_in_it(tmp_path) -> None:
    """`pairdbg test` where there is no project: debug_tests fails at once, long before the app has loaded; the
    window says why (the launch's error is not lost with the early start)."""
    empty = tmp_path / "empty"
    empty.mkdir()
    term = pairdbg_in(empty, tmp_path, "test")
    try:
        term.wait_for(lambda display: any("debug_tests: INVALID_PARAMETERS" in row for row in display), 60)
        assert "holds no project" in term.text()
        term.send(CTRL_Q)
        assert ended(term, 15) == 0, term.text()
    finally:
        term.close()


SLOW_TEST = """
import os, pathlib, time

def test_waits():
    pathlib.Path("started.pid").write_text(str(os.getpid()))
    time.sleep(120)
"""


@pytest.mark.parametrize("how", ["ctrl+q", "sigterm"])
def test_quitting_while_the_launch_starts_leaves_no_process(tmp_path, how) -> None:
    """The launch runs from before the window: quitting while it is still under way (its test run started, no stop
    yet: the reply pending) ends pairdbg and everything it started (the test run, the debug adapter)."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_slow.py").write_text(SLOW_TEST)
    term = pairdbg_in(project, tmp_path, "test", "-p", "no:cacheprovider")
    try:
        deadline = time.monotonic() + 60
        while not (project / "started.pid").is_file() or not (project / "started.pid").read_text():
            assert time.monotonic() < deadline, "the test run never started:\n" + term.text()
            term.pump(0.02)
        program = int((project / "started.pid").read_text())
        started = started_under(tmp_path)
        assert program in started and len(started) >= 3, started  # pairdbg, its adapter, the test run
        if how == "sigterm":
            os.kill(term.proc.pid, signal.SIGTERM)
        else:
            term.wait_for(lambda display: any("running" in row for row in display), 30)  # the app is up
            term.send(CTRL_Q)
        assert ended(term, 15) is not None, "pairdbg still runs:\n" + term.text()
        deadline = time.monotonic() + 5
        while started_under(tmp_path) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not pid_alive(program), "the test run outlived pairdbg"
        assert started_under(tmp_path) == []
    finally:
        if term.proc.poll() is None:
            os.killpg(term.proc.pid, signal.SIGKILL)
        term.close()


@pytest.mark.asyncio
async def test_a_sigterm_while_the_app_loads_keeps_it_from_starting_and_ends_the_launch(tmp_path, monkeypatch):
    """run_tui_async itself, the end signal arriving while Textual loads (the launch's test run already started):
    the app is never started, the launch is ended with its program, the MCP port closed."""
    import pairdbg.tui as tui
    from pairdbg.runtime import Runtime
    from pairdbg.settings import Settings

    (tmp_path / "test_slow.py").write_text(SLOW_TEST.replace('"started.pid"', repr(str(tmp_path / "started.pid"))))
    loaded = tui._load_app

    def load_during_a_sigterm(saved_theme, saved_where):
        pid_file = tmp_path / "started.pid"
        deadline = time.monotonic() + 60
        while not (pid_file.is_file() and pid_file.read_text()):  # (in the loader's thread: the loop runs on)
            assert time.monotonic() < deadline, "the test run never started"
            time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGTERM)
        return loaded(saved_theme, saved_where)

    class Port:
        closed = False

        async def stop(self) -> None:
            self.closed = True

    monkeypatch.setattr(tui, "_load_app", load_during_a_sigterm)
    runtime = Runtime(Settings(rn={"WS_PORT": 0}, bridge={"port": 0}))
    launch = {"action": "debug_tests", "args": ["-p", "no:cacheprovider"], "cwd": str(tmp_path)}
    http = Port()
    try:
        opened, left = await asyncio.wait_for(tui.run_tui_async(runtime, http, launch=launch), 60)
    finally:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGHUP):
            loop.remove_signal_handler(sig)
    assert (opened, left) == ("pairdbg-dark", "pairdbg-dark") and http.closed
    program = int((tmp_path / "started.pid").read_text())
    await until(lambda: not pid_alive(program), "the test run ended with the launch", timeout=5)
    assert all(session.phase.ended for session in runtime.hub.sessions.values())
