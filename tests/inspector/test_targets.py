"""The real JavaScript debug targets answer on their inspector sockets: Bun and WebKitGTK (WebKit Inspector Protocol),
Node and Chromium (CDP). No mocks: these tests are what proves `scripts/setup-targets.sh` and the launch helpers in
`backends/inspector/targets.py` work on this machine. Every test also proves its process group is gone afterwards.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from support import targets
from pairdbg.backends import runtimes
from support.targets import TargetMissing
from support import missing_target, until
from support import TESTS

pytestmark = pytest.mark.timeout(90)

JS = TESTS / "js"
SCRIPT = JS / "target.js"
PAGE_TITLE = "pairdbg target page"


def need(find: Callable[[], str]) -> str:
    """The target's path; a missing target fails under CI=true and skips (with the install hint) elsewhere."""
    try:
        return find()
    except TargetMissing as exc:
        missing_target(str(exc))


@pytest.fixture
def site():
    url, close = targets.serve_directory(JS)
    yield url
    close()


class Wire:
    """Just enough JSON-RPC over a WebSocket to prove a target answers: numbered requests, events kept in order."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.ids = itertools.count(1)
        self.events: list[dict[str, Any]] = []

    async def recv(self, timeout: float = 10.0) -> dict[str, Any]:
        return json.loads(await asyncio.wait_for(self.ws.recv(), timeout))

    async def call(self, method: str, params: dict | None = None, timeout: float = 10.0) -> dict[str, Any]:
        msg_id = next(self.ids)
        await self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params or {}}))
        while True:
            msg = await self.recv(timeout)
            if msg.get("id") == msg_id:
                return msg
            self.events.append(msg)

    async def event(self, method: str, timeout: float = 10.0) -> dict[str, Any]:
        for i, msg in enumerate(self.events):
            if msg.get("method") == method:
                return self.events.pop(i)
        while True:
            msg = await self.recv(timeout)
            if msg.get("method") == method:
                return msg
            self.events.append(msg)


def ws_connect(url: str):
    return connect(url, open_timeout=10, max_size=64 * 1024 * 1024, proxy=None, compression=None)


async def wait_loaded(call, url: str, timeout: float = 15.0) -> None:
    """A launcher returns once the page target exists, which may still be about:blank or loading: wait for `url`."""
    expected = f"complete {url}"
    state = None

    async def loaded() -> bool:
        nonlocal state
        reply = await call("Runtime.evaluate", {"expression": "document.readyState + ' ' + location.href"})
        state = reply.get("result", {}).get("result", {}).get("value")
        return state == expected

    await until(loaded, lambda: f"the page to reach {expected!r}; last {state!r}", timeout=timeout)


async def stop_and_check(proc) -> None:
    """Stop the target's whole process group and prove nothing of it is left."""
    await targets.stop_process_group(proc)
    assert proc.returncode is not None
    assert targets.group_members(proc.pid) == [], f"process group {proc.pid} outlived stop_process_group"
    for path in getattr(proc, "pairdbg_tempdirs", ()):
        assert not Path(path).exists(), f"temporary directory {path} left behind"


@pytest.mark.asyncio
async def test_bun_inspect_brk_banner_and_inspector_enable(proc_guard):
    bun = need(targets.find_bun)
    port = targets.free_port()
    proc = await targets.spawn([bun, f"--inspect-brk=127.0.0.1:{port}/pairdbg", str(SCRIPT)], cwd=JS)
    try:
        url = await targets.read_ws_url(proc.stderr, timeout=10)
        assert url == f"ws://127.0.0.1:{port}/pairdbg"
        async with ws_connect(url) as ws:
            reply = await Wire(ws).call("Inspector.enable")
            assert "error" not in reply and reply.get("result") == {}, reply
    finally:
        await stop_and_check(proc)


@pytest.mark.asyncio
async def test_node_inspect_brk_json_list_and_evaluate(proc_guard):
    node = need(targets.find_node)
    port = targets.free_port()
    proc = await targets.spawn([node, f"--inspect-brk=127.0.0.1:{port}", str(SCRIPT)], cwd=JS)
    try:
        banner = await targets.read_ws_url(proc.stderr, timeout=10)
        target = await targets.poll_json_list(port, "node", timeout=10)
        assert target["webSocketDebuggerUrl"] == banner
        assert target["url"] == SCRIPT.as_uri()
        async with ws_connect(target["webSocketDebuggerUrl"]) as ws:
            wire = Wire(ws)
            assert "error" not in await wire.call("Runtime.enable")
            reply = await wire.call("Runtime.evaluate", {"expression": "1+1"})
            assert reply["result"]["result"] == {"type": "number", "value": 2, "description": "2"}, reply
    finally:
        await stop_and_check(proc)


@pytest.mark.asyncio
async def test_chromium_page_target_evaluates_document_title(site, proc_guard):
    need(targets.find_chromium)
    proc, ws_url = await targets.launch_chromium(site + "page.html", targets.free_port())
    try:
        assert "/devtools/page/" in ws_url
        async with ws_connect(ws_url) as ws:
            wire = Wire(ws)
            await wait_loaded(wire.call, site + "page.html")
            reply = await wire.call("Runtime.evaluate", {"expression": "document.title", "returnByValue": True})
            assert reply["result"]["result"]["value"] == PAGE_TITLE, reply
            reply = await wire.call("Runtime.evaluate", {"expression": "window.pairdbgAnswer"})
            assert reply["result"]["result"]["value"] == 42, reply
    finally:
        await stop_and_check(proc)


class WrappedPage:
    """WebKitGTK's page target: commands go inside Target.sendMessageToTarget, answers come back (as JSON strings)
    inside Target.dispatchMessageFromTarget."""

    def __init__(self, wire: Wire, target_id: str) -> None:
        self.wire = wire
        self.target_id = target_id
        self.ids = itertools.count(1)

    async def call(self, method: str, params: dict | None = None, timeout: float = 10.0) -> dict[str, Any]:
        inner_id = next(self.ids)
        inner = json.dumps({"id": inner_id, "method": method, "params": params or {}})
        outer = await self.wire.call("Target.sendMessageToTarget", {"targetId": self.target_id, "message": inner})
        assert "error" not in outer, outer
        while True:
            msg = await self.wire.event("Target.dispatchMessageFromTarget", timeout)
            assert msg["params"]["targetId"] == self.target_id
            answer = json.loads(msg["params"]["message"])
            if answer.get("id") == inner_id:
                return answer


@pytest.mark.asyncio
async def test_minibrowser_wrapped_evaluate_under_xvfb(site, proc_guard):
    need(targets.find_minibrowser)
    need(targets.find_xvfb_run)
    proc, ws_url = await targets.launch_minibrowser(site + "page.html", targets.free_port())
    try:
        assert "/socket/" in ws_url
        async with ws_connect(ws_url) as ws:
            wire = Wire(ws)
            created = await wire.event("Target.targetCreated")
            info = created["params"]["targetInfo"]
            assert info["type"] == "page", created
            page = WrappedPage(wire, info["targetId"])
            await wait_loaded(page.call, site + "page.html")
            reply = await page.call("Runtime.evaluate", {"expression": "document.title", "returnByValue": True})
            assert reply["result"]["result"]["value"] == PAGE_TITLE, reply
            reply = await page.call("Runtime.evaluate", {"expression": "window.pairdbgAnswer"})
            assert reply["result"]["result"]["value"] == 42, reply
    finally:
        await stop_and_check(proc)


def test_missing_target_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("PAIRDBG_BUN", str(tmp_path / "no-such-bun"))
    with pytest.raises(TargetMissing) as info:
        targets.find_bun()
    assert "PAIRDBG_BUN" in info.value.how_to_install
    monkeypatch.setattr(runtimes, "MINIBROWSER_GLOB", str(tmp_path / "*" / "MiniBrowser"))
    with pytest.raises(TargetMissing) as info:
        targets.find_minibrowser()
    assert "libwebkit2gtk-4.1-0" in info.value.how_to_install and "setup-targets.sh" in str(info.value)


def test_serve_directory_serves_and_closes():
    import urllib.error
    import urllib.request

    url, close = targets.serve_directory(JS)
    with urllib.request.urlopen(url + "page.html", timeout=5) as resp:
        assert PAGE_TITLE in resp.read().decode()
    close()
    close()  # idempotent
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url + "page.html", timeout=2)
