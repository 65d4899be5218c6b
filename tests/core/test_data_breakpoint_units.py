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
    assert split_target("total") == ("None", "name", "'total'")  # a local of the frame, else a module global
    for bad, says in (
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


def test_library_writers_ends_and_stops_after_the_write():
    """A write made in library code names the user's line that called it; a local's watch that ended says so; a stop
    that came once the write was done (a local's next line, a dict's next instruction) names the writing line."""
    library = {"id": "DB2", "expression": "s.headers['A']", "old": "'x'", "new": "'y'", "time": 0.5, "thread": "Main",
               "file": "/lib/_collections_abc.py", "line": 949, "function": "update", "stop": False,
               "library": True, "caller": "/x/app.py:12"}  # fmt: skip
    assert "at _collections_abc.py:949 in update (library code, called from app.py:12) [Main]" in change_line(library)
    ended = {"id": "DB3", "expression": "total", "old": "6", "new": "6", "time": 0.5, "thread": "Main",
             "file": "/x/app.py", "line": 20, "function": "count", "stop": False, "ended": True,
             "note": "ended: the frame returned"}  # fmt: skip
    assert change_line(ended).endswith("DB3 total ended: the frame returned  at app.py:20 in count [Main]\n")
    after = {"id": "DB4", "expression": "total", "old": "0", "new": "1", "time": 0.5, "thread": "Main",
             "file": "/x/app.py", "line": 18, "function": "count", "stop": True, "after_write": True}  # fmt: skip
    watches = DataWatches(None)  # type: ignore[arg-type]
    watches.on_change(after)
    step = {"reason": "step", "threadId": 1}
    assert watches.annotate_stop(step) is step  # a step ending on that line came first: the change's stop is next
    stopped = watches.annotate_stop({"reason": "breakpoint", "threadId": 1})
    assert stopped["description"] == "data breakpoint DB4: total 0 → 1 (written at line 18)"


def test_one_write_changing_two_watches_is_one_stop_for_both():
    """dict.update of two watched keys: both changes are said to stop, the one stop that follows names both."""
    watches = DataWatches(None)  # type: ignore[arg-type]
    for bp_id, key, old, new in (("DB2", "host", "'x'", "'a'"), ("DB3", "port", "1", "2")):
        watches.on_change({"id": bp_id, "expression": f"config[{key!r}]", "old": old, "new": new, "time": 0.5,
                           "thread": "Main", "file": "/x/app.py", "line": 10, "function": "main", "stop": True,
                           "after_write": True})  # fmt: skip
    stopped = watches.annotate_stop({"reason": "breakpoint", "threadId": 1})
    assert stopped["hitBreakpointIds"] == ["DB2", "DB3"], stopped
    assert stopped["description"] == (
        "data breakpoints DB2: config['host'] 'x' → 'a' (written at line 10); "
        "DB3: config['port'] 1 → 2 (written at line 10)"
    )
    plain = {"reason": "breakpoint", "threadId": 1}
    assert watches.annotate_stop(plain) is plain  # both were used by that stop


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
