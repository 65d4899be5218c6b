"""Redaction at the agent boundary, shared by the services: secret-looking keys and credential-shaped values become
{"$t":"redacted"}.

Rules (a blocklist, like Reactotron's MCP layer): a key whose normalised name (lower case, without `_`/`-`) is a
sensitive name or ends with one (`userPassword`, `x-api-key`, `refresh_token`); a string value shaped like a JWT,
a `Bearer`/`Basic` credential or a well-known API-key prefix. Trivial values ("" / null / booleans) under a
sensitive key are kept, so the agent can still see that a token is *absent*. Apps may add names, never remove them.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

REDACTED: dict[str, str] = {"$t": "redacted"}

SENSITIVE_NAMES = frozenset(
    {
        "password",
        "passwd",
        "pwd",
        "passphrase",
        "pin",
        "secret",
        "clientsecret",
        "token",
        "accesstoken",
        "refreshtoken",
        "idtoken",
        "authtoken",
        "sessiontoken",
        "csrftoken",
        "xsrftoken",
        "apikey",
        "xapikey",
        "apitoken",
        "privatekey",
        "secretkey",
        "authorization",
        "proxyauthorization",
        "cookie",
        "setcookie",
        "otp",
        "cvv",
        "cvc",
        "ssn",
        "creditcard",
        "cardnumber",
        "signature",
        "credentials",
        "mnemonic",
        "seedphrase",
    }
)
# Names whose suffix marks a secret: anything ending in these (after normalising) is redacted too.
SENSITIVE_SUFFIXES = ("password", "passwd", "secret", "token", "apikey", "privatekey", "authorization", "cookie")
# Keys that merely *mention* a secret word but hold no secret (counters, flags, expiry times).
_HARMLESS_SUFFIXES = ("count", "expiry", "expires", "expiresat", "expiresin", "type", "length", "set", "present")

_JWT = re.compile(r"^eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*$")
_BEARER = re.compile(r"^(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{8,}$", re.IGNORECASE)
_KEY_PREFIX = re.compile(
    r"^(sk|pk|rk)_(live|test)_[A-Za-z0-9]{8,}$|^(ghp|gho|ghu|ghs|github_pat)_[A-Za-z0-9_]{20,}$|^AKIA[0-9A-Z]{16}$"
    r"|^xox[abposr]-[A-Za-z0-9-]{10,}$|^AIza[0-9A-Za-z_-]{30,}$"
)
_URL_SECRET = re.compile(
    r"([?&](?:token|access_token|api_key|apikey|key|secret|password|sig|signature)=)[^&#\s]+", re.IGNORECASE
)


def _norm(key: str) -> str:
    return re.sub(r"[^a-z0-9]", "", key.lower())


class Redactor:
    def __init__(self, extra_names: Iterable[str] = ()) -> None:
        self.names = SENSITIVE_NAMES | {_norm(n) for n in extra_names}
        self.count = 0  # values redacted so far (reported in health)
        self._keys: dict[str, bool] = {}  # key -> sensitive (app state reuses few distinct keys)
        self._events: OrderedDict[int, tuple[Any, Any]] = OrderedDict()  # id -> (stored event, redacted copy)

    def add_names(self, names: Iterable[str]) -> None:
        """Apps may add sensitive names (two-key rule: they can never remove the defaults)."""
        self.names = self.names | {_norm(n) for n in names if isinstance(n, str) and n}
        self._keys.clear()
        self._events.clear()

    def sensitive_key(self, key: str) -> bool:
        hit = self._keys.get(key)
        if hit is None:
            if len(self._keys) > 50_000:
                self._keys.clear()
            hit = self._keys[key] = self._sensitive(key)
        return hit

    def redact_stored(self, value: Any) -> Any:
        """`redact` for values that never change once stored (mirrored events): computed once, then cached."""
        hit = self._events.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        out = self.redact(value)
        self._events[id(value)] = (value, out)  # holding `value` keeps its id from being reused
        if len(self._events) > 20_000:
            self._events.popitem(last=False)
        return out

    def _sensitive_patch_path(self, op: dict[str, Any]) -> bool:
        path = op.get("path")
        if not isinstance(op.get("op"), str) or not isinstance(path, str):
            return False
        return any(self.sensitive_key(part.replace("~1", "/").replace("~0", "~")) for part in path.split("/") if part)

    def _sensitive_action(self, action: dict[str, Any]) -> bool:
        kind = action.get("type")
        if not isinstance(kind, str):
            return False
        verb = kind.rsplit("/", 1)[-1]
        return self.sensitive_key(verb) or any(
            self.sensitive_key(verb[i:]) for i in range(1, len(verb)) if verb[i].isupper()
        )

    def _sensitive(self, key: str) -> bool:
        n = _norm(key)
        if not n:
            return False
        if n in self.names:
            return True
        if n.endswith(_HARMLESS_SUFFIXES):
            return False
        return n.endswith(SENSITIVE_SUFFIXES)

    @staticmethod
    def secret_value(value: str) -> bool:
        v = value.strip()
        return bool(_JWT.match(v) or _BEARER.match(v) or _KEY_PREFIX.match(v))

    def redact(self, value: Any) -> Any:
        """A redacted copy (the input is never modified); unchanged subtrees are shared, not copied."""
        if isinstance(value, dict):
            if value.get("$t") == "redacted":
                return value
            out: dict[str, Any] | None = None
            for k, v in value.items():
                if isinstance(k, str) and self.sensitive_key(k) and not _trivial(v):
                    nv: Any = REDACTED
                    self.count += 1
                elif k == "key" and isinstance(v, str) and "value" in value and self.sensitive_key(v):
                    nv = v  # an MMKV-style {key: "authToken", value: ...}: the value is handled below
                elif (
                    k == "value"
                    and isinstance(value.get("key"), str)
                    and self.sensitive_key(value["key"])
                    and not _trivial(v)
                ):
                    nv = REDACTED
                    self.count += 1
                elif k == "value" and self._sensitive_patch_path(value) and not _trivial(v):
                    nv = REDACTED  # an RFC 6902 op writing to /auth/token: the key is only in the path
                    self.count += 1
                elif k == "payload" and self._sensitive_action(value) and not _trivial(v):
                    nv = REDACTED  # {"type": "auth/setPassword", "payload": "hunter2"}: the name is in the type
                    self.count += 1
                else:
                    nv = self.redact(v)
                if nv is not v:
                    if out is None:
                        out = dict(value)
                    out[k] = nv
            return value if out is None else out
        if isinstance(value, list):
            new = [self.redact(v) for v in value]
            return value if all(a is b for a, b in zip(new, value, strict=True)) else new
        if isinstance(value, str):
            if len(value) >= 16 and self.secret_value(value):
                self.count += 1
                return REDACTED
            if "=" in value and ("?" in value or "&" in value):
                cleaned = _URL_SECRET.sub(r"\1[redacted]", value)
                if cleaned != value:
                    self.count += 1
                    return cleaned
        return value


def _trivial(v: Any) -> bool:
    return (
        v is None
        or v == ""
        or isinstance(v, bool)
        or v == {}
        or v == []
        or (isinstance(v, dict) and v.get("$t") in ("undefined", "redacted"))
    )
