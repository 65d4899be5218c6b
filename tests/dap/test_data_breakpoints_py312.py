"""Data breakpoints on the code paths that exist only on CPython 3.12+ (tests/dap/test_data_breakpoints.py runs the
project's 3.11): a built-in dict's item and module globals through CPython's dict watchers, a live frame's local
through sys.monitoring, on the real debugpy with the program run by a 3.12 (and a 3.13) interpreter found by
tests/support/interpreters.py."""

from __future__ import annotations

import pytest
from support import line_of, prog, stop_of
from support.interpreters import cpython
from test_data_breakpoints import ME, paused_at_marker, watch

from pairdbg.backends.errors import DebugError

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]

PROGRAM = "data_py312.py"
# config['host']'s changes in the program's order: (old → new, the writing line's marker, its function)
HOST_CHANGES = [
    ("'localhost' → 'a'", "# writes by update", "main"),
    ("'a' → 'b'", "# writes by setitem", "main"),
    ("'b' → <unset>", "# writes by pop", "main"),
    ("<unset> → 'c'", "# writes by setdefault", "main"),
    ("'c' → <unset>", "# writes by del", "main"),
    ("<unset> → 'd'", "# writes by setitem again", "main"),
    ("'d' → 'e'", "# writes host, then raises", "fill"),
    ("'e' → <unset>", "# writes by clear", "main"),
    ("<unset> → 'z'", "# writes by a copy", "main"),  # CPython's dict watchers call this a clone
    ("'z' → 'thread'", "# writes from a thread", "from_thread"),
]
# Statements whose write is their line's last instruction: the stop comes at the next line, once the value is stored.
NEXT_LINE = ("# writes by setitem", "# writes by del", "# writes by setitem again")


async def paused_at_ready(registry, minor: int) -> str:
    return await paused_at_marker(registry, PROGRAM, cpython(minor))


async def ran_to_the_end(registry, sid: str) -> str:
    """The program exited cleanly with its watches armed (no crash in the interpreter's teardown); its stdout."""
    end = await registry.run("continue_execution", {"session_id": sid}, ME)
    assert end.data["state"] == "terminated" and end.data.get("exit_code") == 0, end.text
    output = await registry.run("get_output", {"session_id": sid, "category": "stdout"}, ME)
    return "".join(e["text"] for e in output.data["entries"])


@pytest.mark.parametrize("minor", [12, 13])
async def test_a_dict_item_stops_at_each_write(registry, minor):
    """Each change to a built-in dict's item stops once, in the writing frame, with old → new; a write made by a
    statement (`[]=`, `del`) stops at the writing frame's next line, once the value is stored, and says which line
    wrote it; a call that raises after writing stops as its frame exits; one call writing two watched keys is one
    stop."""
    sid = await paused_at_ready(registry, minor)
    host = await watch(registry, sid, "config['host']")
    assert "item 'host' of builtins.dict object at 0x" in host["watching"], host
    assert "ctypes" in host["missed"], host
    if minor == 12:  # an instance's __dict__: 3.12 writes its attributes through the dict, which the watcher sees
        size = await watch(registry, sid, "box.__dict__['size']")
    else:
        with pytest.raises(DebugError) as refused:
            await registry.run("set_data_breakpoint", {"session_id": sid, "expression": "box.__dict__['size']"}, ME)
        assert "an object's __dict__: Python 3.13+ writes the object's attributes" in refused.value.message
    port = await watch(registry, sid, "config['port']")
    # One update() writes both watched keys: one stop, for both.
    reply = await registry.run("continue_execution", {"session_id": sid}, ME)
    stop = stop_of(reply)
    writes = line_of(PROGRAM, "# writes by update")
    assert stop["hit_breakpoints"] == [host["id"], port["id"]], reply.text
    assert stop["description"] == (
        f"data breakpoints {host['id']}: config['host'] 'localhost' → 'a' (written at line {writes}); "
        f"{port['id']}: config['port'] 1 → 2 (written at line {writes})"
    )
    assert stop["location"]["line"] == writes, reply.text
    await registry.run("remove_breakpoint", {"session_id": sid, "breakpoint_id": port["id"]}, ME)

    for change, marker, function in HOST_CHANGES[1:]:
        reply = await registry.run("continue_execution", {"session_id": sid}, ME)
        stop = stop_of(reply)
        writes = line_of(PROGRAM, marker)
        assert stop["reason"] == "data breakpoint" and stop["hit_breakpoints"] == [host["id"]], reply.text
        assert stop["description"] == (
            f"data breakpoint {host['id']}: config['host'] {change} (written at line {writes})"
        ), reply.text
        # fill's update() raises after writing: the stop is as fill exits, at the writing line
        where = (function, writes + 1 if marker in NEXT_LINE else writes)
        assert (stop["location"]["function"], stop["location"]["line"]) == where, (marker, reply.text)
    if minor == 12:
        stop = stop_of(await registry.run("continue_execution", {"session_id": sid}, ME))
        assert stop["hit_breakpoints"] == [size["id"]], stop
        assert stop["description"].endswith(
            "box.__dict__['size'] 1 → 2 (written at line {})".format(line_of(PROGRAM, "box.size = 2"))
        )
    printed = await ran_to_the_end(registry, sid)
    assert "done {'host': 'thread', 'port': 3} 10 6 2" in printed, printed


@pytest.mark.parametrize("minor", [12, 13])
async def test_globals_a_live_local_and_a_change_log(registry, minor):
    """A module global written through a `global` statement and through globals() stops at each write; a log-only
    watch on a dict item records every change, the other thread's too; a local of a live frame stops after each
    line that changed it and ends when the frame returns; the program exits cleanly with its watches armed."""
    sid = await paused_at_ready(registry, minor)
    logged = await watch(registry, sid, "config['host']", log_only=True)
    limit = await watch(registry, sid, "LIMIT")
    assert "global 'LIMIT' of module __main__" in limit["watching"], limit
    for change, marker in (("3 → 4", "# writes LIMIT by global"), ("4 → 10", "# writes LIMIT by globals")):
        reply = await registry.run("continue_execution", {"session_id": sid}, ME)
        stop = stop_of(reply)
        assert stop["hit_breakpoints"] == [limit["id"]], reply.text
        writes = line_of(PROGRAM, marker)
        assert stop["description"] == f"data breakpoint {limit['id']}: LIMIT {change} (written at line {writes})"
        # `LIMIT = ...` (STORE_GLOBAL) and `globals()[...] = ...` are the last instruction of their line
        assert stop["location"]["line"] == writes + 1, (marker, reply.text)

    loop = line_of(PROGRAM, "for i in range(n)")
    placed = await registry.run("set_breakpoint", {"session_id": sid, "file": prog(PROGRAM), "line": loop}, ME)
    stop = stop_of(await registry.run("continue_execution", {"session_id": sid}, ME))
    assert (stop["location"]["function"], stop["location"]["line"]) == ("count", loop), stop
    await registry.run("remove_breakpoint", {"session_id": sid, "breakpoint_id": placed.data["id"]}, ME)
    total = await watch(registry, sid, "total", frame="@f0")  # the stopped frame itself: sys.monitoring watches it
    assert "local 'total' of count" in total["watching"], total
    writes = line_of(PROGRAM, "# writes total")
    for change in ("0 → 1", "1 → 3", "3 → 6"):  # total += 0 changes nothing: no stop
        reply = await registry.run("continue_execution", {"session_id": sid}, ME)
        stop = stop_of(reply)
        assert stop["hit_breakpoints"] == [total["id"]], reply.text
        assert stop["description"] == f"data breakpoint {total['id']}: total {change} (written at line {writes})"
        assert (stop["location"]["function"], stop["location"]["line"]) == ("count", loop), reply.text

    printed = await ran_to_the_end(registry, sid)
    assert "done {'host': 'thread', 'port': 3} 10 6 2" in printed, printed
    listed = await registry.run("list_breakpoints", {"session_id": sid}, ME)
    assert "ended: the frame returned" in listed.text, listed.text
    changes = await registry.run("get_output", {"session_id": sid, "category": "changes"}, ME)
    lines = [e["text"] for e in changes.data["entries"]]
    host_lines = [line for line in lines if f" {logged['id']} " in line]
    assert len(host_lines) == len(HOST_CHANGES), host_lines  # each change once, none stopped
    for line, (change, marker, function) in zip(host_lines, HOST_CHANGES, strict=True):
        thread = "writer" if function == "from_thread" else "MainThread"
        assert f"config['host'] {change}  at {PROGRAM}:{line_of(PROGRAM, marker)} in {function} [{thread}]" in line
        assert "(stopped)" not in line, line
    assert lines[-1].split(f"{total['id']} ")[1].startswith("total ended: the frame returned"), lines
