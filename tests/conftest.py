"""Shared fixtures for the core tests: a Hub that always shuts down, tiny target programs, and a process-leak guard.

Every process a test starts (debugpy adapter, launcher, the program, an attach target) inherits the environment
variable PAIRDBG_TEST_RUN with a value unique to this pytest run. The leak guard scans /proc for processes carrying
that value, so it also finds orphans that were re-parented away from the test process. It checks after every test
that uses a hub (so a leak is blamed on the right test) and once more at the end of the session.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
import pytest_asyncio
from support.core import IN_CI, PROGRAMS, kill_all, marked_processes, require_debugpy, wait_gone

from pairdbg.backends.actions.registry import Registry
from pairdbg.runtime import build_registry
from pairdbg.backends.hub import Hub
from pairdbg.backends.limits import Limits

# Test suites pairdbg debugs (tests/programs/*_suite) fail on purpose; they are programs here, not tests to collect.
collect_ignore_glob = ["programs/*"]


@pytest.fixture
def proc_guard():
    """Fails the test if a process it started (with the run's mark) outlives it; kills such leftovers."""
    yield
    left = wait_gone(marked_processes, 5.0)
    if left:
        kill_all(left)
        pytest.fail("processes left behind by this test:\n" + "\n".join(f"  {p} {c}" for p, c in left))


def pytest_sessionfinish(session, exitstatus):
    left = wait_gone(marked_processes, 5.0)
    if left:
        kill_all(left)
        sys.stderr.write(
            "\nLEAK: debug processes outlived the test session:\n" + "\n".join(f"  {p} {c}" for p, c in left) + "\n"
        )
        session.exitstatus = 1


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under CI=true a skipped test is a failure: a missing target must not pass silently."""
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, which is not allowed: {report.longrepr}"


# ----- hub, registry and helpers ----------------------------------------------------------------------------------


@pytest.fixture
def limits() -> Limits:
    """Override in a test module (or parametrize indirectly) for tighter limits."""
    return Limits()


@pytest_asyncio.fixture
async def hub(limits, proc_guard):
    require_debugpy()
    h = Hub(limits)
    try:
        yield h
    finally:
        await asyncio.wait_for(h.shutdown(), 20)


@pytest.fixture
def registry(hub) -> Registry:
    return build_registry(hub)


@pytest_asyncio.fixture
async def mcp_service(hub, registry, tmp_path, monkeypatch):
    """An HTTP MCP endpoint on a free loopback port over the test's hub; its endpoint file goes under tmp_path."""
    from pairdbg.mcp_bridge.http import HttpMcpService

    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    service = HttpMcpService(hub, registry, "127.0.0.1", 0)
    await service.start()
    try:
        yield service
    finally:
        await service.stop()


@pytest.fixture
def programs() -> Path:
    return PROGRAMS


