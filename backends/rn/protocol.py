"""Pydantic models of wire protocol v1 (PROTOCOL.md): one model per message type, a discriminated union on `t`.

`parse_message` turns a frame into a model or raises `ProtocolViolation` with the protocol code the server
answers with (malformed JSON vs a known message that fails validation vs an unknown type, which is ignored).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..lazymodel import LazyModel

PROTOCOL_MIN = 1
PROTOCOL_MAX = 1

# Close codes (PROTOCOL.md §10).
CLOSE_UNAUTHORIZED = 4001
CLOSE_UNSUPPORTED_VERSION = 4002
CLOSE_HANDSHAKE = 4003
CLOSE_REPLACED = 4004
CLOSE_TOO_LARGE = 4005
CLOSE_MALFORMED = 4006
CLOSE_GOING_AWAY = 1001


class _Msg(LazyModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    v: Literal[1] = 1


class _Open(LazyModel):
    model_config = ConfigDict(extra="allow")


class ProtocolRange(LazyModel):
    min: int = Field(ge=1)
    max: int = Field(ge=1)


class AdapterInfo(_Open):
    name: str
    version: str


class StreamInfo(_Open):
    name: str = Field(min_length=1, max_length=64)
    lastSeq: int = Field(0, ge=0)
    oldestSeq: int = Field(0, ge=0)
    snapshot: bool = True
    kinds: list[str] = Field(default_factory=list)
    instances: list[str] = Field(default_factory=list)


class Hello(_Msg):
    t: Literal["hello"]
    protocol: ProtocolRange
    token: str = ""
    sessionId: str = Field(min_length=1, max_length=200)
    installId: str | None = None
    adapter: AdapterInfo
    app: dict[str, Any] = Field(default_factory=dict)
    device: dict[str, Any] = Field(default_factory=dict)
    streams: list[StreamInfo] = Field(default_factory=list)
    capabilities: list[str] = Field(default_factory=list)
    limits: dict[str, Any] = Field(default_factory=dict)
    clock: dict[str, Any] = Field(default_factory=dict)
    startedAt: float | None = None


class Welcome(_Msg):
    t: Literal["welcome"] = "welcome"
    protocol: int
    server: dict[str, Any]
    sessionId: str
    resume: dict[str, int]
    heartbeat: dict[str, int]
    limits: dict[str, int]
    serverTime: int


class ErrorMsg(_Msg):
    t: Literal["error"] = "error"
    code: str
    message: str
    server: dict[str, Any] | None = None


class Event(_Open):
    stream: str = Field(min_length=1, max_length=64)
    seq: int = Field(ge=1)
    g: int | None = None
    ts: float | None = None
    type: str = Field(min_length=1, max_length=200)
    data: Any = None


class Events(_Msg):
    t: Literal["events"]
    items: list[Event]
    replay: bool = False


class Snapshot(_Msg):
    t: Literal["snapshot"]
    stream: str = Field(min_length=1, max_length=64)
    seq: int = Field(ge=0)
    ts: float | None = None
    bytes: int | None = None
    data: Any = None


class Gap(_Msg):
    t: Literal["gap"]
    stream: str = Field(min_length=1, max_length=64)
    from_: int = Field(alias="from", ge=1)
    to: int = Field(ge=1)
    reason: str = "evicted"


class Req(_Msg):
    t: Literal["req"] = "req"
    id: str
    method: str
    params: dict[str, Any] = Field(default_factory=dict)
    timeoutMs: int | None = None


class WireError(_Open):
    code: str
    message: str = ""
    details: dict[str, Any] | None = None


class Res(_Msg):
    t: Literal["res"]
    id: str
    ok: bool
    result: Any = None
    error: WireError | None = None


class Ping(_Msg):
    t: Literal["ping"] = "ping"
    ts: int


class Pong(_Msg):
    t: Literal["pong"]
    ts: float | None = None
    now: float | None = None
    stats: dict[str, Any] = Field(default_factory=dict)


class Bye(_Msg):
    t: Literal["bye"]
    reason: str = ""


Incoming = Annotated[Hello | Events | Snapshot | Gap | Res | Pong | Bye, Field(discriminator="t")]
_INCOMING: TypeAdapter[Any] = TypeAdapter(Incoming, config=ConfigDict(defer_build=True))
KNOWN_TYPES = frozenset({"hello", "events", "snapshot", "gap", "res", "pong", "bye"})


class ProtocolViolation(Exception):
    """A frame the server cannot use. `kind` is 'malformed' (not JSON / not an object), 'invalid' (a known type
    that fails validation) or 'unknown' (an unknown `t`, to be ignored)."""

    def __init__(self, kind: str, message: str, t: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.t = t


Message = Hello | Events | Snapshot | Gap | Res | Pong | Bye


def parse_raw(frame: str | bytes) -> dict[str, Any]:
    """The frame as a JSON object, or ProtocolViolation('malformed')."""
    try:
        raw = json.loads(frame)
    except ValueError as exc:
        raise ProtocolViolation("malformed", f"not JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise ProtocolViolation("malformed", "a message must be a JSON object")
    return raw


def parse_message(frame: str | bytes | dict[str, Any]) -> Message:
    """A validated message (frames may be text or bytes holding UTF-8 JSON)."""
    raw = frame if isinstance(frame, dict) else parse_raw(frame)
    t = raw.get("t")
    if not isinstance(t, str) or t not in KNOWN_TYPES:
        raise ProtocolViolation("unknown", f"unknown message type {t!r}", t if isinstance(t, str) else None)
    try:
        return _INCOMING.validate_python(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'][1:]) or t}: {err['msg']}" for err in exc.errors()[:5]
        )
        raise ProtocolViolation("invalid", f"{t}: {problems}", t) from None


def dump(msg: BaseModel) -> str:
    return msg.model_dump_json(by_alias=True, exclude_none=True)
