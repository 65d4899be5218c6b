"""`BridgeService`: the debug-bridge listener as a Hub service. Each connected app (one `sessionId`) is a Hub
session driven by a BridgeBackend, so the TUI and MCP share it; the service turns page messages into session
output and mirror updates, runs pairdbg's commands with their effects, and keeps a session alive across page
loads (a navigation is a short disconnect; the session ends if the page does not return within the grace time).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..errors import DebugError, ErrorCode
from ..events import ActionPerformed, ResourceChanged, ResourceListChanged
from ..models import Phase
from ..listener import ListenerService
from ..services import ResourceInfo
from . import uitree
from .backend import BridgeBackend
from .config import BridgeConfig
from .page import Page
from .redact import Redactor, scrub_message, scrub_text
from .server import CLOSE_LIMIT, BridgeServer, Reject

if TYPE_CHECKING:
    from ..actions.registry import Action
    from ..hub import Hub
    from ..session import Session

log = logging.getLogger(__name__)

RECONNECT_WAIT_S = 5.0
READ_ONLY = {
    "request_ui_tree",
    "request_dom_snapshot",
    "request_state",
}  # safe to ask the next page again  # how long a command waits for a navigating page to come back
PAGE_CODES = {
    "NOT_FOUND": (ErrorCode.PATH_NOT_FOUND, "call get_ui_tree or find_element for current handles"),
    "STALE_REF": (ErrorCode.PATH_NOT_FOUND, "the element is gone; call get_ui_tree for current handles"),
    "NOT_VISIBLE": (ErrorCode.NOT_ACTIONABLE, "it is hidden; look for what reveals it (get_ui_tree include_hidden)"),
    "OBSCURED": (ErrorCode.NOT_ACTIONABLE, "something covers it (a dialog or overlay); deal with that first"),
    "DISABLED": (ErrorCode.NOT_ACTIONABLE, "it is disabled; find out what enables it"),
    "NOT_EDITABLE": (ErrorCode.NOT_ACTIONABLE, "type_text needs an input, textarea, select or contenteditable"),
    "EVAL_DISABLED": (
        ErrorCode.CAPABILITY_UNSUPPORTED,
        "evaluate needs both opt-ins: createDebugBridge({enableEval: true}) in the page and PAIRDBG_BRIDGE_EVAL=1 "
        "(or --bridge-eval) for pairdbg",
    ),
    "UNKNOWN_COMMAND": (ErrorCode.CAPABILITY_UNSUPPORTED, "the page's SDK is older than this pairdbg"),
    "BAD_REQUEST": (ErrorCode.INVALID_PARAMETERS, "check the arguments"),
    "FEATURE_DISABLED": (
        ErrorCode.CAPABILITY_UNSUPPORTED,
        "the app turned this off in createDebugBridge's options; other tools still work",
    ),
    "EXCEPTION": (ErrorCode.PROTOCOL_ERROR, "the page threw; get_output shows its console and errors"),
}


class BridgeService(ListenerService):
    name = "bridge"
    CONFIG = BridgeConfig
    TOKEN_LABEL = "debug-bridge"
    config: BridgeConfig
    server: BridgeServer

    def __init__(self, hub: Hub | None = None, config: BridgeConfig | Mapping[str, Any] | None = None) -> None:
        """`config`: the listener's settings, or the values to read them from (pairdbg.settings' `bridge` section)."""
        super().__init__(hub, config)
        self.server = BridgeServer(self.config, self)
        self.redactor = Redactor()
        self._ids = itertools.count(1)

    def in_use(self) -> bool:
        """A page is connected (it is a session): MCP lists this service's tools from now on."""
        return bool(self._bridge_sessions())

    def actions(self) -> list[Action]:
        from .tools import ACTIONS  # (tools finds this service through the Hub)

        return ACTIONS

    # ----- sessions -----------------------------------------------------------------------------------------------

    def _hub(self) -> Hub:
        if self.hub is None:
            raise RuntimeError("BridgeService is not bound to a Hub")
        return self.hub

    def session_of(self, page: Page) -> Session | None:
        return self._hub().sessions.get(page.hub_id) if page.hub_id else None

    def backend_of(self, page: Page) -> BridgeBackend | None:
        """The backend of the page's Hub session: the service tells it what happened to its page."""
        session = self.session_of(page)
        return session.backend if session is not None and isinstance(session.backend, BridgeBackend) else None

    def _resumable(self, page: Page) -> Session | None:
        """The page's Hub session if it is still live or waiting for the page to come back."""
        session = self.session_of(page)
        if session is None:
            return None
        return None if session.phase.ended else session  # RECONNECTING is not an end

    async def app_hello(self, page: Page, hello: dict[str, Any]) -> dict[str, Any]:
        """Server hook: an app authenticated. Opens (or resumes) its Hub session; returns the welcome fields."""
        hub = self._hub()
        if isinstance(hello.get("url"), str):
            hello["url"] = scrub_text(hello["url"])  # shown in headers and session lists
        session = self._resumable(page)
        if session is None:
            try:
                hub.check_capacity()
            except DebugError as exc:
                raise Reject(CLOSE_LIMIT, "LIMIT_EXCEEDED", exc.message) from None
            page.closed_by_debugger = False
            backend = BridgeBackend(self, page)
            backend.program = str(hello.get("url") or "") or None
            session = await hub.open(backend, _session_name(hello, page.session_id))
            page.hub_id = session.id
            page.has_session = True
            self._publish_list()
        else:
            self.cancel(page.session_id)
        new_load = not page.same_load(hello)
        welcome = {
            # Handles of a new page load start above every earlier one; a reconnect within the load keeps them.
            "refBase": page.max_ref if new_load else page.ref_base,
            "evalAllowed": self.config.allow_eval,
            "settleMs": self.config.settle_ms,
            "maxWaitMs": self.config.max_wait_ms,
        }
        asyncio.get_running_loop().call_soon(self._attached, page, new_load)
        return welcome

    def _attached(self, page: Page, new_load: bool) -> None:
        backend = self.backend_of(page)
        if backend is None or page.app is None:
            return
        backend.page_attached(new_load)
        self._changed(page, "ui_tree")

    def app_closed(self, page: Page, code: int | None, reason: str) -> None:
        """Server hook: the app's socket closed (navigation, reload, tab closed, network)."""
        session, backend = self.session_of(page), self.backend_of(page)
        if session is None or backend is None or session.phase.ended or page.closed_by_debugger:
            return
        why = f"the page is loading {page.unloading}" if page.unloading else f"the page disconnected (close {code})"
        backend.page_left(why)
        self.cancel(page.session_id)
        self.later(page.session_id, self.config.reconnect_grace_s, self._give_up, page)

    def _give_up(self, page: Page) -> None:
        backend = self.backend_of(page)
        if backend is None or page.app is not None:
            return
        backend.page_gone(self.config.reconnect_grace_s)

    async def session_closed(self, page: Page) -> None:
        """The Hub session ended (closed by someone, or the page never returned): release the page."""
        page.closed_by_debugger = True
        page.has_session = False
        self.cancel(page.session_id)
        await self.server.end(page, "session closed in pairdbg")
        self.server.forget_if_idle(page)
        self._publish_list()

    # ----- page messages (server hook; runs for every frame: keep it cheap) --------------------------------------

    def app_message(self, page: Page, msg: dict[str, Any]) -> dict[str, Any] | None:
        kind = msg["type"]
        backend = self.backend_of(page)
        if kind == "console":
            page.console_count += 1
            if backend is not None:
                level = str(msg.get("level") or "log")
                args = msg.get("args")
                # kept as the page said it: the person sees it, agents get it through the registry's redaction
                text = " ".join(a if isinstance(a, str) else str(a) for a in args) if isinstance(args, list) else ""
                category = "stderr" if level in ("error", "warn") else "console"
                prefix = "" if level == "log" else f"{level}: "
                backend.page_output(category, f"{prefix}{text}\n")
            return scrub_message(msg, self.redactor) if page.agents else msg
        if kind == "dom_mutations":
            page.apply_mutations(msg)
            return scrub_message(msg, self.redactor) if page.agents else msg
        if kind == "ui_tree":
            msg = scrub_message(msg, self.redactor)  # names and values are shown to agents and kept
            if msg.get("scope") is None:  # a relay agent's scoped request is not the page's tree
                page.apply_tree(msg)
                self._changed(page, "ui_tree")
            return msg
        elif kind in ("error", "unhandledrejection"):
            page.error_count += 1
            text = _error_text(msg)
            page.recent_errors.append({"kind": kind, "text": text})
            if backend is not None:
                backend.page_output("stderr", text + "\n")
        elif kind == "state_update":
            page.apply_state(msg)
            self._changed(page, "state")
        elif kind == "dom_snapshot":
            msg = scrub_message(msg, self.redactor)
            page.apply_dom(msg)
            self._changed(page, "dom")
            return msg
        elif kind == "capabilities":
            caps = msg.get("capabilities")
            page.capabilities = [str(c) for c in caps] if isinstance(caps, list) else []
        elif kind == "navigation":
            self._navigation(page, backend, msg)
        elif kind == "command_result":
            msg = scrub_message(msg, self.redactor)  # results, effects and errors go to agents
            rid = msg.get("requestId")
            fut = page.pending.get(rid) if isinstance(rid, str) else None
            if fut is not None and not fut.done():
                fut.set_result(msg)
            return msg
        return scrub_message(msg, self.redactor)

    def _navigation(self, page: Page, backend: BridgeBackend | None, msg: dict[str, Any]) -> None:
        url = scrub_text(str(msg.get("url") or ""))
        how = str(msg.get("kind") or "")
        if how == "unload":
            page.unloading = url or page.url
            return
        if url:
            page.url = url
            if backend is not None:
                backend.page_navigated(url, how)

    def agent_command(self, page: Page, msg: dict[str, Any], agent: str) -> None:
        """Server hook: a plain WebSocket agent sent a command; it shows in the activity feed like any action."""
        summary = {k: v for k, v in msg.items() if k not in ("sessionId", "timestamp", "origin", "type")}
        self._hub().bus.publish(
            ActionPerformed(
                page.hub_id,
                actor=f"agent:{agent}",
                action=f"relay {msg['type']}",
                summary=str(summary)[:120],
                ok=True,
                outcome="sent to the page",
                at=msg["timestamp"] / 1000,
            )
        )

    # ----- change notices -----------------------------------------------------------------------------------------

    def _changed(self, page: Page, what: str) -> None:
        if page.hub_id and self.hub is not None:
            self.hub.bus.publish(ResourceChanged(page.hub_id, uri=f"bridge://{page.hub_id}/{what}", service=self.name))

    def _publish_list(self) -> None:
        if self.hub is not None:
            self.hub.bus.publish(ResourceListChanged(None, service=self.name))

    # ----- commands -----------------------------------------------------------------------------------------------

    def page_of(self, session_id: str | None) -> Page:
        """The bridge page for a Hub session id; with none given, the only bridge session there is."""
        hub = self._hub()
        if session_id:
            session = hub.get(session_id)
            backend = session.backend
            if not isinstance(backend, BridgeBackend):
                raise DebugError(
                    ErrorCode.CAPABILITY_UNSUPPORTED,
                    f"session {session.id} is a {backend.kind} session; this tool works on debug-bridge pages",
                    hint=self._sessions_hint(),
                )
            return backend.page
        pages = [
            s.backend.page
            for s in hub.sessions.values()
            if isinstance(s.backend, BridgeBackend) and not s.phase.ended  # RECONNECTING is not an end
        ]
        if len(pages) == 1:
            return pages[0]
        if not pages:
            raise DebugError(
                ErrorCode.NOT_CONNECTED,
                f"no web page is connected to the debug-bridge ({self.server.url})",
                hint="load a page that runs the SDK (get_bridge_info shows the snippet and token)",
            )
        raise DebugError(
            ErrorCode.INVALID_PARAMETERS,
            f"{len(pages)} pages are connected; say which with session_id",
            hint=self._sessions_hint(),
        )

    def _sessions_hint(self) -> str:
        hub = self._hub()
        live = [
            f"{s.id} ({s.backend.page.title or s.backend.page.url})"
            for s in hub.sessions.values()
            if isinstance(s.backend, BridgeBackend) and not s.phase.ended
        ]
        return "bridge sessions: " + (", ".join(live) if live else "none; get_bridge_info says how to connect one")

    def coming_back(self, page: Page) -> bool:
        """The page is between two loads (its session waits for it)."""
        session = self.session_of(page)
        return session is not None and session.phase == Phase.RECONNECTING

    async def ready(self, page: Page) -> None:
        """Wait briefly for a page that is between two loads; raise if it is not there."""
        if page.connected and page.unloading:
            # It said it is leaving: its socket may still be open, but it can no longer answer; wait for the next.
            loads = page.loads
            await page.changes.wait_until(lambda: page.loads != loads, RECONNECT_WAIT_S)
        if page.connected and not page.unloading:
            return
        session = self.session_of(page)
        coming_back = self.coming_back(page)
        if coming_back and await page.wait_connected(RECONNECT_WAIT_S):
            return
        if session is not None and session.phase.ended:
            raise session.ended_error()
        raise DebugError(
            ErrorCode.NOT_CONNECTED,
            f"the page of session {page.hub_id} is not connected"
            + (f" (it left {page.unloading})" if page.unloading else ""),
            hint="wait for it to load again, then retry; list_debug_sessions shows its phase",
        )

    async def command(
        self,
        page: Page,
        kind: str,
        fields: dict[str, Any] | None = None,
        settle_ms: int | None = None,
        max_wait_ms: int | None = None,
    ) -> dict[str, Any]:
        """Run one command on the page; returns its command_result, raises DebugError on failure. A read-only
        request that the page could not answer because it was leaving is asked again of the page that replaces it."""
        try:
            return await self._command(page, kind, fields, settle_ms, max_wait_ms)
        except DebugError as exc:
            if kind not in READ_ONLY or exc.code not in (ErrorCode.NAVIGATED, ErrorCode.NOT_CONNECTED):
                raise
            if not (page.unloading or self.coming_back(page)):
                raise
        return await self._command(page, kind, fields, settle_ms, max_wait_ms)

    async def _command(
        self,
        page: Page,
        kind: str,
        fields: dict[str, Any] | None,
        settle_ms: int | None,
        max_wait_ms: int | None,
    ) -> dict[str, Any]:
        await self.ready(page)
        settle = self.config.settle_ms if settle_ms is None else settle_ms
        cap = self.config.max_wait_ms if max_wait_ms is None else max_wait_ms
        rid = f"p-{next(self._ids)}"
        try:
            result = await self.server.command(
                page, kind, {**(fields or {}), "settleMs": settle, "maxWaitMs": cap}, rid, cap / 1000 + 5
            )
        except TimeoutError:
            raise DebugError(
                ErrorCode.TIMEOUT,
                f"the page did not answer {kind} within {cap / 1000 + 5:g} s (is its main thread blocked?)",
                hint="get_output shows its console; evaluate may also hang while it is busy",
            ) from None
        except ConnectionError:
            if page.unloading:
                raise DebugError(
                    ErrorCode.NAVIGATED,
                    f"the page left {page.unloading} before the command reached it",
                    hint="call get_ui_tree to see the new page",
                ) from None
            raise DebugError(ErrorCode.NOT_CONNECTED, "the page disconnected", hint="retry once it is back") from None
        if not result.get("success"):
            code = str(result.get("errorCode") or "EXCEPTION")
            err, hint = PAGE_CODES.get(code, (ErrorCode.PROTOCOL_ERROR, "see the message"))
            message = scrub_text(str(result.get("error") or code))
            raise DebugError(err, message, hint=hint, page_code=code)
        return result

    async def evaluate(self, page: Page, code: str) -> str:
        refusals = []
        if not self.config.allow_eval:
            refusals.append("pairdbg did not opt in (PAIRDBG_BRIDGE_EVAL=1 or --bridge-eval)")
        if page.hello and not page.hello.get("evalAllowed"):
            refusals.append("the page did not opt in (createDebugBridge({enableEval: true}))")
        if refusals:
            code_, hint = PAGE_CODES["EVAL_DISABLED"]
            raise DebugError(code_, "evaluate is off for this page: " + "; ".join(refusals), hint=hint)
        result = await self.command(page, "evaluate", {"code": code}, settle_ms=0)
        return str(result.get("result") if result.get("result") is not None else "undefined")

    # ----- resources ----------------------------------------------------------------------------------------------

    def _bridge_sessions(self) -> list[Session]:
        hub = self._hub()
        return [s for s in hub.sessions.values() if isinstance(s.backend, BridgeBackend)]

    def resources(self) -> list[ResourceInfo]:
        out = []
        for s in self._bridge_sessions():
            if s.backend.page.dom is not None:
                out.append(
                    ResourceInfo(
                        f"bridge://{s.id}/dom", f"DOM of {s.id}", "the last DOM snapshot of the page", "text/html"
                    )
                )
        return out

    def resource_templates(self) -> list[ResourceInfo]:
        return [
            ResourceInfo(
                "bridge://{session_id}/dom", "Page DOM", "the last DOM snapshot (get_dom_snapshot)", "text/html"
            ),
            ResourceInfo(
                "bridge://{session_id}/ui_tree", "UI tree", "interactive elements with @eN handles", "text/plain"
            ),
            ResourceInfo("bridge://{session_id}/state", "App state", "state_update values per scope (redacted)"),
        ]

    async def read_resource(self, uri: str) -> tuple[str, str] | None:
        if not uri.startswith("bridge://"):
            return None
        sid, _, what = uri[len("bridge://") :].partition("/")
        page = self.page_of(sid)
        if what == "dom":
            if page.dom is None:
                raise DebugError(
                    ErrorCode.PATH_NOT_FOUND, f"no DOM snapshot of {sid} yet", hint="call get_dom_snapshot"
                )
            return page.dom["html"], "text/html"
        if what == "ui_tree":
            text, _ = uitree.render(page.tree, header=self.tree_header(page), max_chars=10**9)
            return text, "text/plain"
        if what == "state":
            import json

            return json.dumps(self.redactor.redact(page.state), ensure_ascii=False, indent=1), "application/json"
        raise DebugError(ErrorCode.PATH_NOT_FOUND, f"no resource {uri}", hint="bridge://S1/dom, /ui_tree or /state")

    def tree_header(self, page: Page) -> str:
        head = f"# ui tree of {page.hub_id} url={page.url} title={uitree._quote(page.title, 60)}"
        if page.tree_total > len(page.tree):  # the SDK caps what it sends (1,000 elements)
            head += f" (the page sent its first {len(page.tree)} of {page.tree_total} elements: use scope or find)"
        return head

    # ----- status (get_bridge_info, the TUI) ----------------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        http = self.server.http_url
        return {
            "listening": self.server.port is not None,
            "listening_since": self.listening_since,
            "url": self.server.url,
            "sdk_url": f"{http}/debug-bridge.js",
            "error": self.error,
            "token": self.config.token,
            "token_source": "generated for this run" if self.config.token_generated else "PAIRDBG_BRIDGE_TOKEN",
            "eval_allowed_by_server": self.config.allow_eval,
            "extra_origins": list(self.config.origins),
            "rejected": dict(self.server.rejected),
            "malformed_frames": self.server.malformed,
            "pages": [p.summary() for p in self.server.pages.values() if p.hub_id],
        }

    def snippet(self) -> str:
        http = self.server.http_url
        return (
            '<script type="module">\n'
            f'  import {{ createDebugBridge }} from "{http}/debug-bridge.js";\n'
            f'  createDebugBridge({{ token: "{self.config.token}", appName: "my-app" }}).connect();\n'
            "</script>"
        )


def _session_name(hello: dict[str, Any], session_id: str) -> str:
    name = hello.get("appName") or hello.get("title") or ""
    host = urlsplit(str(hello.get("url") or "")).netloc
    label = f"{name} ({host})" if name and host else (name or host or session_id)
    return f"web: {label}"


def _error_text(msg: dict[str, Any]) -> str:
    if msg["type"] == "unhandledrejection":
        text = f"Unhandled rejection: {msg.get('reason') or msg.get('message') or '?'}"
    else:
        where = ""
        if msg.get("filename"):
            where = f" ({msg['filename']}:{msg.get('lineno', '?')}:{msg.get('colno', '?')})"
        message = str(msg.get("message") or "error")
        text = f"{message if message.startswith('Uncaught') else 'Uncaught ' + message}{where}"
    stack = msg.get("stack")
    if isinstance(stack, str) and stack:
        text += "\n" + "\n".join(stack.splitlines()[:8])
    return text[:8000]
