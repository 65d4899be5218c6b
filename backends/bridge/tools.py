"""The debug-bridge MCP tools (also TUI commands): read the page's UI tree, find elements, act on them and see
what the action did. Handles are the page's `@eN`; every action replies with its effects and the UI-tree diff.
Written like the core's (backends/actions): module-level handlers and one ACTIONS list."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, model_validator

from ..actions.registry import Action, Reply
from ..errors import DebugError, ErrorCode
from ..lazymodel import LazyModel
from . import uitree
from .service import BridgeService

if TYPE_CHECKING:
    from ..hub import Hub
    from .page import Page

SID = Field(None, description="page session id (default: the only page)")
SETTLE = Field(
    None,
    ge=0,
    le=10_000,
    description="ms without DOM changes that end the effects window (default 100; 0 = none)",
)
WEB = "web"  # the MCP tool group: listed once a page connects (or with --tools web)
NAVIGATION_WAIT_S = 10.0
DOM_INLINE = 20_000


class PageParams(LazyModel):
    session_id: str | None = SID


class TreeParams(PageParams):
    scope: str | None = Field(None, description="a handle (@e12): list only that element and what it contains")
    max_chars: int = Field(uitree.DEFAULT_MAX_CHARS, ge=200, le=200_000, description="cap on the listing's size")
    include_hidden: bool = Field(False, description="also list elements that are not visible")


class FindParams(PageParams):
    text: str | None = Field(None, description="text in the element's name, label, value, placeholder or test id")
    role: str | None = Field(None, description="only this role, e.g. button, link, textbox, checkbox")

    @model_validator(mode="after")
    def _some(self) -> FindParams:
        if not (self.text or self.role):
            raise ValueError("give text, role or both")
        return self


class TargetParams(PageParams):
    element: str | None = Field(None, description="the element's handle from get_ui_tree, e.g. @e12")
    selector: str | None = Field(None, description="a CSS selector (when there is no handle)")

    def target(self) -> dict[str, Any]:
        if self.element:
            ref = uitree.parse_handle(self.element)
            if ref is None:
                raise DebugError(
                    ErrorCode.INVALID_PARAMETERS,
                    f"{self.element!r} is not an element handle",
                    hint="handles look like @e12 (get_ui_tree lists them); or pass selector",
                )
            return {"ref": ref}
        if self.selector:
            return {"selector": self.selector}
        return {}


class ClickParams(TargetParams):
    text: str | None = Field(None, description="exact visible text of a button or link (when there is no handle)")
    settle_ms: int | None = SETTLE

    @model_validator(mode="after")
    def _one(self) -> ClickParams:
        if sum(bool(x) for x in (self.element, self.selector, self.text)) != 1:
            raise ValueError("give exactly one of element (@eN), selector or text")
        return self


class TypeParams(TargetParams):
    text: str = Field(max_length=100_000, description="the text to enter")
    clear: bool = Field(True, description="replace the current value (false: append)")
    submit: bool = Field(False, description="submit the element's form afterwards (like pressing Enter)")
    settle_ms: int | None = SETTLE

    @model_validator(mode="after")
    def _one(self) -> TypeParams:
        if sum(bool(x) for x in (self.element, self.selector)) != 1:
            raise ValueError("give exactly one of element (@eN) or selector")
        return self


class NavigateParams(PageParams):
    url: str = Field(min_length=1, max_length=8000, description="absolute URL, or a path relative to the page")


class DomParams(PageParams):
    max_chars: int = Field(
        DOM_INLINE, ge=1000, le=2_000_000, description="inline up to this size; larger goes to a resource"
    )


class StateParams(PageParams):
    scope: str | None = Field(None, description="one scope of the app's state (e.g. 'cart'); default all")


# ----- helpers ------------------------------------------------------------------------------------------------------


def bridge_service(hub: Hub) -> BridgeService:
    return hub.require_service(BridgeService, "debug-bridge", "debug-bridge")


def _check_handle(page: Page, target: dict[str, Any]) -> None:
    ref = target.get("ref")
    if ref and page.stale_ref(ref):
        raise DebugError(
            ErrorCode.PATH_NOT_FOUND,
            f"@{ref} belongs to an earlier load of the page (it navigated or reloaded since)",
            hint="call get_ui_tree for the current handles",
            page_code="STALE_REF",
        )


def _describe(page: Page, target: dict[str, Any]) -> str:
    ref = target.get("ref")
    if ref:
        for item in page.tree:
            if item.get("ref") == ref:
                return uitree.line(item)
        return f"@{ref}"
    if "selector" in target:
        return f"selector {json.dumps(target['selector'], ensure_ascii=False)}"
    return f"text {json.dumps(target.get('text'), ensure_ascii=False)}"


def effects_lines(result: dict[str, Any], ui_diff: list[str]) -> list[str]:
    eff = result.get("effects") or {}
    lines = []
    bits = []
    if eff.get("windowMs") is not None:
        bits.append(f"watched {eff['windowMs']:.0f} ms" + ("" if eff.get("settled", True) else " (never quiet)"))
    bits.append(f"{eff.get('mutations', 0)} DOM changes")
    console = eff.get("console") or []
    count = eff.get("consoleCount", len(console))
    bits.append(f"{count} console")
    errors = eff.get("errors") or []
    bits.append(f"{len(errors)} errors")
    lines.append("effects: " + ", ".join(bits))
    if eff.get("navigated"):
        lines.append(f"  navigated away from {eff['navigated']}")
    for c in console[:10]:
        args = " ".join(str(a) for a in c.get("args") or [])
        lines.append(f"  console.{c.get('level', 'log')}: {args[:300]}")
    for e in errors[:5]:
        lines.append(f"  error: {str(e.get('message') or e.get('reason') or e)[:300]}")
    if ui_diff:
        lines.append("ui changes:")
        lines.extend(f"  {d}" for d in ui_diff)
    return lines


async def _act(
    svc: BridgeService, page: Page, kind: str, fields: dict[str, Any], settle_ms: int | None
) -> tuple[dict[str, Any], list[str]]:
    before, version = list(page.tree), page.tree_version
    result = await svc.command(page, kind, fields, settle_ms=settle_ms)
    ui_diff = uitree.diff(before, page.tree) if page.tree_version != version and before else []
    return result, ui_diff


def _reply(page: Page, head: str, result: dict[str, Any], ui_diff: list[str], extra: dict[str, Any]) -> Reply:
    ms = result.get("durationMs")
    if isinstance(ms, (int, float)):
        head += f" ({ms:.1f} ms)"
    lines = [head, *effects_lines(result, ui_diff)]
    return Reply(
        "\n".join(lines),
        {
            "session_id": page.hub_id,
            "effects": result.get("effects") or {},
            "ui_changes": ui_diff,
            "duration_ms": ms,
            **extra,
        },
    )


def _parse_result(result: dict[str, Any]) -> Any:
    raw = result.get("result")
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


# ----- actions (each finds the Hub's BridgeService) -----------------------------------------------------------------


async def get_bridge_info(hub: Hub, p: BaseModel, actor: str) -> Reply:
    svc = bridge_service(hub)
    info = svc.info()
    lines = [
        f"debug-bridge {'listening on ' + info['url'] if info['listening'] else 'NOT listening'}"
        + (f" ({info['error']})" if info["error"] else ""),
        f"SDK: {info['sdk_url']}  token ({info['token_source']}): {info['token']}",
        f"evaluate allowed by pairdbg: {'yes' if info['eval_allowed_by_server'] else 'no (PAIRDBG_BRIDGE_EVAL=1)'}",
    ]
    for pg in info["pages"]:
        state = "connected" if pg["connected"] else "not connected"
        lines.append(f"- {pg['session_id']} {state} {pg['url']} ({pg['ui_elements']} ui elements)")
    if not info["pages"]:
        lines.append("no pages yet; add this to the app (dev builds only):")
        lines.append(svc.snippet())
    return Reply("\n".join(lines), {**info, "snippet": svc.snippet()})


async def get_ui_tree(hub: Hub, p: TreeParams, actor: str) -> Reply:
    svc = bridge_service(hub)
    page = svc.page_of(p.session_id)
    scope = uitree.parse_handle(p.scope) if p.scope else None
    if p.scope and scope is None:
        raise DebugError(ErrorCode.INVALID_PARAMETERS, f"scope {p.scope!r} is not a handle like @e12")
    note = ""
    try:
        await svc.command(page, "request_ui_tree", {}, settle_ms=0)
    except DebugError as exc:
        if exc.code != ErrorCode.NOT_CONNECTED or page.tree_at is None or not svc.coming_back(page):
            raise
        note = f" (as of {time.time() - page.tree_at:.0f} s ago: the page is not connected)"
    items = page.tree
    if scope:
        _check_handle(page, {"ref": scope})
        scoped = uitree.scope_items(items, scope)
        if scoped is None:
            raise DebugError(
                ErrorCode.PATH_NOT_FOUND, f"@{scope} is not in the page's UI tree now", hint="call get_ui_tree"
            )
        items = scoped
    text, counts = uitree.render(
        items, header=svc.tree_header(page) + note, max_chars=p.max_chars, include_hidden=p.include_hidden
    )
    return Reply(text, {"session_id": page.hub_id, "url": page.url, "title": page.title, **counts})


async def find_element(hub: Hub, p: FindParams, actor: str) -> Reply:
    svc = bridge_service(hub)
    page = svc.page_of(p.session_id)
    await svc.command(page, "request_ui_tree", {}, settle_ms=0)
    matches, total = uitree.find(page.tree, p.text, p.role)
    what = " ".join(x for x in (p.role, repr(p.text) if p.text else None) if x)
    head = f"{total} elements match {what}" + (f" (first {len(matches)})" if total > len(matches) else "")
    if not total:
        head += "; get_ui_tree lists everything (include_hidden=true for hidden ones)"
    return Reply("\n".join([head, *matches]), {"session_id": page.hub_id, "total": total, "matches": matches})


async def click(hub: Hub, p: ClickParams, actor: str) -> Reply:
    svc = bridge_service(hub)
    page = svc.page_of(p.session_id)
    target = p.target() or {"text": p.text}
    _check_handle(page, target)
    label = _describe(page, target)
    result, ui_diff = await _act(svc, page, "click", {"target": target}, p.settle_ms)
    return _reply(page, f"clicked {label}", result, ui_diff, {"result": _parse_result(result)})


async def type_text(hub: Hub, p: TypeParams, actor: str) -> Reply:
    svc = bridge_service(hub)
    page = svc.page_of(p.session_id)
    target = p.target()
    _check_handle(page, target)
    label = _describe(page, target)
    fields = {"target": target, "text": p.text, "clear": p.clear, "submit": p.submit}
    result, ui_diff = await _act(svc, page, "type", fields, p.settle_ms)
    value = _parse_result(result)
    shown = value.get("value") if isinstance(value, dict) else value
    head = f"typed into {label}" + (f"; value is now {json.dumps(shown)[:200]}" if shown is not None else "")
    if p.submit:
        head += "; form submitted"
    return _reply(page, head, result, ui_diff, {"result": value})


async def navigate(hub: Hub, p: NavigateParams, actor: str) -> Reply:
    svc = bridge_service(hub)
    page = svc.page_of(p.session_id)
    loads, old_url = page.loads, page.url
    result = await svc.command(page, "navigate", {"url": p.url}, settle_ms=0)
    answered = _parse_result(result)
    target = str(answered.get("url") or p.url) if isinstance(answered, dict) else p.url
    if isinstance(answered, dict) and "sameDocument" in answered:
        same_document = bool(answered["sameDocument"])  # the page knows: a fragment-only change
    else:
        same_document = "#" in p.url and urlsplit(target)._replace(fragment="") == urlsplit(old_url)._replace(
            fragment=""
        )
    if same_document:
        return Reply(f"navigated to {target} (same document)", {"session_id": page.hub_id, "url": target})
    await page.changes.wait_until(  # the new page's hello and first tree arrive on their own
        lambda: page.loads > loads and page.connected and page.tree_at is not None, NAVIGATION_WAIT_S
    )
    if page.loads > loads and page.connected:
        text = f"navigated to {page.url}; the new page connected (load {page.loads}): {page.title!r}"
        return Reply(text, {"session_id": page.hub_id, "url": page.url, "connected": True})
    return Reply(
        f"navigation to {target} started, but no page with the SDK connected again within "
        f"{NAVIGATION_WAIT_S:g} s (does the new page load the SDK?)",
        {"session_id": page.hub_id, "url": target, "connected": False},
    )


async def get_dom_snapshot(hub: Hub, p: DomParams, actor: str) -> Reply:
    svc = bridge_service(hub)
    page = svc.page_of(p.session_id)
    await svc.command(page, "request_dom_snapshot", {}, settle_ms=0)
    dom = page.dom or {}
    html = dom.get("html", "")
    uri = f"bridge://{page.hub_id}/dom"
    cut = " (cut by the page's maxSnapshotBytes)" if dom.get("truncated") else ""
    head = f"DOM of {page.url}: {len(html)} characters{cut}"
    data = {"session_id": page.hub_id, "length": dom.get("length"), "chars": len(html), "resource": uri}
    if len(html) <= p.max_chars:
        return Reply(f"{head}\n{html}", {**data, "html": html})
    return Reply(
        f"{head}; too large to inline (max_chars={p.max_chars}): read the resource {uri}, or use "
        f"get_ui_tree / find_element. First {min(2000, p.max_chars)} characters:\n{html[:2000]}",
        data,
    )


async def get_app_state(hub: Hub, p: StateParams, actor: str) -> Reply:
    svc = bridge_service(hub)
    page = svc.page_of(p.session_id)
    if "state" in page.capabilities or not page.capabilities:
        try:
            await svc.command(page, "request_state", {}, settle_ms=0)
        except DebugError as exc:
            if exc.code not in (ErrorCode.NOT_CONNECTED, ErrorCode.CAPABILITY_UNSUPPORTED):
                raise
    state = page.state
    if p.scope is not None:
        if p.scope not in state:
            raise DebugError(
                ErrorCode.SCOPE_NOT_FOUND,
                f"the app reported no state scope {p.scope!r}",
                hint="scopes: " + (", ".join(sorted(state)) or "none (the app sends none: getCustomState)"),
            )
        state = {p.scope: state[p.scope]}
    value = svc.redactor.redact(state)
    text = json.dumps(value, ensure_ascii=False, indent=1)
    if len(text) > 20_000:
        text = text[:20_000] + f"\n... cut at 20000 of {len(text)} characters; ask for one scope"
    head = f"app state of {page.hub_id} ({len(state)} scopes)"
    return Reply(f"{head}\n{text}", {"session_id": page.hub_id, "state": value})


ACTIONS = [
    Action(
        "get_bridge_info",
        "The debug-bridge listener: URL, SDK snippet and token, connected pages.",
        PageParams,
        get_bridge_info,
        "Bridge info",
        read_only=True,
        quiet=True,
        hands_out_credential=True,  # the page token, so the agent can wire up a page
        group=WEB,
    ),
    Action(
        "get_ui_tree",
        "The page's interactive elements, headings and landmarks, one per line, with @eN handles for click and "
        "type_text.",
        TreeParams,
        get_ui_tree,
        "UI tree",
        read_only=True,
        quiet=True,
        group=WEB,
    ),
    Action(
        "find_element",
        "Search the page's UI tree by text and/or role; matches come with their @eN handles.",
        FindParams,
        find_element,
        "Find element",
        read_only=True,
        quiet=True,
        group=WEB,
    ),
    Action(
        "get_dom_snapshot",
        "The page's HTML (inline when small, else as a bridge://…/dom resource). Prefer get_ui_tree.",
        DomParams,
        get_dom_snapshot,
        "DOM snapshot",
        read_only=True,
        quiet=True,
        group=WEB,
    ),
    Action(
        "click",
        "Click an element (full pointer sequence after a visibility check); returns what changed.",
        ClickParams,
        click,
        "Click",
        open_world=True,  # the page may fetch, post or leave
        group=WEB,
    ),
    Action(
        "type_text",
        "Type into an input/textarea/select/contenteditable (works with React controlled inputs); returns what "
        "changed.",
        TypeParams,
        type_text,
        "Type text",
        open_world=True,  # the page may fetch, post or leave
        group=WEB,
    ),
    Action(
        "navigate",
        "Load a URL in the page and wait for it to connect again.",
        NavigateParams,
        navigate,
        "Navigate",
        open_world=True,  # the page may fetch, post or leave
        group=WEB,
    ),
    Action(
        "get_app_state",
        "The app's reported state (state_update / getCustomState), redacted.",
        StateParams,
        get_app_state,
        "App state",
        read_only=True,
        quiet=True,
        group=WEB,
    ),
]
