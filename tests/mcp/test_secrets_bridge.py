"""The same planted secrets through the debug-bridge: a page (scripted over the real bridge WebSocket) logs a
`Bearer` JWT, "the password is …", an object argument holding a password and a Python-repr-like text, and
reports state with an AWS key under a harmless key. An agent finds none of them in output, app state or the
MCP resources; the person's session output keeps them."""

from __future__ import annotations

import json

import pytest

from pairdbg.backends.bridge.config import BridgeConfig
from pairdbg.backends.bridge.service import BridgeService
from pairdbg.backends.hub import Hub
from pairdbg.mcp_bridge.server import read_for_agent
from pairdbg.runtime import build_registry
from support import until
from support.fake_page import FakePage
from support.secret_corpus import (
    Audit,
    app_state,
    audit_ordinary,
    audit_surface,
    audit_tree,
    build,
    console_lines,
    leaks,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]

BRIDGE_TOKEN = "bridge-test-token-0123456789"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJlLXBsYW50ZWQ"
PASSWORD = "hunter2-Secret"
AWS = "AKIAIOSFODNN7EXAMPLE"
SECRETS = (PASSWORD, AWS, JWT)
RIG_TOKEN = "secret-token-value-123456"  # the state FakePage reports when it connects


async def test_no_planted_secret_reaches_an_agent_through_the_bridge() -> None:
    hub = Hub()
    svc = BridgeService(hub, BridgeConfig(port=0, token=BRIDGE_TOKEN))
    hub.add_service(svc)
    await hub.start_services()
    registry = build_registry(hub)
    page = FakePage(svc.server.url, BRIDGE_TOKEN, "tab-1")
    try:
        await page.connect()
        await until(lambda: hub.sessions, "the page's session")
        sid = next(iter(hub.sessions))
        await page.log(f"Authorization: Bearer {JWT}")
        await page.log(f"the password is {PASSWORD}")
        await page.send("console", level="log", args=["login", {"user": "ada", "password": PASSWORD}])
        await page.log(f"{{'user': 'ada', 'password': '{PASSWORD}'}}")
        await page.send("state_update", scope="cloud", state={"region": "eu", "note": f"key {AWS} in use"})
        await until(lambda: "cloud" in svc.page_of(sid).state, "the page's state")

        def person_output() -> str:
            return "".join(e.text for e in hub.get(sid).output.read(0, 10_000, None)[0])

        await until(lambda: person_output().count("\n") >= 4, "four console lines")
        seen = {}
        for name, args in [("get_output", {"session_id": sid}), ("get_app_state", {"session_id": sid})]:
            reply = await registry.run(name, args, "agent:test")
            seen[name] = reply.text + json.dumps(reply.data)
        for uri in (f"debug://sessions/{sid}/output", f"bridge://{sid}/state"):
            seen[uri] = (await read_for_agent(hub, uri))[0]  # what resources/read answers
        leaks = [(surface, s) for surface, body in seen.items() for s in SECRETS if s in body]
        assert not leaks, f"secrets reached the agent: {leaks}"
        assert f"Bearer <redacted: {len(JWT)} chars>" in seen["get_output"]
        assert f"the password is <redacted: {len(PASSWORD)} chars>" in seen["get_output"]
        assert f"'password': '<redacted: {len(PASSWORD)} chars>'" in seen["get_output"]
        assert f"<redacted: {len(AWS)} chars>" in seen["get_app_state"]
        # The person's view of the session output is what the page said.
        assert PASSWORD in person_output() and JWT in person_output()
    finally:
        await page.close()
        await hub.shutdown()


async def test_the_bridge_token_reaches_agents_in_full_mode_only() -> None:
    """get_bridge_info hands agents the page token on purpose; below full mode it is redacted like any secret,
    since with it an agent could drive pages over the relay, past the registry."""
    hub = Hub()
    svc = BridgeService(hub, BridgeConfig(port=0, token=BRIDGE_TOKEN))
    hub.add_service(svc)
    await hub.start_services()
    registry = build_registry(hub)
    try:
        full = await registry.run("get_bridge_info", {}, "agent:test")
        assert BRIDGE_TOKEN in full.text and full.data["token"] == BRIDGE_TOKEN
        await registry.run("set_agent_mode", {"mode": "inspect"}, "human")
        inspect = await registry.run("get_bridge_info", {}, "agent:test")
        assert BRIDGE_TOKEN not in inspect.text + json.dumps(inspect.data)
        assert inspect.data["token"] == f"<redacted: {len(BRIDGE_TOKEN)} chars>"
        mine = await registry.run("get_bridge_info", {}, "human")
        assert mine.data["token"] == BRIDGE_TOKEN
    finally:
        await hub.shutdown()


async def test_the_corpus_neither_leaks_nor_lies_through_the_bridge() -> None:
    """The redaction corpus (tests/support/secret_corpus.py) as a page's state scopes, console lines and an object
    argument: 0 secrets reach an agent, every redaction stands for a planted secret, every ordinary value shows."""
    corpus = build()
    state, lines = app_state(corpus), console_lines(corpus)
    secrets = [*corpus.secrets, RIG_TOKEN]
    hub = Hub()
    svc = BridgeService(hub, BridgeConfig(port=0, token=BRIDGE_TOKEN))
    hub.add_service(svc)
    await hub.start_services()
    registry = build_registry(hub)
    page = FakePage(svc.server.url, BRIDGE_TOKEN, "tab-1")
    audit = Audit()
    try:
        await page.connect()
        await until(lambda: hub.sessions, "the page's session")
        sid = next(iter(hub.sessions))
        for scope, value in state.items():
            await page.send("state_update", scope=scope, state=value)
        for line in lines:
            await page.log(line)
        await page.send("console", level="log", args=["config", state["config"]])
        await until(lambda: state.keys() <= svc.page_of(sid).state.keys(), "every state scope")

        def person_output() -> str:
            return "".join(e.text for e in hub.get(sid).output.read(0, 10_000, None)[0])

        await until(lambda: person_output().count("\n") >= len(lines) + 1, "every console line")
        agent_views = []
        reply = await registry.run("get_app_state", {"session_id": sid}, "agent:test")
        audit_tree(
            audit, "get_app_state", {**state, "auth": svc.page_of(sid).state["auth"]}, reply.data["state"], secrets
        )
        agent_views.append(reply.text + json.dumps(reply.data, ensure_ascii=False))
        for scope in state:
            one = await registry.run("get_app_state", {"session_id": sid, "scope": scope}, "agent:test")
            audit_tree(audit, f"get_app_state {scope}", state[scope], one.data["state"][scope], secrets)
            agent_views.append(one.text + json.dumps(one.data, ensure_ascii=False))
        mine = await registry.run("get_output", {"session_id": sid, "limit": 1000}, "human")
        theirs = await registry.run("get_output", {"session_id": sid, "limit": 1000}, "agent:test")
        audit_surface(audit, "get_output", mine.text, theirs.text, secrets)
        audit_surface(audit, "get_output data", json.dumps(mine.data), json.dumps(theirs.data), secrets)
        agent_views.append(theirs.text + json.dumps(theirs.data, ensure_ascii=False))
        resource = (await read_for_agent(hub, f"bridge://{sid}/state"))[0]
        audit_tree(audit, "state resource", svc.page_of(sid).state, json.loads(resource), secrets)
        output = (await read_for_agent(hub, f"debug://sessions/{sid}/output"))[0]
        agent_views += [resource, output]
        for surface, body in zip(("app state", "output resource"), (resource, output), strict=True):
            leaks(audit, surface, body, secrets)
        for i, body in enumerate(agent_views):
            leaks(audit, f"reply {i}", body, secrets)
    finally:
        await page.close()
        await hub.shutdown()
    unseen = audit_ordinary(
        audit, json.dumps(state, ensure_ascii=False), "\n".join(agent_views), corpus.ordinary, "ordinary"
    )
    assert not unseen, unseen[:10]
    print(
        f"bridge: {len(secrets)} secrets, {len(corpus.ordinary)} ordinary values, {audit.markers} redactions: "
        f"{len(audit.leaks)} leaks, {len(audit.false_positives)} false positives"
    )
    assert not audit.leaks, audit.leaks[:10]
    assert not audit.false_positives, audit.false_positives[:20]
