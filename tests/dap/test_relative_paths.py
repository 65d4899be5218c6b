"""Relative file names an agent passes back resolve against the session's files, not pairdbg's cwd (issue 15): a stop
report says `orders.py:37`, and `set_breakpoint(file="orders.py")` must mean that file."""

from __future__ import annotations

import os

import pytest
from support import PROGRAMS, expect_error, line_of, prog, start, stop_of

pytestmark = pytest.mark.asyncio


async def test_a_relative_file_means_the_sessions_file(registry, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # pairdbg's own cwd has no such file
    sid, reply = await start(registry, "uses_json.py", line_of("uses_json.py", "DUMPS"))
    stop_of(reply)
    last = line_of("uses_json.py", "print(text)")
    bp = await registry.run("set_breakpoint", {"session_id": sid, "file": "uses_json.py", "line": last}, "agent:t")
    assert bp.data["file"] == prog("uses_json.py"), bp.data
    stop = stop_of(await registry.run("continue_execution", {"session_id": sid}, "agent:t"))
    assert stop["location"]["line"] == last and stop["hit_breakpoints"] == [bp.data["id"]]
    source = await registry.run(
        "get_source_context", {"session_id": sid, "file": "uses_json.py", "line": 1, "context": 0}, "agent:t"
    )
    assert source.data["file"] == prog("uses_json.py")
    missing = await expect_error(
        registry, "set_breakpoint", {"session_id": sid, "file": "nope.py", "line": 1}, "PATH_NOT_FOUND"
    )
    assert os.path.join(str(PROGRAMS), "nope.py") in missing.message, missing.message
