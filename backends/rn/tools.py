"""The six React Native tools of the seed spec (§3) as actions: pydantic params, a compact text block and the
spec's structured shape in `data`, errors as DebugError with the spec's codes and a hint. Written like the core's
(backends/actions): module-level handlers that find the Hub's RnService, and one ACTIONS list."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from ..actions.registry import Action, Reply
from ..errors import DebugError, ErrorCode
from ..lazymodel import LazyModel
from .jsondoc import dotted, lookup, parse_path
from .mirror import StreamMirror, Unavailable
from .server import WireFailure
from .service import RnService, iso
from .shape import MAX_RESPONSE_BYTES, cap_value, excerpt, key_sizes, size

if TYPE_CHECKING:
    from ..hub import Hub

StreamName = Literal["redux", "navigation", "mmkv"]
STREAM = Field(description="redux (store), navigation (routes) or mmkv (storage)")


class NoParams(LazyModel):
    pass


class SnapshotParams(LazyModel):
    stream: StreamName = STREAM
    scope: str | None = Field(
        None, description="part of the state: a path like 'auth.user' or 'items[0]'; for mmkv an instance name"
    )


class QueryParams(LazyModel):
    stream: StreamName = STREAM
    limit: int = Field(50, description="max events, clamped to 1..200")
    since_seq: int | None = Field(None, description="events after this seq (default: from the first)")
    event_type: str | None = Field(None, description="only this event type, e.g. 'action', 'route_change', 'key_set'")


class PathParams(LazyModel):
    path: str = Field(description="dot path into the Redux state, e.g. 'auth.user.role' or 'items[0].name'")


class DiffParams(LazyModel):
    stream: StreamName = STREAM
    base_seq: int = Field(ge=0, description="seq of the base state (0 = initial state)")
    target_seq: int = Field(ge=0, description="seq of the target state")


def wire_error(exc: WireFailure, hint: str) -> DebugError:
    try:
        code = ErrorCode(exc.code)
    except ValueError:
        code = ErrorCode.PROTOCOL_ERROR
    return DebugError(code, exc.message, hint=hint, **({"details": exc.details} if exc.details else {}))


RN = "rn"  # the MCP tool group: listed once an app connects (or with --tools rn)
NOT_CONNECTED_HINT = (
    "start the app with the pairdbg adapter (it connects to {url}); debug_health_check shows the listener"
)


def rn_service(hub: Hub) -> RnService:
    return hub.require_service(RnService, "React Native", "RN")


def no_app(svc: RnService) -> DebugError:
    return DebugError(
        ErrorCode.NOT_CONNECTED, "no React Native app is connected", hint=NOT_CONNECTED_HINT.format(url=svc.url)
    )


def app_gone(
    svc: RnService, last: dict[str, Any], key: str, parts: list[str | int], value: Any, found: bool
) -> DebugError:
    """The app is not connected (it went away, or is reconnecting): what the mirror holds is its last state, no
    answer about the app now. NOT_CONNECTED, as seed 003 says, with that last state kept under `stale` (the same
    fields a fresh answer has, plus when the app left) for a post-mortem."""
    session = svc.mirror.latest()
    closed = svc.server.last_close or {}  # (a dropped app may come back as the same session: not ended yet)
    ended = iso(closed.get("at") or (session.ended_at if session is not None else None))
    stale: dict[str, Any] = {**last, "sessionId": session.session_id if session else None, "leftAt": ended}
    if not found:
        stale["exists"] = False
    else:
        value = svc.redact_at(parts, value)
        if size(value) <= MAX_RESPONSE_BYTES:
            stale[key] = value
        else:  # too big to carry along: what it holds, so a narrower call knows where to look
            stale["bytes"], stale["sizes"] = size(value), key_sizes(value)
    since = f" (it disconnected at {ended})" if ended else ""
    return DebugError(
        ErrorCode.NOT_CONNECTED,
        f"the React Native app is not connected{since}; its last known state is under `stale`, not the app's now",
        hint=NOT_CONNECTED_HINT.format(url=svc.url) + "; debug_query_events still reads what it sent",
        stale=stale,
    )


def stream_of(svc: RnService, name: str) -> StreamMirror:
    session = svc.mirror.latest()
    if session is None:
        raise no_app(svc)
    s = session.streams.get(name)
    if s is None:
        have = ", ".join(session.streams) or "none"
        raise DebugError(
            ErrorCode.STREAM_UNAVAILABLE,
            f"the app has no {name!r} stream",
            hint=f"streams this app sends: {have} (debug_list_streams)",
        )
    return s


def state_stream(svc: RnService, name: str) -> StreamMirror:
    """The stream a read of the app's state now goes to: with no app connected that is NOT_CONNECTED first
    (seed 003), before whether the app that left had such a stream."""
    session = svc.mirror.latest()
    if not svc.server_connected() and (session is None or name not in session.streams):
        raise no_app(svc)
    return stream_of(svc, name)


# ----- debug_health_check --------------------------------------------------------------------------------------


async def health(hub: Hub, p: NoParams, actor: str) -> Reply:
    svc = rn_service(hub)
    data = svc.health()
    if data["connected"]:
        a = data["adapter"]
        app = data.get("app") or {}
        dev = data.get("device") or {}
        state = "responsive" if data["responsive"] else "NOT RESPONDING (JS thread stalled?)"
        lines = [
            f"connected: {app.get('name', '?')} {app.get('version', '')} on {dev.get('platform', '?')} "
            f"{dev.get('osVersion', '')}{' simulator' if dev.get('simulator') else ''} — {state}",
            f"session {a['sessionId']} · adapter {a['adapterVersion']} · up {a['uptime']}s · "
            f"connected at {a['connectedAt']}",
        ]
        for s in data["streams"]:
            lines.append(
                f"  {s['name']}: {s['eventCount']} events, last {s['lastEventAt'] or 'never'}"
                + (f", {s['gaps']} gaps" if s.get("gaps") else "")
            )
    else:
        lines = [
            f"not connected — listening on {data['listening']['url']}"
            if data["listening"]["up"]
            else f"not connected — listener down: {data['listening']['error']}"
        ]
        if data.get("lastSession"):
            ls = data["lastSession"]
            lines.append(f"last session {ls['sessionId']} ended {ls['endedAt']}; its events stay queryable")
        lines.append("Next: run the app with the pairdbg adapter (token from RN_DEBUG_TOKEN or the TUI)")
    return Reply("\n".join(lines), data)


# ----- debug_list_streams --------------------------------------------------------------------------------------


async def list_streams(hub: Hub, p: NoParams, actor: str) -> Reply:
    svc = rn_service(hub)
    if not svc.server_connected():
        raise DebugError(
            ErrorCode.NOT_CONNECTED,
            "no React Native app is connected",
            hint=NOT_CONNECTED_HINT.format(url=svc.url),
            streams=[],
        )
    streams = svc.stream_list()
    lines = [f"{len(streams)} streams"] + [
        f"  {s['name']}: seq {s['oldestSeq']}..{s['latestSeq']} ({s['eventCount']} events)"
        f"{', snapshot' if s['hasSnapshot'] else ''}{'' if s['active'] else ', inactive'}"
        for s in streams
    ]
    return Reply("\n".join(lines), {"streams": streams})


# ----- debug_get_snapshot --------------------------------------------------------------------------------------


async def get_snapshot(hub: Hub, p: SnapshotParams, actor: str) -> Reply:
    svc = rn_service(hub)
    try:
        scope = parse_path(p.scope) if p.scope else []
    except ValueError as exc:
        hint = "use dots and [n]: 'todos.items[0]'"
        raise DebugError(ErrorCode.INVALID_PARAMETERS, str(exc), hint=hint) from None
    s = state_stream(svc, p.stream)
    source, stale, reason = "mirror", True, None
    seq: int | None = None
    data: Any = None
    if svc.server_connected() and s.info:
        params: dict[str, Any] = {"stream": p.stream}
        if p.scope:
            params["scope"] = p.scope
        try:
            res = await svc.server.request("snapshot.get", params)
            if not isinstance(res, dict) or "data" not in res:
                raise WireFailure("BAD_REQUEST", "snapshot.get returned no data")
            seq, data, source, stale = res.get("seq"), res["data"], "app", False
            if not p.scope and isinstance(seq, int):
                s.add_snapshot(seq, data, size(data), time.time())
                svc.changed(p.stream)
        except WireFailure as exc:
            if exc.code in ("PATH_NOT_FOUND", "SCOPE_NOT_FOUND"):
                raise DebugError(
                    ErrorCode.SCOPE_NOT_FOUND,
                    f"scope {p.scope!r} is not in the {p.stream} state",
                    hint=f"call debug_get_snapshot(stream='{p.stream}') to see its top level",
                ) from None
            if exc.code == "STREAM_UNAVAILABLE" and not s.snapshot_seqs and s.cur_seq is None:
                raise wire_error(exc, "debug_list_streams shows what the app sends") from None
            reason = f"{exc.code}: {exc.message}"
    if source == "mirror":
        cur = s.current()
        if cur is not None and not svc.server_connected():
            found, value = lookup(cur[1], scope)
            last = {"stream": p.stream, "seq": cur[0], "scope": p.scope}
            raise app_gone(svc, last, "data", scope, value, found)
        if cur is None:
            if not svc.server_connected():
                raise no_app(svc)
            raise DebugError(
                ErrorCode.STREAM_UNAVAILABLE,
                f"no {p.stream} snapshot has arrived yet",
                hint="the adapter sends one after connecting; retry in a moment",
            )
        seq, data, exact = cur
        stale = not (svc.server_connected() and exact)
        if p.scope:
            found, data = lookup(data, scope)
            if not found:
                raise DebugError(
                    ErrorCode.SCOPE_NOT_FOUND,
                    f"scope {p.scope!r} is not in the {p.stream} state",
                    hint=f"top-level keys: {', '.join(list(key_sizes(cur[1]))[:15])}",
                )
    data = svc.redact_at(scope, data)
    n = size(data)
    if n > MAX_RESPONSE_BYTES:
        sizes = key_sizes(data)
        raise DebugError(
            ErrorCode.PAYLOAD_TOO_LARGE,
            f"the {p.stream} snapshot is {n} bytes (budget {MAX_RESPONSE_BYTES})",
            hint="pass a narrower scope; biggest parts: "
            + ", ".join(f"{k} ({v} B)" for k, v in list(sizes.items())[:8]),
            bytes=n,
            limit=MAX_RESPONSE_BYTES,
            sizes=sizes,
        )
    out = {
        "stream": p.stream,
        "seq": seq,
        "scope": p.scope,
        "source": source,
        "stale": stale,
        "bytes": n,
        "data": data,
    }
    if reason:
        out["reason"] = reason
    head = f"{p.stream}{'.' + p.scope if p.scope else ''} @ seq {seq} ({source}{', stale' if stale else ''})"
    return Reply(f"{head}\n{excerpt(data)}", out)


# ----- debug_query_events --------------------------------------------------------------------------------------


async def query_events(hub: Hub, p: QueryParams, actor: str) -> Reply:
    svc = rn_service(hub)
    s = stream_of(svc, p.stream)
    limit = max(1, min(200, p.limit))
    since = p.since_seq
    out: dict[str, Any] | None = None
    oldest = s.oldest_seq
    if (
        since is not None
        and since + 1 < oldest
        and svc.server_connected()
        and "events.query" in s.session.hello.get("capabilities", [])
    ):
        try:
            res = await svc.server.request(
                "events.query", {"stream": p.stream, "sinceSeq": since, "limit": limit, "type": p.event_type}
            )
            events = [e for e in res.get("events", []) if isinstance(e, dict)]
            out = {"events": events, "hasMore": bool(res.get("hasMore")), "source": "app"}
        except (WireFailure, AttributeError):
            out = None
    if out is None:
        events, more = s.query(since, limit, p.event_type)
        out = {"events": events, "hasMore": more, "source": "mirror"}
        if since is not None and since + 1 < oldest:
            out["evicted"] = oldest - since - 1
    # Stay within the response budget: stop early and let the cursor continue.
    total, kept = 0, []
    for ev in out["events"]:
        total += s.size_of(ev)
        if kept and total > MAX_RESPONSE_BYTES:
            out["hasMore"] = True
            break
        kept.append(ev)
    events = svc.redact_events(kept)
    latest = s.latest_seq
    next_since = events[-1]["seq"] if events and out["hasMore"] else max(latest, since or 0)
    data = {
        "events": events,
        "hasMore": out["hasMore"],
        "oldestSeq": oldest,
        "latestSeq": latest,
        "nextSinceSeq": next_since,
        "source": out["source"],
    }
    if "evicted" in out:
        data["evicted"] = out["evicted"]
    lines = [
        f"{len(events)} {p.stream} events"
        + (f" of type {p.event_type}" if p.event_type else "")
        + f" (buffer {oldest}..{latest}){'; more: since_seq=' + str(next_since) if out['hasMore'] else ''}"
    ]
    if data.get("evicted"):
        lines.append(f"{data['evicted']} older events were evicted from the buffer")
    for ev in events[:20]:
        lines.append(f"  #{ev['seq']} {ev.get('type')} {excerpt(_brief(ev), 160)}")
    if len(events) > 20:
        lines.append(f"  … {len(events) - 20} more in structured content")
    return Reply("\n".join(lines), data)


# ----- debug_get_state_path ------------------------------------------------------------------------------------


async def get_state_path(hub: Hub, p: PathParams, actor: str) -> Reply:
    svc = rn_service(hub)
    try:
        parts = parse_path(p.path)
    except ValueError as exc:
        raise DebugError(ErrorCode.INVALID_PARAMETERS, str(exc), hint="use dots and [n]: 'items[0].name'") from None
    s = state_stream(svc, "redux")
    miss = DebugError(
        ErrorCode.PATH_NOT_FOUND,
        f"{p.path!r} is not in the Redux state",
        hint="debug_get_snapshot(stream='redux', scope=<parent path>) shows what exists",
    )
    result: dict[str, Any] | None = None
    if svc.server_connected():
        try:
            res = await svc.server.request("state.getPath", {"stream": "redux", "path": p.path})
            if not isinstance(res, dict) or res.get("exists") is False:
                raise miss
            result = {"seq": res.get("seq"), "value": res.get("value"), "source": "app", "stale": False}
        except WireFailure as exc:
            if exc.code in ("PATH_NOT_FOUND", "SCOPE_NOT_FOUND"):
                raise miss from None
            if exc.code == "TIMEOUT":
                raise wire_error(
                    exc,
                    "the app is not answering (paused in a JS debugger or busy?); "
                    "debug_get_snapshot(stream='redux') serves the mirrored state",
                ) from None
            if exc.code not in ("NOT_CONNECTED", "UNKNOWN_METHOD"):
                raise wire_error(exc, "retry, or read the mirror with debug_get_snapshot") from None
    if result is None:
        cur = s.current()
        if cur is not None and not svc.server_connected():
            found, value = lookup(cur[1], parts)
            raise app_gone(svc, {"path": p.path, "seq": cur[0]}, "value", parts, value, found)
        if cur is None:
            if not svc.server_connected():
                raise no_app(svc)
            raise DebugError(ErrorCode.STREAM_UNAVAILABLE, "no Redux state has arrived yet", hint="retry in a moment")
        found, value = lookup(cur[1], parts)
        if not found:
            raise miss
        result = {
            "seq": cur[0],
            "value": value,
            "source": "mirror",
            "stale": not (svc.server_connected() and cur[2]),
        }
    value = svc.redact_at(parts, result["value"])
    if size(value) > MAX_RESPONSE_BYTES:
        raise DebugError(
            ErrorCode.PAYLOAD_TOO_LARGE,
            f"{p.path!r} is {size(value)} bytes",
            hint="ask for a deeper path; biggest parts: " + ", ".join(list(key_sizes(value))[:8]),
        )
    data = {"path": p.path, "exists": True, "value": value, **{k: result[k] for k in ("seq", "source", "stale")}}
    return Reply(
        f"{p.path} = {excerpt(value)}  (seq {result['seq']}, {result['source']}{', stale' if result['stale'] else ''})",
        data,
    )


# ----- debug_diff_snapshots ------------------------------------------------------------------------------------


async def diff_snapshots(hub: Hub, p: DiffParams, actor: str) -> Reply:
    svc = rn_service(hub)
    s = stream_of(svc, p.stream)
    try:
        d = s.diff(p.base_seq, p.target_seq, max_ops=200)
    except Unavailable as exc:
        ranges = ", ".join(f"{a}..{b}" if a != b else str(a) for a, b in exc.available) or "none"
        raise DebugError(
            ErrorCode.SNAPSHOT_NOT_FOUND,
            str(exc),
            hint=f"states available at seqs: {ranges}" + (" (older events were evicted)" if exc.evicted else ""),
            available=exc.available,
            evicted=exc.evicted,
        ) from None
    changes = []
    for op, parts, old, new in d.ops:
        kind = {"add": "added", "remove": "removed", "replace": "changed"}[op]
        c: dict[str, Any] = {"path": dotted(parts), "type": kind}
        if op != "add":
            c["oldValue"] = cap_value(svc.redact_at(parts, old))
        if op != "remove":
            c["newValue"] = cap_value(svc.redact_at(parts, new))
        changes.append(c)
    data = {
        "changes": changes,
        "baseSeq": p.base_seq,
        "targetSeq": p.target_seq,
        "totalChanges": d.total,
        "truncated": d.truncated,
    }
    lines = [
        f"{p.stream} seq {p.base_seq} → {p.target_seq}: {d.total} change(s)"
        + (f", first {len(changes)} shown" if d.truncated else "")
    ]
    for c in changes[:60]:
        sym = {"added": "+", "removed": "-", "changed": "~"}[c["type"]]
        detail = excerpt(c.get("newValue", c.get("oldValue")), 120)
        lines.append(f"  {sym} {c['path'] or '(root)'} {detail}")
    return Reply("\n".join(lines), data)


ACTIONS = [
    Action(
        "debug_health_check",
        "React Native app connection: connected/responsive, session, adapter, device, "
        "per-stream counts and gaps. Never fails for a missing app.",
        NoParams,
        health,
        "RN: health check",
        read_only=True,
        quiet=True,
        group=RN,
    ),
    Action(
        "debug_list_streams",
        "The React Native app's data streams with seq ranges and whether a snapshot exists.",
        NoParams,
        list_streams,
        "RN: list streams",
        read_only=True,
        quiet=True,
        group=RN,
    ),
    Action(
        "debug_get_snapshot",
        "Latest state of a stream (fresh from the app, else the mirror marked stale); "
        "scope narrows it ('auth.user', or an MMKV instance). NOT_CONNECTED once the app is gone "
        "(its last state under error data `stale`).",
        SnapshotParams,
        get_snapshot,
        "RN: get snapshot",
        read_only=True,
        group=RN,
    ),
    Action(
        "debug_query_events",
        "A stream's events in seq order, filtered by type; page with since_seq=nextSinceSeq while hasMore.",
        QueryParams,
        query_events,
        "RN: query events",
        read_only=True,
        group=RN,
    ),
    Action(
        "debug_get_state_path",
        "One value from the Redux state by path ('auth.user.role', 'items[0]').",
        PathParams,
        get_state_path,
        "RN: read state path",
        read_only=True,
        group=RN,
    ),
    Action(
        "debug_diff_snapshots",
        "What changed in a stream's state between two seqs (any seq the mirror "
        "holds): changes with path, type, old and new values.",
        DiffParams,
        diff_snapshots,
        "RN: diff states",
        read_only=True,
        group=RN,
    ),
]


def _brief(ev: dict[str, Any]) -> Any:
    data = ev.get("data")
    if isinstance(data, dict):
        return {k: v for k, v in data.items() if k not in ("patch",)}
    return data
