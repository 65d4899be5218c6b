"""Where the debug targets are installed: Bun, Node, Chromium, WebKitGTK's MiniBrowser and xvfb-run, each found
or refused with the step that installs it (`scripts/setup-targets.sh` installs all of them)."""

from __future__ import annotations

import glob
import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUN_VERSION = "1.4.5"
LOCAL_BUN = ROOT / ".tools" / "node_modules" / ".bin" / "bun"
CHROMIUM = "/usr/bin/chromium"
MINIBROWSER_GLOB = "/usr/lib/*/webkit2gtk-4.1/MiniBrowser"
APT = "apt-get install -y --no-install-recommends"


class TargetMissing(Exception):
    """A debug target is not installed; `how_to_install` is the command or step that fixes it."""

    def __init__(self, what: str, how_to_install: str) -> None:
        super().__init__(f"{what} not found; to install it: {how_to_install}")
        self.what = what
        self.how_to_install = how_to_install


def _executable(path: str | os.PathLike[str]) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _is_elf(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == b"\x7fELF"
    except OSError:
        return False


def find_bun() -> str:
    """$PAIRDBG_BUN, else `bun` on PATH, else the project-local `<repo>/.tools/node_modules/.bin/bun`."""
    env = os.environ.get("PAIRDBG_BUN")
    if env:
        if _executable(env):
            return env
        raise TargetMissing(f"bun (PAIRDBG_BUN={env})", "point PAIRDBG_BUN at an executable bun, or unset it")
    on_path = shutil.which("bun")
    if on_path:
        return on_path
    # Without npm's postinstall, bin/bun.exe is a placeholder rather than the real binary.
    if _executable(LOCAL_BUN) and _is_elf(LOCAL_BUN.resolve()):
        return str(LOCAL_BUN)
    raise TargetMissing(
        "bun",
        f"scripts/setup-targets.sh (runs `npm install --prefix .tools bun@{BUN_VERSION}` with its postinstall), "
        "or set PAIRDBG_BUN to a bun binary",
    )


def find_node() -> str:
    """`node` on PATH."""
    on_path = shutil.which("node")
    if on_path:
        return on_path
    raise TargetMissing("node", f"{APT} nodejs   (as root; or scripts/setup-targets.sh)")


def find_chromium() -> str:
    """Debian's /usr/bin/chromium."""
    if _executable(CHROMIUM):
        return CHROMIUM
    raise TargetMissing("chromium", f"{APT} chromium   (as root; or scripts/setup-targets.sh)")


def find_minibrowser() -> str:
    """WebKitGTK's MiniBrowser (package libwebkit2gtk-4.1-0)."""
    for path in sorted(glob.glob(MINIBROWSER_GLOB)):
        if _executable(path):
            return path
    raise TargetMissing("MiniBrowser", f"{APT} libwebkit2gtk-4.1-0 xvfb xauth   (as root; or scripts/setup-targets.sh)")


def find_xvfb_run() -> str:
    """`xvfb-run` (package xvfb; it needs xauth too)."""
    on_path = shutil.which("xvfb-run")
    if on_path and shutil.which("xauth"):
        return on_path
    raise TargetMissing("xvfb-run", f"{APT} xvfb xauth   (as root; or scripts/setup-targets.sh)")
