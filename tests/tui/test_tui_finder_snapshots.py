"""SVG snapshots (pytest-textual-snapshot) of the source screen with the finder open, at 80x24 and 120x40. No live
session, a project at a fixed path and the default theme, so the picture is the same on every run.
Update after an intended change: pytest tests/tui/test_tui_snapshots.py --snapshot-update"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from pairdbg.backends.hub import Hub
from pairdbg.runtime import build_registry
from pairdbg.tui.app import PairDbgApp
from pairdbg.tui.finder import Finder
from pairdbg.tui.source_view import SourceView
from support import until

PROJECT = Path("/tmp/pairdbg-snapshot-project")  # fixed: the finder shows the project's folder
FILES = {
    "pyproject.toml": "[project]\nname = 'shop'\n",
    "shop/orders.py": '''
        from shop.prices import price_of


        def total(items):
            """The order's total, with the bulk discount."""
            amount = 0.0
            for name, qty in items:
                amount += price_of(name) * qty
            return round(amount, 2)
        ''',
    "shop/prices.py": "PRICES = {'tea': 2.5}\n\n\ndef price_of(name):\n    return PRICES[name]\n",
    "shop/helpers.py": "def helper():\n    return 1\n",
    "tests/test_orders.py": "def test_total():\n    assert True\n",
}


@pytest.fixture
def project():
    shutil.rmtree(PROJECT, ignore_errors=True)
    for name, body in FILES.items():
        path = PROJECT / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body).lstrip("\n"), encoding="utf-8")
    yield PROJECT
    shutil.rmtree(PROJECT, ignore_errors=True)


async def open_finder(pilot) -> None:
    app = pilot.app
    app.query_one(SourceView).open_file(str(PROJECT / "shop" / "orders.py"), 8)
    await pilot.press("ctrl+o")
    await until(lambda: isinstance(app.screen, Finder) and app.screen.listing is not None, "the finder", pilot=pilot)
    for ch in "ord":
        await pilot.press(ch)
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_source_screen_with_the_finder(snap_compare, project, size):
    hub = Hub()
    app = PairDbgApp(hub, build_registry(hub))
    assert snap_compare(app, terminal_size=size, run_before=open_finder)
