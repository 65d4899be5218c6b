"""The one settings model: PAIRDBG_<SECTION>__<FIELD> names, the older names kept (the listeners read theirs through
pydantic-settings), command-line values on top, and a bad listener value failing only that listener's start (its
ConfigError names the variable)."""

from __future__ import annotations

import pytest

from pairdbg.backends.bridge.config import BridgeConfig
from pairdbg.backends.bridge.service import BridgeService
from pairdbg.backends.rn.config import RnConfig
from pairdbg.backends.services import ConfigError
from pairdbg.settings import Settings

OLD_NAMES = ("WS_PORT", "RN_DEBUG_TOKEN", "PAIRDBG_BRIDGE_PORT", "PAIRDBG_BRIDGE_EVAL", "PAIRDBG_ALLOW_REMOTE_MCP",
             "PAIRDBG_RN__WS_PORT", "PAIRDBG_BRIDGE__PORT", "PAIRDBG_BRIDGE_TOKEN")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in OLD_NAMES:
        monkeypatch.delenv(name, raising=False)


def listeners(s: Settings) -> tuple[RnConfig, BridgeConfig]:
    """The listeners' settings as the services read them when they start."""
    return RnConfig.load(s.rn), BridgeConfig.load(s.bridge)


def test_defaults():
    s = Settings()
    rn, bridge = listeners(s)
    assert s.limits.max_sessions == 10 and s.mcp.host == "127.0.0.1" and s.mcp.port is None
    assert rn.WS_PORT == 19850 and bridge.port == 19851 and not s.mcp.allow_remote
    assert rn.token_generated and bridge.token_generated


def test_prefixed_and_old_names(monkeypatch):
    monkeypatch.setenv("PAIRDBG_LIMITS__MAX_SESSIONS", "3")
    monkeypatch.setenv("WS_PORT", "0")
    monkeypatch.setenv("RN_DEBUG_TOKEN", "t" * 12)
    monkeypatch.setenv("PAIRDBG_BRIDGE_EVAL", "1")
    monkeypatch.setenv("PAIRDBG_ALLOW_REMOTE_MCP", "1")
    s = Settings()
    rn, bridge = listeners(s)
    assert s.limits.max_sessions == 3 and rn.WS_PORT == 0 and rn.token == "t" * 12 and not rn.token_generated
    assert bridge.allow_eval and s.mcp.allow_remote
    monkeypatch.setenv("PAIRDBG_RN__WS_PORT", "1234")  # the prefixed form wins over the old name
    monkeypatch.setenv("PAIRDBG_BRIDGE__PORT", "4321")
    rn, bridge = listeners(Settings())
    assert (rn.WS_PORT, bridge.port) == (1234, 4321)


def test_init_values_win_over_the_environment(monkeypatch):
    monkeypatch.setenv("PAIRDBG_MCP__PORT", "7400")
    monkeypatch.setenv("PAIRDBG_BRIDGE_PORT", "0")
    monkeypatch.setenv("PAIRDBG_BRIDGE_EVAL", "0")
    s = Settings(mcp={"host": "::1"}, bridge={"allow_eval": True})
    assert (s.mcp.host, s.mcp.port) == ("::1", 7400)
    _, bridge = listeners(s)
    assert bridge.allow_eval and bridge.port == 0


@pytest.mark.asyncio
async def test_a_bad_listener_value_fails_only_that_listener(monkeypatch):
    monkeypatch.setenv("PAIRDBG_BRIDGE_PORT", "99999")
    s = Settings()  # does not raise: pairdbg keeps running
    assert RnConfig.load(s.rn).WS_PORT == 19850 and s.limits.max_sessions == 10
    svc = BridgeService(None, s.bridge)
    assert "PAIRDBG_BRIDGE_PORT" in svc.info()["error"]
    with pytest.raises(ConfigError) as info:
        await svc.start()
    assert "PAIRDBG_BRIDGE_PORT='99999'" in str(info.value) and svc.server.port is None
