"""The debugging flow against the real debugpy: stops, steps, breakpoints of every kind, inspection, output."""

from __future__ import annotations


import pytest

from support import expect_error, line_of, local_values, prog, start, stop_of, until

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]

LOOP = "loop.py"
ADD_BODY = line_of(LOOP, "total = a + b")
ADD_RETURN = line_of(LOOP, "return total")
CALL_ADD = line_of(LOOP, "acc = add(acc, i)")
PRINT_STEP = line_of(LOOP, 'print("step"')
PRINT_DONE = line_of(LOOP, 'print("done"')
MAIN_FIRST = line_of(LOOP, "acc = 0")


async def output_text(registry, sid: str, needle: str) -> str:
    """All output so far, once `needle` has arrived (output may trail the stop that follows it)."""
    text = ""

    async def arrived() -> bool:
        nonlocal text
        r = await registry.run("get_output", {"session_id": sid, "limit": 1000}, "human")
        text = "".join(e["text"] for e in r.data["entries"])
        return needle in text

    await until(arrived, lambda: f"{needle!r}; output so far:\n{text}", timeout=10)
    return text


async def test_first_stop_report(registry):
    sid, reply = await start(registry, LOOP, ADD_BODY)
    assert sid == "S1" and reply.text.startswith("Started S1 (loop.py, pid ")
    stop = stop_of(reply)
    assert stop["stop_number"] == 1 and stop["reason"] == "breakpoint" and stop["hit_breakpoints"] == ["BP1"]
    assert stop["location"]["file"] == prog(LOOP)
    assert stop["location"]["line"] == ADD_BODY and stop["location"]["function"] == "add"
    assert local_values(stop) == {"a": "0", "b": "0"} and stop["locals_total"] == 2
    assert [(f["handle"], f["function"]) for f in stop["stack"]] == [
        ("@f0", "add"),
        ("@f1", "main"),
        ("@f2", "<module>"),
    ]
    assert stop["stack_total"] == 3, "pairdbg's boot frames must not be counted"
    current = [s for s in stop["source"] if s.get("current")]
    assert len(current) == 1 and current[0]["line"] == ADD_BODY
    assert f">{ADD_BODY:>5}|     total = a + b" in reply.text
    assert reply.data["breakpoints"][0]["verified"] is True
    summary = (await registry.run("list_debug_sessions", {}, "human")).data["sessions"][0]
    assert summary["phase"] == "paused" and summary["capabilities"]["can_step"] is True
    assert summary["capabilities"]["can_pause"] is False


async def test_step_into_over_out(registry):
    sid, reply = await start(registry, LOOP, CALL_ADD)
    assert stop_of(reply)["location"]["line"] == CALL_ADD
    into = stop_of(await registry.run("step_into", {"session_id": sid}, "human"))
    assert into["reason"] == "step" and into["stop_number"] == 2
    assert (into["location"]["function"], into["location"]["line"]) == ("add", ADD_BODY)
    over = stop_of(await registry.run("step_over", {"session_id": sid}, "human"))
    assert (over["location"]["function"], over["location"]["line"], over["stop_number"]) == ("add", ADD_RETURN, 3)
    assert local_values(over)["total"] == "0"
    out = stop_of(await registry.run("step_out", {"session_id": sid}, "human"))
    assert (out["location"]["function"], out["location"]["line"], out["stop_number"]) == ("main", CALL_ADD, 4)
    assert len(out["stack"]) == 2
    over2 = stop_of(await registry.run("step_over", {"session_id": sid}, "human"))
    assert over2["location"]["line"] == PRINT_STEP and local_values(over2)["acc"] == "0"


async def test_continue_to_the_end(registry):
    sid, reply = await start(registry, LOOP, PRINT_DONE)
    stop = stop_of(reply)
    assert local_values(stop)["acc"] == "10"
    # Whole lines in the report, although debugpy sends print() output in pieces. (Output comes through the
    # launcher's pipe and the stop through pydevd's socket, so how much of it the report holds is a race.)
    step_lines = [f"step {i} {sum(range(i + 1))}" for i in range(5)]
    assert stop["output_tail"] == step_lines[len(step_lines) - len(stop["output_tail"]) :]
    end = await registry.run("continue_execution", {"session_id": sid}, "agent:x")
    assert end.data["state"] == "terminated" and end.data["exit_code"] == 0 and end.data["pending"] is False
    assert end.data["output_tail"][-1] == "done 10 300 120"
    assert "S1 terminated, exit code 0" in end.text
    err = await expect_error(registry, "continue_execution", {"session_id": sid}, "SESSION_INVALID_STATE")
    assert "exit code 0" in err.message and err.hint
    # the output stays readable after the end
    out = await registry.run("get_output", {"session_id": sid}, "human")
    assert "done 10 300 120" in "".join(e["text"] for e in out.data["entries"])


async def test_conditional_breakpoint(registry):
    path = prog(LOOP)
    sid, reply = await start(registry, LOOP, breakpoints=[{"file": path, "line": ADD_BODY, "condition": "b == 3"}])
    stop = stop_of(reply)
    assert local_values(stop) == {"a": "3", "b": "3"} and stop["stop_number"] == 1
    bp = reply.data["breakpoints"][0]
    assert bp["condition"] == "b == 3" and bp["verified"]
    assert "[if b == 3]" in reply.text
    end = await registry.run("continue_execution", {"session_id": sid}, "human")
    assert end.data["state"] == "terminated", "the condition is true only once"


async def test_hit_condition(registry):
    path = prog(LOOP)
    sid, reply = await start(registry, LOOP, breakpoints=[{"file": path, "line": ADD_BODY, "hit_condition": "3"}])
    stop = stop_of(reply)
    assert local_values(stop) == {"a": "1", "b": "2"}, "the third call is add(1, 2)"


async def test_log_point_logs_without_stopping(registry):
    path = prog(LOOP)
    sid, reply = await start(
        registry,
        LOOP,
        breakpoints=[
            {"file": path, "line": PRINT_STEP, "log_message": "LOG i={i} acc={acc}"},
            {"file": path, "line": PRINT_DONE},
        ],
    )
    stop = stop_of(reply)
    assert stop["stop_number"] == 1 and stop["location"]["line"] == PRINT_DONE and stop["hit_breakpoints"] == ["BP2"]
    text = await output_text(registry, sid, "LOG i=4 acc=10")
    for i, acc in enumerate([0, 1, 3, 6, 10]):
        assert f"LOG i={i} acc={acc}" in text


async def test_function_breakpoint(registry):
    sid, reply = await start(registry, LOOP, MAIN_FIRST)
    bp = await registry.run("set_breakpoint", {"session_id": sid, "function": "add"}, "agent:x")
    assert bp.data["id"] == "BP2" and bp.data["kind"] == "function" and bp.data["verified"] is True
    assert bp.data["set_by"] == "agent:x"
    stop = stop_of(await registry.run("continue_execution", {"session_id": sid}, "human"))
    assert stop["reason"] == "function breakpoint" and stop["hit_breakpoints"] == ["BP2"]
    assert stop["location"]["function"] == "add" and local_values(stop) == {"a": "0", "b": "0"}
    await registry.run("remove_breakpoint", {"session_id": sid, "breakpoint_id": "bp2"}, "human")
    end = await registry.run("continue_execution", {"session_id": sid}, "human")
    assert end.data["state"] == "terminated" and end.data["exit_code"] == 0


async def test_uncaught_exception_stops_by_default(registry):
    sid, reply = await start(registry, "crash.py")
    stop = stop_of(reply)
    assert stop["reason"] == "exception"
    assert stop["exception"]["type"] == "ZeroDivisionError"
    assert stop["exception"]["message"] == "division by zero"
    assert stop["location"]["function"] == "divide" and local_values(stop) == {"a": "3", "b": "0"}
    assert "Exception: ZeroDivisionError: division by zero" in reply.text
    end = await registry.run("continue_execution", {"session_id": sid}, "human")
    assert end.data["state"] == "terminated" and end.data["exit_code"] == 1


async def test_pause_on_all_exceptions_then_none(registry):
    sid, reply = await start(registry, "crash.py", stop_on_entry=True)
    entry = stop_of(reply)
    assert entry["reason"] == "entry" and entry["location"]["line"] == 1
    mode = await registry.run("set_pause_on_exceptions", {"session_id": sid, "mode": "all"}, "human")
    assert mode.data["mode"] == "all"
    listed = await registry.run("list_breakpoints", {"session_id": sid}, "human")
    assert listed.data["exception_mode"] == "all"
    handled = stop_of(await registry.run("continue_execution", {"session_id": sid}, "human"))
    assert handled["reason"] == "exception" and handled["exception"]["type"] == "KeyError"
    assert handled["location"]["line"] == line_of("crash.py", 'raise KeyError("handled")')
    await registry.run("set_pause_on_exceptions", {"session_id": sid, "mode": "none"}, "human")
    end = await registry.run("continue_execution", {"session_id": sid}, "human")
    assert end.data["state"] == "terminated" and end.data["exit_code"] == 1, end.text
    assert "ZeroDivisionError: division by zero" in await output_text(registry, sid, "ZeroDivisionError")


async def test_uncaught_mode_skips_handled_exceptions(registry):
    sid, reply = await start(registry, "crash.py", stop_on_entry=True)
    await registry.run("set_pause_on_exceptions", {"session_id": sid, "mode": "uncaught"}, "human")
    stop = stop_of(await registry.run("continue_execution", {"session_id": sid}, "human"))
    assert stop["exception"]["type"] == "ZeroDivisionError", "the handled KeyError must not stop in uncaught mode"


async def test_evaluate_and_set_variable_value(registry):
    sid, reply = await start(registry, LOOP, ADD_BODY)
    ev = await registry.run("evaluate_expression", {"session_id": sid, "expression": "a + b * 10 + 7"}, "agent:x")
    assert ev.data["value"] == "7" and ev.data["type"] == "int"
    sv = await registry.run("set_variable_value", {"session_id": sid, "name": "b", "value": "40 + 2"}, "human")
    assert sv.data["value"] == "42"
    ev = await registry.run("evaluate_expression", {"session_id": sid, "expression": "b", "frame": "@f0"}, "human")
    assert ev.data["value"] == "42"
    caller = await registry.run("evaluate_expression", {"session_id": sid, "expression": "i", "frame": "@f1"}, "human")
    assert caller.data["value"] == "0", "@f1 is main(), where i lives"
    stop = stop_of(await registry.run("step_over", {"session_id": sid}, "human"))
    assert local_values(stop)["total"] == "42", "the program ran with the new value"
    bad = await expect_error(
        registry, "evaluate_expression", {"session_id": sid, "expression": "nosuch + 1"}, "EVALUATION_FAILED"
    )
    assert "NameError" in bad.message
    await expect_error(
        registry, "set_variable_value", {"session_id": sid, "name": "nosuch", "value": "1"}, "PATH_NOT_FOUND"
    )


async def test_set_variable_in_a_container(registry):
    sid, reply = await start(registry, LOOP, PRINT_DONE)
    handles = {v["name"]: v.get("handle") for v in stop_of(reply)["locals"]}
    sv = await registry.run(
        "set_variable_value", {"session_id": sid, "name": "'k1'", "value": "99", "ref": handles["big_dict"]}, "human"
    )
    assert sv.data["value"] == "99"
    ev = await registry.run("evaluate_expression", {"session_id": sid, "expression": "big_dict['k1']"}, "human")
    assert ev.data["value"] == "99"


async def test_get_variables_paging_and_names(registry):
    sid, reply = await start(registry, LOOP, PRINT_DONE)
    handles = {v["name"]: v.get("handle") for v in stop_of(reply)["locals"]}
    big_list, big_dict = handles["big_list"], handles["big_dict"]
    assert big_list and big_dict and handles["acc"] is None, "only containers get handles"

    async def page(ref, start, count):
        r = await registry.run("get_variables", {"session_id": sid, "ref": ref, "start": start, "count": count}, "h")
        return r

    # Page through the whole dict: every child once, the same total on every page.
    names, start_at, totals = [], 0, set()
    while True:
        r = await page(big_dict, start_at, 40)
        totals.add(r.data["total"])
        names += [v["name"] for v in r.data["variables"]]
        start_at += 40
        if start_at >= r.data["total"]:
            break
    assert len(totals) == 1 and len(names) == totals.pop() == len(set(names))
    assert {f"'k{n}'" for n in range(120)} <= set(names)
    assert "showing 1-40 of" in (await page(big_dict, 0, 40)).text
    # names picks children directly
    r = await registry.run("get_variables", {"session_id": sid, "ref": big_dict, "names": ["'k7'", "'k119'"]}, "h")
    assert {v["name"]: v["value"] for v in r.data["variables"]} == {"'k7'": "7", "'k119'": "119"}
    assert r.data["total"] == 2
    # A list: debugpy lists the first 100 items (and a "more" bucket); pages run through all of its real items.
    r = await page(big_list, 0, 500)
    children = {v["name"]: v for v in r.data["variables"]}
    assert children["000"]["value"] == "0" and children["099"]["value"] == "99"
    window = [v["name"] for v in (await page(big_list, 3, 4)).data["variables"]]
    assert window == [v["name"] for v in r.data["variables"][3:7]]
    assert "more" not in children and r.data["total"] == 300, "the rest of the list is reachable as its items"
    assert children["299"]["value"] == "299" and children["100"]["value"] == "100"
    # past the end: an empty page, not an error
    r = await page(big_list, 10_000, 5)
    assert r.data["variables"] == [] and r.data["total"] == len(children)


async def test_watches_mark_changes_across_stops(registry):
    sid, reply = await start(registry, LOOP, ADD_BODY)
    w1 = await registry.run("add_watch", {"session_id": sid, "expression": "a + b"}, "agent:x")
    assert (w1.data["id"], w1.data["value"], w1.data["changed"]) == ("W1", "0", False)
    w2 = await registry.run("add_watch", {"session_id": sid, "expression": "len('xy')"}, "human")
    w3 = await registry.run("add_watch", {"session_id": sid, "expression": "nosuch"}, "human")
    assert w2.data["value"] == "2" and w3.data["error"] is True
    seen = []
    for _ in range(3):
        stop = stop_of(await registry.run("continue_execution", {"session_id": sid}, "human"))
        seen.append({w["id"]: (w["value"], w["changed"]) for w in stop["watches"]})
    # calls: add(0,1) add(1,2) add(3,3)
    assert [s["W1"] for s in seen] == [("1", True), ("3", True), ("6", True)]
    assert all(s["W2"] == ("2", False) for s in seen)
    assert all(not s["W3"][1] for s in seen)
    await registry.run("remove_watch", {"session_id": sid, "watch_id": "w1"}, "human")
    stop = stop_of(await registry.run("continue_execution", {"session_id": sid}, "human"))
    assert [w["id"] for w in stop["watches"]] == ["W2", "W3"]
    await expect_error(registry, "remove_watch", {"session_id": sid, "watch_id": "W1"}, "PATH_NOT_FOUND")


async def test_watch_added_while_running_is_evaluated_at_the_next_stop(registry):
    sid, reply = await start(registry, "sleeper.py", wait_s=0)
    w = await registry.run("add_watch", {"session_id": sid, "expression": "count > 0"}, "human")
    assert "next stop" in w.data["value"]
    await registry.run(
        "set_breakpoint",
        {"session_id": sid, "file": prog("sleeper.py"), "line": line_of("sleeper.py", "return n + 1")},
        "human",
    )
    stop = stop_of(await registry.run("wait_for_stop", {"session_id": sid, "timeout_s": 10}, "human"))
    assert stop["watches"][0]["value"] in ("True", "False") and stop["watches"][0]["changed"] is False


async def test_get_output_cursors(registry):
    sid, reply = await start(registry, "chatty.py")
    assert reply.data["state"] == "terminated" and reply.data["exit_code"] == 0
    assert reply.data["output_tail"][-1] == "finished"
    chunks, since, pages = [], 0, 0
    while True:
        r = await registry.run("get_output", {"session_id": sid, "since": since, "limit": 5}, "agent:x")
        pages += 1
        assert r.data["dropped"] == 0
        seqs = [e["seq"] for e in r.data["entries"]]
        assert seqs == sorted(seqs) and (not seqs or seqs[0] >= since)
        chunks += [e["text"] for e in r.data["entries"] if e["category"] == "stdout"]
        if not r.data["has_more"]:
            break
        assert r.data["next_since"] == seqs[-1] + 1 and "has_more" in r.text
        since = r.data["next_since"]
    assert pages >= 2
    lines = "".join(chunks).splitlines()
    assert lines == [f"line {n}" for n in range(200)] + ["finished"]
    errs = await registry.run("get_output", {"session_id": sid, "category": "stderr", "limit": 1000}, "agent:x")
    assert "".join(e["text"] for e in errs.data["entries"]).split() == [
        "err",
        "0",
        "err",
        "50",
        "err",
        "100",
        "err",
        "150",
    ]
    assert {e["category"] for e in errs.data["entries"]} == {"stderr"}
    last = await registry.run("get_output", {"session_id": sid, "since": r.data["next_since"]}, "agent:x")
    assert last.data["entries"] == [] and last.data["has_more"] is False
    assert last.data["next_since"] == r.data["next_since"]


async def test_wait_for_stop_pending_then_pause(registry):
    sid, reply = await start(registry, "sleeper.py", wait_s=0.2)
    assert reply.data["state"] == "running" and reply.data["pending"] is True
    assert "wait_for_stop" in reply.text
    waited = await registry.run("wait_for_stop", {"session_id": sid, "timeout_s": 0.2}, "agent:x")
    assert waited.data["state"] == "running" and waited.data["pending"] is True
    summary = (await registry.run("list_debug_sessions", {}, "h")).data["sessions"][0]
    assert summary["phase"] == "running" and summary["capabilities"]["can_pause"] is True
    paused = stop_of(await registry.run("pause_execution", {"session_id": sid}, "human"))
    assert paused["reason"] == "pause" and paused["stop_number"] == 1
    assert paused["location"]["file"] == prog("sleeper.py")
    # The pause lands at module level or inside tick(); `count` is a global either way.
    now = await registry.run("evaluate_expression", {"session_id": sid, "expression": "count"}, "h")
    count = int(now.data["value"])
    assert count >= 1
    # Paused: wait_for_stop answers with the current stop at once; pausing again says so.
    again = await registry.run("wait_for_stop", {"session_id": sid, "timeout_s": 0}, "agent:x")
    assert again.data["state"] == "paused" and again.data["stop"]["stop_number"] == 1
    second = await registry.run("pause_execution", {"session_id": sid}, "agent:x")
    assert second.data["stop"]["stop_number"] == 1
    # and it really is paused: the counter does not move
    ev = await registry.run("evaluate_expression", {"session_id": sid, "expression": "count"}, "h")
    assert int(ev.data["value"]) == count


async def test_list_threads_with_two_threads(registry):
    sid, reply = await start(registry, "threads.py", line_of("threads.py", 'print("both running")'))
    stop = stop_of(reply)
    r = await registry.run("list_threads", {"session_id": sid}, "agent:x")
    names = {t["name"]: t["id"] for t in r.data["threads"]}
    assert {"MainThread", "worker-1"} <= set(names)
    assert r.data["current"] == names["MainThread"] == stop["thread_id"]
    assert f"* {names['MainThread']}" in r.text
    worker = await registry.run("get_call_stack", {"session_id": sid, "thread_id": names["worker-1"]}, "h")
    assert "worker" in worker.text
    end = await registry.run("continue_execution", {"session_id": sid}, "human")
    assert end.data["state"] == "terminated" and end.data["exit_code"] == 0
