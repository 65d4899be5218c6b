"""The structural walk: what an agent receives is redacted by where each value sits, not by searching the whole text
for everything once hidden.

- `Redactor`: JSON-like app data (bridge and React Native state, console arguments): a secret-named key's value
  becomes {"$t": "redacted"}, a credential-shaped string too; other strings are free text.
- `AgentRedaction`: one debugger reply (text and data). A value under a secret name (a variable, a watch, an
  evaluated access path, a dict or Map key, an environment name) becomes a marker unless it is ordinary (empty,
  absent, a type, a path); previews (`{password: "…"}`, `Map(1) {"password" => "…"}`, `OrderedDict([('password',
  '…')])`) lose their secret-named entries; source lines lose only credential-shaped literals; paths, names, types
  and the expressions the agent sent are never changed. The reply's text is changed in the same places.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from .table import NAMES, credential_shaped, is_path, normalise, ordinary, secret_key, strong, unquoted
from .text import KnownSecrets, hide_values, marker, scrub_source, scrub_text, shapes

REDACTED: dict[str, str] = {"$t": "redacted"}


def trivial(v: Any) -> bool:
    """An app value a secret name leaves visible: absent, empty or a flag."""
    return (
        v is None
        or v == ""
        or isinstance(v, bool)
        or v == {}
        or v == []
        or (isinstance(v, dict) and v.get("$t") in ("undefined", "redacted"))
    )


class Redactor:
    """Redaction of JSON-like app data, with a count for health reports and a cache for stored events."""

    def __init__(self, extra_names: Iterable[str] = ()) -> None:
        self.names = NAMES | {normalise(n) for n in extra_names}
        self.count = 0  # values redacted so far (reported in health)
        self._keys: dict[str, bool] = {}  # key -> sensitive (app state reuses few distinct keys)
        self._events: OrderedDict[int, tuple[Any, Any]] = OrderedDict()  # id -> (stored event, redacted copy)

    def add_names(self, names: Iterable[str]) -> None:
        """Apps may add sensitive names (two-key rule: they can never remove the defaults)."""
        self.names = self.names | {normalise(n) for n in names if isinstance(n, str) and n}
        self._keys.clear()
        self._events.clear()

    def sensitive_key(self, key: str) -> bool:
        hit = self._keys.get(key)
        if hit is None:
            if len(self._keys) > 50_000:
                self._keys.clear()
            hit = self._keys[key] = secret_key(key, self.names)
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

    def hidden(self, key: Any, value: Any, parent: dict[str, Any]) -> bool:
        """Whether `parent[key]` is hidden whole; a service adds its own rules by overriding this."""
        if isinstance(value, str) and is_path(value):  # a path is shown under any name
            return False
        return isinstance(key, str) and self.sensitive_key(key) and not trivial(value)

    def _secret_pair(self, value: list[Any]) -> bool:
        if len(value) != 2 or not isinstance(value[0], str) or not self.sensitive_key(value[0]) or trivial(value[1]):
            return False
        second = value[1]
        return not (isinstance(second, str) and (is_path(second) or self.sensitive_key(second)))  # not two names

    def redact(self, value: Any) -> Any:
        """A redacted copy (the input is never modified); unchanged subtrees are shared, not copied."""
        if isinstance(value, dict):
            if value.get("$t") == "redacted":
                return value
            out: dict[str, Any] | None = None
            for k, v in value.items():
                if self.hidden(k, v, value):
                    nv: Any = REDACTED
                    self.count += 1
                else:
                    nv = self.redact(v)
                if nv is not v:
                    if out is None:
                        out = dict(value)
                    out[k] = nv
            return value if out is None else out
        if isinstance(value, list):
            if self._secret_pair(value):  # a Map serialized as entries: ["password", "…"]
                self.count += 1
                return [value[0], REDACTED]
            new = [self.redact(v) for v in value]
            return value if all(a is b for a, b in zip(new, value, strict=True)) else new
        if isinstance(value, str):
            if len(value) >= 16 and credential_shaped(value):
                self.count += 1
                return REDACTED
            cleaned = scrub_text(value)  # `password=…` or a key inside text under a harmless key
            if cleaned is not value:
                self.count += 1
                return cleaned
        return value


# ----- debugger replies ---------------------------------------------------------------------------------------------

# An access path (`password`, `'api_key'`, `os.environ['TOKEN']`, `config?.client_secret`, `env["DB_PASS"]`): the
# last name decides. Anything else (`len(token)`, `typeof token`, `token.length`) computes from a secret, not is one.
_ACCESS_PATH = re.compile(
    r"\s*(?:[\"'][^\"']*[\"']|[A-Za-z_$][\w$]*)(?:\s*\??\.\s*[A-Za-z_$][\w$]*|\s*\[\s*(?:'[^']*'|\"[^\"]*\"|\d+)\s*\])*"
    r"\s*"
)
_LAST_NAME = re.compile(r"([A-Za-z_$][\w$-]*)[\"']?\s*\]?\s*$")
_NOT_A_SECRET_MEMBER = frozenset({"length", "size", "count"})


@lru_cache(maxsize=8192)
def secret_name(name: str) -> bool:
    """A variable, key or expression naming a secret: `password`, `'api_key'` (a dict key), `os.environ['TOKEN']`,
    `config.client_secret` (the last name of an access path decides)."""
    if not _ACCESS_PATH.fullmatch(name):
        return False
    m = _LAST_NAME.search(name.strip())
    return bool(m) and m.group(1) not in _NOT_A_SECRET_MEMBER and secret_key(m.group(1))


# Fields that name or locate things (paths, functions, types, handles, the expressions evaluated): never changed.
KEPT_FIELDS = frozenset(
    {
        "handle",
        "name",
        "type",
        "expression",
        "file",
        "path",
        "program",
        "cwd",
        "function",
        "module",
        "session_id",
        "id",
        "category",
        "reason",
        "language",
        "backend",
        "kind",
        "set_by",
        "state",
        "phase",
        "raised_at",
    }
)
# Fields that hold code (a source line, a breakpoint's condition or log message): only a credential literal is
# replaced, so a person's `password == "…"` condition does not reach an agent, and no code is rewritten.
SOURCE_FIELDS = frozenset({"source", "condition", "hit_condition", "log_message"})
_VALUE_FIELDS = ("value", "result")
# A line of a source listing in a reply's text (render.py: `>   12| code`).
_LISTING = re.compile(r"^([> ]\s*\d+\| )(.*)$")


class AgentRedaction:
    """One pass over what an agent is about to receive. Handles are never touched; the handles of secret values are
    collected (`secret_refs`), and expanding one (`inside_secret`) hides every value in it, so `credentials = {...}`
    does not come out member by member. `values` collects the strong raw secrets hidden (the policy hides them in
    later free text of the same session)."""

    def __init__(self, inside_secret: bool = False, known: KnownSecrets | Iterable[str] = ()) -> None:
        self.inside_secret = inside_secret
        self.known = known if isinstance(known, KnownSecrets) else KnownSecrets(known)  # what the session hid
        self.rows: list[tuple[str, str, str]] = []  # (name as shown, displayed value, marker): where text changes
        self.changes: dict[str, str] = {}  # a line of a free text or source string in the data -> what it became
        self.secret_refs: set[str] = set()
        self.values: set[str] = set()

    # -- data --

    def data(self, value: Any, field: str | None = None) -> Any:
        if isinstance(value, dict):
            return self._object(value, field)
        if isinstance(value, list):
            if field in ("variables", "locals") and value:
                return self._rows(value)
            return [self.data(v, field) for v in value]
        if isinstance(value, str):
            if field in KEPT_FIELDS:
                return value
            if field in SOURCE_FIELDS:
                return self._changed(value, scrub_source(value, self.known))
            return self._changed(value, self.free(value))
        if isinstance(value, int | float) and not isinstance(value, bool) and field and secret_key(field):
            return marker(len(str(value)))
        return value

    def _rows(self, rows: list[Any]) -> list[Any]:
        """Variables of one container: a Map entry's `key` row names its `value` row, and the first item of a pair
        (`("password", "…")`) its second."""
        names = [r.get("name") if isinstance(r, dict) else None for r in rows]
        key_name, value_name = ("key", "value") if "key" in names else ("0", "1")  # a Map entry, or a 2-tuple
        pair = key_name == "key" or sum(isinstance(n, str) and n.isdigit() for n in names) == 2
        key_row = rows[names.index(key_name)] if key_name in names and pair else None
        value_row = rows[names.index(value_name)] if value_name in names else None
        pair_secret = (
            key_row is not None
            and secret_key(unquoted(str(key_row.get("value", ""))))
            and not (value_row is not None and secret_key(unquoted(str(value_row.get("value", "")))))  # two names
        )
        out = []
        for r in rows:
            if pair_secret and isinstance(r, dict) and r.get("name") == value_name:
                out.append(self._object(r, "variables", force=True))
            else:
                out.append(self.data(r, "variables"))
        return out

    def _object(self, value: dict[str, Any], field: str | None, force: bool = False) -> dict[str, Any]:
        if "line" in value and isinstance(value.get("text"), str) and "current" in value:  # a source listing row
            return {**value, "text": self._changed(value["text"], scrub_source(value["text"], self.known))}
        named = next((value[k] for k in ("name", "expression") if isinstance(value.get(k), str)), None)
        secret = named is not None and (force or self.inside_secret or secret_name(named))
        if secret and isinstance(value.get("handle"), str):
            self.secret_refs.add(value["handle"])
        out = {}
        for k, v in value.items():
            if secret and k in _VALUE_FIELDS and isinstance(v, str):
                out[k] = self._hide(named or "", v, value.get("type"))
            elif isinstance(v, str) and k not in KEPT_FIELDS and secret_key(k) and not ordinary(v):
                out[k] = self._hide(k, v, None)
            else:
                out[k] = self.data(v, k)
        return out

    def _hide(self, name: str, shown: str, type_name: Any) -> str:
        if ordinary(shown, type_name if isinstance(type_name, str) else None) or shown.startswith("<redacted"):
            return shown
        raw = unquoted(shown)
        hidden = marker(len(raw))
        self.rows.append((name, shown, hidden))
        if strong(raw):
            self.values.add(raw)
        return hidden

    def _changed(self, before: str, after: str) -> str:
        if after is not before:
            old, new = before.split("\n"), after.split("\n")
            if len(old) == len(new):
                self.changes.update((a.rstrip(), b.rstrip()) for a, b in zip(old, new, strict=True) if a != b)
            else:  # a cut PEM block spans lines: the whole text is one change
                self.changes[before] = after
        return after

    def hide_new(self, data: Any, text: str, secrets: list[str]) -> tuple[Any, str]:
        """`data` and `text` (already redacted) with `secrets`, first found in this reply, hidden wherever the rules
        hide a known secret: in free text, and in source lines inside string literals only."""
        lines = text.split("\n")
        for i, line in enumerate(lines):
            m = _LISTING.match(line)
            lines[i] = m.group(1) + scrub_source(m.group(2), secrets) if m else hide_values(line, secrets)
        return _hide_in(data, secrets, None), "\n".join(lines)

    def free(self, text: str) -> str:
        """Free text (output, messages, previews): credential shapes, secret-named entries, known secrets."""
        out = scrub_text(text, self.values)
        return self.known.hide(out) if self.known else out

    # -- text --

    def text(self, text: str, free: bool = False) -> str:
        """The reply's text, changed where its data changed: each hidden value on its own row (the line naming it),
        each changed string where it is shown; credential shapes and known secrets anywhere. `free`: a text without
        data (a resource), read as free text except its source listing lines."""
        if not text:
            return text
        lines = text.split("\n")
        if free:
            for i, line in enumerate(lines):
                m = _LISTING.match(line)
                lines[i] = m.group(1) + scrub_source(m.group(2), self.known) if m else self.free(line)
            return "\n".join(lines)
        for name, shown, hidden in self.rows:
            _replace_on_named_line(lines, name, shown, hidden)
        out = "\n".join(lines)
        for before in sorted(self.changes, key=len, reverse=True):
            if before and before in out:
                out = out.replace(before, self.changes[before])
        out = shapes(out)  # what the text says beyond its data: a credential shape is one anywhere
        return self.known.hide(out) if self.known else out


def _hide_in(value: Any, secrets: list[str], field: str | None) -> Any:
    if isinstance(value, str):
        if field in KEPT_FIELDS:
            return value
        return scrub_source(value, secrets) if field in SOURCE_FIELDS else hide_values(value, secrets)
    if isinstance(value, dict):
        if "line" in value and isinstance(value.get("text"), str) and "current" in value:  # a source listing row
            return {**value, "text": scrub_source(value["text"], secrets)}
        return {k: _hide_in(v, secrets, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_hide_in(v, secrets, field) for v in value]
    return value


def _replace_on_named_line(lines: list[str], name: str, shown: str, hidden: str) -> None:
    """Replace `shown` after `name` on every line naming it (a variable row, a watch, an evaluate line)."""
    if not name or not shown:
        return
    where = re.compile(r"(?<![\w$'\"])" + re.escape(name) + r"(?![\w$'\"])")
    for i, line in enumerate(lines):
        if shown not in line or _LISTING.match(line):
            continue
        m = where.search(line)
        if m is None:
            continue
        at = line.find(shown, m.end())
        while at >= 0 and len(shown) < 4 and not _in_value_column(line, at, len(shown)):
            at = line.find(shown, at + 1)  # a short value (`pin = 42`) only where a value stands, not in `app.py:42`
        if at >= 0:
            lines[i] = line[:at] + hidden + line[at + len(shown) :]


def _in_value_column(line: str, at: int, n: int) -> bool:
    """`shown` at `at` stands as a value: after two spaces or `= `, and before the end, two spaces or ` ·`."""
    before, after = line[max(0, at - 2) : at], line[at + n : at + n + 2]
    return before in ("  ", "= ") and after in ("", "  ", " ·", " *")


def for_agent(text: str, data: Any, known: Iterable[str] = ()) -> tuple[str, Any]:
    """A reply's text and data as an agent may see them."""
    one = AgentRedaction(known=known)
    redacted = one.data(data)
    return one.text(text, free=data is None), redacted
