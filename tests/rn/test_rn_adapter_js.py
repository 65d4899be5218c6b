"""The React Native adapter's JavaScript unit tests (tests/rn/adapter.test.mjs), run with Node's test runner.

They need `node` and tests/rn/node_modules (scripts/setup-targets.sh installs both). Missing, the test fails under
CI=true and skips with the install hint elsewhere.
"""

from __future__ import annotations

import shutil
import subprocess


from support import ROOT, missing_target

HARNESS = ROOT / "tests" / "rn"
HINT = "run scripts/setup-targets.sh (or: npm install --prefix tests/rn --no-audit --no-fund)"


def _require(what: str, ok: bool) -> None:
    if ok:
        return
    msg = f"{what} missing; {HINT}"
    missing_target(msg)


def test_rn_adapter_node_unit_tests() -> None:
    node = shutil.which("node")
    _require("node", node is not None)
    for pkg in ("ws", "@reduxjs/toolkit", "redux"):
        _require(f"tests/rn/node_modules/{pkg}", (HARNESS / "node_modules" / pkg / "package.json").is_file())
    proc = subprocess.run(
        [node, "--test", "--test-reporter=tap", str(HARNESS) + "/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"node --test tests/rn/ failed (exit {proc.returncode}):\n{out[-6000:]}"
    assert "# fail 0" in out, out[-3000:]
    passed = [line for line in out.splitlines() if line.startswith("# pass ")]
    assert passed and int(passed[-1].split()[-1]) >= 20, out[-3000:]
