"""Runtimes on demand (issue 15): `pairdbg install bun|js-debug` fetches the pinned npm packages into pairdbg's user
data folder, where they are found from then on; before that, the error an agent gets says what to ask the user."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from support import ROOT

from pairdbg.backends import runtimes

pytestmark = pytest.mark.timeout(600)


@pytest.fixture
def fresh_user(tmp_path, monkeypatch):
    """A user with no Bun or js-debug anywhere pairdbg looks: an empty data folder, no .tools, no bun on PATH."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for name in ("PAIRDBG_BUN", "PAIRDBG_JS_DEBUG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(runtimes, "ROOT", tmp_path / "no-checkout")
    node_dir = os.path.dirname(runtimes.find_node())
    monkeypatch.setenv("PATH", os.pathsep.join([node_dir, "/usr/bin", "/bin"]))
    assert runtimes.shutil.which("bun") is None, "a bun on PATH would hide what this test checks"
    return tmp_path


def test_missing_runtimes_say_to_ask_for_pairdbg_install(fresh_user):
    for name, find in (("bun", runtimes.find_bun), ("js-debug", runtimes.find_js_debug)):
        with pytest.raises(runtimes.TargetMissing) as missing:
            find()
        assert (
            f"pairdbg install {name}" in missing.value.how_to_install and "ask the user" in missing.value.how_to_install
        )


def test_pairdbg_install_fetches_them_and_they_are_found_afterwards(fresh_user):
    env = {**os.environ, "XDG_DATA_HOME": str(fresh_user / "data"), "PATH": os.environ["PATH"]}
    done = subprocess.run(
        [sys.executable, "-m", "pairdbg", "install", "bun", "js-debug"],
        capture_output=True,
        text=True,
        timeout=500,
        env=env,
        cwd=fresh_user,
    )
    assert done.returncode == 0, done.stderr
    bun = runtimes.find_bun()
    assert bun.startswith(str(fresh_user / "data" / "pairdbg" / "tools")), bun
    version = subprocess.run([bun, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    assert version == runtimes.BUN_VERSION
    assert runtimes.find_js_debug().startswith(str(fresh_user / "data" / "pairdbg" / "tools"))


def test_pairdbg_install_refuses_an_unknown_name():
    done = subprocess.run(
        [sys.executable, "-m", "pairdbg", "install", "deno"], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 2 and "bun, js-debug" in done.stderr
