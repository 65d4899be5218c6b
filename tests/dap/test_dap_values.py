"""Values on a real debugpy: big containers page past debugpy's listing with their real size; names take plain keys."""

from __future__ import annotations

import pytest

from support import line_of, start, stop_of

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(90)]

VALUES = "values.py"
STOP = line_of(VALUES, "# stop here")


async def _stopped(registry) -> tuple[str, dict[str, str | None]]:
    sid, reply = await start(registry, VALUES, STOP)
    return sid, {v["name"]: v.get("handle") for v in stop_of(reply)["locals"]}


async def test_a_10000_entry_dict_pages_through_all_of_it(registry):
    sid, handles = await _stopped(registry)
    first = await registry.run("get_variables", {"session_id": sid, "ref": handles["huge_dict"], "count": 100}, "h")
    assert first.data["total"] == 10_000 and first.data["next_start"] == 100
    assert "showing 1-100 of 10,000; next: start=100" in first.text
    assert [v["name"] for v in first.data["variables"]] == [f"'key{n}'" for n in range(100)]
    # Every entry once, in order, far past the 500 debugpy lists.
    seen, at = [], 0
    while at is not None:
        r = await registry.run(
            "get_variables", {"session_id": sid, "ref": handles["huge_dict"], "start": at, "count": 500}, "h"
        )
        assert r.data["total"] == 10_000
        seen += [(v["name"], v["value"]) for v in r.data["variables"]]
        at = r.data["next_start"]
    assert seen == [(f"'key{n}'", str(n)) for n in range(10_000)]
    assert "showing 9501-10000 of 10,000; the end" in r.text


async def test_a_10000_item_list_pages_past_the_first_hundred(registry):
    sid, handles = await _stopped(registry)
    r = await registry.run(
        "get_variables", {"session_id": sid, "ref": handles["huge_list"], "start": 9_990, "count": 20}, "h"
    )
    assert r.data["total"] == 10_000 and r.data["next_start"] is None
    tail = [(v["name"], v["value"]) for v in r.data["variables"]]
    assert tail == [(f"{n:04d}", str(n)) for n in range(9_990, 10_000)]
    mid = await registry.run(
        "get_variables", {"session_id": sid, "ref": handles["huge_list"], "start": 95, "count": 10}, "h"
    )
    assert [v["value"] for v in mid.data["variables"]] == [str(n) for n in range(95, 105)]
    assert "showing 96-105 of 10,000; next: start=105" in mid.text


async def test_names_take_plain_keys_and_reprs_even_past_the_listing(registry):
    sid, handles = await _stopped(registry)
    r = await registry.run(
        "get_variables",
        {"session_id": sid, "ref": handles["huge_dict"], "names": ["key5", "'key7'", "key9999"]},
        "h",
    )
    assert {v["name"]: v["value"] for v in r.data["variables"]} == {"'key5'": "5", "'key7'": "7", "'key9999'": "9999"}
    assert r.data["total"] == 3


async def test_a_local_holding_a_class_is_a_local_and_can_be_set(registry):
    sid, handles = await _stopped(registry)
    assert "kind" in handles and "class variables" not in handles
    local = await registry.run("get_local_variables", {"session_id": sid}, "h")
    kind = next(v for v in local.data["variables"] if v["name"] == "kind")
    assert "Config" in kind["value"]
    sv = await registry.run("set_variable_value", {"session_id": sid, "name": "kind", "value": "int"}, "h")
    assert sv.data["value"] == "<class 'int'>"
    ev = await registry.run("evaluate_expression", {"session_id": sid, "expression": "kind.__name__"}, "h")
    assert ev.data["value"] == "'int'"


async def test_evaluate_says_a_long_values_length_and_how_to_page_it(registry):
    sid, _ = await _stopped(registry)
    ev = await registry.run("evaluate_expression", {"session_id": sid, "expression": "long_text"}, "h")
    assert ev.data["truncated"] and ev.data["length"] == 5002
    assert "the value's text is 5,002 characters; showing 1-3,999; next: evaluate_expression repr(long_text)[3999:" in (
        ev.text
    )
    rest = await registry.run(
        "evaluate_expression", {"session_id": sid, "expression": "repr(long_text)[3999:7999]"}, "h"
    )
    assert rest.data["value"] == repr("x" * 1002 + "'") and not rest.data["truncated"]


async def test_evaluate_shows_nested_containers_a_level_deeper(registry):
    sid, _ = await _stopped(registry)
    ev = await registry.run("evaluate_expression", {"session_id": sid, "expression": "nested"}, "h")
    assert ev.data["value"] == "{'a': [1, [2, [...]]], 'b': {'c': {'d': 1}}}"
    assert "length" not in ev.data
