"""`RnService`: the React Native listener as a Hub service — its six tools, its MCP resources with throttled change
notifications, and a small public `status()` for a TUI pane.

The listener's shell (start, stop, settings errors, the token warning, timers) is backends/listener.py; settings
(config.py) come from the entry point (pairdbg.settings). A bad value does not stop pairdbg: `start()` raises the
ConfigError naming the variable (the Hub logs it) and the health check reports it.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..errors import DebugError, ErrorCode
from ..events import ResourceChanged, ResourceListChanged
from ..listener import ListenerService
from ..services import ResourceInfo
from .config import RnConfig
from .mirror import Limits, Mirror
from .redact import RnRedactor
from .server import AdapterServer
from .shape import dumps, fit_resource

if TYPE_CHECKING:
    from ..actions.registry import Action
    from ..hub import Hub

log = logging.getLogger(__name__)

SESSION_URI = "debug://session/current"
REDUX_URI = "debug://redux/state"
NAV_URI = "debug://navigation/state"
MMKV_PREFIX = "debug://mmkv/"
THROTTLE_S = 1.0


def iso(ts: float | None) -> str | None:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z") if ts else None


class RnService(ListenerService):
    name = "rn"
    CONFIG = RnConfig
    TOKEN_LABEL = "React Native adapter"
    config: RnConfig
    server: AdapterServer

    def __init__(
        self, hub: Hub | None = None, config: RnConfig | Mapping[str, Any] | None = None, limits: Limits | None = None
    ) -> None:
        """`config`: the listener's settings, or the values to read them from (pairdbg.settings' `rn` section)."""
        super().__init__(hub, config)
        self.mirror = Mirror(limits)
        self.redactor = RnRedactor()
        self.server = AdapterServer(self.config, self.mirror, self._on_change)
        self._sent_at: dict[str, float] = {}
        self._mmkv_seen: dict[str, Any] = {}
        self._instances: tuple[str, ...] = ()

    # ----- lifecycle ----------------------------------------------------------------------------------------------

    async def start(self) -> None:
        if not self.config_error:
            logging.getLogger(__package__).setLevel(self.config.python_log_level())
        await super().start()

    @property
    def url(self) -> str:
        return self.server.url if self.server.port is not None else self.config.url

    def server_connected(self) -> bool:
        return self.server.connected

    def in_use(self) -> bool:
        """An app is connected: MCP lists this service's tools from now on."""
        return self.server.connected

    # ----- actions ------------------------------------------------------------------------------------------------

    def actions(self) -> list[Action]:
        from .tools import ACTIONS  # (tools finds this service through the Hub)

        return ACTIONS

    # ----- redaction ----------------------------------------------------------------------------------------------

    def redact_at(self, parts: list[str | int], value: Any) -> Any:
        """Redact a value found at `parts`: a sensitive key anywhere on the path hides it entirely."""
        return self.redactor.redact_at(parts, value)

    def redact_events(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [self.redactor.redact_stored(e) for e in events]

    # ----- summaries ----------------------------------------------------------------------------------------------

    def _session_info(self) -> dict[str, Any] | None:
        session = self.mirror.latest()
        if session is None:
            return None
        conn = self.server.conn
        live = conn is not None and conn.session is session
        hello = session.hello
        started = hello.get("startedAt")
        connected_at = conn.connected_at if live and conn else None
        uptime_from = started / 1000 if isinstance(started, (int, float)) else session.created_at
        return {
            "sessionId": session.session_id,
            "adapterVersion": (hello.get("adapter") or {}).get("version"),
            "adapter": hello.get("adapter"),
            "uptime": round(time.time() - uptime_from) if session.ended_at is None else None,
            "connectedAt": iso(connected_at),
            "connected": live,
            "endedAt": iso(session.ended_at),
            "installId": hello.get("installId"),
            "app": hello.get("app") or {},
            "deviceInfo": hello.get("device") or {},
            "capabilities": hello.get("capabilities") or [],
        }

    def stream_list(self) -> list[dict[str, Any]]:
        session = self.mirror.latest()
        if session is None:
            return []
        conn = self.server.conn
        live = conn is not None and conn.session is session
        declared = {s.name for s in conn.hello.streams} if live and conn else set()
        out = []
        for name, s in session.streams.items():
            summ = s.summary()
            out.append(
                {
                    "name": name,
                    "active": name in declared,
                    "eventCount": summ["eventCount"],
                    "latestSeq": summ["latestSeq"],
                    "oldestSeq": summ["oldestSeq"],
                    "hasSnapshot": summ["hasSnapshot"],
                    "snapshotSeq": summ["snapshotSeq"],
                    "buffered": summ["buffered"],
                    "gaps": summ["gaps"],
                    "lastEventAt": iso(summ["lastEventAt"]),
                    **({"instances": s.info.get("instances")} if s.info.get("instances") else {}),
                }
            )
        return out

    def health(self) -> dict[str, Any]:
        conn = self.server.conn
        listening = {
            "up": self.server.port is not None,
            "url": self.url,
            "port": self.server.port,
            "error": self.error,
            "since": self.listening_since,
            "tokenSource": "generated for this run" if self.config.token_generated else "RN_DEBUG_TOKEN",
        }
        base: dict[str, Any] = {
            "connected": conn is not None,
            "responsive": self.server.responsive(),
            "listening": listening,
            "redactedValues": self.redactor.count,
            "rejected": dict(self.server.rejected),
        }
        if conn is None:
            base.update({"adapter": None, "streams": []})
            info = self._session_info()
            if info is not None:
                base["lastSession"] = {
                    "sessionId": info["sessionId"],
                    "endedAt": info["endedAt"],
                    "streams": self.stream_list(),
                }
            if self.server.last_close:
                base["lastClose"] = {**self.server.last_close, "at": iso(self.server.last_close.get("at"))}
            return base
        info = self._session_info() or {}
        session = conn.session
        gaps = [{"stream": n, **g.as_dict()} for n, s in session.streams.items() for g in s.gaps[-10:]]
        base.update(
            {
                "adapter": {k: info.get(k) for k in ("sessionId", "adapterVersion", "uptime", "connectedAt")},
                "app": info.get("app"),
                "device": info.get("deviceInfo"),
                "capabilities": info.get("capabilities"),
                "streams": [
                    {
                        "name": s["name"],
                        "active": s["active"],
                        "eventCount": s["eventCount"],
                        "lastEventAt": s["lastEventAt"],
                        "latestSeq": s["latestSeq"],
                        "gaps": s["gaps"],
                    }
                    for s in self.stream_list()
                ],
                "lastPongAt": iso(conn.last_pong),
                "rttMs": round(conn.rtt_ms, 1) if conn.rtt_ms is not None else None,
                "adapterStats": conn.pong_stats,
                "gaps": gaps,
                "duplicates": sum(s.duplicates for s in session.streams.values()),
                "evicted": sum(s.evicted for s in session.streams.values()),
                "protocolErrors": conn.protocol_errors,
                "ignoredMessages": conn.ignored,
            }
        )
        return self.redactor.redact(base)

    def status(self) -> dict[str, Any]:
        """A small public summary for a TUI pane (includes the token: the person passes it to the app)."""
        h = self.health()
        info = self._session_info() or {}
        return {
            "listening": h["listening"]["up"],
            "url": self.url,
            "token": self.config.token,
            "token_generated": self.config.token_generated,
            "error": h["listening"]["error"],
            "connected": h["connected"],
            "responsive": h["responsive"],
            "session_id": info.get("sessionId"),
            "app": info.get("app") or {},
            "device": info.get("deviceInfo") or {},
            "streams": {s["name"]: s["latestSeq"] for s in self.stream_list()},
        }

    # ----- resources ----------------------------------------------------------------------------------------------

    def _instances_now(self) -> tuple[str, ...]:
        session = self.mirror.latest()
        if session is None or "mmkv" not in session.streams:
            return ()
        s = session.streams["mmkv"]
        names = list(s.info.get("instances") or [])
        cur = s.current()
        if cur is not None and isinstance(cur[1], dict):
            names += [k for k in cur[1] if k not in names]
        return tuple(names)

    def resources(self) -> list[ResourceInfo]:
        out = [
            ResourceInfo(SESSION_URI, "React Native session", "the connected app's session, adapter, device, streams"),
            ResourceInfo(REDUX_URI, "Redux state", "latest Redux state of the React Native app (redacted)"),
            ResourceInfo(NAV_URI, "navigation state", "latest navigation state tree of the React Native app"),
        ]
        out += [
            ResourceInfo(MMKV_PREFIX + name, f"MMKV {name}", f"keys of MMKV instance {name!r}")
            for name in self._instances_now()
        ]
        return out

    def resource_templates(self) -> list[ResourceInfo]:
        return [
            ResourceInfo(
                MMKV_PREFIX + "{instance}",
                "MMKV instance",
                "latest keys, types and sizes of one MMKV instance (values of secure ones never sent)",
            )
        ]

    async def read_resource(self, uri: str) -> tuple[str, str] | None:
        if uri == SESSION_URI:
            info = self._session_info()
            if info is None:
                raise DebugError(
                    ErrorCode.NOT_CONNECTED,
                    "no React Native app has connected",
                    hint=f"start the app with the pairdbg adapter ({self.url})",
                )
            info["responsive"] = self.server.responsive()
            info["streams"] = self.stream_list()
            return json.dumps(self.redactor.redact(info)), "application/json"
        if uri in (REDUX_URI, NAV_URI):
            stream = "redux" if uri == REDUX_URI else "navigation"
            return dumps(fit_resource(self.redactor.redact(self._state(stream)))), "application/json"
        if uri.startswith(MMKV_PREFIX):
            name = uri[len(MMKV_PREFIX) :]
            state = self._state("mmkv")
            inst = state.get(name) if isinstance(state, dict) else None
            if not isinstance(inst, dict):
                raise DebugError(
                    ErrorCode.STREAM_UNAVAILABLE,
                    f"no MMKV instance {name!r}",
                    hint="instances: " + (", ".join(self._instances_now()) or "none"),
                )
            keys = inst.get("keys", {})
            body = {
                "instance": name,
                "keys": self.redact_at([name, "keys"], keys),
                "totalSize": inst.get("totalSize"),
                "secure": bool(inst.get("secure")),
            }
            return dumps(fit_resource(body)), "application/json"
        return None

    def _state(self, stream: str) -> Any:
        session = self.mirror.latest()
        if session is None:
            raise DebugError(
                ErrorCode.NOT_CONNECTED,
                "no React Native app has connected",
                hint=f"start the app with the pairdbg adapter ({self.url})",
            )
        if not self.server_connected():  # the mirror's last state is not the app's now (seed 003 §4c)
            raise DebugError(
                ErrorCode.NOT_CONNECTED,
                "the React Native app is not connected",
                hint=f"debug_get_snapshot(stream='{stream}') answers with its last known state under `stale`; "
                f"the app reconnects to {self.url}",
            )
        s = session.streams.get(stream)
        cur = s.current() if s is not None else None
        if cur is None:
            raise DebugError(
                ErrorCode.STREAM_UNAVAILABLE,
                f"no {stream} state mirrored",
                hint="the app may not register this stream; debug_list_streams shows what it sends",
            )
        return cur[1]

    # ----- change notifications (throttled per URI) ---------------------------------------------------------------

    def changed(self, stream: str | None) -> None:
        self._on_change("snapshot", stream)

    def _on_change(self, kind: str, stream: str | None) -> None:
        if self.hub is None:
            return
        self._notify(SESSION_URI)
        if stream == "redux":
            self._notify(REDUX_URI)
        elif stream == "navigation":
            self._notify(NAV_URI)
        elif stream == "mmkv":
            self._notify(MMKV_PREFIX)  # resolved to the instances that changed when it fires
        if kind in ("connected", "snapshot") or stream == "mmkv":
            names = self._instances_now()
            if names != self._instances:
                self._instances = names
                self.hub.bus.publish(ResourceListChanged(None, service=self.name))

    def _notify(self, uri: str) -> None:
        if self.waiting(uri):
            return
        wait = self._sent_at.get(uri, 0.0) + THROTTLE_S - time.monotonic()
        if wait <= 0:
            self._fire(uri)
            return
        self.later(uri, wait, self._fire, uri)

    def _fire(self, uri: str) -> None:
        self._sent_at[uri] = time.monotonic()
        if self.hub is None:
            return
        if uri != MMKV_PREFIX:
            self.hub.bus.publish(ResourceChanged(None, uri=uri, service=self.name))
            return
        session = self.mirror.latest()
        s = session.streams.get("mmkv") if session else None
        cur = s.current() if s else None
        state = cur[1] if cur and isinstance(cur[1], dict) else {}
        for name, inst in state.items():
            if self._mmkv_seen.get(name) is not inst:  # states share unchanged subtrees: identity = unchanged
                self._mmkv_seen[name] = inst
                self.hub.bus.publish(ResourceChanged(None, uri=MMKV_PREFIX + name, service=self.name))
