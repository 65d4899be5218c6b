"""Data breakpoints on an npm library's objects (issue 23): yaml's document nodes (yaml pinned in tests/js/npmlibs),
one written inside yaml's own code, one from the program's visitor callback that yaml calls, and a plain property
written from an Array callback; on Node under the inspector backend and under js-debug, and on Bun, alike."""

from __future__ import annotations

import os

import pytest
from support import TESTS, missing_target, stop_of
from test_data_breakpoints_node import helper_free, output_text, paused_at_marker, watch
from test_inspector_node import line, run, where

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]

PROGRAM = "data_yaml.js"
YAML = TESTS / "js" / "npmlibs" / "node_modules" / "yaml"


async def paused_at_ready(registry, backend: str) -> str:
    if not (YAML / "package.json").is_file():
        missing_target("tests/js/npmlibs/node_modules/yaml is missing: run scripts/setup-targets.sh")
    return await paused_at_marker(registry, backend, PROGRAM)


@pytest.mark.parametrize("backend", ["inspector", "js-debug", "bun"])
async def test_yaml_nodes_written_by_yaml_and_from_callbacks(registry, backend):
    sid = await paused_at_ready(registry, backend)
    host = await watch(registry, sid, "host.value")
    assert "Scalar" in host["watching"], host
    name = await watch(registry, sid, "name.value")
    retries = await watch(registry, sid, "settings.retries", condition="value > 4")

    # yaml keeps the Scalar node of an existing key and sets its value: the stop is in yaml's own code
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert stop["hit_breakpoints"] == [host["id"]], stop
    assert stop["description"] == f'data breakpoint {host["id"]}: host.value "localhost" → "db.internal"', stop
    file, at = stop["location"]["file"], stop["location"]["line"]
    assert file.endswith(os.path.join("yaml", "dist", "nodes", "YAMLMap.js")), stop["location"]
    assert "prev.value.value = _pair.value" in open(file).read().splitlines()[at - 1]
    assert helper_free(stop), stop["stack"]

    # the visitor yaml calls: the stop is the callback's statement, yaml's visit below it
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert stop["hit_breakpoints"] == [name["id"]] and stop["description"].endswith('name.value "shop" → "SHOP"')
    assert where(stop)[:2] == (PROGRAM, line(PROGRAM, "// written in a visitor")) and helper_free(stop), stop
    callers = [f.get("file") or "" for f in stop["stack"]]
    assert any(c.endswith(os.path.join("yaml", "dist", "visit.js")) for c in callers), callers

    # an Array callback's write, only when the condition holds (3 does not, 5 does)
    stop = stop_of(await run(registry, "continue_execution", session_id=sid))
    assert stop["hit_breakpoints"] == [retries["id"]] and stop["description"].endswith("settings.retries 3 → 5")
    assert where(stop)[:2] == (PROGRAM, line(PROGRAM, "// written in a callback")) and helper_free(stop), stop
    n = await run(registry, "evaluate_expression", session_id=sid, expression="n")
    assert n.data["value"] == "5", n.text

    end = await run(registry, "continue_execution", session_id=sid)
    assert end.data["state"] == "terminated", end.text
    text = await output_text(registry, sid, "done")
    assert "done 2 db:|  host: db.internal|  port: 5432|name: SHOP 5 true" in text, text
