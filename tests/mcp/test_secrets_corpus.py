"""The redaction corpus on the debugger backends: a real debugpy program and a real Node program (on the inspector
backend and on js-debug) hold 200+ planted secrets (every credential shape; secret-named variables, dict and object
keys, OrderedDict, Map, Set, pairs, lists of dicts, environment, printed lines, error messages, source literals) and
200+ ordinary values that look close (token_count, tokens, pwd, SHAs, UUIDs, paths, SQL, null/undefined/Object,
short words). Everything is read through
the registry twice, by the person and by an agent: 0 secrets may reach the agent, and every marker the agent sees
must stand where the person's view holds a planted secret (0 false positives)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pairdbg.backends.errors import DebugError
from pairdbg.backends.hub import Hub
from support import targets
from support.targets import TargetMissing
from pairdbg.backends.runtimes import find_js_debug
from pairdbg.runtime import build_registry
from support import missing_target, require_debugpy, until
from support.secret_corpus import (
    JS_EXPRESSIONS,
    PY_EXPRESSIONS,
    Audit,
    audit_ordinary,
    audit_surface,
    build,
    javascript_program,
    python_program,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(180)]

AGENT = "agent:corpus"
SKIPPED = {"this", "global", "V"}  # the global object; V is the raw corpus (its slots are checked as locals)
MAX_EXPANDED = 300


class Reader:
    """Reads one surface as the person and as the agent, and audits the pair."""

    def __init__(self, registry: Any, secrets: list[str]) -> None:
        self.registry = registry
        self.secrets = secrets
        self.audit = Audit()
        self.person: list[str] = []
        self.agent: list[str] = []

    async def both(self, surface: str, name: str, **args: Any) -> dict[str, Any]:
        mine = await self.registry.run(name, args, "human")
        theirs = await self.registry.run(name, args, AGENT)
        for p, a in ((mine.text, theirs.text), (_dump(mine.data), _dump(theirs.data))):
            audit_surface(self.audit, surface, p, a, self.secrets)
            self.person.append(p)
            self.agent.append(a)
        return theirs.data

    async def failing(self, surface: str, name: str, **args: Any) -> None:
        texts = []
        for actor in ("human", AGENT):
            try:
                await self.registry.run(name, args, actor)
            except DebugError as exc:  # its text is what the caller receives
                texts.append(exc.text())
            else:
                pytest.fail(f"{name} {args} did not fail")
        audit_surface(self.audit, surface, texts[0], texts[1], self.secrets)
        self.person.append(texts[0])
        self.agent.append(texts[1])


def _dump(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


def program(language: str, tmp_path: Path) -> tuple[str, str, tuple[str, ...], list[str]]:
    corpus = build()
    data = tmp_path / "corpus.json"
    data.write_text(json.dumps(corpus.values))
    if language == "python":
        require_debugpy()
        path, text, expressions, extra = tmp_path / "corpus.py", python_program(corpus), PY_EXPRESSIONS, ["None"]
    else:
        try:
            targets.find_node()
            if language == "javascript-dap":
                find_js_debug()
        except TargetMissing as exc:
            missing_target(str(exc))
        path, text, expressions = tmp_path / "corpus.js", javascript_program(corpus), JS_EXPRESSIONS
        described = "ƒ Object()" if language == "javascript-dap" else "function Object() { [native code] }"
        extra = ["null", "undefined", described, '"object"', '"function"']
    path.write_text(text)
    return str(path), str(data), expressions, extra


async def read_everything(reader: Reader, sid: str, path: str, expressions: tuple[str, ...]) -> None:
    await reader.both("stop report", "wait_for_stop", session_id=sid, after_stop=0, timeout_s=1)
    locals_ = await reader.both("locals", "get_local_variables", session_id=sid, count=500)
    queue = [(v["name"], v["handle"]) for v in locals_["variables"] if v.get("handle") and v["name"] not in SKIPPED]
    expanded = 0
    while queue and expanded < MAX_EXPANDED:
        name, handle = queue.pop(0)
        children = await reader.both(f"variables {name}", "get_variables", session_id=sid, ref=handle, count=500)
        expanded += 1
        if name.count(".") < 2:  # two levels below the locals: users[3], config.nested.deeper
            queue += [(f"{name}.{c['name']}", c["handle"]) for c in children["variables"] if c.get("handle")]
    for expression in expressions:
        if expression.startswith(("int(", "JSON.parse(")):
            await reader.failing(f"evaluate {expression}", "evaluate_expression", session_id=sid, expression=expression)
        else:
            await reader.both(f"evaluate {expression}", "evaluate_expression", session_id=sid, expression=expression)
    await reader.both("output", "get_output", session_id=sid)
    await reader.both("source", "get_source_context", session_id=sid, file=path, line=1, context=200)
    await reader.both("stack", "get_call_stack", session_id=sid)
    await reader.both("breakpoints", "list_breakpoints", session_id=sid)


@pytest.mark.parametrize("language", ["python", "javascript", "javascript-dap"])
async def test_the_corpus_neither_leaks_nor_lies(language: str, tmp_path: Path) -> None:
    path, data, expressions, extra = program(language, tmp_path)
    corpus = build()
    with open(path) as fh:
        line = next(n for n, t in enumerate(fh, 1) if "stop here" in t)
    hub = Hub()
    registry = build_registry(hub)
    reader = Reader(registry, corpus.secrets)
    try:
        started = await registry.run(
            "start_debugging",
            {
                "program": path,
                "args": [data],
                "breakpoints": [{"file": path, "line": line}],
                "wait_s": 30,
                **({"backend": "dap"} if language == "javascript-dap" else {}),
            },
            AGENT,
        )
        sid = started.data["session_id"]
        assert started.data.get("state") == "paused", started.text

        async def printed() -> bool:
            out = await registry.run("get_output", {"session_id": sid}, "human")
            return "working in" in out.text

        await until(printed, "the program's output")
        await read_everything(reader, sid, path, expressions)
    finally:
        await hub.shutdown()
    person, agent = "\n".join(reader.person), "\n".join(reader.agent)
    unseen = audit_ordinary(reader.audit, person, agent, corpus.ordinary + extra, "ordinary values")
    assert not unseen, f"the rig never showed these ordinary values: {unseen[:10]}"
    missing = [s for s in corpus.secrets if s not in person]
    assert not missing, f"the rig never showed these planted secrets: {missing[:10]}"
    audit = reader.audit
    print(
        f"{language}: {len(corpus.secrets)} secrets, {len(corpus.ordinary) + len(extra)} ordinary values, "
        f"{audit.markers} markers: {len(audit.leaks)} leaks, {len(audit.false_positives)} false positives"
    )
    assert not audit.leaks, f"{len(audit.leaks)} leaks: {audit.leaks[:10]}"
    assert not audit.false_positives, f"{len(audit.false_positives)} false positives: {audit.false_positives[:60]}"
