"""The built wheel, installed into a fresh venv outside the repository, is a complete pairdbg.

Package data can go missing silently (the editable install reads files from the repository), so this builds the
wheel, installs it with its dependencies into a new venv under tmp_path and, from a folder that is not the
repository: imports only `pairdbg`, serves the debug-bridge SDK, finds the RN adapter, the adapter profiles and the
themes, and runs the demo headless through MCP on stdio to its first stop.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from support import ROOT

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """(the wheel, the venv's python) — built and installed once for this module."""
    out = tmp_path_factory.mktemp("wheel")
    # setuptools copies into build/lib and never removes what it copied before: a file moved out of the package
    # since the last build would ride along. Build from what the checkout holds now.
    for stale in (ROOT / "build" / "lib", *(ROOT / "build").glob("bdist.*")):
        shutil.rmtree(stale, ignore_errors=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(ROOT), "-w", str(out)],
        check=True,
        timeout=300,
        cwd=out,
    )
    (wheel,) = out.glob("pairdbg-*.whl")
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], check=True, timeout=500, cwd=out)
    return wheel, python


def run_py(python: Path, code: str, cwd: Path) -> str:
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=60, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_wheel_claims_only_the_name_pairdbg_and_carries_every_file(installed) -> None:
    wheel, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"pairdbg"}, tops
    tracked = subprocess.run(
        ["git", "ls-files", "backends", "tui", "mcp_bridge", "themes"], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    missing = [f for f in tracked if f"pairdbg/{f}" not in names]
    assert not missing, f"files the wheel leaves out: {missing}"
    rigs = [f"pairdbg/backends/{path}" for path in ("rn/testing.py", "inspector/targets.py")]
    assert not set(rigs) & set(names), "the test rigs live in tests/support, not in the product"


def test_the_product_never_imports_the_test_rigs() -> None:
    bad = []
    for folder in ("backends", "tui", "mcp_bridge", "src"):
        for path in (ROOT / folder).rglob("*.py"):
            if "node_modules" in path.parts or "samples" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("support"):
                    bad.append(str(path.relative_to(ROOT)))
    assert not bad, bad


def test_installed_pairdbg_finds_its_data_outside_the_repository(installed, tmp_path) -> None:
    _, python = installed
    code = (
        "import json, pathlib, pairdbg.backends.bridge.server as s, pairdbg.backends.dap.profile as p\n"
        "import pairdbg.themes as t\n"
        "import pairdbg.backends.rn as rn, pairdbg.tui.app as app\n"
        "import pairdbg.backends.dap.jsdebug as jd, pairdbg.backends.inspector.inspection as ins\n"
        "import pairdbg.backends.inspector.datawatch as dw\n"
        "adapter = pathlib.Path(rn.__file__).with_name('adapter')\n"
        "js = [jd.BOOT, ins.PLAIN_CONSOLE_FILE, ins.TEST_HOOK_FILE, dw.HELPER]\n"
        "print(json.dumps({'sdk': s.SDK_PATH.is_file(), 'profiles': sorted(p.load_profiles()),\n"
        "  'preloads': [pathlib.Path(f).name for f in js if pathlib.Path(f).is_file()],\n"
        "  'themes': sorted(t.load_themes()), 'adapter': sorted(f.name for f in adapter.glob('*')),\n"
        "  'css': pathlib.Path(app.PairDbgApp.CSS_PATH).is_file(), 'where': pathlib.Path(s.__file__).as_posix()}))\n"
    )
    found = json.loads(run_py(python, code, tmp_path))
    assert found["sdk"] and found["css"]
    assert "/site-packages/pairdbg/" in found["where"] and not found["where"].startswith(ROOT.as_posix())
    assert {"lldb", "delve"} <= set(found["profiles"])
    assert {"pairdbg-dark", "pairdbg-light"} <= set(found["themes"])
    assert {"index.js", "core.js", "package.json"} <= set(found["adapter"])
    # What pairdbg loads into a Node program (missing, every Node launch of an installed pairdbg would fail)
    assert found["preloads"] == ["jsdebug_boot.cjs", "plainconsole.cjs", "testhook.cjs", "datawatch.js"], found


@pytest.mark.asyncio
async def test_installed_pairdbg_runs_the_demo_and_serves_the_sdk(installed, tmp_path) -> None:
    _, python = installed
    env = {
        **os.environ,
        "PAIRDBG_BRIDGE_PORT": "0",
        "WS_PORT": "0",
        "XDG_RUNTIME_DIR": str(tmp_path),
    }
    params = StdioServerParameters(command=str(python.parent / "pairdbg"), args=["--mcp"], cwd=str(tmp_path), env=env)
    async with Client(params) as client:
        samples = json.loads(
            run_py(python, "import json, pairdbg.backends.samples as s; print(json.dumps(s.DEMO))", tmp_path)
        )
        lines = Path(samples).read_text().splitlines()
        line = lines.index("def main():") + 2
        result = await client.call_tool(
            "start_debugging", {"program": samples, "breakpoints": [{"file": samples, "line": line}], "wait_s": 30}
        )
        data = result.structured_content
        assert data["state"] == "paused", result.content[0].text
        assert data["stop"]["location"]["line"] == line
        info = (await client.call_tool("get_bridge_info", {})).structured_content
        with urllib.request.urlopen(info["sdk_url"], timeout=10) as answer:
            body = answer.read().decode()
        assert answer.status == 200 and "createDebugBridge" in body
        await client.call_tool("close_debug_session", {"session_id": data["session_id"]})


def test_no_module_imports_the_old_top_level_names() -> None:
    """Inside the repository too, everything is imported one way: as pairdbg.<folder>."""
    old = {"backends", "tui", "mcp_bridge", "themes"}
    bad = []
    for folder in ("backends", "tui", "mcp_bridge", "themes", "src", "tests", "scripts"):
        for path in (ROOT / folder).rglob("*.py"):
            if "node_modules" in path.parts or "programs" in path.parts:  # debuggee fixtures (one is broken on purpose)
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                bad += [f"{path.relative_to(ROOT)}:{node.lineno} {n}" for n in names if n.split(".")[0] in old]
    assert not bad, bad
