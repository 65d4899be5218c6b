"""`pairdbg test` (issue 19 §1): the command line's launch runs debug_tests in the TUI on the project in the current
folder; the window shows the failing test's line and names the test over it. Its refusals come before a window."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pairdbg import cli
from pairdbg.tui.app import PairDbgApp
from pairdbg.tui.panes import ExceptionBanner
from pairdbg.tui.source_view import SourceView
from support import PROGRAMS, ROOT, line_of, until

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
