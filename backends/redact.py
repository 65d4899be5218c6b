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
SENSITIVE_SUFFIXES = (
    "password",
    "passwd",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "privatekey",
    "authorization",
    "cookie",
)
# `user_pass`, `DB_PASS`, `userPass`, `db_pwd`: a short password word as the last part of a name (not `bypass`).
_PASS_PART = re.compile(r"(?i:(?:^|[_.-])(?:pass|pwd))$|[a-z](?:Pass|Pwd|PASS|PWD)$")
# Keys that merely *mention* a secret word but hold no secret (counters, flags, expiry times).
_HARMLESS_SUFFIXES = ("count", "expiry", "expires", "expiresat", "expiresin", "type", "length", "set", "present")

_JWT = re.compile(r"^eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*$")
_BEARER = re.compile(r"^(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{8,}$", re.IGNORECASE)
_KEY_PREFIX = re.compile(
    r"^(sk|pk|rk)_(live|test)_[A-Za-z0-9]{8,}$|^(ghp|gho|ghu|ghs|github_pat)_[A-Za-z0-9_]{20,}$|^AKIA[0-9A-Z]{16}$"
    r"|^xox[abposr]-[A-Za-z0-9-]{10,}$|^AIza[0-9A-Za-z_-]{30,}$"
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
        return n.endswith(SENSITIVE_SUFFIXES) or bool(_PASS_PART.search(key.strip()))

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
            cleaned = scrub_text(value)  # `password=…` or a key inside text under a harmless key
            if cleaned is not value:
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


# ----- what an agent receives: replies, errors, resources (`Registry.run`, the MCP resources) ------------------------


def marker(chars: int) -> str:
    """What an agent sees instead of a secret: its length, never its text."""
    return f"<redacted: {chars} chars>"


_WORDS = (
    r"(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|authorization"
    r"|cookie|credentials?)"
)
# A name that may be secret (`_quoted_pair`/`_plain_pair` then ask the Redactor): it holds a secret-ish word.
_KEY = (
    r"(?=[A-Za-z0-9_-]*?(?:pass|pwd|secret|token|key|auth|cookie|credential|pin|otp|cvv|cvc|ssn|signature"
    r"|mnemonic|seed))[A-Za-z_][A-Za-z0-9_-]*"
)
_NOT_DONE = r"(?!<redacted)"
_POLICY = Redactor()  # the default names, for text and the values agents receive
# Credential shapes anywhere in text: JWTs, AWS key ids, GitHub/Slack/Stripe/OpenAI/Google keys.
_SHAPE = re.compile(
    r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"
    r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"
    r"|\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"
    r"|\bxox[abposr]-[A-Za-z0-9-]{10,}"
    r"|\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{8,}"
    r"|\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}"
    r"|\bAIza[0-9A-Za-z_-]{30,}"
)
# A PEM private key block; the password in a URL (`postgres://admin:hunter2@db/app`).
_PEM = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)")
_URL_PASSWORD = re.compile(r"(://[^/\s:@]+:)" + r"(?!<redacted)" + r"([^/\s@]+)(?=@)")
# URL query parameters whose short names hold credentials (`?key=…`, `&sig=…`); longer names go through `_PLAIN`.
_URL_QUERY = re.compile(r"([?&](?:key|sig)=)" + r"(?!<redacted)" + r"([^&#\s]+)", re.IGNORECASE)
# `Bearer abc…` / `Basic abc…` / `Token abc1…` (a token scheme's credential holds a digit, unlike "token expired"):
# the scheme stays, the credential goes.
_SCHEME = re.compile(
    r"\b((?:bearer|basic)\s+|token\s+(?=[A-Za-z._~+/=-]*\d))" + _NOT_DONE + r"([A-Za-z0-9._~+/=-]{8,})",
    re.IGNORECASE,
)
# What joins a name to its value: `=`, `:`, `:=`, and the comparisons `==`, `===`, `!=`, `!==` (`if password == "…"`).
_JOIN = r"(?::=|[!=]?==?|:)"
# `"token": "abc"`, `'password': 'abc'` (JSON, Python reprs), `password = "abc"` (source), `env['TOKEN'] = "abc"`.
_QUOTED = re.compile(
    r"(([\"']?)(" + _KEY + r")\2\]?\s*" + _JOIN + r"\s*)([\"'])" + _NOT_DONE + r"((?:\\.|(?!\4)[^\\\n])*)\4",
    re.IGNORECASE,
)
_TYPES = r"str|string|int|bytes|number|bool|boolean|any|unknown|None|Optional|dict|list"
# `password=abc`, `token: abc` (logs, URLs), but not `token: str` (a type annotation): the value runs to a separator.
_PLAIN = re.compile(
    r"(\b("
    + _KEY
    + r")(?:[\"']\])?\s*[:=](?!=)\s*)"
    + _NOT_DONE
    + r"(?!(?:bearer|basic|token|"
    + _TYPES
    + r")\b)([^\s&,;\"'`}<>)\]]+)",
    re.IGNORECASE,
)
# "the password is abc1", "token was x-y": the value must look like one (a digit or a symbol in it), so
# "password is not defined" keeps its words.
_PHRASE = re.compile(
    r"(\b" + _WORDS + r"\s+(?:is|was)\s+)" + _NOT_DONE + r"(?=[^\s\"'`<>,;]*[\d_@#$%^&*!+=/\\~-])([^\s\"'`<>,;]+)",
    re.IGNORECASE,
)
# Command lines: `--password pw` (a secret-named flag, `_flag` asks the Redactor), mysql's `-ppw`, `curl -u user:pw`.
_FLAG = re.compile(r"((?:^|(?<=\s))--(" + _KEY + r")\s+)" + _NOT_DONE + r"(?!-)([^\s\"'`]+)", re.IGNORECASE)
_MYSQL = re.compile(r"(\bmysql\w*\b[^\n|;&]*?\s-p)" + _NOT_DONE + r"([^\s\"'`]+)")
_CURL_USER = re.compile(r"(\bcurl\b[^\n|;&]*?\s(?:-u|--user)\s*[\"']?[^\s:\"'`]+:)" + _NOT_DONE + r"([^\s\"'`]+)")
# A cheap first look (on the lower-cased text) before the patterns above run: most output holds none of these.
_TEXT_HINT = re.compile(
    r"eyj|akia|asia|gh[oprsu]_|github_pat|xox|_live_|_test_|sk-|aiza|pass|pwd|secret|token|key|auth|cookie|credential"
    r"|bearer|basic|pin|otp|cvv|cvc|ssn|sig|mnemonic|seed|://|mysql|curl"
)


MIN_REMEMBERED = 4  # shorter secrets are not replaced wherever they appear later (`42` is in too many texts)


def _hidden(found: set[str] | None, value: str) -> str:
    if found is not None and len(value) >= MIN_REMEMBERED:
        found.add(value)
    return marker(len(value))


def scrub_text(text: str, found: set[str] | None = None) -> str:
    """`text` with every credential-shaped part replaced by its marker; the same object when nothing matched. The
    raw values replaced are added to `found` when given."""
    if not text or not _TEXT_HINT.search(text.lower()):
        return text

    def whole(m: re.Match[str]) -> str:
        return _hidden(found, m.group(0))

    def last(m: re.Match[str]) -> str:  # the prefix stays, the value (the last group) goes
        return m.group(1) + _hidden(found, m.group(m.lastindex or 2))

    def quoted_pair(m: re.Match[str]) -> str:
        if not _POLICY.sensitive_key(m.group(3)):
            return m.group(0)
        return m.group(1) + m.group(4) + _hidden(found, m.group(5)) + m.group(4)

    def plain_pair(m: re.Match[str]) -> str:
        return last(m) if _POLICY.sensitive_key(m.group(2)) else m.group(0)

    out = _PEM.sub(whole, text)
    out = _SHAPE.sub(whole, out)
    for pattern in (_URL_PASSWORD, _URL_QUERY, _SCHEME):
        out = pattern.sub(last, out)
    out = _QUOTED.sub(quoted_pair, out)
    out = _PLAIN.sub(plain_pair, out)
    out = _PHRASE.sub(last, out)
    out = _FLAG.sub(plain_pair, out)
    out = _MYSQL.sub(last, out)
    out = _CURL_USER.sub(last, out)
    return text if out == text else out


_TRAILING_NAME = re.compile(r"([A-Za-z_$][\w$-]*)\s*[\"']?\s*\]?\s*$")


def secret_name(name: str) -> bool:
    """A variable, key or expression naming a secret: `password`, `'api_key'` (a dict key), `os.environ['TOKEN']`,
    `config.client_secret` (the last name in the expression decides)."""
    m = _TRAILING_NAME.search(name.strip())
    return bool(m) and _POLICY.sensitive_key(m.group(1))


def displayed_chars(value: str) -> int:
    """Characters of the secret a displayed value shows: a quoted string's content, else the whole text."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"`":
        return len(value) - 2
    return len(value)


def _trivial_text(value: str) -> bool:
    return value.strip() in ("", "''", '""', "None", "null", "undefined", "True", "False", "true", "false")


class AgentRedaction:
    """One pass over what an agent is about to receive. Values shown under a secret name (a variable, a watch, an
    evaluated expression, a map key) become markers, and so does every credential-shaped string; the exact texts
    replaced in the data are replaced in the reply's text too, so both say the same. Handles are never touched, but
    the handles of secret values are collected (`secret_refs`): expanding one (`inside_secret`) hides every value in
    it, so `credentials = {...}` or a token object does not come out member by member."""

    NAME_FIELDS = ("name", "expression")

    def __init__(self, inside_secret: bool = False) -> None:
        self.inside_secret = inside_secret
        self.replaced: dict[str, str] = {}  # displayed text -> its marker
        self.secret_refs: set[str] = set()
        self.values: set[str] = set()  # the raw secret values replaced (the policy hides them in later texts too)

    def data(self, value: Any) -> Any:
        if isinstance(value, dict):
            out = {}
            named = next((value[k] for k in self.NAME_FIELDS if isinstance(value.get(k), str)), None)
            secret = named is not None and (self.inside_secret or secret_name(named))
            if secret and isinstance(value.get("handle"), str):
                self.secret_refs.add(value["handle"])
            for k, v in value.items():
                if isinstance(v, str) and (
                    (secret and k in ("value", "result")) or (isinstance(k, str) and _POLICY.sensitive_key(k))
                ):
                    out[k] = self._whole(v)
                elif isinstance(v, int | float) and not isinstance(v, bool) and isinstance(k, str):
                    out[k] = marker(len(str(v))) if _POLICY.sensitive_key(k) else v
                else:
                    out[k] = self.data(v)
            return out
        if isinstance(value, list):
            return [self.data(v) for v in value]
        if isinstance(value, str):
            return scrub_text(value, self.values)
        return value

    def _whole(self, value: str) -> str:
        if _trivial_text(value) or value.startswith("<redacted"):
            return value
        hidden = marker(displayed_chars(value))
        self.replaced[value] = hidden
        raw = value[1:-1] if displayed_chars(value) != len(value) else value
        if len(raw) >= MIN_REMEMBERED:
            self.values.add(raw)
        return hidden

    def text(self, text: str) -> str:
        text = scrub_text(text, self.values)
        for shown in sorted(self.replaced, key=len, reverse=True):
            # a short value (`pin = 42`) only where a value column ends a line, not every `42` in the text
            where = (
                r"(?<![\w'\"])" + re.escape(shown) + r"(?![\w'\"])"
                if len(shown) >= 4
                else (r"(?<=  )" + re.escape(shown) + r"$")
            )
            text = re.sub(where, self.replaced[shown], text, flags=re.MULTILINE)
        return text


def hide_values(value: Any, secrets: Iterable[str]) -> Any:
    """`value` (a text, or data whose strings are searched; handles are left alone) with every occurrence of the
    given raw secret values replaced by their markers, longest first."""
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, marker(len(secret)))
        return value
    if isinstance(value, dict):
        return {k: v if k == "handle" else hide_values(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [hide_values(v, secrets) for v in value]
    return value


def for_agent(text: str, data: Any) -> tuple[str, Any]:
    """A reply's text and data as an agent may see them."""
    pass_ = AgentRedaction()
    redacted = pass_.data(data)
    return pass_.text(text), redacted
