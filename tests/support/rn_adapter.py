"""A small Python adapter speaking wire protocol v1, for tests and benchmarks (not the reference adapter, which is
JavaScript in backends/rn/adapter/). It keeps real per-stream state, seqs and a ring for resume, answers requests
from its state, and can freeze (stop answering, like a stalled JS thread) or drop its socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from pairdbg.backends.rn.jsondoc import Diff, apply_patch, lookup


class FakeAdapter:
    def __init__(
        self,
        url: str,
        token: str,
        session_id: str | None = None,
        *,
        origin: str | None = None,
        states: dict[str, Any] | None = None,
        ring: int = 1000,
        patches: bool = True,
        capabilities: tuple[str, ...] = ("snapshot.scope", "state.getPath", "events.query", "patch"),
    ) -> None:
        self.url = url
        self.token = token
        self.session_id = session_id or f"s-{uuid.uuid4().hex[:10]}"
        self.origin = origin
        self.states: dict[str, Any] = (
            states
            if states is not None
            else {
                "redux": {"auth": {"user": None, "status": "idle"}, "todos": {"items": []}},
                "navigation": {"index": 0, "routes": [{"name": "Home", "key": "home-1"}], "stale": False},
                "mmkv": {"default": {"secure": False, "totalSize": 0, "keys": {}}},
            }
        )
        self.seq = dict.fromkeys(self.states, 0)
        self.ring: dict[str, list[dict[str, Any]]] = {s: [] for s in self.states}
        self.ring_size = ring
        self.patches = patches
        self.capabilities = list(capabilities)
        self.g = 0
        self.ws: ClientConnection | None = None
        self.welcome: dict[str, Any] | None = None
        self.frozen = False
        self.requests: list[dict[str, Any]] = []
        self._task: asyncio.Task[None] | None = None
        self._out: list[dict[str, Any]] = []
        self.pings = 0

    # ----- connection ---------------------------------------------------------------------------------------------

    def hello(self, **over: Any) -> dict[str, Any]:
        msg = {
            "v": 1,
            "t": "hello",
            "protocol": {"min": 1, "max": 1},
            "token": self.token,
            "sessionId": self.session_id,
            "installId": "install-1",
            "adapter": {"name": "py-fake-adapter", "version": "0.0.1"},
            "app": {"name": "Ecal", "bundleId": "com.example.ecal", "version": "1.2.3", "rn": "0.81.1", "hermes": True},
            "device": {"platform": "ios", "osVersion": "18.2", "model": "iPhone16,2", "simulator": True},
            "streams": [
                {
                    "name": s,
                    "lastSeq": self.seq[s],
                    "oldestSeq": self._oldest(s),
                    "snapshot": True,
                    **({"instances": list(self.states["mmkv"])} if s == "mmkv" else {}),
                }
                for s in self.states
            ],
            "capabilities": self.capabilities,
            "limits": {"maxMessageBytes": 1048576, "bufferSize": self.ring_size},
            "clock": {"now": int(time.time() * 1000)},
            "startedAt": int(time.time() * 1000) - 1000,
        }
        msg.update(over)
        return msg

    async def open(self) -> ClientConnection:
        headers = {"Origin": self.origin} if self.origin else None
        return await connect(self.url, additional_headers=headers, max_size=None, open_timeout=5)

    async def connect(self, resume: bool = True, snapshot: bool = True, **hello_over: Any) -> dict[str, Any]:
        """Handshake, then (like the reference adapter) gap/replay per the welcome cursors and fresh snapshots."""
        self.ws = await self.open()
        await self.ws.send(json.dumps(self.hello(**hello_over)))
        self.welcome = json.loads(await asyncio.wait_for(self.ws.recv(), 5))
        if self.welcome.get("t") != "welcome":
            return self.welcome
        self._task = asyncio.get_running_loop().create_task(self._serve(self.ws))
        if resume:
            for s, cursor in self.welcome.get("resume", {}).items():
                await self._resume(s, cursor)
        if snapshot:
            for s in self.states:
                await self.send_snapshot(s)
        return self.welcome

    def _oldest(self, s: str) -> int:
        return self.ring[s][0]["seq"] if self.ring[s] else self.seq[s] + 1

    async def _resume(self, s: str, cursor: int) -> None:
        if s not in self.seq or cursor >= self.seq[s]:
            return
        oldest = self._oldest(s)
        if cursor + 1 < oldest:
            await self.send(
                {"v": 1, "t": "gap", "stream": s, "from": cursor + 1, "to": oldest - 1, "reason": "evicted"}
            )
        items = [e for e in self.ring[s] if e["seq"] > cursor]
        for i in range(0, len(items), 64):
            await self.send({"v": 1, "t": "events", "replay": True, "items": items[i : i + 64]})

    async def send(self, msg: dict[str, Any] | str) -> None:
        assert self.ws is not None
        await self.ws.send(msg if isinstance(msg, str) else json.dumps(msg))

    async def _serve(self, ws: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed, asyncio.CancelledError):
            async for frame in ws:
                msg = json.loads(frame)
                if self.frozen:
                    continue
                if msg.get("t") == "ping":
                    self.pings += 1
                    await ws.send(
                        json.dumps(
                            {
                                "v": 1,
                                "t": "pong",
                                "ts": msg["ts"],
                                "now": time.time() * 1000,
                                "stats": {"dropped": 0, "outbox": 0},
                            }
                        )
                    )
                elif msg.get("t") == "req":
                    self.requests.append(msg)
                    await ws.send(json.dumps(self.answer(msg)))

    def answer(self, req: dict[str, Any]) -> dict[str, Any]:
        method, p = req["method"], req.get("params", {})
        base = {"v": 1, "t": "res", "id": req["id"]}

        def err(code: str, message: str, **details: Any) -> dict[str, Any]:
            return {**base, "ok": False, "error": {"code": code, "message": message, "details": details}}

        stream = p.get("stream", "redux")
        if method in ("snapshot.get", "state.getPath", "events.query") and stream not in self.states:
            return err("STREAM_UNAVAILABLE", f"no stream {stream}")
        if method == "snapshot.get":
            data = self.states[stream]
            if p.get("scope"):
                found, data = lookup(data, p["scope"])
                if not found:
                    return err("PATH_NOT_FOUND", f"no {p['scope']}")
            return {**base, "ok": True, "result": {"stream": stream, "seq": self.seq[stream], "data": data}}
        if method == "state.getPath":
            found, value = lookup(self.states[stream], p["path"])
            result = {"stream": stream, "seq": self.seq[stream], "path": p["path"], "exists": found}
            if found:
                result["value"] = value
            return {**base, "ok": True, "result": result}
        if method == "events.query":
            since = p.get("sinceSeq") or 0
            if self.ring[stream] and since + 1 < self._oldest(stream):
                return err("SEQ_EVICTED", "evicted", oldestSeq=self._oldest(stream))
            evs = [e for e in self.ring[stream] if e["seq"] > since and (not p.get("type") or e["type"] == p["type"])]
            lim = p.get("limit") or 50
            return {**base, "ok": True, "result": {"events": evs[:lim], "hasMore": len(evs) > lim}}
        if method == "ping.echo":
            return {**base, "ok": True, "result": {"now": time.time() * 1000}}
        return err("UNKNOWN_METHOD", f"{method} is not implemented")

    # ----- app activity -------------------------------------------------------------------------------------------

    def event(self, stream: str, type_: str, data: dict[str, Any], patch: list[dict[str, Any]] | None) -> dict:
        """Apply a state change locally and return the event (not yet sent)."""
        if patch:
            self.states[stream] = apply_patch(self.states[stream], patch)
        self.seq[stream] += 1
        self.g += 1
        data = dict(data)
        if self.patches and patch is not None:
            data["patch"] = patch
        ev = {
            "stream": stream,
            "seq": self.seq[stream],
            "g": self.g,
            "ts": int(time.time() * 1000),
            "type": type_,
            "data": data,
        }
        ring = self.ring[stream]
        ring.append(ev)
        if len(ring) > self.ring_size:
            del ring[: len(ring) - self.ring_size]
        return ev

    async def push(self, *events: dict[str, Any]) -> None:
        """Send events if connected (kept in the ring either way, like the real adapter's outbox + ring)."""
        if self.ws is None:
            return
        with contextlib.suppress(ConnectionClosed):
            for i in range(0, len(events), 64):
                await self.send({"v": 1, "t": "events", "items": list(events[i : i + 64])})

    async def dispatch(self, action_type: str, patch: list[dict[str, Any]], payload: Any = None) -> dict:
        ev = self.event(
            "redux",
            "action",
            {
                "action": {"type": action_type, "payload": payload},
                "changedKeys": sorted({op["path"].split("/")[1] for op in patch}),
            },
            patch,
        )
        await self.push(ev)
        return ev

    async def navigate(self, name: str, params: dict[str, Any] | None = None) -> dict:
        nav = self.states["navigation"]
        frm = nav["routes"][nav["index"]]["name"]
        new_routes = [
            *nav["routes"],
            {"name": name, "key": f"{name.lower()}-{self.seq['navigation'] + 1}", "params": params or {}},
        ]
        after = {**nav, "routes": new_routes, "index": len(new_routes) - 1}
        patch = Diff(max_ops=1000).run(nav, after).patch()
        ev = self.event(
            "navigation",
            "route_change",
            {"from": frm, "to": name, "params": params or {}, "action": "NAVIGATE", "stackDepth": len(new_routes)},
            patch,
        )
        await self.push(ev)
        return ev

    async def mmkv_set(self, key: str, value: Any, instance: str = "default") -> dict:
        inst = self.states["mmkv"][instance]
        n = len(json.dumps(value))
        old = inst["keys"].get(key, {}).get("bytes", 0)
        patch = [
            {
                "op": "add",
                "path": f"/{instance}/keys/{key}",
                "value": {"type": type(value).__name__, "bytes": n, "value": value},
            },
            {"op": "replace", "path": f"/{instance}/totalSize", "value": inst["totalSize"] + n - old},
        ]
        ev = self.event(
            "mmkv",
            "key_set",
            {"instance": instance, "key": key, "valueType": type(value).__name__, "value": value, "bytes": n},
            patch,
        )
        await self.push(ev)
        return ev

    async def send_snapshot(self, stream: str) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self.send(
                {
                    "v": 1,
                    "t": "snapshot",
                    "stream": stream,
                    "seq": self.seq[stream],
                    "ts": int(time.time() * 1000),
                    "data": self.states[stream],
                }
            )

    # ----- failure modes ------------------------------------------------------------------------------------------

    async def drop(self, code: int = 4999) -> None:
        """Kill the socket (like a network drop); state, seqs and ring stay for the reconnect."""
        if self.ws is not None:
            await self.ws.close(code, "drop")
            self.ws = None
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None

    async def close(self) -> None:
        await self.drop(1000)
