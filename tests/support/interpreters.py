"""Other CPython versions the tests run programs on (code paths that exist only there, e.g. 3.12's dict watchers
and sys.monitoring): found by $PAIRDBG_TEST_PYTHON3xx, else `python3.x` on PATH, else pyenv's versions folder; each
candidate is run to check its version (a pyenv shim for a version not selected exits non-zero). Missing: a skip that
says why, a failure under CI=true (scripts/setup-targets.sh reports what it finds)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

from .core import missing_target


def _pyenv_root() -> Path | None:
    root = os.environ.get("PYENV_ROOT")
    if root:
        return Path(root)
    pyenv = shutil.which("pyenv")
    if pyenv is None:
        return None
    found = subprocess.run([pyenv, "root"], capture_output=True, text=True, timeout=10)
    return Path(found.stdout.strip()) if found.returncode == 0 and found.stdout.strip() else None


def _pyenv_versions(minor: int) -> list[str]:
    """pyenv's 3.<minor>.N interpreters, newest patch first (release builds only: no 3.13.0t, no -dev)."""
    root = _pyenv_root()
    if root is None or not (root / "versions").is_dir():
        return []
    found = []
    for entry in (root / "versions").iterdir():
        match = re.fullmatch(rf"3\.{minor}\.(\d+)", entry.name)
        python = entry / "bin" / f"python3.{minor}"
        if match and python.is_file():
            found.append((int(match.group(1)), str(python)))
    return [python for _, python in sorted(found, reverse=True)]


def _is_cpython(python: str, minor: int) -> bool:
    check = "import sys, platform; print(platform.python_implementation(), *sys.version_info[:2])"
    try:
        ran = subprocess.run([python, "-c", check], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return ran.returncode == 0 and ran.stdout.split() == ["CPython", "3", str(minor)]


@cache
def find_cpython(minor: int) -> str | None:
    """The path of a working CPython 3.<minor>, or None."""
    override = os.environ.get(f"PAIRDBG_TEST_PYTHON3{minor}")
    if override:  # named by the person: used or failed, never replaced by another one
        return override if _is_cpython(override, minor) else None
    on_path = shutil.which(f"python3.{minor}")
    for python in ([on_path] if on_path else []) + _pyenv_versions(minor):
        if _is_cpython(python, minor):
            return python
    return None


def cpython(minor: int) -> str:
    """A CPython 3.<minor> for a test, or the test is skipped (failed under CI) with what to set."""
    python = find_cpython(minor)
    if python is None:
        override = os.environ.get(f"PAIRDBG_TEST_PYTHON3{minor}")
        if override:
            missing_target(f"$PAIRDBG_TEST_PYTHON3{minor}={override} is not a working CPython 3.{minor}")
        missing_target(
            f"no CPython 3.{minor}: set $PAIRDBG_TEST_PYTHON3{minor}, put python3.{minor} on PATH or install it "
            "with pyenv"
        )
    return python
