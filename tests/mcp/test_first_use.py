"""First use without surprises (issue 21 §4): `--version`, `-b` with the demo, a settings file that holds the
PAIRDBG_* settings and remembers the theme, and `pairdbg --mcp` on stdio keeping stderr quiet and tokens out."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from pairdbg import cli
from pairdbg.backends.samples import DEMO
from support.core import ROOT
from support.mcp import INITIALIZE
from support.terminal import CTRL_Q, Terminal, marked_line

PAIRDBG = str(Path(sys.executable).with_name("pairdbg"))


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PAIRDBG, *args], cwd=ROOT, capture_output=True, text=True, timeout=60, env=env, stdin=subprocess.DEVNULL
    )


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A user of their own: config, state and runtime folders under tmp_path."""
    out = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_RUNTIME_DIR": str(tmp_path / "run")}
    (tmp_path / "run").mkdir()
    for name in [n for n in out if n.startswith("PAIRDBG_")]:
        out.pop(name)
    return out


def settings_path(env: dict[str, str]) -> Path:
    return Path(env["XDG_CONFIG_HOME"]) / "pairdbg" / "settings.toml"


def test_version(env) -> None:
    result = run("--version", env=env)
    assert result.returncode == 0 and result.stdout.strip() == f"pairdbg {version('pairdbg')}"


def test_b_without_a_program_the_tui_starts_is_refused(env) -> None:
    for args in (["-b", "13"], ["--mcp", "-b", "13"], ["-b", "nosuch.py:3", "demo"]):
        result = run(*args, env=env)
        assert result.returncode in (1, 2) and result.stderr.count("\n") == 1, (args, result.stderr)
        assert "pairdbg" in result.stderr and "-b" in result.stderr, result.stderr
    assert "LINE alone means" in run("-b", "nosuch.py:3", "demo", env=env).stderr


def test_b_with_the_demo_stops_at_that_line(env) -> None:
    assert cli._demo_launch(["14"])["breakpoints"] == [{"file": DEMO, "line": 14}]
    term = Terminal([PAIRDBG, "--no-http", "-b", "14", "demo"], {**env, "TERM": "xterm-256color"}, 120, 32)
    try:
        term.wait_for(lambda display: marked_line(display) == 14, 60)
    finally:
        term.close()


def test_the_settings_file_holds_settings_below_the_environment(env, monkeypatch) -> None:
    from pairdbg.settings import Settings

    path = settings_path(env)
    path.parent.mkdir(parents=True)
    path.write_text('# mine\n[limits]\nmax_sessions = 3\n\n[agents]\nmode = "inspect"\n\n[rn]\nWS_PORT = 0\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", env["XDG_CONFIG_HOME"])
    monkeypatch.delenv("PAIRDBG_LIMITS__MAX_SESSIONS", raising=False)
    settings = Settings()
    assert settings.limits.max_sessions == 3 and settings.agents.mode == "inspect" and settings.rn == {"WS_PORT": 0}
    monkeypatch.setenv("PAIRDBG_LIMITS__MAX_SESSIONS", "5")
    assert Settings().limits.max_sessions == 5  # the environment wins

    path.write_text("[limits]\nmax_sessions = \n")
    broken = run("--mcp", env=env)
    assert broken.returncode != 0 and f"the settings file {path} is not valid TOML" in broken.stderr
    path.write_text("[limit]\nmax_sessions = 3\n[limits]\nmax_sesions = 3\n")  # typos are said, not ignored silently
    typo = run("--mcp", env=env)
    assert f"{path}: no such setting: [limit], [limits] max_sesions (ignored)" in typo.stderr, typo.stderr
    path.write_text('[limits]\nmax_sessions = "many"\n')
    wrong = run("--mcp", env=env)
    assert "PAIRDBG_LIMITS__MAX_SESSIONS (or [limits] max_sessions in" in wrong.stderr, wrong.stderr


def test_the_theme_the_person_chose_is_remembered(env) -> None:
    path = settings_path(env)
    path.parent.mkdir(parents=True)
    path.write_text("# my settings\n[limits]\nmax_sessions = 4\n")

    def toggle_theme_and_quit() -> None:
        term = Terminal([PAIRDBG, "--no-http"], {**env, "TERM": "xterm-256color"}, 120, 32)
        try:
            term.wait_for(lambda display: "no session" in "\n".join(display), 60)
            term.send(b"\x14")  # ctrl+t
            term.settle(0.5)
            term.send(CTRL_Q)
            assert term.proc.wait(20) == 0
        finally:
            term.close()

    toggle_theme_and_quit()  # dark -> light
    text = path.read_text()
    assert text.startswith("# my settings\n[limits]\nmax_sessions = 4\n") and 'theme = "pairdbg-light"' in text
    toggle_theme_and_quit()  # started light (remembered), so the toggle goes back to dark
    assert 'theme = "pairdbg-dark"' in path.read_text()


def test_mcp_on_stdio_keeps_stderr_quiet_and_tokens_out(env) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "pairdbg", "--mcp"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**env, "PAIRDBG_RN__WS_PORT": "0", "PAIRDBG_BRIDGE_PORT": "0"},  # both listeners generate tokens
    )
    try:
        proc.stdin.write(json.dumps(INITIALIZE) + "\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1
        proc.stdin.close()
        proc.wait(30)
        stderr = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert stderr == "", stderr  # no INFO lines, no "token for this run"
    log = (Path(env["XDG_RUNTIME_DIR"]) / "pairdbg" / "pairdbg.log").read_text()
    assert "token for this run: <hidden>" in log
    assert not re.search(r"token for this run: (?!<hidden>)", log), log
