"""FakePage: a scripted debug-bridge app over a real WebSocket, for tests of the server, tools and TUI that do
not need a browser (the SDK itself is tested in real Chromium). It speaks PROTOCOL.md: hello, welcome, ui_tree,
console, and answers commands from a small in-memory page: buttons that log, a textbox that keeps its value."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

ORIGIN = "http://127.0.0.1:8000"


class FakePage:
    def __init__(self, url: str, token: str, session_id: str = "tab-test", *, title: str = "Fake shop") -> None:
        self.url, self.token, self.session_id, self.title = url, token, session_id, title
        self.ws: ClientConnection | None = None
        self.welcome: dict[str, Any] = {}
        self.received: list[dict[str, Any]] = []
        self.items: list[dict[str, Any]] = []
        self.hold: set[str] = set()  # command types left unanswered (to test timeouts / disconnects)
        self.total: int | None = None  # the element count a tree reports (default: the items sent)
        self._task: asyncio.Task[None] | None = None
        self._next = 0

    def _ref(self) -> str:
        self._next += 1
        return f"e{self._next}"

    async def connect(self, **hello: Any) -> dict[str, Any]:
        self.ws = await connect(f"{self.url}?role=app&sessionId={self.session_id}", origin=ORIGIN)  # type: ignore[arg-type]
        fields = {
            "protocolVersion": 1,
            "token": self.token,
            "url": "http://127.0.0.1:8000/shop",
            "title": self.title,
            "appName": "fake",
            "loadId": str(time.time()),
        }
        await self.send("hello", **{**fields, **hello})
        self.welcome = json.loads(await self.ws.recv())
        if self.welcome.get("type") != "welcome":
            return self.welcome
        self._next = int(self.welcome.get("refBase") or 0)
        self.items = [
            {"ref": self._ref(), "role": "heading", "name": self.title, "depth": 0, "level": 1, "visible": True},
            {"ref": self._ref(), "role": "textbox", "name": "Name", "depth": 0, "value": "", "visible": True},
            {"ref": self._ref(), "role": "button", "name": "Greet", "depth": 0, "visible": True},
            {"ref": self._ref(), "role": "button", "name": "Archive", "depth": 0, "disabled": True, "visible": True},
        ]
        await self.send("capabilities", capabilities=["ui_tree", "console", "errors", "state", "click", "type"])
        await self.send("ui_tree", items=self.items, total=len(self.items))
        await self.send("state_update", scope="auth", state={"user": "ada", "token": "secret-token-value-123456"})
        self._task = asyncio.create_task(self._serve())
        return self.welcome

    async def send(self, kind: str, /, **fields: Any) -> None:
        assert self.ws is not None
        msg = {"sessionId": self.session_id, "timestamp": int(time.time() * 1000), "origin": "app", "type": kind}
        await self.ws.send(json.dumps({**msg, **fields}))

    async def send_raw(self, frame: str | bytes) -> None:
        assert self.ws is not None
        await self.ws.send(frame)

    async def log(self, *args: str, level: str = "log") -> None:
        await self.send("console", level=level, args=list(args))

    def item(self, name: str) -> dict[str, Any]:
        return next(it for it in self.items if it.get("name") == name)

    async def _serve(self) -> None:
        assert self.ws is not None
        with contextlib.suppress(Exception):
            async for frame in self.ws:
                msg = json.loads(frame)
                self.received.append(msg)
                if msg.get("type") in self.hold:
                    continue
                await self._answer(msg)

    async def _answer(self, msg: dict[str, Any]) -> None:
        kind, rid = msg.get("type"), msg.get("requestId")
        base = {"requestType": kind, "requestId": rid, "durationMs": 0.5}
        effects: dict[str, Any] = {"mutations": 0, "console": [], "consoleCount": 0, "errors": [], "navigated": None}
        if kind == "request_ui_tree":
            await self.send("ui_tree", items=self.items, total=self.total or len(self.items))
        elif kind == "request_state":
            await self.send("state_update", scope="auth", state={"user": "ada", "token": "secret-token-value-123456"})
        elif kind in ("click", "type"):
            ref = (msg.get("target") or {}).get("ref")
            el = next((it for it in self.items if it["ref"] == ref), None)
            if el is None:
                await self.send("command_result", **base, success=False, errorCode="STALE_REF", error=f"{ref} gone")
                return
            if el.get("disabled"):
                await self.send("command_result", **base, success=False, errorCode="DISABLED", error="disabled")
                return
            if kind == "type":
                el["value"] = msg.get("text", "")
            else:
                name = self.item("Name").get("value") or "nobody"
                self.items.append({"ref": self._ref(), "role": "status", "name": f"Hello, {name}!", "depth": 0})
                effects["console"] = [{"level": "log", "args": [f"greeted {name}"]}]
                effects["consoleCount"] = 1
                await self.log(f"greeted {name}")
            effects["mutations"] = 1
            await self.send("ui_tree", items=self.items, total=len(self.items))
        else:
            await self.send("command_result", **base, success=False, errorCode="UNKNOWN_COMMAND", error=str(kind))
            return
        await self.send("command_result", **base, success=True, result=json.dumps({"ok": True}), effects=effects)

    async def close(self, code: int = 1000) -> None:
        if self._task is not None:
            self._task.cancel()
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close(code)
