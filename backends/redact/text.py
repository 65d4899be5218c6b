"""Secrets in text. Free text (output, error messages, value previews) loses every credential-shaped part and every
value written under a secret name (`password=…`, `"token": "…"`, `'password' => '…'`); a source line loses only a
credential-shaped literal, so the code shown is the code that runs."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from .table import PEM, SCHEME, SHAPE_IN_TEXT, SHAPE_PREFIXES, URL_PASSWORD, secret_key, strong, unquoted


def marker(chars: int) -> str:
    """What an agent sees instead of a secret: its length, never its text."""
    return f"<redacted: {chars} chars>"


_NOT_DONE = r"(?!<redacted)"
# A name in text; the callbacks ask the names table whether it holds a secret (cheaper than asking in the pattern).
_NAME = r"[A-Za-z_][A-Za-z0-9_-]*"
_WORDS = (
    r"(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|authorization"
    r"|cookie|credentials?)"
)
# URL query parameters whose short names hold credentials (`?key=…`, `&sig=…`); longer names are pairs below.
_URL_QUERY = re.compile(r"([?&](?:key|sig)=)" + _NOT_DONE + r"([^&#\s]+)", re.IGNORECASE)
_SCHEME = re.compile(r"\b(" + SCHEME + r")" + _NOT_DONE + r"([A-Za-z0-9._~+/=-]{8,})", re.IGNORECASE)
# What joins a name to its value: `=`, `:`, `:=`, `=>` (a JavaScript Map preview), and the comparisons `==`, `===`,
# `!=`, `!==` (`if password == "…"`).
_JOIN = r"(?:=>|:=|[!=]?==?|:)"
# A quoted value's content, to its closing quote (group 4), or to the end where a long value was cut (`…`).
_CONTENT = r"((?:\\.|(?!\4)[^\\\n])*)(?:\4|$)"
# `"token": "abc"`, `'password': 'abc'`, `"password" => "abc"` (JSON, Python reprs, Map previews),
# `password = "abc"`, `env['TOKEN'] = "abc"`.
_QUOTED = re.compile(
    r"((?<![\w$-])([\"']?)("
    + _NAME
    + r")\2\]?\s*"
    + _JOIN
    + r"\s*(?:[bBrRuU]{1,2}(?=[\"']))?)([\"'])"
    + _NOT_DONE
    + _CONTENT,
    re.IGNORECASE,
)
# A secret name whose value is a container in a preview (`'credentials': {'login': 'ada', 'code': 'x'}`).
_OPENS = re.compile(r"(?<![\w$-])([\"']?)(" + _NAME + r")\1\]?\s*" + _JOIN + r"\s*(?=[\[{(])")
_CLOSE = {"{": "}", "[": "]", "(": ")"}
# `('password', 'abc')`, `["password", "abc"]`: a pair in an OrderedDict's repr, a list of tuples, an array.
_TUPLE = re.compile(
    r"([(\[]\s*([\"'])(" + _NAME + r")\2\s*,\s*)([\"'])" + _NOT_DONE + _CONTENT,
    re.IGNORECASE,
)
_NOT_VALUES = (
    r"bearer|basic|token|str|string|int|bytes|number|bool|boolean|any|unknown|None|Optional|dict|list|null"
    r"|undefined|true|false|True|False|NaN|Object|Array|Map|Set|function|class"
)
# SQL and format placeholders (`password = ?`, `token = %s`, `pwd = $1`, `secret = :secret`) are not values either.
_PLACEHOLDER = r"\?|%[sdr]|\$\d+|:[A-Za-z_]\w*"
# `password=abc`, `token: abc`, `pin => 1234` (logs, URLs, unquoted previews), but not `token: str` (a type),
# `token = tokens[0]` or `credentials: {` (code: the value must end at a separator, not open a call or subscript).
_PLAIN = re.compile(
    r"((?<![\w$-])("
    + _NAME
    + r")(?:[\"']\])?\s*(?:=>|[:=])(?!=)\s*)"
    + _NOT_DONE
    + r"(?!(?:"
    + _NOT_VALUES
    + r")(?![\w$])|(?:"
    + _PLACEHOLDER
    + r")(?=[\s&,;\"'`}<>)\]]|$))([^\s&,;\"'`}<>)\]\[({]+)(?=[\s&,;\"'`}<>)\]]|$)",
    re.IGNORECASE,
)
# "the password is abc1", "token was x-y": the value must look like one (a digit or a symbol in it), so
# "password is not defined" keeps its words.
_PHRASE = re.compile(
    r"(\b" + _WORDS + r"\s+(?:is|was)\s+)" + _NOT_DONE + r"(?=[^\s\"'`<>,;]*[\d_@#$%^&*!+=/\\~-])([^\s\"'`<>,;]+)",
    re.IGNORECASE,
)
# Command lines: `--password pw` (a secret-named flag), mysql's `-ppw`, `curl -u user:pw`.
_FLAG = re.compile(r"((?:^|(?<=\s))--(" + _NAME + r")\s+)" + _NOT_DONE + r"(?!-)([^\s\"'`]+)", re.IGNORECASE)
_MYSQL = re.compile(r"(\bmysql\w*\b[^\n|;&]*?\s-p)" + _NOT_DONE + r"([^\s\"'`]+)")
_CURL_USER = re.compile(r"(\bcurl\b[^\n|;&]*?\s(?:-u|--user)\s*[\"']?[^\s:\"'`]+:)" + _NOT_DONE + r"([^\s\"'`]+)")
# A cheap first look (on the lower-cased text) before the patterns run: most output holds none of these. It holds
# a word of every name in the table (table.NAMES, SUFFIXES) and every shape's start.
_TEXT_HINT = re.compile(
    r"eyj|akia|asia|gh[oprsu]_|github_pat|xox|_live_|_test_|sk-|aiza|pass|pwd|secret|token|key|auth|cookie|credential"
    r"|bearer|basic|pin|otp|cvv|cvc|ssn|sig|mnemonic|seed|card|://|mysql|curl|private"
)
# A credential cut short (`{key: "AKIAIOSF…`) or in its middle (V8 previews: `"eyJhbGci…xiMV"`): what is shown goes.
_CUT_SHAPE = re.compile(
    r"\b(?:AKIA|ASIA|gh[oprsu]_|github_pat_|xox[abposr]-|[spr]k_(?:live|test)_|sk-|AIza|eyJ)[\w.~+/=-]*(?:…|\\u2026)[\w.~+/=-]*"
)
# What `_shapes` needs to find anything (a cheap look first, on the lower-cased text).
_SOURCE_HINT = re.compile(
    r"eyj|akia|asia|gh[oprsu]_|github_pat|xox|_live_|_test_|sk-|aiza|private|://|bearer|basic|token"
)
# A string literal in a source line.
_LITERAL = re.compile(r"([\"'`])((?:\\.|(?!\1)[^\\\n])*)\1")


def _hidden(found: set[str] | None, value: str) -> str:
    if found is not None and strong(value):
        found.add(value)
    return marker(len(value))


def _shapes(text: str, found: set[str] | None) -> str:
    def whole(m: re.Match[str]) -> str:
        return _hidden(found, m.group(0))

    def last(m: re.Match[str]) -> str:
        return m.group(1) + _hidden(found, m.group(m.lastindex or 2))

    out = PEM.sub(whole, text) if "PRIVATE KEY" in text else text
    if any(p in text for p in SHAPE_PREFIXES):
        out = SHAPE_IN_TEXT.sub(whole, out)
        if "…" in out or "\\u2026" in out:
            out = _CUT_SHAPE.sub(whole, out)
    if "://" in out:
        out = URL_PASSWORD.sub(last, out)
    low = out.lower()
    if "bearer" in low or "basic" in low or "token" in low:
        out = _SCHEME.sub(last, out)
    return out


def shapes(text: str) -> str:
    """Only the credential-shaped parts of a text replaced (a JWT is a secret wherever it appears)."""
    if not _SOURCE_HINT.search(text.lower()):
        return text
    out = _shapes(text, None)
    return text if out == text else out


def scrub_text(text: str, found: set[str] | None = None) -> str:
    """Free text with every credential-shaped part and every value written under a secret name replaced by its
    marker; the same object when nothing matched. The strong raw values replaced are added to `found`."""
    if not text or not _TEXT_HINT.search(text.lower()):
        return text

    def last(m: re.Match[str]) -> str:  # the prefix stays, the value (the last group) goes
        return m.group(1) + _hidden(found, m.group(m.lastindex or 2))

    def quoted_pair(m: re.Match[str]) -> str:
        if not secret_key(m.group(3)) or m.group(5) in ("", "…"):  # empty, or cut before any of it
            return m.group(0)
        if m.re is _TUPLE and secret_key(m.group(5)):  # ("token", "password"): two names, not a pair
            return m.group(0)
        closing = m.group(4) if len(m.group(0)) > len(m.group(1)) + 1 + len(m.group(5)) else ""  # none when cut
        return m.group(1) + m.group(4) + _hidden(found, m.group(5)) + closing

    def plain_pair(m: re.Match[str]) -> str:
        if secret_key(m.group(2)):
            return last(m)
        # not a secret's name: a pair may still be inside its value (`https://x.io/?token=abc`)
        value = m.group(m.lastindex or 2)
        inner = m.re.sub(plain_pair, value) if m.re is _PLAIN else value
        return m.group(0) if inner == value else m.group(0)[: -len(value)] + inner

    low = text.lower()
    # Each pattern runs only where the characters it needs are there (the cost is per value of every reply).
    out = _shapes(text, found) if _SOURCE_HINT.search(low) else text
    if "key=" in low or "sig=" in low:
        out = _URL_QUERY.sub(last, out)
    if "{" in text or "[" in text or "(" in text:
        out = _containers(out, found)
    if "'" in text or '"' in text:
        out = _QUOTED.sub(quoted_pair, out)
        if "(" in text or "[" in text:
            out = _TUPLE.sub(quoted_pair, out)
    if ":" in text or "=" in text:
        out = _PLAIN.sub(plain_pair, out)
    if " is " in low or " was " in low:
        out = _PHRASE.sub(last, out)
    if "--" in text:
        out = _FLAG.sub(plain_pair, out)
    if "mysql" in low:
        out = _MYSQL.sub(last, out)
    if "curl" in low:
        out = _CURL_USER.sub(last, out)
    return text if out == text else out


def _containers(text: str, found: set[str] | None) -> str:
    """Each container written under a secret name in a preview hidden whole: its brackets stay, what is between
    them goes (to the end of the text where a long value was cut)."""
    out, done = [], 0
    for m in _OPENS.finditer(text):
        if m.start() < done or not secret_key(m.group(2)):
            continue
        start = m.end()
        end = _closing(text, start)
        inner = text[start + 1 : end]
        if inner.strip() in ("", "…", "...") or inner.startswith("<redacted"):  # empty, or a preview's `{…}`
            continue
        closing = text[end : end + 1]
        out += [text[done : start + 1], _hidden(found, inner), closing]
        done = end + len(closing)
    return text if not out else "".join(out) + text[done:]


def _closing(text: str, start: int) -> int:
    """Where the bracket at `start` closes (quotes skipped), or the end of a cut text."""
    stack, quote, i = [_CLOSE[text[start]]], "", start + 1
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
        elif c in _CLOSE:
            stack.append(_CLOSE[c])
        elif c == stack[-1]:
            stack.pop()
            if not stack:
                return i
        i += 1
    return len(text)


def scrub_source(line: str, known: KnownSecrets | Iterable[str] = ()) -> str:
    """A source line as an agent may see it: only a string literal that is a credential (by its shape, a strong
    value under a secret name, or a secret this session already hid) is replaced; the code around it never is."""
    has_hint = bool(_SOURCE_HINT.search(line.lower()))
    if not isinstance(known, KnownSecrets):
        known = KnownSecrets(known)
    if not has_hint and not known and not _TEXT_HINT.search(line.lower()):
        return line

    def literal(m: re.Match[str]) -> str:
        content = m.group(2)
        if not content:
            return m.group(0)
        if known.found_in(content) or (strong(content) and _named_literal(line, m.start())):
            return m.group(1) + marker(len(content)) + m.group(1)
        return m.group(0)

    out = _shapes(line, None) if has_hint else line
    out = _LITERAL.sub(literal, out)
    return line if out == line else out


_NAME_BEFORE = re.compile(r"([A-Za-z_$][\w$-]*)[\"'`]?\]?\s*" + _JOIN + r"\s*$")


def _named_literal(line: str, at: int) -> bool:
    """The literal at `at` is written under a secret name (`password = "…"`, `{"token": "…"}`)."""
    m = _NAME_BEFORE.search(line[max(0, at - 100) : at])  # the name and its `=` stand just before
    return bool(m) and secret_key(m.group(1))


class KnownSecrets:
    """Strong secret values a session already hid, to hide again in free text. Past a few dozen, a text is looked
    up by its 4-character pieces at every 4th position: a value of 7 or more characters found in it starts one of
    them at its offset 0, 1, 2 or 3, so each value is indexed by those four pieces, only the values a text's pieces
    name are searched, and the cost does not grow with their number."""

    PIECE = 4
    LOOP_UP_TO = 64  # below this, `in` per value is cheaper than slicing the text

    def __init__(self, values: Iterable[str] = ()) -> None:
        self.values = tuple(sorted(set(values), key=len, reverse=True))
        self.set = frozenset(self.values)
        n = self.PIECE
        self._short = tuple(v for v in self.values if len(v) < 2 * n - 1)
        by_piece: dict[str, list[str]] = {}
        for v in self.values:
            if len(v) >= 2 * n - 1:
                for piece in {v[k : k + n] for k in range(n)}:
                    by_piece.setdefault(piece, []).append(v)
        self._by_piece = {piece: tuple(vs) for piece, vs in by_piece.items()}  # tuples: a session holds up to 1000

    def __bool__(self) -> bool:
        return bool(self.values)

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def _candidates(self, text: str) -> Iterable[str]:
        if len(self.values) <= self.LOOP_UP_TO:
            return self.values
        n = self.PIECE
        hits = {text[i : i + n] for i in range(0, len(text) - n + 1, n)} & self._by_piece.keys()
        if not hits:
            return self._short
        found = set(self._short).union(*(self._by_piece[h] for h in hits))
        return sorted(found, key=len, reverse=True)

    def found_in(self, text: str) -> bool:
        return any(v in text for v in self._candidates(text))

    def hide(self, text: str) -> str:
        for v in self._candidates(text):
            if v in text:
                text = text.replace(v, marker(len(v)))
        return text


def hide_values(value: Any, secrets: Iterable[str]) -> Any:
    """`value` (a text, or data whose strings are searched; handles are left alone) with every occurrence of the
    given raw secret values replaced by their markers (pass them longest first)."""
    secrets = tuple(secrets)
    if not secrets:
        return value
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


__all__ = ["KnownSecrets", "hide_values", "marker", "scrub_source", "scrub_text", "shapes", "unquoted"]
