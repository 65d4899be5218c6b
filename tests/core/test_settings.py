"""The one settings model: PAIRDBG_<SECTION>__<FIELD> names, the older names kept as aliases, command-line values
on top, and a bad listener value isolated to that listener's section (its ConfigError names the variable)."""

from __future__ import annotations

import pytest

from pairdbg.backends.services import ConfigError
from pairdbg.settings import Settings

OLD_NAMES = ("WS_PORT", "RN_DEBUG_TOKEN", "PAIRDBG_BRIDGE_PORT", "PAIRDBG_BRIDGE_EVAL", "PAIRDBG_ALLOW_REMOTE_MCP")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in OLD_NAMES:
        monkeypatch.delenv(name, raising=False)


def test_defaults():
    s = Settings()
    assert s.limits.max_sessions == 10 and s.mcp.host == "127.0.0.1" and s.mcp.port is None
    assert s.rn.WS_PORT == 19850 and s.bridge.port == 19851 and not s.mcp.allow_remote


def test_prefixed_and_old_names(monkeypatch):
    monkeypatch.setenv("PAIRDBG_LIMITS__MAX_SESSIONS", "3")
    monkeypatch.setenv("WS_PORT", "0")
    monkeypatch.setenv("RN_DEBUG_TOKEN", "t" * 12)
    monkeypatch.setenv("PAIRDBG_BRIDGE_EVAL", "1")
    monkeypatch.setenv("PAIRDBG_ALLOW_REMOTE_MCP", "1")
    s = Settings()
    assert s.limits.max_sessions == 3 and s.rn.WS_PORT == 0 and s.rn.token == "t" * 12
    assert s.bridge.allow_eval and s.mcp.allow_remote
    monkeypatch.setenv("PAIRDBG_RN__WS_PORT", "1234")  # the prefixed form wins over the old name
    assert Settings().rn.WS_PORT == 1234


def test_init_values_win_over_the_environment(monkeypatch):
    monkeypatch.setenv("PAIRDBG_MCP__PORT", "7400")
    monkeypatch.setenv("PAIRDBG_BRIDGE_PORT", "0")
    s = Settings(mcp={"host": "::1"}, bridge={"allow_eval": True})
    assert (s.mcp.host, s.mcp.port) == ("::1", 7400)
    assert s.bridge.allow_eval and s.bridge.port == 0


def test_a_bad_listener_value_stays_in_its_section(monkeypatch):
    monkeypatch.setenv("PAIRDBG_BRIDGE_PORT", "99999")
    s = Settings()
    assert isinstance(s.bridge, ConfigError) and "PAIRDBG_BRIDGE_PORT" in str(s.bridge)
    assert s.rn.WS_PORT == 19850 and s.limits.max_sessions == 10
