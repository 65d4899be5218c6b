"""Runs debugpy's launcher (a script, not imported): pairdbg names it as the launch's `debugLauncherPath`.

debugpy's adapter starts the launcher with the program's Python, which need not have debugpy installed: adapter_boot.py
puts the folder debugpy is imported from in PAIRDBG_DEBUGPY_ROOT, and this script imports debugpy from there, turns
off its unlogged environment description (pairdbg_quietlog.py) and runs `debugpy.launcher` as its own directory
entry point would. The variable is removed before the launcher starts the program, which never sees it.
"""

import os
import runpy
import sys


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    import pairdbg_quietlog  # (from this script's folder, first on sys.path)

    if sys.path and os.path.abspath(sys.path[0]) == here:
        del sys.path[0]
    root = os.environ.pop("PAIRDBG_DEBUGPY_ROOT", None)
    if root:
        sys.path.insert(0, root)
        import debugpy  # noqa: F401  (the launcher's own modules are found through the package from now on)

        del sys.path[0]
    pairdbg_quietlog.skip_unlogged_descriptions()
    runpy.run_module("debugpy.launcher", run_name="__main__", alter_sys=True)


main()
