"""Breakpoints set on purpose in library code bind and hit, with justMyCode on for stepping (issue 12).

debugpy's justMyCode keeps library files out of tracing and used to answer a breakpoint there with "excluded by
filters" that never hit: the stdlib's json here stands for any installed package.
"""

from __future__ import annotations

import inspect
import json.encoder

import pytest
from support import line_of, start, stop_of

pytestmark = pytest.mark.asyncio


def encode_first_line() -> tuple[str, int]:
    lines, first = inspect.getsourcelines(json.encoder.JSONEncoder.encode)
    body = next(i for i, text in enumerate(lines) if text.strip().startswith("if isinstance(o, str)"))
    return inspect.getsourcefile(json.encoder.JSONEncoder.encode), first + body


async def test_a_breakpoint_set_in_the_stdlib_while_paused_hits(registry):
    sid, reply = await start(registry, "uses_json.py", line_of("uses_json.py", "DUMPS"))
    stop_of(reply)
    file, line = encode_first_line()
    bp = await registry.run("set_breakpoint", {"session_id": sid, "file": file, "line": line}, "agent:test")
    assert bp.data["verified"] is True, bp.text
    stop = stop_of(await registry.run("continue_execution", {"session_id": sid}, "agent:test"))
    assert stop["location"]["file"] == file and stop["location"]["line"] == line, stop["location"]
    assert stop["location"]["function"] == "encode" and stop["hit_breakpoints"] == [bp.data["id"]]


async def test_a_library_breakpoint_given_at_start_hits(registry):
    file, line = encode_first_line()
    sid, reply = await start(registry, "uses_json.py", breakpoints=[{"file": file, "line": line}])
    stop = stop_of(reply)
    assert stop["location"]["file"] == file and stop["location"]["line"] == line, reply.text


async def test_step_into_goes_into_library_code_only_with_just_my_code_off(registry):
    dumps = line_of("uses_json.py", "DUMPS")
    sid, reply = await start(registry, "uses_json.py", dumps)
    stop_of(reply)
    stepped = stop_of(await registry.run("step_into", {"session_id": sid}, "agent:test"))
    assert stepped["location"]["file"].endswith("uses_json.py"), stepped["location"]  # json's code was skipped
    sid, reply = await start(registry, "uses_json.py", dumps, just_my_code=False)
    stop_of(reply)
    stepped = stop_of(await registry.run("step_into", {"session_id": sid}, "agent:test"))
    assert stepped["location"]["file"].endswith("json/__init__.py"), stepped["location"]

