"""Every TUI test keeps the console's history in a data folder of its own, never the user's; `core` is the Hub and
registry a test's app runs on."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from support import require_debugpy

from pairdbg.backends.actions import Registry
from pairdbg.backends.hub import Hub
from pairdbg.runtime import build_registry


@pytest.fixture(autouse=True)
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


@pytest_asyncio.fixture
async def core() -> AsyncIterator[tuple[Hub, Registry]]:
    require_debugpy()
    hub = Hub()
    try:
        yield hub, build_registry(hub)
    finally:
        await hub.shutdown()  # never leave a debugpy process behind
