"""Secrets in text. Free text (output, error messages, value previews) loses every credential-shaped part and every
value written under a secret name (`password=…`, `"token": "…"`, `'password' => '…'`); a source line loses only a
credential-shaped literal, so the code shown is the code that runs."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .table import NAME_IN_TEXT, PEM, SCHEME, SHAPE_IN_TEXT, URL_PASSWORD, secret_key, strong, unquoted


def marker(chars: int) -> str:
    """What an agent sees instead of a secret: its length, never its text."""
    return f"<redacted: {chars} chars>"


_NOT_DONE = r"(?!<redacted)"
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
    r"(([\"']?)(" + NAME_IN_TEXT + r")\2\]?\s*" + _JOIN + r"\s*)([\"'])" + _NOT_DONE + _CONTENT,
    re.IGNORECASE,
)
# `('password', 'abc')`, `["password", "abc"]`: a pair in an OrderedDict's repr, a list of tuples, an array.
_TUPLE = re.compile(
    r"([(\[]\s*([\"'])(" + NAME_IN_TEXT + r")\2\s*,\s*)([\"'])" + _NOT_DONE + _CONTENT,
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
    r"(\b("
    + NAME_IN_TEXT
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
_FLAG = re.compile(r"((?:^|(?<=\s))--(" + NAME_IN_TEXT + r")\s+)" + _NOT_DONE + r"(?!-)([^\s\"'`]+)", re.IGNORECASE)
_MYSQL = re.compile(r"(\bmysql\w*\b[^\n|;&]*?\s-p)" + _NOT_DONE + r"([^\s\"'`]+)")
_CURL_USER = re.compile(r"(\bcurl\b[^\n|;&]*?\s(?:-u|--user)\s*[\"']?[^\s:\"'`]+:)" + _NOT_DONE + r"([^\s\"'`]+)")
# A cheap first look (on the lower-cased text) before the patterns run: most output holds none of these.
_TEXT_HINT = re.compile(
    r"eyj|akia|asia|gh[oprsu]_|github_pat|xox|_live_|_test_|sk-|aiza|pass|pwd|secret|token|key|auth|cookie|credential"
    r"|bearer|basic|pin|otp|cvv|cvc|ssn|sig|mnemonic|seed|://|mysql|curl|private"
)
# A credential cut short (`{key: "AKIAIOSF…`) or in its middle (V8 previews: `"eyJhbGci…xiMV"`): what is shown goes.
_CUT_SHAPE = re.compile(
    r"\b(?:AKIA|ASIA|gh[oprsu]_|github_pat_|xox[abposr]-|[spr]k_(?:live|test)_|sk-|AIza|eyJ)[\w.~+/=-]*(?:…|\\u2026)[\w.~+/=-]*"
)
_SOURCE_HINT = re.compile(r"eyj|akia|asia|gh[oprsu]_|github_pat|xox|_live_|_test_|sk-|aiza|private|://|bearer|basic")
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

    out = PEM.sub(whole, text)
    out = SHAPE_IN_TEXT.sub(whole, out)
    out = _CUT_SHAPE.sub(whole, out)
    out = URL_PASSWORD.sub(last, out)
    return _SCHEME.sub(last, out)


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
        return last(m) if secret_key(m.group(2)) else m.group(0)

    out = _shapes(text, found)
    out = _URL_QUERY.sub(last, out)
    out = _QUOTED.sub(quoted_pair, out)
    out = _TUPLE.sub(quoted_pair, out)
    out = _PLAIN.sub(plain_pair, out)
    out = _PHRASE.sub(last, out)
    out = _FLAG.sub(plain_pair, out)
    out = _MYSQL.sub(last, out)
    out = _CURL_USER.sub(last, out)
    return text if out == text else out


def scrub_source(line: str, known: Iterable[str] = ()) -> str:
    """A source line as an agent may see it: only a string literal that is a credential (by its shape, a strong
    value under a secret name, or a secret this session already hid) is replaced; the code around it never is."""
    has_hint = bool(_SOURCE_HINT.search(line.lower()))
    known = tuple(known)
    if not has_hint and not known and not _TEXT_HINT.search(line.lower()):
        return line

    def literal(m: re.Match[str]) -> str:
        content = m.group(2)
        if not content:
            return m.group(0)
        if any(k in content for k in known) or (strong(content) and _named_literal(line, m.start())):
            return m.group(1) + marker(len(content)) + m.group(1)
        return m.group(0)

    out = _shapes(line, None) if has_hint else line
    out = _LITERAL.sub(literal, out)
    return line if out == line else out


_NAME_BEFORE = re.compile(r"([A-Za-z_$][\w$-]*)[\"'`]?\]?\s*" + _JOIN + r"\s*$")


def _named_literal(line: str, at: int) -> bool:
    """The literal at `at` is written under a secret name (`password = "…"`, `{"token": "…"}`)."""
    m = _NAME_BEFORE.search(line[:at])
    return bool(m) and secret_key(m.group(1))


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


__all__ = ["hide_values", "marker", "scrub_source", "scrub_text", "shapes", "unquoted"]
