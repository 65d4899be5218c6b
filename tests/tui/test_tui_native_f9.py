"""F9 in a second source file of a native program, before the program reaches it (issue 18 part 3): a C program on
lldb's DAP adapter (the lldb profile) and a Go program on Delve's (the delve profile), each calling a function in
another file. The person opens that file with Ctrl+O, sets a breakpoint with F9, presses F5 and the program stops
there. Real gcc, lldb, go and dlv behind the real app."""

from __future__ import annotations

import shutil
import subprocess
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from pairdbg.backends.dap.profile import load_profiles
from pairdbg.backends.models import Phase
from pairdbg.tui.app import PairDbgApp
from pairdbg.tui.source_view import SourceView
from support import until
from support.core import missing_target
from test_tui_navigation import SIZE, type_in_finder, write

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(180)]

C_MAIN = """\
    #include <stdio.h>

    int twice(int n);

    int main(void) {
        int start = 2; /* MARK:start */
        printf("twice %d\\n", twice(start));
        return 0;
    }
"""
C_SECOND = """\
    /* Compiled with main.c into one program: main calls twice() only after its first line. */
    int twice(int n) {
        int out = n * 2; /* MARK:twice */
        return out;
    }
"""
GO_MAIN = """\
    package main

    import (
    \t"fmt"

    \t"example.com/two/second"
    )

    func main() {
    \tstart := 2 // MARK:start
    \tfmt.Println("twice", second.Twice(start))
    }
"""
GO_SECOND = """\
    // Package second is a package of its own, which main calls after its first line.
    package second

    func Twice(n int) int {
    \tout := n * 2 // MARK:twice
    \treturn out
    }
"""


def need(executable: str, hint: str) -> None:
    if shutil.which(executable) is None:
        missing_target(f"{executable} not installed: {hint}")


def marked(path: str, mark: str) -> int:
    return next(n for n, text in enumerate(Path(path).read_text().splitlines(), 1) if mark in text)


@asynccontextmanager
async def stopped_in_main(registry, program: str, main: str, language: str):
    """The app on a session of `program` stopped at main's MARK:start line."""
    hub = registry.hub
    app = PairDbgApp(hub, registry)
    line = marked(main, "MARK:start")
    async with app.run_test(size=SIZE) as pilot:
        args = {"program": program, "language": language, "breakpoints": [{"file": main, "line": line}]}
        reply = await registry.run("start_debugging", args, "human")
        session = hub.sessions[reply.data["session_id"]]
        source = app.query_one(SourceView)
        await until(lambda: source.path == main and source.current_line == line, "the stop in main", pilot=pilot)
        yield app, pilot, session, source


async def f9_in_second_then_f5(app, pilot, session, source, second: str, name: str) -> None:
    """Ctrl+O the second file, F9 on its MARK:twice line, F5: the program stops there, the breakpoint verified."""
    line = marked(second, "MARK:twice")
    await pilot.press("ctrl+o")
    await type_in_finder(app, pilot, name)
    await pilot.press("enter")
    await until(lambda: source.path == second, f"{name} in the source pane", pilot=pilot)
    assert source.current_line is None, "the stop marker stays in main"
    source.set_cursor(line)
    await pilot.press("f9")
    await until(lambda: any(b.file == second for b in session.breakpoints.values()), "the breakpoint", pilot=pilot)
    bp = next(b for b in session.breakpoints.values() if b.file == second)
    assert (bp.line, bp.set_by) == (line, "human")
    await until(lambda: source.line_text(line)[0] in "●○", "the gutter mark", pilot=pilot)
    await pilot.press("f5")
    await until(
        lambda: source.path == second and source.current_line == line, f"the stop in {name}", pilot=pilot, timeout=30
    )
    assert session.phase == Phase.PAUSED and session.last_stop is not None
    assert session.last_stop.hit_breakpoints == [bp.id], session.last_stop
    assert bp.state.verified and bp.hits == 1
    await until(lambda: source.line_text(line)[0] == "●", "the gutter shows it verified", pilot=pilot)


async def test_c_f9_in_a_second_source_file_then_f5_stops_there(registry, tmp_path):
    need("gcc", "apt-get install gcc")
    load_profiles()["lldb"].executable()  # CONNECTION_FAILED with the install hint when lldb is missing
    main, second = write(tmp_path, "main.c", C_MAIN), write(tmp_path, "second.c", C_SECOND)
    binary = tmp_path / "two"
    subprocess.run(["gcc", "-g", "-O0", "-o", str(binary), main, second], check=True, timeout=60)
    async with stopped_in_main(registry, str(binary), main, "c") as (app, pilot, session, source):
        await f9_in_second_then_f5(app, pilot, session, source, second, "second.c")


async def test_go_f9_in_a_second_package_then_f5_stops_there(registry, tmp_path, monkeypatch):
    need("go", "apt-get install golang-go")
    load_profiles()["delve"].executable()  # CONNECTION_FAILED with the install hint when dlv is missing
    monkeypatch.setenv("GOCACHE", str(tmp_path / "gocache"))  # delve builds the program; keep the cache private
    monkeypatch.setenv("GOFLAGS", "-mod=mod")
    (tmp_path / "go.mod").write_text("module example.com/two\n\ngo 1.19\n")
    (tmp_path / "second").mkdir()
    main, second = write(tmp_path, "main.go", GO_MAIN), write(tmp_path / "second", "second.go", GO_SECOND)
    async with stopped_in_main(registry, main, main, "go") as (app, pilot, session, source):
        await f9_in_second_then_f5(app, pilot, session, source, second, "second.go")
