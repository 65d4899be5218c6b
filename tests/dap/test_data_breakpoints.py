"""Data breakpoints on debugpy programs (issue 23): "stop where cart.total changes" and "every write to
config['host']", on a real program with a pinned PyPI library's object (jinja2's Environment) and the standard
library's UserDict changed through update. A watch is verified only where every write through Python code is caught;
what cannot be caught is refused with the reason (a built-in dict or list, a module global, a frozen dataclass)."""

from __future__ import annotations

import pytest
from support import line_of, prog, stop_of
from support.library_venv import library_python, site_file

from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.mcp_bridge.server import read_for_agent

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]

PROGRAM = "data_changes.py"
ME = "agent:test"


async def paused_at_ready(registry) -> str:
    return await paused_at_marker(registry, PROGRAM, library_python())


async def paused_at_marker(registry, program: str, python: str) -> str:
    """`program` run by `python`, stopped at its `# stop here` line."""
    started = await registry.run(
        "start_debugging",
        {"program": prog(program), "executable_path": python, "stop_on_entry": True},
        ME,
    )
    sid = started.data["session_id"]
    line = line_of(program, "# stop here")
    await registry.run("set_breakpoint", {"session_id": sid, "file": prog(program), "line": line}, ME)
    stop = stop_of(await registry.run("continue_execution", {"session_id": sid}, ME))
    assert stop["location"]["line"] == line
    return sid


async def watch(registry, sid: str, expression: str, **more) -> dict:
    reply = await registry.run("set_data_breakpoint", {"session_id": sid, "expression": expression, **more}, ME)
    assert reply.data["verified"] is True and reply.data["kind"] == "data", reply.text
    return reply.data


async def refused(registry, sid: str, expression: str) -> str:
    with pytest.raises(DebugError) as caught:
        await registry.run("set_data_breakpoint", {"session_id": sid, "expression": expression}, ME)
    assert caught.value.code == ErrorCode.INVALID_PARAMETERS
    return caught.value.message


async def test_stops_in_the_writing_frame_for_each_change(registry):
    sid = await paused_at_ready(registry)
    total = await watch(registry, sid, "cart.total")
    assert total["id"].startswith("DB") and "Cart object at 0x" in total["watching"], total
    assert "object.__setattr__" in total["missed"] and "ctypes" in total["missed"]
    point = await watch(registry, sid, "point.x")  # a __slots__ class
    env = await watch(registry, sid, "env.undefined_note")  # jinja2.Environment, a pinned library's object
    assert "jinja2.environment.Environment" in env["watching"]
    host = await watch(registry, sid, "config['host']")  # collections.UserDict, written through update()
    assert "item 'host'" in host["watching"]

    # Refused with the reason, and nothing is listed for them.
    assert "dict watchers arrived in 3.12" in await refused(registry, sid, "plain['host']")  # the venv runs 3.11
    assert "no hook on a list's writes" in await refused(registry, sid, "cart.items[0]")
    assert "dict watchers arrived in 3.12" in await refused(registry, sid, "LIMIT")
    assert "frozen dataclass" in await refused(registry, sid, "frozen.a")
    assert "cannot evaluate" in await refused(registry, sid, "nothing_here.x")
    with pytest.raises(DebugError, match="writes only"):
        await registry.run(
            "set_data_breakpoint", {"session_id": sid, "expression": "cart.total", "access": "read_write"}, ME
        )
    listed = await registry.run("list_breakpoints", {"session_id": sid}, ME)
    ids = [bp["id"] for bp in listed.data["breakpoints"] if bp["kind"] == "data"]
    assert ids == [total["id"], point["id"], env["id"], host["id"]], listed.text

    writes_total = line_of(PROGRAM, "# writes total")
    for old, new in (("0.0", "7.25"), ("7.25", "10.97"), ("10.97", "-9.03")):
        reply = await registry.run("continue_execution", {"session_id": sid}, ME)
        stop = stop_of(reply)
        assert stop["reason"] == "data breakpoint" and stop["hit_breakpoints"] == [total["id"]], reply.text
        assert stop["description"] == f"data breakpoint {total['id']}: cart.total {old} → {new}"
        assert (stop["location"]["line"], stop["location"]["function"]) == (writes_total, "add")
        assert not any("pairdbg" in (f.get("file") or "") for f in stop["stack"]), stop["stack"]
    # `other.total = price` on the same class never stops: the watch is per instance.
    stop = stop_of(await registry.run("continue_execution", {"session_id": sid}, ME))
    assert stop["hit_breakpoints"] == [point["id"]] and stop["location"]["line"] == line_of(PROGRAM, "# writes point.x")
    assert stop["description"].endswith("point.x 0 → 5")
    # jinja2 writes it with setattr in its own code, which justMyCode hides: the stop is at the user's call.
    stop = stop_of(await registry.run("continue_execution", {"session_id": sid}, ME))
    assert stop["hit_breakpoints"] == [env["id"]], stop
    assert stop["description"].endswith("env.undefined_note <unset> → 'set by extend'")
    assert stop["location"]["line"] == line_of(PROGRAM, "env.extend(")
    stop = stop_of(await registry.run("continue_execution", {"session_id": sid}, ME))
    assert stop["hit_breakpoints"] == [host["id"]] and stop["location"]["line"] == line_of(PROGRAM, "# writes host")
    assert stop["description"].endswith("config['host'] 'localhost' → 'db.internal'")

    # The program's own check (type, isinstance, pickling of a watched object) passed: it ran to its end.
    end = await registry.run("continue_execution", {"session_id": sid}, ME)
    assert end.data["state"] == "terminated" and end.data.get("exit_code") == 0, end.text
    output = await registry.run("get_output", {"session_id": sid, "category": "stdout"}, ME)
    assert "done -9.03 5 db.internal 1" in "".join(e["text"] for e in output.data["entries"])


async def test_condition_log_only_update_and_remove(registry, hub):
    sid = await paused_at_ready(registry)
    negative = await watch(registry, sid, "cart.total", condition="value < 0")
    logged = await watch(registry, sid, "config['host']", log_only=True)
    assert logged["log_only"] is True
    point = await watch(registry, sid, "point.x")
    off = await registry.run(
        "update_breakpoint", {"session_id": sid, "breakpoint_id": point["id"], "enabled": False}, ME
    )
    assert off.data["enabled"] is False and off.data["verified"] is False
    with pytest.raises(DebugError):
        await registry.run(
            "update_breakpoint", {"session_id": sid, "breakpoint_id": point["id"], "hit_condition": "3"}, ME
        )

    stop = stop_of(await registry.run("continue_execution", {"session_id": sid}, ME))
    assert stop["hit_breakpoints"] == [negative["id"]], stop  # only the write that made it negative
    assert stop["description"].endswith("cart.total 10.97 → -9.03")
    await registry.run("remove_breakpoint", {"session_id": sid, "breakpoint_id": negative["id"]}, ME)

    end = await registry.run("continue_execution", {"session_id": sid}, ME)  # disabled, log-only, removed: no stop
    assert end.data["state"] == "terminated" and end.data.get("exit_code") == 0, end.text

    changes = await registry.run("get_output", {"session_id": sid, "category": "changes"}, ME)
    lines = [e["text"] for e in changes.data["entries"]]
    assert len(lines) == 2, lines  # the stop, and the logged change; nothing for the disabled point.x
    assert (
        f"{negative['id']} cart.total 10.97 → -9.03  at {PROGRAM}:{line_of(PROGRAM, '# writes total')} in add"
        in lines[0]
    )
    assert "(stopped)" in lines[0]
    # UserDict.update is the standard library's MutableMapping.update: the line that wrote it is there, said to be
    # library code, with the user's line that called it.
    logged_line = f"{logged['id']} config['host'] 'localhost' → 'db.internal'  at _collections_abc.py:"
    caller = f" in update (library code, called from {PROGRAM}:{line_of(PROGRAM, '# writes host')}) [MainThread]"
    assert logged_line in lines[1] and caller in lines[1] and "(stopped)" not in lines[1], lines[1]
    text, mime = await read_for_agent(hub, f"debug://sessions/{sid}/changes")
    assert mime == "text/plain" and text.startswith("# 2 changes") and logged_line in text, text


async def test_steps_never_enter_the_helper(registry):
    """The wrapped __setattr__ runs for every instance of a watched class (`other.total = price`): stepping into
    that line goes on in the program, and a step from a data stop continues in the writing frame."""
    sid = await paused_at_ready(registry)
    await watch(registry, sid, "cart.total")
    stop = stop_of(await registry.run("continue_execution", {"session_id": sid}, ME))
    assert stop["location"]["line"] == line_of(PROGRAM, "# writes total")
    places = []
    for _ in range(5):  # out of add, over the other instance's write, round the loop, into add again
        stepped = stop_of(await registry.run("step_into", {"session_id": sid}, ME))
        assert stepped["reason"] == "step", stepped
        places.append((stepped["location"]["file"], stepped["location"]["function"], stepped["location"]["line"]))
    assert all(file == prog(PROGRAM) for file, _, _ in places), places
    other = line_of(PROGRAM, "# another instance")
    assert [p[1:] for p in places] == [
        ("main", line_of(PROGRAM, "    add(cart, price)")),
        ("main", other),
        ("main", line_of(PROGRAM, "for price in")),
        ("main", line_of(PROGRAM, "    add(cart, price)")),
        ("add", line_of(PROGRAM, "# writes total")),
    ], places


async def test_removed_while_running_and_every_change_logged(registry):
    loop = "data_loop.py"
    started = await registry.run("start_debugging", {"program": prog(loop), "stop_on_entry": True}, ME)
    sid = started.data["session_id"]
    await registry.run("set_breakpoint", {"session_id": sid, "file": prog(loop), "line": line_of(loop, "# stop")}, ME)
    stop_of(await registry.run("continue_execution", {"session_id": sid}, ME))
    logged = await watch(registry, sid, "counter.value", log_only=True)
    late = await watch(registry, sid, "counter.value", condition="value >= 150")  # ~1.5 s after the start
    running = await registry.run("continue_execution", {"session_id": sid, "wait_s": 0.2}, ME)
    assert running.data["state"] == "running", running.text
    await registry.run("remove_breakpoint", {"session_id": sid, "breakpoint_id": late["id"]}, ME)  # while it runs
    end = await registry.run("wait_for_stop", {"session_id": sid, "timeout_s": 30}, ME)
    assert end.data["state"] == "terminated", end.text  # the removed watch never stopped it
    assert not any("→" in line for line in end.data.get("output_tail") or []), end.data  # changes stay in their log
    entries, since, more = [], 0, True
    while more:  # a page holds up to 16,000 characters
        page = await registry.run("get_output", {"session_id": sid, "category": "changes", "since": since}, ME)
        entries += page.data["entries"]
        since, more = page.data["next_since"], page.data["has_more"]
    olds_news = [e["text"].split(" at ")[0].split(f"{logged['id']} counter.value ")[1].strip() for e in entries]
    assert olds_news == [f"{i - 1} → {i}" for i in range(1, 201)], (len(olds_news), olds_news[-3:])


async def test_a_requests_session_header_written_in_library_code(registry):
    """A pinned requests.Session's header dict item changed through update, and a prepared request's header written
    by requests' own auth code: each stop is at the user's call, with the line that wrote it (library code that
    just_my_code hides) as the report's write site and in the change log."""
    program = "data_requests.py"
    started = await registry.run(
        "start_debugging", {"program": prog(program), "executable_path": library_python(), "stop_on_entry": True}, ME
    )
    sid = started.data["session_id"]
    ready = line_of(program, "# stop here")
    await registry.run("set_breakpoint", {"session_id": sid, "file": prog(program), "line": ready}, ME)
    assert stop_of(await registry.run("continue_execution", {"session_id": sid}, ME))["location"]["line"] == ready
    agent = await watch(registry, sid, "session.headers['User-Agent']")
    assert "item 'User-Agent' of requests.structures.CaseInsensitiveDict" in agent["watching"], agent
    auth = await watch(registry, sid, "prepared.headers['Authorization']", log_only=True)

    reply = await registry.run("continue_execution", {"session_id": sid}, ME)
    stop = stop_of(reply)
    assert stop["hit_breakpoints"] == [agent["id"]], reply.text
    assert stop["description"].endswith("session.headers['User-Agent'] 'python-requests/2.32.3' → 'pairdbg-test/1.0'")
    assert stop["location"]["line"] == line_of(program, "# writes the user agent"), reply.text
    site = stop["write_site"]  # MutableMapping.update, in the standard library, wrote it
    assert site["function"] == "update" and site["file"].endswith("_collections_abc.py"), site
    assert site["handle"].startswith("@f0-"), site
    assert f"Write site {site['handle']}, library code hidden by just_my_code" in reply.text, reply.text

    end = await registry.run("continue_execution", {"session_id": sid}, ME)  # the auth write is logged, not stopped
    assert end.data["state"] == "terminated" and end.data.get("exit_code") == 0, end.text
    changes = await registry.run("get_output", {"session_id": sid, "category": "changes"}, ME)
    lines = [e["text"] for e in changes.data["entries"]]
    assert len(lines) == 2, lines
    assert " in update (library code, called from data_requests.py:" in lines[0] and "(stopped)" in lines[0]
    writes_auth = next(
        n
        for n, text in enumerate(open(site_file(library_python(), "requests.auth")).read().splitlines(), 1)
        if 'r.headers["Authorization"] = _basic_auth_str' in text
    )
    assert f"{auth['id']} prepared.headers['Authorization'] <unset> → " in lines[1], lines[1]
    where = f"at auth.py:{writes_auth} in __call__ (library code, called from data_requests.py:"
    assert where in lines[1] and "(stopped)" not in lines[1], lines[1]


async def test_a_local_of_a_live_frame_and_what_3_11_refuses(registry):
    """On Python 3.11 (the project's interpreter) a local of a frame below the stopped one is watched by its own
    trace function: each change stops in that frame once its writing line has run, and the watch ends when the frame
    returns. Built-in dict items, module globals (3.12+ only), list items and a local of the stopped frame itself
    are refused with the reason."""
    program = "data_builtins.py"
    started = await registry.run("start_debugging", {"program": prog(program), "stop_on_entry": True}, ME)
    sid = started.data["session_id"]
    in_start = line_of(program, "# stop in start")
    await registry.run("set_breakpoint", {"session_id": sid, "file": prog(program), "line": in_start}, ME)
    assert stop_of(await registry.run("continue_execution", {"session_id": sid}, ME))["location"]["line"] == in_start

    async def refused_at(expression: str, frame: str) -> str:
        with pytest.raises(DebugError) as caught:
            await registry.run("set_data_breakpoint", {"session_id": sid, "expression": expression, "frame": frame}, ME)
        return caught.value.message

    assert "the frame the program is stopped in" in await refused_at("steps", "@f0")
    assert "dict watchers arrived in 3.12" in await refused_at("config['db']['host']", "@f2")
    assert "no hook on a list's writes" in await refused_at("orders[3]", "@f2")
    assert "dict watchers arrived in 3.12" in await refused_at("LIMIT", "@f0")
    reply = await registry.run("set_data_breakpoint", {"session_id": sid, "expression": "total", "frame": "@f1"}, ME)
    total = reply.data
    assert total["verified"] is True and "local 'total' of count" in total["watching"], reply.text
    assert "f_locals" in total["missed"] and "next line" in total["missed"]

    writes, after = line_of(program, "# writes total"), line_of(program, "# the line after the write")
    for old, new in (("0", "1"), ("1", "3"), ("3", "6")):  # total += 0 changes nothing: no stop
        reply = await registry.run("continue_execution", {"session_id": sid}, ME)
        stop = stop_of(reply)
        assert stop["hit_breakpoints"] == [total["id"]], reply.text
        assert stop["description"] == f"data breakpoint {total['id']}: total {old} → {new} (written at line {writes})"
        assert (stop["location"]["function"], stop["location"]["line"]) == ("count", after), reply.text

    # count returned: the watch ended (said in the log and the list); the second call's loop never stops.
    reply = await registry.run("continue_execution", {"session_id": sid}, ME)
    assert stop_of(reply)["location"]["line"] == in_start, reply.text
    listed = await registry.run("list_breakpoints", {"session_id": sid}, ME)
    ended = next(bp for bp in listed.data["breakpoints"] if bp["id"] == total["id"])
    assert ended["verified"] is False and "ended: the frame returned" in listed.text, listed.text
    end = await registry.run("continue_execution", {"session_id": sid}, ME)
    assert end.data["state"] == "terminated" and end.data.get("exit_code") == 0, end.text
    changes = await registry.run("get_output", {"session_id": sid, "category": "changes"}, ME)
    lines = [e["text"] for e in changes.data["entries"]]
    assert [line.split(" at ")[0].split(f"{total['id']} ")[1].strip() for line in lines] == [
        "total 0 → 1",
        "total 1 → 3",
        "total 3 → 6",
        "total ended: the frame returned",
    ], lines
    assert all(f"at {program}:{writes} in count" in line for line in lines[:3]), lines
    output = await registry.run("get_output", {"session_id": sid, "category": "stdout"}, ME)
    assert "done (6, 'done') (3, 'done') db.internal 40 3" in "".join(e["text"] for e in output.data["entries"])
