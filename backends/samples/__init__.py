"""Small programs shipped with pairdbg: the demo opened by `pairdbg demo`."""

from pathlib import Path

DEMO = str(Path(__file__).with_name("orders.py"))
