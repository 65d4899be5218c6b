"""The listener shell both services share (backends/listener.py): settings read in any case over the environment,
a bad value failing only the start, keyed timers that stop() cancels, and the door checks."""

from __future__ import annotations

import asyncio

import pytest

from pairdbg.backends.bridge.service import BridgeService
from pairdbg.backends.listener import loopback_origin
from pairdbg.backends.rn.config import RnConfig
from pairdbg.backends.rn.service import RnService
from pairdbg.backends.services import ConfigError

TOKEN = "listener-test-token"


def test_section_values_in_any_case_win_over_the_old_names(monkeypatch) -> None:
    monkeypatch.setenv("WS_PORT", "1111")
    assert RnConfig.load().WS_PORT == 1111
    assert RnConfig.load({"ws_port": 0}).WS_PORT == 0 and RnConfig.load({"WS_PORT": 0}).WS_PORT == 0
    with pytest.raises(ConfigError, match="WS_PORTS=1: Extra inputs"):
        RnConfig.load({"WS_PORTS": 1})


@pytest.mark.asyncio
async def test_timers_are_one_per_key_and_stop_cancels_them() -> None:
    svc = BridgeService(None, {"port": 0, "token": TOKEN})
    await svc.start()
    fired: list[str] = []
    assert svc.later("a", 0.01, fired.append, "a")
    assert not svc.later("a", 0.01, fired.append, "again")  # the waiting one stays
    assert svc.later("b", 30, fired.append, "b")
    for _ in range(200):
        if fired:
            break
        await asyncio.sleep(0.01)
    assert fired == ["a"] and not svc.waiting("a") and svc.waiting("b")
    await svc.stop()
    assert not svc.waiting("b") and svc.server.port is None


@pytest.mark.asyncio
async def test_door_checks_and_the_port_in_use() -> None:
    svc = RnService(None, RnConfig(WS_PORT=0, RN_DEBUG_TOKEN=TOKEN, MAX_PAYLOAD_SIZE=4096))
    await svc.start()
    try:
        server = svc.server
        assert server.token_ok(TOKEN) and not server.token_ok(TOKEN[:-1]) and not server.token_ok(None)
        assert not server.too_large(b"x" * 4096) and server.too_large(b"x" * 4097)
        taken = RnService(None, RnConfig(WS_PORT=server.port, RN_DEBUG_TOKEN=TOKEN))
        with pytest.raises(OSError):
            await taken.start()
        assert taken.error and taken.error.startswith(f"cannot listen on 127.0.0.1:{server.port}")
    finally:
        await svc.stop()
    assert loopback_origin("http://localhost:3000") and loopback_origin("http://[::1]")
    assert not loopback_origin("http://localhost.evil.test") and not loopback_origin("file://x")
    assert not loopback_origin("chrome-extension://127.0.0.1", ("http", "https"))
