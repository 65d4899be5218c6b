"""Data breakpoints through native adapters (issue 23, part 6): pairdbg asks the adapter itself
(`dataBreakpointInfo`, `setDataBreakpoints`) when it announces `supportsDataBreakpoints`, on a C program (lldb profile)
and a Go program (delve profile), each writing a struct field in a loop. An adapter that does not announce them is
never sent those requests (lldb-vscode 16 aborts on a request it does not know): the watch is refused with the reason
and the session runs on."""

from __future__ import annotations

import platform
import shutil
import subprocess
from pathlib import Path

import pytest
from support import TESTS, missing_target, stop_of

from pairdbg.backends.base import DataBreakpointSpec, RawFrame, RawValue
from pairdbg.backends.dap.adapterwatch import NOT_KNOWN, AdapterWatches
from pairdbg.backends.dap.profile import load_profiles
from pairdbg.backends.errors import DebugError, ErrorCode

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]
ME = "agent:test"


def marked(path: Path, mark: str) -> int:
    return next(n for n, text in enumerate(path.read_text().splitlines(), 1) if mark in text)


def need(executable: str, hint: str) -> None:
    if shutil.which(executable) is None:
        missing_target(f"{executable} not installed: {hint}")


def built_watch_c(tmp_path: Path) -> tuple[Path, Path]:
    """tests/c/watch.c compiled with debug information (gcc and lldb's adapter are real targets here)."""
    need("gcc", "apt-get install gcc")
    load_profiles()["lldb"].executable()
    source = TESTS / "c" / "watch.c"
    binary = tmp_path / "watch"
    subprocess.run(["gcc", "-g", "-O0", "-o", str(binary), str(source)], check=True, timeout=60)
    return source, binary


async def stopped_at_ready(registry, source: Path, binary: Path) -> str:
    """The C program started and paused at its MARK:ready line; the shipped lldb profile keeps watchpoint commands."""
    ready = [{"file": str(source), "line": marked(source, "MARK:ready")}]
    started = await registry.run("start_debugging", {"program": str(binary), "language": "c", "breakpoints": ready}, ME)
    sid = started.data["session_id"]
    assert registry.hub.sessions[sid].backend.profile.watch_commands is not None, "lldb.json lost its watch_commands"
    return sid


async def watch_in_a_loop(registry, program: str, language: str, source: Path, expression: str, output: str):
    """Stop before the loop, watch `expression`: with an adapter that has data breakpoints, stop at the first two
    writes (old → new), at the last one only once a condition skips the one before, then remove it and run to the
    end; without, the refusal and the run to the end."""
    ready, write = marked(source, "MARK:ready"), marked(source, "MARK:write")
    started = await registry.run(
        "start_debugging",
        {"program": program, "language": language, "breakpoints": [{"file": str(source), "line": ready}]},
        ME,
    )
    sid = started.data["session_id"]
    assert started.data["stop"]["location"]["line"] == ready
    await registry.run("remove_breakpoint", {"session_id": sid, "breakpoint_id": "BP1"}, ME)
    backend = registry.hub.sessions[sid].backend
    args = {"session_id": sid, "expression": expression}
    if not backend.adapter_capabilities.get("supportsDataBreakpoints") and backend.profile.watch_commands is None:
        with pytest.raises(DebugError) as refused:
            await registry.run("set_data_breakpoint", args, ME)
        assert refused.value.code == ErrorCode.INVALID_PARAMETERS
        assert "has no data breakpoints" in refused.value.message
        assert "supportsDataBreakpoints" in refused.value.message
        assert refused.value.hint == load_profiles()[backend.profile.name].data_breakpoints_hint
        with pytest.raises(DebugError, match="has no data breakpoints"):  # the capability is checked first
            await registry.run("set_data_breakpoint", {**args, "log_only": True}, ME)
        listed = await registry.run("list_breakpoints", {"session_id": sid}, ME)
        assert listed.data["breakpoints"] == []
    else:
        with pytest.raises(DebugError) as unknown:  # refused with the adapter's own reason, nothing listed
            await registry.run("set_data_breakpoint", {**args, "expression": "no_such_variable"}, ME)
        assert unknown.value.code == ErrorCode.INVALID_PARAMETERS and "adapter says: " in unknown.value.message
        assert "no_such_variable" in unknown.value.message, unknown.value.message
        set_ = await registry.run("set_data_breakpoint", args, ME)
        db = set_.data["id"]
        assert set_.data["verified"] is True and db.startswith("DB"), set_.text
        for old, new in (("0", "1"), ("1", "3"), (NOT_KNOWN, "6")):
            if new == "6":  # writes the condition lets by are not seen: the old value is not known
                await registry.run(
                    "update_breakpoint", {"session_id": sid, "breakpoint_id": db, "condition": f"{expression} > 3"}, ME
                )
            stop = stop_of(await registry.run("continue_execution", {"session_id": sid}, ME))
            assert stop["reason"] == "data breakpoint" and stop["hit_breakpoints"] == [db], stop
            assert stop["description"] == f"data breakpoint {db}: {expression} {old} → {new}"
            # A hardware watchpoint reports the instruction after the store: the writing line or the next one.
            assert stop["location"]["line"] in (write, write + 1), stop["location"]
        await registry.run("remove_breakpoint", {"session_id": sid, "breakpoint_id": db}, ME)
    ended = await registry.run("continue_execution", {"session_id": sid}, ME)
    assert ended.data["state"] == "terminated", ended.text  # the adapter was never sent what it cannot answer
    assert output in "\n".join(ended.data["output_tail"])


async def test_c_struct_field_through_the_lldb_profile(registry, tmp_path) -> None:
    source, binary = built_watch_c(tmp_path)
    await watch_in_a_loop(registry, str(binary), "c", source, "tally.total", "total 6")


async def test_c_watchpoints_beyond_the_hardware_limit_are_refused_by_lldb(registry, tmp_path) -> None:
    """x86-64 has four debug registers: lldb arms four watchpoints, and refuses the next in its own words. A disabled
    watch does not stop; the refused one is not listed."""
    source, binary = built_watch_c(tmp_path)
    sid = await stopped_at_ready(registry, source, binary)
    armed, refusal = [], None
    for n in range(8):
        try:
            reply = await registry.run("set_data_breakpoint", {"session_id": sid, "expression": f"slots[{n}]"}, ME)
        except DebugError as exc:
            refusal = exc.message
            break
        assert reply.data["verified"] is True
        armed.append(reply.data["id"])
    assert 1 <= len(armed) < 8 and refusal is not None, (armed, refusal)
    if platform.machine() == "x86_64":
        assert len(armed) == 4, armed
    assert refusal.startswith(f"cannot watch slots[{len(armed)}]: the lldb adapter says: "), refusal
    listed = await registry.run("list_breakpoints", {"session_id": sid}, ME)
    assert [bp["id"] for bp in listed.data["breakpoints"] if bp["kind"] == "data"] == armed
    for bp in armed[:1]:  # room for tally.total: one removed
        await registry.run("remove_breakpoint", {"session_id": sid, "breakpoint_id": bp}, ME)
    total = await registry.run("set_data_breakpoint", {"session_id": sid, "expression": "tally.total"}, ME)
    await registry.run(
        "update_breakpoint", {"session_id": sid, "breakpoint_id": total.data["id"], "enabled": False}, ME
    )
    await registry.run("remove_breakpoint", {"session_id": sid, "breakpoint_id": "BP1"}, ME)
    ended = await registry.run("continue_execution", {"session_id": sid}, ME)
    assert ended.data["state"] == "terminated", ended.text  # the disabled watch let every write by
    assert "total 6" in "\n".join(ended.data["output_tail"])


async def test_c_log_only_records_every_write_and_runs_on(registry, tmp_path) -> None:
    """A hardware watchpoint always stops: a log-only one is continued by pairdbg after each write is recorded."""
    source, binary = built_watch_c(tmp_path)
    sid = await stopped_at_ready(registry, source, binary)
    await registry.run("remove_breakpoint", {"session_id": sid, "breakpoint_id": "BP1"}, ME)
    logged = await registry.run(
        "set_data_breakpoint", {"session_id": sid, "expression": "tally.total", "log_only": True}, ME
    )
    assert logged.data["verified"] is True and "log only: each write stops the program" in logged.data["watching"]
    ended = await registry.run("continue_execution", {"session_id": sid}, ME)
    assert ended.data["state"] == "terminated", ended.text
    changes = await registry.run("get_output", {"session_id": sid, "category": "changes"}, ME)
    lines = [e["text"] for e in changes.data["entries"]]
    db = logged.data["id"]
    assert [line.split("  at ")[0].split(" ", 1)[1] for line in lines] == [
        f"{db} tally.total 0 → 1", f"{db} tally.total 1 → 3", f"{db} tally.total 3 → 6"
    ], lines
    assert all(f"watch.c:{marked(source, 'MARK:write') + 1} in main" in line for line in lines), lines


async def test_go_struct_field_through_the_delve_profile(registry, tmp_path, monkeypatch) -> None:
    need("go", "apt-get install golang-go")
    load_profiles()["delve"].executable()
    monkeypatch.setenv("GOCACHE", str(tmp_path / "gocache"))  # delve builds the program; keep the cache private
    monkeypatch.setenv("GOFLAGS", "-mod=mod")
    program = tmp_path / "main.go"
    program.write_text((TESTS / "go" / "watch" / "main.go").read_text())
    (tmp_path / "go.mod").write_text("module example.com/watch\n\ngo 1.19\n")
    await watch_in_a_loop(registry, str(program), "go", program, "t.total", "total 6")


# ----- the protocol logic, against a scripted adapter (pure logic: what is sent, what answers mean) ----------------


class ScriptedAdapter:
    """Answers as a DAP adapter with data breakpoints would; records what it was sent."""

    def __init__(self, refuse: set[str] = frozenset()) -> None:
        self.sent: list[tuple[str, dict]] = []
        self.refuse = refuse
        self.values = {"tally.total": "0"}

    async def request(self, command: str, args: dict) -> dict:
        self.sent.append((command, args))
        if command == "scopes":
            return {"scopes": [{"name": "Globals", "variablesReference": 7}]}
        if command == "dataBreakpointInfo":
            if args["name"] == "nowhere":
                return {"dataId": None, "description": "variable not found: nowhere"}
            return {"dataId": f"addr-of-{args['name']}", "description": f"4 bytes at {args['name']}",
                    "accessTypes": ["write", "read", "readWrite"]}
        if command == "setDataBreakpoints":
            return {"breakpoints": [
                {"id": n + 1, "verified": b["dataId"] not in self.refuse,
                 **({"message": "no more hardware watchpoints"} if b["dataId"] in self.refuse else {})}
                for n, b in enumerate(args["breakpoints"])]}
        raise AssertionError(command)

    async def variables(self, ref: int) -> list[RawValue]:
        if ref == 7:
            return [RawValue("tally", "{...}", ref=8), RawValue("hits", "0")]
        return [RawValue("total", self.values["tally.total"]), RawValue("count", "0")] if ref == 8 else []

    async def evaluate(self, expression: str, frame_id: int | None, context: str) -> RawValue:
        return RawValue(expression, self.values.get(expression, "5"))

    async def stack(self, thread_id: int, start: int, levels: int) -> tuple[list[RawFrame], int]:
        return [RawFrame(3, "bump", "w.c", 20), RawFrame(2, "main", "w.c", 14)], 2

    def watches(self) -> AdapterWatches:
        return AdapterWatches(self.request, self.evaluate, self.stack, self.variables,
                              lambda: {"supportsDataBreakpoints": True}, "scripted", None)

    def data_sets(self) -> list[list[str]]:
        return [[b["dataId"] for b in a["breakpoints"]] for c, a in self.sent if c == "setDataBreakpoints"]


async def test_every_change_sends_the_whole_set_and_a_refusal_is_taken_back() -> None:
    adapter = ScriptedAdapter(refuse={"addr-of-hits"})
    watches = adapter.watches()
    armed = await watches.arm(DataBreakpointSpec("DB1", "tally.total"), 1, "main")
    assert armed.verified and armed.value == "0" and armed.watching == "4 bytes at total"
    info = next(a for c, a in adapter.sent if c == "dataBreakpointInfo")
    assert info == {"variablesReference": 8, "name": "total", "frameId": 1}  # by its container, as lldb-dap wants
    refused = await watches.arm(DataBreakpointSpec("DB2", "hits"), 1, "main")
    assert not refused.verified and refused.reason == "the scripted adapter says: no more hardware watchpoints"
    missing = await watches.arm(DataBreakpointSpec("DB3", "nowhere"), 1, "main")
    assert missing.reason == "the scripted adapter says: variable not found: nowhere"
    await watches.update("DB1", False, None)
    await watches.update("DB1", True, None)
    await watches.clear("DB1")
    assert adapter.data_sets() == [
        ["addr-of-total"],
        ["addr-of-total", "addr-of-hits"],  # refused: sent again without it
        ["addr-of-total"],
        [],  # disabled
        ["addr-of-total"],
        [],  # removed
    ]


async def test_a_stop_names_the_watch_with_old_and_new_values() -> None:
    adapter = ScriptedAdapter()
    watches = adapter.watches()
    await watches.arm(DataBreakpointSpec("DB1", "tally.total"), 1, "main")
    adapter.values["tally.total"] = "1"
    body = {"reason": "watchpoint", "threadId": 5, "hitBreakpointIds": [1]}
    assert watches.is_data_stop(body)
    stop = await watches.annotate_stop(body)
    assert stop["description"] == "data breakpoint DB1: tally.total 0 → 1" and stop["hitBreakpointIds"] == ["DB1"]
    adapter.values["tally.total"] = "3"
    stop = await watches.annotate_stop({"reason": "data breakpoint", "threadId": 5, "hitBreakpointIds": [1]})
    assert stop["description"] == "data breakpoint DB1: tally.total 1 → 3"
    await watches.update("DB1", None, "tally.total > 2")  # writes it lets by are not seen: the old value is unknown
    adapter.values["tally.total"] = "6"
    stop = await watches.annotate_stop({"reason": "data breakpoint", "threadId": 5, "hitBreakpointIds": [1]})
    assert stop["description"] == f"data breakpoint DB1: tally.total {NOT_KNOWN} → 6"
    assert not watches.is_data_stop({"reason": "breakpoint"})


async def test_an_adapter_without_data_breakpoints_is_never_asked() -> None:
    adapter = ScriptedAdapter()
    watches = AdapterWatches(adapter.request, adapter.evaluate, adapter.stack, adapter.variables, dict, "old", "hint")
    refused = await watches.arm(DataBreakpointSpec("DB1", "tally.total"), 1, "main")
    assert not refused.verified and "has no data breakpoints" in refused.reason and refused.hint == "hint"
    assert adapter.sent == []


class Recorder:
    """A backend listener that keeps what it was told, in order."""

    def __init__(self) -> None:
        self.told: list[tuple[str, object]] = []

    def on_stopped(self, info) -> None:
        self.told.append(("stopped", info))

    def on_output(self, category: str, text: str) -> None:
        self.told.append(("output", text))

    def on_continued(self, thread_id, all_threads) -> None:
        self.told.append(("continued", thread_id))


async def test_events_after_a_data_stop_wait_until_its_values_are_read() -> None:
    from pairdbg.backends.dap.profile import ProfileLaunch

    backend = ProfileLaunch(load_profiles()["lldb"], "c", "/nowhere/prog")
    adapter = ScriptedAdapter()
    backend.data_watches = adapter.watches()
    backend.listener = listener = Recorder()
    await backend.data_watches.arm(DataBreakpointSpec("DB1", "tally.total"), 1, "main")
    adapter.values["tally.total"] = "1"
    backend._on_event("stopped", {"reason": "data breakpoint", "threadId": 5, "hitBreakpointIds": [1]})
    backend._on_event("output", {"category": "stdout", "output": "after the stop\n"})
    assert listener.told == []  # held while the values are read
    await backend._annotating
    assert [kind for kind, _ in listener.told] == ["stopped", "output"]
    stop = listener.told[0][1]
    assert stop.reason == "data breakpoint" and stop.hit_breakpoint_ids == ["DB1"]
    assert stop.description == "data breakpoint DB1: tally.total 0 → 1"
    backend._on_event("stopped", {"reason": "breakpoint", "threadId": 5, "hitBreakpointIds": [2]})
    assert listener.told[-1][1].reason == "breakpoint"  # other stops pass straight through
