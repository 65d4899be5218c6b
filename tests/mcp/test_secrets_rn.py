"""The same planted secrets through the React Native listener: an app (wire protocol v1 over the real WebSocket,
backends/rn/testing.py) dispatches Redux state with a password under `password`, an AWS key inside a note, a
`password=…` inside a log line under a harmless key (the gap issue 13 found) and a `Bearer` JWT in a header
string. An agent finds none of them in snapshots, state paths, events or the MCP resources."""

from __future__ import annotations

import json

import pytest
from mcp import MCPError

from pairdbg.backends.hub import Hub
from pairdbg.backends.rn.config import RnConfig
from pairdbg.backends.rn.service import REDUX_URI, RnService
from support.rn_adapter import FakeAdapter
from pairdbg.mcp_bridge.server import read_for_agent
from pairdbg.runtime import build_registry
from support import until
from support.secret_corpus import Audit, app_state, audit_ordinary, audit_tree, build, console_lines, leaks

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]

RN_TOKEN = "test-token-0123456789"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJlLXBsYW50ZWQ"
PASSWORD = "hunter2-Secret"
AWS = "AKIAIOSFODNN7EXAMPLE"
SECRETS = (PASSWORD, AWS, JWT)


async def test_no_planted_secret_reaches_an_agent_through_react_native() -> None:
    hub = Hub()
    svc = RnService(hub, RnConfig(WS_PORT=0, RN_DEBUG_TOKEN=RN_TOKEN))
    hub.add_service(svc)
    await svc.start()
    registry = build_registry(hub)
    app = FakeAdapter(svc.server.url, RN_TOKEN)
    try:
        welcome = await app.connect()
        assert welcome["t"] == "welcome", welcome
        state = {
            "user": {"name": "Ada", "password": PASSWORD},
            "cloud": {"note": f"key {AWS} in use"},
            "log": {"last": f"login with password={PASSWORD}"},
            "http": {"header": f"Bearer {JWT}"},
        }
        await app.dispatch("auth/loginOk", [{"op": "add", "path": f"/{k}", "value": v} for k, v in state.items()])
        await until(lambda: (svc.mirror.current.streams["redux"].cur_seq or 0) >= 1, "the mirror caught up")
        seen = {}
        for name, args in [
            ("debug_get_snapshot", {"stream": "redux"}),
            ("debug_get_state_path", {"path": "log"}),
            ("debug_query_events", {"stream": "redux"}),
        ]:
            reply = await registry.run(name, args, "agent:test")
            seen[name] = reply.text + json.dumps(reply.data)
        seen[REDUX_URI] = (await read_for_agent(hub, REDUX_URI))[0]
        leaks = [(surface, s) for surface, body in seen.items() for s in SECRETS if s in body]
        assert not leaks, f"secrets reached the agent: {leaks}"
        assert f"login with password=<redacted: {len(PASSWORD)} chars>" in seen["debug_get_state_path"]
        assert f"<redacted: {len(AWS)} chars>" in seen["debug_get_snapshot"]
        assert "Ada" in seen["debug_get_snapshot"]  # what is not secret stays
        # A failed read's error is redacted too, and never repeats an over-long URI.
        with pytest.raises(MCPError) as quoted:
            await read_for_agent(hub, f"debug://mmkv/password={PASSWORD}")
        assert PASSWORD not in quoted.value.error.message and "<redacted: 14 chars>" in quoted.value.error.message
        for uri in ("debug://mmkv/" + "x" * 100_000, "debug://sessions/" + "x" * 100_000, "x" * 100_000):
            with pytest.raises(MCPError) as long:
                await read_for_agent(hub, uri)
            assert len(long.value.error.message) < 1000 and len(json.dumps(long.value.error.data)) < 1000
    finally:
        await app.drop(1000)
        await hub.shutdown()


async def test_the_corpus_neither_leaks_nor_lies_through_react_native() -> None:
    """The redaction corpus (tests/support/secret_corpus.py) as Redux state with its log lines: 0 secrets reach an
    agent in snapshots, state paths, events or the resource; every redaction stands for a planted secret; every
    ordinary value shows."""
    corpus = build()
    state = {**app_state(corpus), "log": {"lines": console_lines(corpus)}}
    hub = Hub()
    svc = RnService(hub, RnConfig(WS_PORT=0, RN_DEBUG_TOKEN=RN_TOKEN))
    hub.add_service(svc)
    await svc.start()
    registry = build_registry(hub)
    app = FakeAdapter(svc.server.url, RN_TOKEN)
    audit, views = Audit(), []
    try:
        assert (await app.connect())["t"] == "welcome"
        await app.dispatch("corpus/loaded", [{"op": "add", "path": f"/{k}", "value": v} for k, v in state.items()])
        await until(lambda: (svc.mirror.current.streams["redux"].cur_seq or 0) >= 1, "the mirror caught up")
        whole = await registry.run("debug_get_snapshot", {"stream": "redux"}, "agent:test")
        audit_tree(audit, "snapshot", {**app.states["redux"]}, whole.data["data"], corpus.secrets)
        views.append(whole.text + json.dumps(whole.data, ensure_ascii=False))
        for key in state:
            one = await registry.run("debug_get_state_path", {"path": key}, "agent:test")
            audit_tree(audit, f"state path {key}", state[key], one.data["value"], corpus.secrets)
            views.append(one.text + json.dumps(one.data, ensure_ascii=False))
        events = await registry.run("debug_query_events", {"stream": "redux"}, "agent:test")
        views.append(events.text + json.dumps(events.data, ensure_ascii=False))
        resource = (await read_for_agent(hub, REDUX_URI))[0]
        audit_tree(audit, "redux resource", app.states["redux"], json.loads(resource), corpus.secrets)
        views.append(resource)
        for i, body in enumerate(views):
            leaks(audit, f"reply {i}", body, corpus.secrets)
    finally:
        await app.drop(1000)
        await hub.shutdown()
    unseen = audit_ordinary(audit, json.dumps(state, ensure_ascii=False), "\n".join(views), corpus.ordinary, "ordinary")
    assert not unseen, unseen[:10]
    print(
        f"react native: {len(corpus.secrets)} secrets, {len(corpus.ordinary)} ordinary values, {audit.markers} "
        f"redactions: {len(audit.leaks)} leaks, {len(audit.false_positives)} false positives"
    )
    assert not audit.leaks, audit.leaks[:10]
    assert not audit.false_positives, audit.false_positives[:20]
