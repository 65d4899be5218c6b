"""Data breakpoints' pure logic (issue 23): what an expression watches, the change-log line, the stop's reason."""

from __future__ import annotations

import pytest

from pairdbg.backends.dap.datawatch import DataWatches, change_line, split_target
from pairdbg.backends.errors import DebugError
from pairdbg.backends.models import DataChange
from pairdbg.backends.output import OutputRing


def test_what_an_expression_watches():
    assert split_target("cart.total") == ("cart", "attr", "'total'")
    assert split_target('config["db"]["host"]') == ("config['db']", "item", "'host'")
    assert split_target("orders[i + 1]") == ("orders", "item", "i + 1")
    for bad, says in (
        ("total", "is a variable"),
        ("f(x)", "does not name"),
        ("a[1:2]", "does not name"),
        ("a.", "not a"),
    ):
        with pytest.raises(DebugError, match=says):
            split_target(bad)


def test_a_change_line_names_time_place_and_values():
    body = {"id": "DB1", "expression": "cart.total", "old": "7.25", "new": "10.97", "time": 0.5, "thread": "Main",
            "file": "/x/shop.py", "line": 12, "function": "add", "stop": True}  # fmt: skip
    line = change_line(body)
    assert line.endswith("DB1 cart.total 7.25 → 10.97  at shop.py:12 in add [Main]  (stopped)\n"), line
    watches = DataWatches(None)  # type: ignore[arg-type]
    watches.on_change(body)
    stopped = watches.annotate_stop({"reason": "breakpoint", "threadId": 1})
    assert stopped["reason"] == "data breakpoint" and stopped["hitBreakpointIds"] == ["DB1"]
    assert stopped["description"] == "data breakpoint DB1: cart.total 7.25 → 10.97"
    plain = {"reason": "breakpoint", "hitBreakpointIds": [3]}
    assert watches.annotate_stop(plain) is plain  # the next stop is an ordinary one


def test_a_change_keeps_its_fields_for_the_tui_and_only_its_line_for_agents():
    body = {"id": "DB2", "expression": "cart.total", "old": "3", "new": "7", "time": 12.25, "thread": 5,
            "file": "/x/shop.py", "line": 12, "function": "add"}  # fmt: skip
    change = DataChange.of(body)
    assert (change.breakpoint_id, change.old, change.new, change.line, change.function) == ("DB2", "3", "7", 12, "add")
    assert change.thread == "5" and change.file == "/x/shop.py" and not change.stopped and change.note is None
    ring = OutputRing()
    entry = ring.append("changes", change_line(body), change)
    assert entry.change == change
    assert entry.model_dump() == {"seq": entry.seq, "category": "changes", "text": change_line(body)}
    unknown = DataChange.of({"id": "DB3", "expression": "x.y", "old": "1", "new": "2"})  # an adapter that knows less
    assert (unknown.file, unknown.line, unknown.function, unknown.thread) == (None, None, None, None)
