"""debugpy's environment description, written only where it is logged (imported by pairdbg's boot scripts).

Each start of debugpy's adapter, its launcher and the debuggee's server describes the whole environment (every
installed distribution read through importlib.metadata, site and sysconfig paths) and passes the text to an "info"
log line, even when no log takes "info" lines (no DEBUGPY_LOG_DIR): ~140 ms each, ~400 ms in the debuggee where
pydevd already traces it ("Pre-launch environment"), all of it before the program's first line. With a log open the
description is written as before. Standard library and debugpy only: it runs on whatever Python the program needs.
"""


def skip_unlogged_descriptions():
    try:
        from debugpy.common import log
    except ImportError:
        return
    describe = getattr(log, "describe_environment", None)
    if describe is None or not hasattr(log, "_levels"):  # another debugpy: leave it as it is
        return

    def describe_environment(header):
        if "info" in getattr(log, "_levels", ("info",)):
            describe(header)

    log.describe_environment = describe_environment
