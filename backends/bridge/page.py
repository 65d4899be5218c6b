"""What pairdbg knows of one bridge session (one `sessionId`): the current app connection, the relay's agents, and
a bounded mirror of what the page sent — hello, capabilities, the latest UI tree, state per scope, counts, the
recent errors, the last DOM snapshot — plus the commands waiting for a result.

Everything here is bounded: rings for recent items, caps for the snapshot; counters for the rest.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ..changes import Changes
from ..errors import DebugError, ErrorCode

RECENT_ERRORS = 50
MAX_SCOPES = 100


@dataclass
class AppConn:
    ws: Any  # websockets ServerConnection
    hello: dict[str, Any]
    load_id: str
    ref_base: int
    connected_at: float = field(default_factory=time.time)
    malformed_in_a_row: int = 0
    welcome: dict[str, Any] = field(default_factory=dict)


@dataclass
class Page:
    session_id: str  # the bridge's sessionId (the Hub session has its own id: hub_id)
    hub_id: str | None = None
    app: AppConn | None = None
    agents: set[Any] = field(default_factory=set)  # relay.AgentConn
    hello: dict[str, Any] = field(default_factory=dict)
    capabilities: list[str] = field(default_factory=list)
    url: str = ""
    title: str = ""
    loads: int = 0
    tree: list[dict[str, Any]] = field(default_factory=list)
    tree_at: float | None = None
    tree_total: int = 0
    tree_version: int = 0
    max_ref: int = 0  # highest handle number any load of this session minted
    ref_base: int = 0  # handles at or below this belong to earlier page loads
    state: dict[str, Any] = field(default_factory=dict)
    state_at: dict[str, float] = field(default_factory=dict)
    mutation_records: int = 0
    mutation_batches: int = 0
    mutations_dropped: int = 0
    console_count: int = 0
    error_count: int = 0
    recent_errors: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=RECENT_ERRORS))
    dom: dict[str, Any] | None = None
    unloading: str | None = None  # URL the page was leaving when it said `navigation: unload`
    pending: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    closed_by_debugger: bool = False
    has_session: bool = False  # a Hub session is live or waiting for this page (the service keeps it up to date)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: Notified when the app attaches or detaches and when a tree arrives: `changes.wait_until(condition, timeout)`.
    changes: Changes = field(default_factory=Changes)

    # ----- connection ---------------------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self.app is not None

    def same_load(self, hello: dict[str, Any]) -> bool:
        """The app reconnects from the page load it was already in (network blip, sleep, back/forward cache):
        its elements keep their handles."""
        load_id = hello.get("loadId")
        return bool(load_id) and load_id == self.hello.get("loadId") and self.loads > 0

    def attach(self, app: AppConn) -> None:
        same = self.same_load(app.hello)
        self.app = app
        self.hello = app.hello
        self.url = str(app.hello.get("url") or "")
        self.title = str(app.hello.get("title") or "")
        self.unloading = None
        if not same:
            self.ref_base = app.ref_base
            self.loads += 1
            self.tree = []
            self.tree_at = None
            self.capabilities = []
        self.changes.notify()

    def detach(self, app: AppConn, code: int | None, reason: str) -> None:
        if self.app is not app:
            return
        self.app = None
        self.changes.notify()
        navigated = self.unloading
        for rid, fut in list(self.pending.items()):
            if not fut.done():
                if navigated:
                    fut.set_exception(
                        DebugError(
                            ErrorCode.NAVIGATED,
                            f"the page left {navigated} before answering; whether the command ran is unknown",
                            hint="call get_ui_tree to see the page now (it waits for the new page to connect)",
                        )
                    )
                else:
                    fut.set_exception(
                        DebugError(
                            ErrorCode.NOT_CONNECTED,
                            f"the page disconnected before answering (close {code}{': ' + reason if reason else ''})",
                            hint="call get_ui_tree to see whether it came back",
                        )
                    )
            self.pending.pop(rid, None)

    async def wait_connected(self, timeout: float) -> bool:
        return await self.changes.wait_until(lambda: self.app is not None, timeout)

    # ----- applying app messages ----------------------------------------------------------------------------------

    def apply_tree(self, msg: dict[str, Any]) -> None:
        items = msg.get("items")
        if not isinstance(items, list):
            return
        self.tree = [it for it in items if isinstance(it, dict)]
        self.tree_at = time.time()
        self.tree_total = int(msg.get("total") or len(self.tree))
        self.tree_version += 1
        if msg.get("url"):
            self.url = str(msg["url"])
        if msg.get("title") is not None:
            self.title = str(msg["title"])
        for it in self.tree:
            ref = it.get("ref")
            if isinstance(ref, str) and ref[1:].isdigit():
                self.max_ref = max(self.max_ref, int(ref[1:]))
        self.changes.notify()

    def apply_state(self, msg: dict[str, Any]) -> None:
        scope = str(msg.get("scope") or "state")
        if scope not in self.state and len(self.state) >= MAX_SCOPES:
            return
        self.state[scope] = msg.get("state")
        self.state_at[scope] = time.time()

    def apply_mutations(self, msg: dict[str, Any]) -> None:
        records = msg.get("mutations")
        n = len(records) if isinstance(records, list) else 0
        self.mutation_records += n
        self.mutation_batches += 1
        dropped = msg.get("dropped")
        if isinstance(dropped, int) and dropped > 0:
            self.mutations_dropped += dropped

    def apply_dom(self, msg: dict[str, Any]) -> None:
        html = msg.get("html")
        if isinstance(html, str):
            self.dom = {
                "html": html,
                "length": int(msg.get("length") or len(html)),
                "truncated": bool(msg.get("truncated")),
                "url": self.url,
                "at": time.time(),
            }

    def stale_ref(self, ref: str) -> bool:
        """A handle minted by an earlier load of this session (the page navigated or reloaded since)."""
        return ref[1:].isdigit() and int(ref[1:]) <= self.ref_base

    def summary(self) -> dict[str, Any]:
        return {
            "bridge_session": self.session_id,
            "session_id": self.hub_id,
            "connected": self.connected,
            "url": self.url,
            "title": self.title,
            "app": {k: self.hello.get(k) for k in ("appName", "appVersion") if self.hello.get(k)},
            "capabilities": self.capabilities,
            "page_loads": self.loads,
            "agents_on_relay": len(self.agents),
            "ui_elements": len(self.tree),
            "console_messages": self.console_count,
            "errors": self.error_count,
            "mutations": {
                "records": self.mutation_records,
                "batches": self.mutation_batches,
                "dropped": self.mutations_dropped,
            },
            "state_scopes": sorted(self.state),
        }
