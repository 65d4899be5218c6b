"""Test support shared by every area folder: paths, the process-leak scan, `until` and action helpers (core), MCP
clients (mcp), and the doubles ScriptedBackend (fake_backend) and FakePage (fake_page). Importable because pytest
puts tests/ on sys.path (pyproject: pythonpath)."""

from .core import (
    IN_CI,
    PROGRAMS,
    ROOT,
    TESTS,
    expect_error,
    free_port,
    line_of,
    local_values,
    missing_target,
    normalise,
    pid_alive,
    prog,
    require_debugpy,
    start,
    stop_of,
    until,
)

__all__ = [
    "IN_CI",
    "PROGRAMS",
    "ROOT",
    "TESTS",
    "expect_error",
    "free_port",
    "line_of",
    "local_values",
    "missing_target",
    "normalise",
    "pid_alive",
    "prog",
    "require_debugpy",
    "start",
    "stop_of",
    "until",
]
