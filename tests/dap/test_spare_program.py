"""A debuggee started ahead (backends/dap/spare.py, issue 19's speed): `pairdbg --mcp` keeps a Python ready that
has done debugpy's imports, `pairdbg test` and the TUI start one as the window loads, and the next launch that fits
becomes it. The program must not be able to
tell: the same folder, arguments, sys.path, environment, stdin and process group as a program started for its
launch. A launch that does not fit starts its own, and a spare nobody took ends with pairdbg, or by itself when
pairdbg is gone. Against the real debugpy."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pairdbg.backends.dap.python import SPARE_PROGRAM, start_spare_program
from pairdbg.backends.dap.spare import SpareProgram
from pairdbg.runtime import Runtime
from pairdbg.settings import Settings
from support import pid_alive, require_debugpy, until

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(90)]

PROBE = """\
import json, os, sys
stdin = os.fstat(0)
facts = {
    "cwd": os.getcwd(), "argv": sys.argv, "path": sys.path, "name": __name__,
    "orig": [sys.orig_argv[0], sys.orig_argv[-1]],
    "env": {k: os.environ.get(k) for k in ("PYTHONUNBUFFERED", "PAIRDBG_TEST_RUN", "PAIRDBG_TEST_HOOK", "EXTRA")},
    "stdin_is_null": stdin.st_rdev == os.stat(os.devnull).st_rdev, "own_group": os.getpgid(0) == os.getpid(),
    "stdin_seekable": sys.stdin.seekable(), "open_fds": sorted(int(fd) for fd in os.listdir("/proc/self/fd"))[:4],
    "flags": list(sys.flags), "xoptions": sys._xoptions,
}
import helper  # beside the program: found through sys.path, as the folder it runs from
facts["helper"] = helper.VALUE
print("FACTS " + json.dumps(facts), flush=True)
"""


def project(tmp_path):
    folder = tmp_path / "app"
    folder.mkdir()
    (folder / "probe.py").write_text(PROBE)
    (folder / "helper.py").write_text("VALUE = 'the helper beside the program'\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return folder, elsewhere


async def facts_of(registry, program: str, **extra) -> tuple[dict, int]:
    reply = await registry.run(
        "start_debugging", {"program": program, "executable_path": sys.executable, "wait_s": 0, **extra}, "agent:t"
    )
    session = registry.hub.sessions[reply.data["session_id"]]
    await until(lambda: session.phase.ended, "the probe to end", timeout=60)
    printed = "".join(e.text for e in session.output.read(0, 100)[0])
    line = next((text for text in printed.splitlines() if text.startswith("FACTS ")), None)
    assert line is not None, printed
    return json.loads(line[6:]), session.backend.pid


async def test_the_program_cannot_tell_it_was_a_spare(registry, tmp_path):
    require_debugpy()
    folder, elsewhere = project(tmp_path)
    program = str(folder / "probe.py")
    cold, _ = await facts_of(registry, program)
    start_spare_program(sys.executable, str(elsewhere))  # started in another folder than the program's
    try:
        await until(lambda: SPARE_PROGRAM.pid is not None, "the spare running")
        spare_pid = SPARE_PROGRAM.pid
        warm, pid = await facts_of(registry, program)
        assert pid == spare_pid, "the launch did not take the spare"
    finally:
        await SPARE_PROGRAM.close()
    assert warm == cold
    assert warm["cwd"] == str(folder) and warm["env"]["PYTHONUNBUFFERED"] == "1" and warm["stdin_is_null"]
    assert warm["own_group"] and warm["name"] == "__main__" and warm["orig"] == [sys.executable, program]


async def test_a_pth_file_added_after_the_spare_started_is_seen_by_the_program(registry, tmp_path):
    """An editable install after the spare started (a new .pth file in its interpreter's site-packages): the
    spare's interpreter would not have it on sys.path, so it starts the command line afresh in its place (same
    process) and the program imports what the .pth file adds, as a program started now would."""
    require_debugpy()
    folder, _ = project(tmp_path)
    (folder / "probe.py").write_text(PROBE + "import extramod\nprint('EXTRA', extramod.WHERE, flush=True)\n")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
    python = str(tmp_path / "venv" / "bin" / "python")
    site_packages = subprocess.run(
        [python, "-c", "import site; print(site.getsitepackages()[0])"], capture_output=True, text=True, check=True
    ).stdout.strip()
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "extramod.py").write_text("WHERE = 'added by a .pth file'\n")
    start_spare_program(python, str(folder))
    try:
        await until(lambda: SPARE_PROGRAM.pid is not None, "the spare running")
        spare_pid = SPARE_PROGRAM.pid
        await asyncio.sleep(0.5)  # well into (or past) its start
        (Path(site_packages) / "extra.pth").write_text(str(extra) + "\n")
        reply = await registry.run(
            "start_debugging", {"program": str(folder / "probe.py"), "executable_path": python, "wait_s": 0}, "t"
        )
        session = registry.hub.sessions[reply.data["session_id"]]
        stopped = lambda: session.phase.ended or session.phase.value == "paused"  # noqa: E731 (paused: it raised)
        await until(stopped, "the probe to end", timeout=60)
        printed = "".join(e.text for e in session.output.read(0, 100)[0])
        assert session.phase.ended and "EXTRA added by a .pth file" in printed, (session.phase, printed)
        assert session.backend.pid == spare_pid  # the same process, started afresh
    finally:
        await SPARE_PROGRAM.close()


async def test_a_launch_with_its_own_environment_starts_its_own_program(registry, tmp_path):
    require_debugpy()
    folder, _ = project(tmp_path)
    start_spare_program(sys.executable, str(folder))
    try:
        await until(lambda: SPARE_PROGRAM.pid is not None, "the spare running")
        spare_pid = SPARE_PROGRAM.pid
        facts, pid = await facts_of(registry, str(folder / "probe.py"), env={"EXTRA": "yes"})
        assert pid != spare_pid and facts["env"]["EXTRA"] == "yes"
        assert SPARE_PROGRAM.pid == spare_pid and pid_alive(spare_pid)  # still there for the next launch
    finally:
        await SPARE_PROGRAM.close()
    await until(lambda: not pid_alive(spare_pid), "the spare ended at its close")


async def test_a_servers_debug_tests_runs_in_the_spare_and_stops_at_the_failure(tmp_path, monkeypatch):
    """`pairdbg --mcp`'s path: the server keeps adapter and debuggee ready; debug_tests stops where the test fails,
    and the next spare comes after the launch."""
    require_debugpy()
    from pairdbg.backends.dap import spare

    monkeypatch.setattr(spare, "REFILL_AFTER_S", 0.05)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)  # the server's first spare: pairdbg's own interpreter
    (tmp_path / "test_one.py").write_text("def test_one():\n    total = 2\n    assert total == 3\n")
    monkeypatch.chdir(tmp_path)
    rt = Runtime(Settings(rn={"WS_PORT": 0}, bridge={"port": 0}))
    seen = {}

    async def serve() -> None:
        rt.keep_adapter_ready()
        await until(lambda: SPARE_PROGRAM.pid is not None, "the spare running")
        seen["spare"] = SPARE_PROGRAM.pid
        reply = await rt.registry.run("debug_tests", {"cwd": str(tmp_path), "executable_path": sys.executable}, "t")
        assert reply.data["stop"]["exception"]["test"]["test"] == "test_one.py::test_one", reply.text
        assert reply.data["stop"]["location"]["line"] == 3
        assert rt.hub.sessions[reply.data["session_id"]].backend.pid == seen["spare"]
        await until(lambda: SPARE_PROGRAM.pid not in (None, seen["spare"]), "the next spare running")
        seen["next"] = SPARE_PROGRAM.pid

    await rt.run(serve)
    for pid in (seen["spare"], seen["next"]):
        await until(lambda pid=pid: not pid_alive(pid), "the program and the next spare ended at shutdown")


async def test_pairdbg_tests_launch_becomes_the_spare_its_front_end_started(tmp_path):
    """`pairdbg test`'s path: Runtime.prepare starts adapter and debuggee as the window loads; the run is that
    debuggee and stops where the test fails."""
    require_debugpy()
    (tmp_path / "test_one.py").write_text("def test_one():\n    total = 2\n    assert total == 3\n")
    rt = Runtime(Settings(rn={"WS_PORT": 0}, bridge={"port": 0}))
    launch = {"action": "debug_tests", "args": [], "cwd": str(tmp_path)}
    rt.prepare(launch)
    seen = {}

    async def serve() -> None:
        await until(lambda: SPARE_PROGRAM.pid is not None, "the spare running")
        seen["spare"] = SPARE_PROGRAM.pid
        reply = await rt.start_launch(launch)
        assert reply.data["stop"]["exception"]["test"]["test"] == "test_one.py::test_one", reply.text
        assert rt.hub.sessions[reply.data["session_id"]].backend.pid == seen["spare"]

    await rt.run(serve)
    await until(lambda: not pid_alive(seen["spare"]), "the program ended with its session")


async def test_a_spare_nobody_took_ends_with_pairdbg_or_alone_once_pairdbg_is_gone(tmp_path):
    require_debugpy()
    rt = Runtime(Settings(rn={"WS_PORT": 0}, bridge={"port": 0}))
    seen = {}

    async def serve() -> None:
        rt.keep_adapter_ready()
        await until(lambda: SPARE_PROGRAM.pid is not None, "the spare running")
        seen["pid"] = SPARE_PROGRAM.pid

    await rt.run(serve)
    await until(lambda: not pid_alive(seen["pid"]), "the spare ended at shutdown")
    assert SPARE_PROGRAM.pid is None
    # pairdbg gone (its end of the spare's pipe closed, as at a SIGKILL): the spare ends by itself, status 0
    spare = SpareProgram(SPARE_PROGRAM.boot)
    spare.start(sys.executable, str(tmp_path), dict(os.environ))
    await until(lambda: spare.pid is not None, "a second spare running")
    proc, ends, _, go = await spare._spawning
    os.close(go)
    assert await asyncio.wait_for(proc.wait(), 30) == 0
    for fd in ends:
        os.close(fd)
    spare._spawning = None


async def test_which_launches_fit_a_spare(tmp_path):
    """Pure logic: the command line must start as the spare's, the environment be the same but for what is read
    after the go, and a relative PYTHONPATH entry ties the launch to the spare's folder."""
    spare = SpareProgram("/x/pydevd_boot.py")
    here, there = str(tmp_path / "here"), str(tmp_path / "there")
    os.mkdir(here)
    os.mkdir(there)
    spare.python, spare.cwd, spare.debugpy_dir = "/py/bin/python", here, "/lib/debugpy"
    spare.env = {"PATH": "/bin", "PYTHONUNBUFFERED": "1"}
    command = ["/py/bin/python", "-X", "frozen_modules=off", "/x/pydevd_boot.py", "-X", "frozen_modules=off",
               "/lib/debugpy", "--connect", "127.0.0.1:5678", "-m", "pytest"]  # fmt: skip
    env = dict(spare.env)
    assert spare.fits(command, here, env)
    assert spare.fits(command, there, env)
    assert not spare.fits(command, str(tmp_path / "gone"), env)  # its own start says what is wrong with it
    assert spare.fits(command, here, {**env, "PAIRDBG_TEST_HOOK": "pytest"})
    assert not spare.fits(command, here, {**env, "EXTRA": "1"})
    assert not spare.fits(command, here, {"PATH": "/bin"})
    assert not spare.fits(["/other/python", *command[1:]], here, env)
    assert not spare.fits([*command[:6], "/elsewhere/debugpy", *command[7:]], here, env)
    spare.env["PYTHONPATH"] = env["PYTHONPATH"] = "src:/abs"
    assert spare.fits(command, here, env) and not spare.fits(command, there, env)
    spare.env["PYTHONPATH"] = env["PYTHONPATH"] = "/abs/src:/abs"
    assert spare.fits(command, there, env)
