"""The redaction corpus: planted secrets in every shape and container, and ordinary values that look close, for a
Python and a JavaScript program, the debug-bridge and React Native rigs (tests/mcp/test_secrets_corpus.py).

`Corpus.secrets` are the raw secret values; `Corpus.ordinary` the values that must stay visible. `audit` compares
what a person and an agent received: a leak is a secret (or the start of one, where a long value was cut) in the
agent's view; a false positive is an ordinary value the agent does not see, or a marker in the agent's view where
the person's view holds no secret."""

from __future__ import annotations

import json
import random
import re
import string
from dataclasses import dataclass, field
from typing import Any

ALNUM = string.ascii_letters + string.digits
MARKER = re.compile(r"<redacted: \d+ chars>")
HANDLE = re.compile(r"@v\d+ *")


class Planter:
    """Secret values of every credential shape, each unique, from a fixed seed."""

    def __init__(self, seed: int = 20) -> None:
        self.rng = random.Random(seed)
        self.made: list[str] = []

    def _pick(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def _keep(self, value: str) -> str:
        self.made.append(value)
        return value

    def password(self) -> str:  # every character class, 12 to 16 characters
        body = self._pick(ALNUM + "#!%-_@", self.rng.randint(8, 12))
        return self._keep("Pw" + self._pick(string.digits, 2) + body + self._pick("#!%@", 1) + "z")

    def aws(self) -> str:
        return self._keep("AKIA" + self._pick(string.ascii_uppercase + string.digits, 16))

    def github(self) -> str:
        return self._keep("ghp_" + self._pick(ALNUM, 36))

    def slack(self) -> str:
        return self._keep("xoxb-" + self._pick(string.digits, 12) + "-" + self._pick(ALNUM, 24))

    def stripe(self) -> str:
        return self._keep("sk_live_" + self._pick(ALNUM, 24))

    def openai(self) -> str:
        return self._keep("sk-proj-" + self._pick(ALNUM, 40))

    def google(self) -> str:
        return self._keep("AIza" + self._pick(ALNUM + "_-", 35))

    def jwt(self) -> str:
        part = ALNUM + "_-"
        return self._keep("eyJhbGciOiJIUzI1NiJ9.eyJ" + self._pick(part, 30) + "." + self._pick(part, 43))

    def hex_token(self) -> str:
        return self._keep(self._pick("0123456789abcdef", 40))

    def pin(self) -> str:
        return self._keep(str(self.rng.randint(100000, 999999)))

    def any(self, n: int) -> str:
        kinds = (self.password, self.aws, self.github, self.slack, self.stripe, self.openai, self.google, self.jwt)
        return kinds[n % len(kinds)]()

    def shaped(self, n: int) -> str:
        """A credential recognised by its shape alone (no name needed)."""
        kinds = (self.aws, self.github, self.slack, self.stripe, self.openai, self.google, self.jwt)
        return kinds[n % len(kinds)]()


SECRET_NAMES = (
    "password",
    "passwd",
    "passphrase",
    "api_key",
    "apiKey",
    "auth_token",
    "access_token",
    "refresh_token",
    "id_token",
    "client_secret",
    "db_pass",
    "user_pwd",
    "secret_key",
    "session_token",
    "csrf_token",
    "AWS_SECRET_ACCESS_KEY",
    "x_api_key",
    "authorization",
    "cookie",
    "private_key",
)
# Names that mention a secret word and hold none.
LOOKALIKE_NAMES = (
    "token_count",
    "tokens",
    "token_type",
    "token_expires_in",
    "password_length",
    "passwords_count",
    "keyboard",
    "monkey",
    "compass",
    "bypass",
    "passage",
    "author",
    "authority",
    "primary_key",
    "key_name",
    "secret_name",
    "token_url",
    "spin",
    "pinned",
    "api_key_header",
)
SQL = (
    "SELECT",
    "FROM",
    "WHERE",
    "INSERT",
    "UPDATE",
    "DELETE",
    "JOIN",
    "GROUP",
    "ORDER",
    "LIMIT",
    "VALUES",
    "INTO",
    "TABLE",
    "INDEX",
    "UNION",
    "HAVING",
    "DISTINCT",
    "CREATE",
    "ALTER",
    "DROP",
)
WORDS = ("ok", "yes", "no", "ada", "bob", "red", "dark", "north", "token", "key", "secret", "pass", "auth", "pin")


@dataclass
class Corpus:
    secrets: list[str]
    ordinary: list[str]
    values: dict[str, object]  # slot -> what the program holds (the programs read it from a JSON file)
    literals: dict[str, str]  # variable -> a secret written as a literal in the program's source


def build() -> Corpus:
    """The shared values: both programs hold the same secrets and ordinary values in the same slots."""
    p = Planter()
    rng = random.Random(7)
    v: dict[str, object] = {}
    # Secret-named variables, one of each name, each a different shape (a few numeric pins too).
    v["named"] = {name: p.any(i) for i, name in enumerate(SECRET_NAMES)}
    v["pins"] = {"pin": p.pin(), "otp": p.pin(), "cvv": p.pin()}
    # Harmless names holding credential shapes.
    v["shaped"] = {f"note{i}": p.shaped(i) for i in range(14)}
    v["bearer"] = p.jwt()
    v["url_password"] = p.password()
    # Containers: a dict (nested), an ordered dict, a list of dicts, object attributes, a Map, a Set, env.
    v["config"] = {
        "user": "ada",
        "password": p.password(),
        "nested": {"token": p.github(), "deeper": {"client_secret": p.any(3)}},
    }
    v["ordered"] = {"password": p.password(), "api_key": p.stripe(), "region": "eu-west-1"}
    v["users"] = [{"name": f"user{i}", "password": p.password()} for i in range(12)]
    v["account"] = {"user": "ada", "token": p.hex_token(), "api_secret": p.password()}
    v["map"] = {"password": p.password(), "apiKey": p.openai(), "region": "us-east-1"}
    v["set"] = [p.aws() for _ in range(6)]
    v["env"] = {"GITHUB_TOKEN": p.github(), "DB_PASSWORD": p.password(), "STRIPE_SECRET_KEY": p.stripe()}
    v["pairs"] = [["password", p.password()], ["user", "ada"]]
    # A secret-named container whose own keys say nothing: everything in it is hidden.
    v["session_info"] = {"user": "ada", "credentials": {"login": p.password(), "backup": p.github()}}
    # Free text: printed lines, and error messages quoting a secret.
    # (Every slot is itself secret-named or the value credential-shaped: the programs hold these dicts too.)
    v["printed"] = {
        "kv_password": p.password(),
        "bearer": p.jwt(),
        "phrase_password": p.password(),
        "json_api_key": p.password(),
        "dsn_password": p.password(),
        "aws": p.aws(),
        "flag_password": p.password(),
    }
    v["bad_password"] = p.password()  # int(...) / JSON.parse(...) of it raises an error quoting it
    v["many_tokens"] = {f"svc{i}": p.shaped(i + 3) for i in range(80)}
    v["many_passwords"] = [{"login": f"u{i}", "password": p.password()} for i in range(45)]
    # Literals written in the program's source (its listing may show the code around them, never them).
    literals = {
        "aws_default": p.aws(),
        "stripe_fallback": p.stripe(),
        "literal_password": p.password(),
        "auth_header": p.jwt(),
        "gh_literal": p.github(),
        "slack_hook": p.slack(),
    }
    # Ordinary values.
    shas = ["".join(rng.choice("0123456789abcdef") for _ in range(40)) for _ in range(45)]
    uuids = [
        "-".join("".join(rng.choice("0123456789abcdef") for _ in range(n)) for n in (8, 4, 4, 4, 12)) for _ in range(50)
    ]
    emails = [f"{name}@example.com" for name in ("ada", "bob", "token.admin", "secret.santa", "pass.desk")]
    versions = [f"{a}.{b}.{c}" for a, b, c in ((1, 2, 3), (2, 0, 0), (0, 9, 12), (3, 11, 7), (10, 1, 0))]
    hosts = ["db.internal", "localhost:8080", "127.0.0.1:5432", "cache.local:6379", "api.example.com"]
    urls = [
        f"https://example.com/{p}?page={n}" for n, p in enumerate(("tokens", "keys", "auth/login", "password-reset"))
    ]
    paths = [
        f"/home/ada/{d}/{f}"
        for d in ("tokens", "secrets", "keys", "auth", "pass")
        for f in ("password_reset.py", "token_store.js", "id_rsa.pub", "api_key_rotation.md", "README.md", "session.db")
    ]
    lookalike = {
        "token_count": 3,
        "tokens": list(SQL[:4]),
        "token_type": "Bearer",
        "token_expires_in": 3600,
        "password_length": 12,
        "passwords_count": 7,
        "keyboard": "qwerty",
        "monkey": "banana",
        "compass": "north",
        "bypass": "manual",
        "passage": "chapter-two",
        "author": "ada lovelace",
        "authority": "https://login.example.com/tenant",
        "primary_key": "order_id",
        "key_name": "signing-key-2026",
        "secret_name": "db-password",
        "token_url": "https://auth.example.com/oauth/token",
        "spin": 5,
        "pinned": "main",
        "api_key_header": "X-Api-Key",
    }
    v["lookalike"] = lookalike
    v["shas"] = shas
    v["uuids"] = uuids
    v["paths"] = paths
    v["sql"] = list(SQL)
    v["words"] = list(WORDS)
    v["private_key_file"] = "/home/ada/.ssh/id_ed25519"  # a secret name holding a path: shown
    v["emails"] = emails
    v["versions"] = versions
    v["hosts"] = hosts
    v["urls"] = urls
    v["queries"] = ["UPDATE users SET password = ? WHERE id = ?", "SELECT token FROM sessions WHERE user = %s"]
    ordinary = (
        [str(x) for x in lookalike.values() if not isinstance(x, list)]
        + list(SQL)
        + shas
        + uuids
        + paths
        + [w for w in WORDS]
        + emails
        + urls
        + versions
        + hosts
        + [v["private_key_file"]]  # type: ignore[list-item]
        + list(v["queries"])  # type: ignore[arg-type]
        + ["eu-west-1", "us-east-1", "ada"]
    )
    return Corpus(
        secrets=list(dict.fromkeys(p.made)), ordinary=list(dict.fromkeys(ordinary)), values=v, literals=literals
    )


# ----- comparing what a person and an agent received ----------------------------------------------------------------


@dataclass
class Audit:
    leaks: list[tuple[str, str]] = field(default_factory=list)  # (surface, secret)
    false_positives: list[tuple[str, str]] = field(default_factory=list)  # (surface, what was hidden or missing)
    markers: int = 0


def _cut_prefixes(secret: str) -> list[str]:
    # Where a long value was cut the start of a secret may be shown alone: 10 characters of it count as a leak.
    return [secret[:10]] if len(secret) >= 14 else []


def audit_surface(audit: Audit, surface: str, person: str, agent: str, secrets: list[str]) -> None:
    """Add what one surface leaked and hid for nothing."""
    person, agent = HANDLE.sub("@v ", person), HANDLE.sub("@v ", agent)
    for s in secrets:
        if s in agent or any(cut + "…" in agent for cut in _cut_prefixes(s)):
            audit.leaks.append((surface, s))
    p_lines, a_lines = person.split("\n"), agent.split("\n")
    if len(p_lines) != len(a_lines):
        p_lines, a_lines = [person], [agent]
    for p_line, a_line in zip(p_lines, a_lines, strict=True):
        if "<redacted" not in a_line:
            if p_line != a_line:
                audit.false_positives.append(
                    (surface, f"changed without a marker: {p_line[:200]!r} -> {a_line[:200]!r}")
                )
            continue
        parts = MARKER.split(a_line)
        audit.markers += len(parts) - 1
        m = re.fullmatch("(.*?)".join(re.escape(x) for x in parts), p_line, re.S)
        if m is None:
            audit.false_positives.append((surface, f"agent line does not match the person's: {p_line!r} -> {a_line!r}"))
            continue
        for hidden in m.groups():
            if not any(_covers(hidden, s) for s in secrets):
                audit.false_positives.append((surface, f"hid {hidden[:120]!r}"))


def _covers(hidden: str, secret: str) -> bool:
    """A marker stood for this secret: all of it, part of it, or its start where a long value was cut."""
    hidden = hidden.replace("\\\\u2026", "…").replace("\\u2026", "…")  # as JSON or a JavaScript preview writes it
    if "…" in hidden:  # cut in its middle (V8 previews) or at its end: each piece shown must be of the secret
        head, *rest = hidden.split("…")
        return _covers(head, secret) and all(part.rstrip("\"'") in secret for part in rest)
    if secret in hidden or (hidden and hidden in secret):
        return True
    at = hidden.find(secret[:4]) if len(hidden) >= 4 else 0
    return at >= 0 and bool(hidden[at:]) and secret.startswith(hidden[at:])


def audit_ordinary(audit: Audit, person_all: str, agent_all: str, ordinary: list[str], where: str) -> list[str]:
    """Ordinary values the person saw that the agent does not; returns those the person never saw (rig gaps)."""
    unseen = []
    for o in ordinary:
        shown = [json.dumps(o)[1:-1], o]
        if not any(s in person_all for s in shown):
            unseen.append(o)
        elif not any(s in agent_all for s in shown):
            audit.false_positives.append((where, f"ordinary value hidden: {o!r}"))
    return unseen


# ----- the programs -------------------------------------------------------------------------------------------------


def python_program(c: Corpus) -> str:
    """A Python program holding every value of the corpus (read from the JSON file named by its first argument)."""
    named = "\n".join(f"    {n} = V['named']['{n}']" for n in SECRET_NAMES)
    look = "\n".join(f"    {n} = V['lookalike']['{n}']" for n in LOOKALIKE_NAMES)
    shaped = "\n".join(f"    {n} = V['shaped']['{n}']" for n in c.values["shaped"])  # type: ignore[union-attr]
    lit = c.literals
    return f'''"""The redaction corpus in Python (generated by tests/support/secret_corpus.py)."""
import json
import os
import sys
from collections import OrderedDict


class Account:
    def __init__(self, user, token, api_secret):
        self.user = user
        self.token = token
        self.api_secret = api_secret


def main():
    with open(sys.argv[1]) as fh:
        V = json.load(fh)
{named}
    pin = int(V["pins"]["pin"])
    otp = V["pins"]["otp"]
    cvv = int(V["pins"]["cvv"])
{shaped}
    header = "Bearer " + V["bearer"]
    dsn = "postgres://app:" + V["url_password"] + "@db.internal:5432/shop"
    config = V["config"]
    ordered = OrderedDict(V["ordered"])
    users = V["users"]
    account = Account(**V["account"])
    secret_set = set(V["set"])
    credential_map = dict(V["map"])
    os.environ.clear()
    os.environ.update(V["env"])
    os.environ.update({{"HOME": "/home/ada", "PWD": "/srv/app", "LANG": "C.UTF-8"}})
    environ = os.environ
    pairs = [tuple(x) for x in V["pairs"]]
    session_info = V["session_info"]
    many_tokens = V["many_tokens"]
    many_passwords = V["many_passwords"]
    bad_password = V["bad_password"]
    aws_default = "{lit["aws_default"]}"
    stripe_fallback = "{lit["stripe_fallback"]}"
    literal_password = "{lit["literal_password"]}"
    headers = {{"Authorization": "Bearer {lit["auth_header"]}"}}
    gh_literal = "{lit["gh_literal"]}"
    hooks = {{"slack": "{lit["slack_hook"]}"}}
    pwd = os.getcwd()
{look}
    shas, uuids, paths, sql = V["shas"], V["uuids"], V["paths"], V["sql"]
    words, emails, urls, versions, hosts = V["words"], V["emails"], V["urls"], V["versions"], V["hosts"]
    ssh_private_key = V["private_key_file"]
    queries = V["queries"]
    none_token = None
    empty_password = ""
    kind = dict
    printed = V["printed"]
    print("login with password=" + printed["kv_password"], flush=True)
    print("Authorization: Bearer " + printed["bearer"], flush=True)
    print("the password is " + printed["phrase_password"], flush=True)
    print(json.dumps({{"user": "ada", "apiKey": printed["json_api_key"]}}), flush=True)
    print("connecting to postgres://app:" + printed["dsn_password"] + "@db.internal/shop", flush=True)
    print("using key " + printed["aws"] + " for uploads", flush=True)
    print("run: app --password " + printed["flag_password"] + " --verbose", flush=True)
    print("working in", pwd, "with", token_count, "tokens:", " ".join(tokens), shas[0], uuids[0], flush=True)
    print("ready", flush=True)  # stop here


if __name__ == "__main__":
    main()
'''


def javascript_program(c: Corpus) -> str:
    """The same values in a Node program (the JSON file is its first argument): a Map, a Set, process.env too."""
    named = "\n".join(f"  const {n} = V.named[{json.dumps(n)}];" for n in SECRET_NAMES)
    look = "\n".join(f"  const {n} = V.lookalike[{json.dumps(n)}];" for n in LOOKALIKE_NAMES)
    shaped = "\n".join(f"  const {n} = V.shaped[{json.dumps(n)}];" for n in c.values["shaped"])  # type: ignore[union-attr]
    lit = c.literals
    return f'''// The redaction corpus in JavaScript (generated by tests/support/secret_corpus.py).
const fs = require("fs");

class Account {{
  constructor(user, token, apiSecret) {{
    this.user = user;
    this.token = token;
    this.api_secret = apiSecret;
  }}
}}

function main() {{
  const V = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
{named}
  const pin = Number(V.pins.pin);
  const otp = V.pins.otp;
  const cvv = Number(V.pins.cvv);
{shaped}
  const header = "Bearer " + V.bearer;
  const dsn = "postgres://app:" + V.url_password + "@db.internal:5432/shop";
  const config = V.config;
  const ordered = new Map(Object.entries(V.ordered));
  const users = V.users;
  const account = new Account(V.account.user, V.account.token, V.account.api_secret);
  const secretSet = new Set(V.set);
  const credentialMap = new Map(Object.entries(V.map));
  for (const k of Object.keys(process.env)) delete process.env[k];
  Object.assign(process.env, V.env, {{ HOME: "/home/ada", PWD: "/srv/app", LANG: "C.UTF-8" }});
  const env = process.env;
  const pairs = V.pairs;
  const session_info = V.session_info;
  const many_tokens = V.many_tokens;
  const many_passwords = V.many_passwords;
  const bad_password = V.bad_password;
  const aws_default = "{lit["aws_default"]}";
  const stripe_fallback = "{lit["stripe_fallback"]}";
  const literal_password = "{lit["literal_password"]}";
  const headers = {{ Authorization: "Bearer {lit["auth_header"]}" }};
  const gh_literal = "{lit["gh_literal"]}";
  const hooks = {{ slack: "{lit["slack_hook"]}" }};
  const pwd = process.cwd();
{look}
  const [shas, uuids, paths, sql] = [V.shas, V.uuids, V.paths, V.sql];
  const [words, emails, urls, versions, hosts] = [V.words, V.emails, V.urls, V.versions, V.hosts];
  const ssh_private_key = V.private_key_file;
  const queries = V.queries;
  const authToken = null;
  const sessionSecret = undefined;
  const apiKeyClass = Object;
  const empty_password = "";
  const printed = V.printed;
  console.log("login with password=" + printed.kv_password);
  console.log("Authorization: Bearer " + printed.bearer);
  console.log("the password is " + printed.phrase_password);
  console.log(JSON.stringify({{ user: "ada", apiKey: printed.json_api_key }}));
  console.log("connecting to postgres://app:" + printed.dsn_password + "@db.internal/shop");
  console.log("using key " + printed.aws + " for uploads");
  console.log("run: app --password " + printed.flag_password + " --verbose");
  console.log("working in", pwd, "with", token_count, "tokens:", tokens.join(" "), shas[0], uuids[0]);
  console.log("ready"); // stop here
}}

main();
'''


# Expressions an agent evaluates: access paths to secrets, computations on them, ordinary values, one that fails
# quoting a secret.
PY_EXPRESSIONS = (
    "password",
    "config['password']",
    "config['nested']['token']",
    "os.environ['GITHUB_TOKEN']",
    "account.token",
    "ordered",
    "len(password)",
    "type(password).__name__",
    "tokens",
    "pwd",
    "token_count",
    "shas[0]",
    "sql",
    "int(bad_password)",
)
JS_EXPRESSIONS = (
    "password",
    "config.password",
    "config.nested.token",
    "process.env.GITHUB_TOKEN",
    "account.token",
    "credentialMap",
    "ordered",
    "password.length",
    "typeof authToken",
    "typeof apiKeyClass",
    "tokens",
    "pwd",
    "token_count",
    "shas[0]",
    "sql",
    "JSON.parse(bad_password)",
)


# ----- the services: app state and console lines (debug-bridge, React Native) --------------------------------------


def app_state(c: Corpus) -> dict[str, Any]:
    """The corpus as an app's state: every secret under a secret-named key, in a credential shape, in free text or as
    the second item of a serialized Map entry; every ordinary value beside them."""
    v = c.values
    return {
        "login": {"named": v["named"], "pins": v["pins"], "bad_password": v["bad_password"]},
        "shaped": v["shaped"],
        "http": {
            "header": "Bearer " + v["bearer"],  # type: ignore[operator]
            "dsn": f"postgres://app:{v['url_password']}@db.internal:5432/shop",
        },
        "config": v["config"],
        "ordered": v["ordered"],
        "users": v["users"],
        "account": v["account"],
        "map": [list(kv) for kv in v["map"].items()],  # type: ignore[union-attr]  # a Map as its entries
        "set": v["set"],
        "env": v["env"],
        "pairs": v["pairs"],
        "session_info": v["session_info"],
        "many_tokens": v["many_tokens"],
        "many_passwords": v["many_passwords"],
        "literals": c.literals,
        "ordinary": {
            key: v[key]
            for key in ("lookalike", "shas", "uuids", "paths", "sql", "words", "emails", "urls", "versions", "hosts")
        }
        | {"ssh_private_key": v["private_key_file"], "queries": v["queries"]},
    }


def console_lines(c: Corpus) -> list[str]:
    """Free text an app logs: credentials written under names, in URLs, in phrases and command lines."""
    p = c.values["printed"]
    assert isinstance(p, dict)
    return [
        f"login with password={p['kv_password']}",
        f"Authorization: Bearer {p['bearer']}",
        f"the password is {p['phrase_password']}",
        json.dumps({"user": "ada", "apiKey": p["json_api_key"]}),
        f"connecting to postgres://app:{p['dsn_password']}@db.internal/shop",
        f"using key {p['aws']} for uploads",
        f"run: app --password {p['flag_password']} --verbose",
        "UPDATE users SET password = ? WHERE id = ?",
        "working in /srv/app with 3 tokens: SELECT FROM WHERE",
    ]


REDACTED = {"$t": "redacted"}


def audit_tree(audit: Audit, surface: str, raw: Any, shown: Any, secrets: list[str]) -> None:
    """Walk what the app sent beside what an agent was shown: each {"$t": "redacted"} and each marker must stand
    for a planted secret."""
    if shown == REDACTED and raw != REDACTED:
        audit.markers += 1
        body = json.dumps(raw, ensure_ascii=False)
        if not any(s in body for s in secrets):
            audit.false_positives.append((surface, f"hid {body[:120]}"))
    elif isinstance(raw, dict) and isinstance(shown, dict):
        for key in raw.keys() & shown.keys():
            audit_tree(audit, f"{surface}.{key}", raw[key], shown[key], secrets)
        if raw.keys() != shown.keys():
            audit.false_positives.append((surface, f"keys changed: {sorted(raw.keys() ^ shown.keys())[:5]}"))
    elif isinstance(raw, list) and isinstance(shown, list) and len(raw) == len(shown):
        for i, (a, b) in enumerate(zip(raw, shown, strict=True)):
            audit_tree(audit, f"{surface}[{i}]", a, b, secrets)
    elif isinstance(raw, str) and isinstance(shown, str):
        audit_surface(audit, surface, raw, shown, secrets)
    elif raw != shown:
        audit.false_positives.append((surface, f"changed: {str(raw)[:80]!r} -> {str(shown)[:80]!r}"))


def leaks(audit: Audit, surface: str, agent: str, secrets: list[str]) -> None:
    for s in secrets:
        if s in agent or any(cut + "…" in agent for cut in _cut_prefixes(s)):
            audit.leaks.append((surface, s))
