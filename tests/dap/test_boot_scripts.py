"""What the boot scripts change in debugpy's start (pairdbg_quietlog.py, pydevd_boot.py's skipped start wait) only
works while debugpy keeps the internals they wrap. These fail when a debugpy release changes them (then the boot
scripts must change with it), and check that the description is still written where a log takes it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support import require_debugpy

import pairdbg.backends.dap.python as dap_python

BOOT_DIR = str(Path(dap_python.BOOT).parent)


def run_python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=BOOT_DIR, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_environment_description_is_skipped_unless_a_log_takes_it(tmp_path) -> None:
    require_debugpy()
    code = f"""
import sys
sys.path.insert(0, {BOOT_DIR!r})
from debugpy.common import log
import pairdbg_quietlog
described = []
log.get_environment_description = lambda header: described.append(header) or header
pairdbg_quietlog.skip_unlogged_descriptions()
log.describe_environment("unlogged")
log.log_dir = {str(tmp_path)!r}
log.to_file(prefix="quiet")
log.describe_environment("logged")
print(described)
"""
    assert run_python(code) == "['logged']"
    assert any("logged" in p.read_text() for p in tmp_path.iterdir())


def test_pydevd_still_has_the_start_wait_pydevd_boot_skips() -> None:
    require_debugpy()
    code = """
import inspect, time, debugpy._vendored.force_pydevd, pydevd
source = inspect.getsource(pydevd.PyDB.initialize_network)
print(pydevd.time is time, "time.sleep(" in source)
"""
    assert run_python(code) == "True True"
