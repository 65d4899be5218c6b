"""The one pattern table: which names hold secrets, which shapes are credentials, and which values are ordinary
(never hidden, never remembered). Everything else in this package derives from it."""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache

# ----- names --------------------------------------------------------------------------------------------------------

# Normalised (lower case, letters and digits only) names that hold a secret.
NAMES = frozenset(
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
# A name ending in one of these (normalised) holds a secret too: `userPassword`, `x-api-key`, `AWS_SECRET_ACCESS_KEY`.
SUFFIXES = (
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
PASS_PART = re.compile(r"(?i:(?:^|[_.-])(?:pass|pwd))$|[a-z](?:Pass|Pwd|PASS|PWD)$")
# Names that mention a secret word but hold none (counters, flags, expiry times, kinds).
HARMLESS_SUFFIXES = ("count", "expiry", "expires", "expiresat", "expiresin", "type", "length", "set", "present")


def normalise(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


@lru_cache(maxsize=8192)
def secret_key(name: str, names: frozenset[str] = NAMES) -> bool:
    """A key, property or variable name that holds a secret (`names`: the defaults plus what an app added)."""
    n = normalise(name)
    if not n:
        return False
    if n in names:
        return True
    if n.endswith(HARMLESS_SUFFIXES):
        return False
    return n.endswith(SUFFIXES) or bool(PASS_PART.search(name.strip()))


# ----- credential shapes --------------------------------------------------------------------------------------------

# Each shape once; the whole-value matcher and the in-text pattern are both built from this table.
SHAPES: dict[str, str] = {
    "jwt": r"eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",
    "aws access key id": r"(?:AKIA|ASIA)[0-9A-Z]{16}",
    "github token": r"(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}",
    "slack token": r"xox[abposr]-[A-Za-z0-9-]{10,}",
    "stripe key": r"(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{8,}",
    "openai/anthropic key": r"sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}",
    "google api key": r"AIza[0-9A-Za-z_-]{30,}",
}
SHAPE_IN_TEXT = re.compile("|".join(rf"\b(?:{p})" for p in SHAPES.values()))
# Literal text every shape above starts with: a text holding none of these holds no shape (a cheap look first).
SHAPE_PREFIXES = ("eyJ", "AKIA", "ASIA", "gh", "github_pat_", "xox", "k_live_", "k_test_", "sk-", "AIza")
# A PEM private key block (to its end, or to the end of a cut text).
PEM = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)")
# An HTTP credential: the scheme stays, the credential goes (`Token x` needs a digit, unlike "token expired").
SCHEME = r"(?:bearer|basic)\s+|token\s+(?=[A-Za-z._~+/=-]*\d)"
CREDENTIAL = r"[A-Za-z0-9._~+/=-]{8,}"
_WHOLE_SHAPE = re.compile(rf"(?:{'|'.join(SHAPES.values())})|(?i:{SCHEME}){CREDENTIAL}|{PEM.pattern}")
# A URL's password (`postgres://admin:hunter2@db/app`).
URL_PASSWORD = re.compile(r"(://[^/\s:@]+:)(?!<redacted)([^/\s@]+)(?=@)")


def credential_shaped(value: str) -> bool:
    """The whole value is a credential by its shape alone."""
    v = value.strip()
    return bool(_WHOLE_SHAPE.fullmatch(v)) or bool(URL_PASSWORD.search(v) and "://" in v and " " not in v)


# ----- ordinary values: never hidden by a name, never remembered ----------------------------------------------------

# Absent or empty: the agent may see that a token is missing.
_TRIVIAL = frozenset(
    {"", "''", '""', "``", "None", "null", "undefined", "NaN", "nil", "True", "False", "true", "false"}
    | {"{}", "[]", "()", "set()", "dict()", "Map(0) {}", "Set(0) {}", "b''", "{…}", "[…]", "{...}", "[...]"}
)
# A type or a function rather than a value: `Object`, `Array(3)`, `function Object() { [native code] }`,
# `<function f at 0x…>`, `class Foo`, `ƒ getToken()`.
_TYPE_WORDS = (
    r"Object|Array|Map|Set|WeakMap|WeakSet|Promise|Function|Date|RegExp|Error|Symbol|Proxy|ArrayBuffer"
    r"|(?:Ui|I|Float|BigInt|BigUint)(?:nt)?\d*(?:Clamped)?Array|global|Window|Module|dict|list|tuple|set|str"
    r"|int|float|bytes|NoneType|type|object|OrderedDict|defaultdict|string|number|boolean|bigint|symbol|function"
)
TYPE_DESCRIPTION = re.compile(
    rf"(?:{_TYPE_WORDS})(?:\(\d+\))?"
    r"|(?:async\s+)?(?:function\*?|class|ƒ)\b[^\n]*"
    r"|<(?:function|class|module|built-in|bound method|method|generator|coroutine|async_generator|property"
    r"|frame|code|cell)\b[^\n]*>"
)
# A file system path of two parts or more (no spaces, no URL, no query): the working directory, a key file's name.
# (`/srv` alone, or `/Tr0ub4dor`, is not taken for a path.)
PATH = re.compile(r"(?:~|\.{1,2})?/[\w.@+-]+(?:/[\w.@+-]*)+|[A-Za-z]:\\[\w.@+ -]+(?:\\[\w.@+ -]*)+")


def is_path(value: str) -> bool:
    return bool(PATH.fullmatch(value.strip()))


def unquoted(value: str) -> str:
    """A displayed string's content: `'abc'` -> `abc` (a value that is not a quoted string unchanged)."""
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"`":
        return v[1:-1]
    return v


@lru_cache(maxsize=8192)
def ordinary(value: str, type_name: str | None = None) -> bool:
    """A value no name makes secret: empty or absent, a type or function description, or a path."""
    v = value.strip()
    if v in _TRIVIAL or (type_name and v == type_name):
        return True
    if TYPE_DESCRIPTION.fullmatch(v):
        return True
    inner = unquoted(v)
    return inner in _TRIVIAL or bool(PATH.fullmatch(inner))


# ----- strength: which hidden values are worth hiding again wherever they appear ------------------------------------

MIN_STRONG = 8  # shorter values are in too many texts (`42`, `SELECT`, `null`)


def _classes(value: str) -> int:
    return (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
        + any(not c.isalnum() for c in value)
    )


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in Counter(value).values()) if n else 0.0


@lru_cache(maxsize=8192)
def strong(value: str) -> bool:
    """A raw secret worth scrubbing from free text wherever it appears: credential-shaped, or at least MIN_STRONG
    characters of high entropy (mixed character classes, no spaces), never a path, a word or a type name."""
    v = value.strip()
    if credential_shaped(v):
        return True
    if len(v) < MIN_STRONG or any(c.isspace() for c in v) or ordinary(v) or v.startswith("<redacted"):
        return False
    return _classes(v) >= 2 and entropy(v) >= 2.75
