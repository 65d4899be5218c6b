"""In a real terminal (tmux), as a person does it: open a second module with ctrl+o, F9 on a line of it before the
program has imported it, F5, and the program stops there; at 80x24, with the footer's keys still readable."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.core import missing_target, require_debugpy

pytestmark = pytest.mark.timeout(90)

MAIN = """\
    def later():
        import helper
        return helper.double(21)


    print("start")
    print(later())
"""
HELPER = """\
    def double(value):
        result = value * 2
        return result
"""


class Tmux:
    """One detached tmux session running one command; keys sent and the screen read as tmux renders them."""

    def __init__(self, command: list[str], cols: int, rows: int, env: dict[str, str]) -> None:
        self.name = f"pairdbg-{uuid.uuid4().hex[:8]}"
        self.socket = f"pairdbg-test-{os.getpid()}"
        subprocess.run(
            [
                "tmux",
                "-L",
                self.socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                self.name,
                "-x",
                str(cols),
                "-y",
                str(rows),
                *(f"-e{k}={v}" for k, v in env.items()),
                *command,
            ],
            check=True,
        )

    def send(self, *keys: str) -> None:
        subprocess.run(["tmux", "-L", self.socket, "send-keys", "-t", self.name, *keys], check=True)

    def screen(self) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, "capture-pane", "-p", "-t", self.name],
            capture_output=True,
            text=True,
            check=False,
        ).stdout

    def wait_for(self, check, what: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if check(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; the screen:\n{text}")
            time.sleep(0.05)

    def alive(self) -> bool:
        found = subprocess.run(["tmux", "-L", self.socket, "has-session", "-t", self.name], capture_output=True)
        return found.returncode == 0

    def close(self) -> None:
        """Quit pairdbg the person's way (ctrl+q ends its sessions), then the tmux server."""
        if self.alive():
            self.send("C-q")
            deadline = time.monotonic() + 10
            while self.alive() and time.monotonic() < deadline:
                time.sleep(0.05)
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], check=False, capture_output=True)


@pytest.fixture
def program(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'two'\n", encoding="utf-8")
    (tmp_path / "main.py").write_text(textwrap.dedent(MAIN), encoding="utf-8")
    (tmp_path / "helper.py").write_text(textwrap.dedent(HELPER), encoding="utf-8")
    return tmp_path


@pytest.fixture
def tmux(program: Path) -> Iterator[Tmux]:
    if shutil.which("tmux") is None:
        missing_target("tmux is not installed (apt-get install tmux)")
    require_debugpy()
    env = {"TERM": "xterm-256color", "XDG_RUNTIME_DIR": str(program)}
    pairdbg = str(Path(sys.executable).with_name("pairdbg"))
    term = Tmux([pairdbg, "--no-http", "-b", f"{program / 'main.py'}:6", str(program / "main.py")], 80, 24, env)
    try:
        yield term
    finally:
        term.close()


def test_ctrl_o_a_second_module_f9_there_and_f5_stops_in_it(tmux: Tmux, program: Path) -> None:
    tmux.wait_for(lambda s: "▶    6" in s, "the stop on main.py line 6")
    tmux.send("C-o")
    tmux.wait_for(lambda s: "files ·" in s, "the finder's listing")
    tmux.send("help")
    tmux.wait_for(lambda s: "helper.py" in s and "1 of " in s, "helper.py matched")
    tmux.send("Enter")
    tmux.wait_for(lambda s: "def double(value):" in s and "Source · helper.py" in s, "helper.py in the source")
    tmux.send("Down")
    tmux.wait_for(lambda s: "›    2" in s, "the cursor on line 2")
    tmux.send("F9")
    tmux.wait_for(
        lambda s: any(row.lstrip("│ ").startswith(("●›    2", "○›    2")) for row in s.splitlines()),
        "the breakpoint mark on helper.py:2",
    )
    tmux.send("F5")
    screen = tmux.wait_for(lambda s: "▶    2" in s and "result = value * 2" in s, "the stop in helper.py")
    assert "value = 21" in screen  # the inline value of the argument
