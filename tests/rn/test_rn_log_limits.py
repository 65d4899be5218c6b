"""Listeners do not let a client write pairdbg's log (issue 20): a flood of invalid frames is logged a few times per
minute per kind of message, then counted, and the next line that is logged says how many were left out."""

from __future__ import annotations

import logging

import pytest
import pytest_asyncio
from support import until

from pairdbg.backends.hub import Hub
from pairdbg.backends.logbudget import LogBudget
from pairdbg.backends.rn.config import RnConfig
from pairdbg.backends.rn.service import RnService
from support.rn_adapter import FakeAdapter

TOKEN = "test-token-0123456789"
FLOOD = 300


@pytest_asyncio.fixture
async def rn():
    hub = Hub()
    svc = RnService(hub, RnConfig(WS_PORT=0, RN_DEBUG_TOKEN=TOKEN))
    hub.add_service(svc)
    await svc.start()
    adapter = FakeAdapter(svc.server.url, TOKEN)
    try:
        yield svc, adapter
    finally:
        await adapter.drop(1000)
        await hub.shutdown()


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_flood_of_invalid_frames_is_logged_a_few_times(rn, caplog) -> None:
    svc, adapter = rn
    await adapter.connect()
    await until(svc.server_connected, "the adapter to connect")
    caplog.set_level(logging.INFO, logger="pairdbg.backends.rn.server")
    for _ in range(FLOOD):
        await adapter.send({"v": 1, "t": "events", "items": [{"stream": "redux"}]})  # invalid, not fatal
    await until(lambda: svc.server.conn.protocol_errors >= FLOOD, "every invalid frame to be counted")
    logged = [r for r in caplog.records if r.name == "pairdbg.backends.rn.server" and "invalid message" in r.msg]
    assert 1 <= len(logged) <= LogBudget.BURST, f"{len(logged)} log lines for {FLOOD} invalid frames"


def test_the_budget_refills_and_says_what_it_left_out() -> None:
    now = [0.0]
    budget = LogBudget(burst=3, window_s=60, clock=lambda: now[0])
    records = [logging.LogRecord("x", logging.WARNING, __file__, 1, "bad frame %d", (n,), None) for n in range(10)]
    assert [budget.filter(r) for r in records] == [True] * 3 + [False] * 7
    assert budget.filter(logging.LogRecord("x", logging.WARNING, __file__, 1, "other kind", (), None))
    now[0] = 61.0
    later = logging.LogRecord("x", logging.WARNING, __file__, 1, "bad frame %d", (11,), None)
    assert budget.filter(later) and "7 more like this" in later.getMessage(), later.getMessage()
    assert later.getMessage().startswith("bad frame 11")
