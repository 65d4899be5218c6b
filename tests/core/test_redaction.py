"""The one redaction policy for what agents receive (pure text and data rules; the real-target test is
tests/mcp/test_secrets.py)."""

from __future__ import annotations

import pytest

from pairdbg.backends.redact import for_agent, marker, scrub_text, secret_name

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJlLXBsYW50ZWQ"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"Authorization: Bearer {JWT}", f"Authorization: Bearer {marker(len(JWT))}"),
        ("the password is hunter2-Secret", "the password is <redacted: 14 chars>"),
        ("key AKIAIOSFODNN7EXAMPLE here", "key <redacted: 20 chars> here"),
        ("ghp_abcdefghijklmnopqrstuvwxyz0123", "<redacted: 34 chars>"),
        ("xoxb-1234567890-abcdef", "<redacted: 22 chars>"),
        ("sk-proj-abcdefghijklmnopqrstuvwx", "<redacted: 32 chars>"),
        ("GET /api?x=1&api_key=abc123", "GET /api?x=1&api_key=<redacted: 6 chars>"),
        ('{"user":"ada","authToken":"abc"}', '{"user":"ada","authToken":"<redacted: 3 chars>"}'),
        ("{'user': 'ada', 'password': 'pw1'}", "{'user': 'ada', 'password': '<redacted: 3 chars>'}"),
        ('password = "hunter2"', 'password = "<redacted: 7 chars>"'),
        ("login with password=hunter2 ok", "login with password=<redacted: 7 chars> ok"),
        ("postgres://admin:hunter2@db:5432/app", "postgres://admin:<redacted: 7 chars>@db:5432/app"),
        (
            "https://x.io/map?key=abc123&sig=zz9&page=2",
            "https://x.io/map?key=<redacted: 6 chars>&sig=<redacted: 3 chars>&page=2",
        ),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----", "<redacted: 66 chars>"),
        ('if password == "hunter2-Secret":', 'if password == "<redacted: 14 chars>":'),
        ('password === "hunter2-Secret"', 'password === "<redacted: 14 chars>"'),
        ("token != 'tok-9f8e7d6c5b4a3921'", "token != '<redacted: 20 chars>'"),
        ('if (apiKey !== "k-12345") {', 'if (apiKey !== "<redacted: 7 chars>") {'),
        ("Authorization: Token abcdef0123456789", "Authorization: Token <redacted: 16 chars>"),
        ("os.environ['TOKEN'] = 'tok-9f8e7d6c5b4a3921'", "os.environ['TOKEN'] = '<redacted: 20 chars>'"),
        ('process.env["API_KEY"] = "abc123"', 'process.env["API_KEY"] = "<redacted: 6 chars>"'),
        ("user_pass=hunter2 db_pass: pw2", "user_pass=<redacted: 7 chars> db_pass: <redacted: 3 chars>"),
        ("{'userPass': 'pw1'}", "{'userPass': '<redacted: 3 chars>'}"),
        ("app --password hunter2 --verbose", "app --password <redacted: 7 chars> --verbose"),
        ("mysql -u root -phunter2 shop", "mysql -u root -p<redacted: 7 chars> shop"),
        ("curl -u admin:hunter2 https://x.io", "curl -u admin:<redacted: 7 chars> https://x.io"),
        ("{'card_number': '4111111111111111'}", "{'card_number': '<redacted: 16 chars>'}"),
    ],
)
def test_credential_shaped_text_is_replaced_with_its_length(text: str, expected: str) -> None:
    assert scrub_text(text) == expected
    assert scrub_text(expected) == expected  # a second pass changes nothing


@pytest.mark.parametrize(
    "text",
    [
        'print("the password is " + password)',  # source that names a secret without holding one
        "def login(token: str) -> None:",
        "tokens counted: 3",
        "x = 1",
        "ReferenceError: password is not defined",
        "the password was changed.",
        "password is required",
        "the token expired yesterday",
        "token validation failed",
        "if password == expected:",
        "bypass = 3",
        "compass: north",
        "app --token-file /tmp/t --verbose",
        "mysql -u root -p",
        "curl -u ada https://x.io",
        "https://example.com:8080/users/@ada",
        "git clone ssh://git@example.com/repo.git",
        "",
    ],
)
def test_text_without_a_secret_is_kept(text: str) -> None:
    assert scrub_text(text) is text


def test_secret_names_include_keys_and_expressions() -> None:
    for name in (
        "password",
        "'api_key'",
        "os.environ['TOKEN']",
        "process.env.TOKEN",
        "config.client_secret",
        "authToken",
        "user_pass",
        "db_pass",
        "DB_PASS",
        "userPass",
        "db_pwd",
    ):
        assert secret_name(name), name
    for name in ("aws_key", "len(token)", "user", "token_count", "[0]", "bypass", "compass", "passage"):
        assert not secret_name(name), name


def test_a_reply_says_the_same_in_text_and_data_and_keeps_handles() -> None:
    data = {
        "variables": [
            {"name": "password", "type": "str", "value": "'hunter2-Secret'"},
            {"name": "creds", "type": "dict", "value": "{'token': 'abc'}", "handle": "@v4"},
            {"name": "count", "type": "int", "value": "3"},
        ]
    }
    text = "  password  str  'hunter2-Secret'\n  @v4   creds  dict  {'token': 'abc'}\n  count  int  3"
    out_text, out = for_agent(text, data)
    assert out["variables"][0]["value"] == "<redacted: 14 chars>"
    assert out["variables"][1] == {**data["variables"][1], "value": "{'token': '<redacted: 3 chars>'}"}
    assert out["variables"][2] == data["variables"][2]
    assert "hunter2" not in out_text and "<redacted: 14 chars>" in out_text and "@v4" in out_text
    assert data["variables"][0]["value"] == "'hunter2-Secret'"  # the input is never changed


def test_empty_and_absent_secrets_stay_visible() -> None:
    _, out = for_agent("", {"name": "token", "value": "None"})
    assert out["value"] == "None"  # the agent may still see that a token is absent
    _, out = for_agent("", {"name": "password", "value": "''"})
    assert out["value"] == "''"


def test_the_shared_redactor_scrubs_text_under_harmless_keys() -> None:
    """The React Native gap: `password=…` inside a string whose key says nothing."""
    from pairdbg.backends.redact import REDACTED, Redactor

    out = Redactor().redact({"note": "login with password=hunter2", "token": "abc", "theme": "dark"})
    assert out == {"note": "login with password=<redacted: 7 chars>", "token": REDACTED, "theme": "dark"}


def test_a_short_secret_is_hidden_in_its_value_column_only() -> None:
    data = {"variables": [{"name": "pin", "type": "int", "value": "42"}, {"name": "n", "type": "int", "value": "42"}]}
    text = "Locals at line 42:\n  pin  int  42\n  n    int  42"
    out_text, out = for_agent(text, data)
    assert out["variables"][0]["value"] == "<redacted: 2 chars>" and out["variables"][1]["value"] == "42"
    assert out_text.splitlines()[0] == "Locals at line 42:" and out_text.splitlines()[1].endswith("<redacted: 2 chars>")


def test_a_session_hides_the_secrets_it_already_hid_in_later_texts_and_errors() -> None:
    from pairdbg.backends.errors import DebugError, ErrorCode
    from pairdbg.backends.events import EventBus
    from pairdbg.backends.policy import MAX_VALUES_REMEMBERED, AgentPolicy

    policy = AgentPolicy(None, EventBus())
    shown = {"variables": [{"name": "password", "value": "'hunter2-Secret'"}]}
    text, _ = policy.redact_reply("S1", None, "password  'hunter2-Secret'", shown)
    assert "hunter2" not in text
    err = DebugError(ErrorCode.PROTOCOL_ERROR, "ValueError: invalid literal for int() with base 10: 'hunter2-Secret'")
    policy.redact_error("S1", err)
    assert err.message.endswith("'<redacted: 14 chars>'") and str(err) == err.message
    later, data = policy.redact_reply("S1", None, "n = hunter2-Secret!", {"value": "x hunter2-Secret", "handle": "@v1"})
    assert later == "n = <redacted: 14 chars>!" and data == {"value": "x <redacted: 14 chars>", "handle": "@v1"}
    other = DebugError(ErrorCode.PROTOCOL_ERROR, "'hunter2-Secret'")
    policy.redact_error("S2", other)  # another session never saw it
    assert other.message == "'hunter2-Secret'"
    for n in range(MAX_VALUES_REMEMBERED + 50):  # bounded: the oldest values go first
        policy.redact_reply("S1", None, "", {"name": "token", "value": f"'Tk{n:04d}-qZ8x'"})
    kept = policy.redact_reply("S1", None, "Tk0000-qZ8x Tk0249-qZ8x hunter2-Secret", None)[0]
    assert kept == "Tk0000-qZ8x <redacted: 11 chars> hunter2-Secret"


# ----- issue 20: neither leaks nor lies -----------------------------------------------------------------------------

SECRET = "Zq8#vR2!kLm9xT"


def row(name: str, value: str, type_: str = "str", handle: str | None = None) -> dict:
    out = {"name": name, "type": type_, "value": value}
    return {**out, "handle": handle} if handle else out


def locals_reply(*rows: dict) -> tuple[str, dict]:
    from pairdbg.backends.actions.render import variables_block
    from pairdbg.backends.models import VariableView

    views = [VariableView(**r) for r in rows]
    return "Locals of @f0:\n" + "\n".join(variables_block(views, len(views))), {"variables": list(rows)}


@pytest.mark.parametrize(
    "value",
    [
        f"OrderedDict([('password', '{SECRET}'), ('user', 'ada')])",  # Python before 3.12
        f"OrderedDict({{'password': '{SECRET}', 'user': 'ada'}})",  # Python 3.12+
        f'Map(2) {{"password" => "{SECRET}", "user" => "ada"}}',  # a JavaScript Map preview
        f'Array(2) ["password", "{SECRET}"]',  # a pair
        f"{{DB_PASSWORD: '{SECRET}', HOME: '/home/ada'}}",  # process.env's preview
        f"environ({{'DB_PASSWORD': '{SECRET}', 'HOME': '/home/ada'}})",  # os.environ's repr
        f"{{'user': 'ada', 'password': '{SECRET[:6]}…",  # a value cut in the middle of the secret
    ],
)
def test_previews_lose_their_secret_named_entries(value: str) -> None:
    text, data = locals_reply(row("opts", value, "object", "@v1"))
    out_text, out = for_agent(text, data)
    shown = out["variables"][0]["value"]
    assert SECRET[:6] not in shown and SECRET[:6] not in out_text and "<redacted: " in shown
    assert "ada" in shown or "/home/ada" in shown or "Array" in shown  # the rest of the preview stays
    assert shown in out_text


def test_map_entries_and_env_rows_are_hidden_by_their_key() -> None:
    _, entry = for_agent("", {"variables": [row("key", '"password"'), row("value", f'"{SECRET}"')]})
    assert entry["variables"][1]["value"] == marker(len(SECRET)) and entry["variables"][0]["value"] == '"password"'
    _, pair = for_agent("", {"variables": [row("0", '"apiKey"'), row("1", f'"{SECRET}"'), row("length", "2")]})
    assert pair["variables"][1]["value"] == marker(len(SECRET))
    _, env = for_agent("", {"variables": [row("DB_PASSWORD", f'"{SECRET}"'), row("PWD", '"/srv/app"')]})
    assert env["variables"][0]["value"] == marker(len(SECRET)) and env["variables"][1]["value"] == '"/srv/app"'


def test_pwd_is_the_working_directory_and_hides_no_path() -> None:
    from pairdbg.backends.events import EventBus
    from pairdbg.backends.policy import AgentPolicy

    policy = AgentPolicy(None, EventBus())
    text, data = locals_reply(row("pwd", "'/home/ada/project'"), row("n", "3", "int"))
    shown, out = policy.redact_reply("S1", None, text, data)
    assert out == data and shown == text
    stack = {"frames": [{"handle": "@f0", "function": "main", "file": "/home/ada/project/app.py", "line": 3}]}
    stack_text = "@f0   main  app.py:3  /home/ada/project/app.py"
    assert policy.redact_reply("S1", None, stack_text, stack) == (stack_text, stack)


def test_a_parsers_token_hides_its_own_row_only() -> None:
    from pairdbg.backends.events import EventBus
    from pairdbg.backends.policy import AgentPolicy

    policy = AgentPolicy(None, EventBus())
    text, data = locals_reply(row("token", "'SELECT'"), row("tokens", "['SELECT', 'FROM', 'users']", "list", "@v2"))
    shown, out = policy.redact_reply("S1", None, text, data)
    assert out["variables"][0]["value"] == "<redacted: 6 chars>"  # by its name
    assert out["variables"][1] == data["variables"][1] and "['SELECT', 'FROM', 'users']" in shown
    listing = [
        {"line": 4, "text": "    token = tokens[0]", "current": True},
        {"line": 5, "text": '    if token == "SELECT":', "current": False},
        {"line": 6, "text": "    credentials: {", "current": False},
    ]
    source_text = "\n".join(f"{'>' if r['current'] else ' '}{r['line']:>5}| {r['text']}" for r in listing)
    again = policy.redact_reply("S1", None, source_text, {"lines": listing})
    assert again == (source_text, {"lines": listing}), "the source listing is the code"
    output = policy.redact_reply("S1", None, "SELECT * FROM users", {"entries": [{"text": "SELECT * FROM users"}]})
    assert output[0] == "SELECT * FROM users", "a word hidden once is not hidden everywhere"


@pytest.mark.parametrize(
    ("name", "value", "type_"),
    [
        ("token", "null", "null"),
        ("secret", "undefined", "undefined"),
        ("apiKey", "function Object() { [native code] }", "function"),
        ("credentials", "Object", "Object"),
        ("password", "''", "str"),
        ("token", "None", "NoneType"),
        ("private_key", "'/home/ada/.ssh/id_ed25519'", "str"),
        ("getToken", "ƒ getToken()", "function"),
        ("auth_token", "<function auth_token at 0x7f00>", "function"),
    ],
)
def test_absent_values_types_and_paths_stay_visible_under_secret_names(name: str, value: str, type_: str) -> None:
    text, data = locals_reply(row(name, value, type_))
    assert for_agent(text, data) == (text, data)


def test_what_the_agent_computes_from_a_secret_is_not_the_secret() -> None:
    for expression, value in (("typeof token", '"object"'), ("len(password)", "14"), ("token.length", "20")):
        text = f"{expression} = {value}  (string)"
        data = {"name": expression, "value": value, "type": "string"}
        assert for_agent(text, data) == (text, data), expression
    text = f"os.environ['TOKEN'] = '{SECRET}'  (str)"
    out_text, out = for_agent(text, {"name": "os.environ['TOKEN']", "value": f"'{SECRET}'", "type": "str"})
    assert out_text == f"os.environ['TOKEN'] = {marker(len(SECRET))}  (str)" and out["name"] == "os.environ['TOKEN']"


def test_source_lines_lose_only_credential_literals() -> None:
    from pairdbg.backends.redact import scrub_source

    aws = "AKIAIOSFODNN7EXAMPLE"
    assert scrub_source(f'    key = "{aws}"  # default') == f'    key = "{marker(20)}"  # default'
    assert scrub_source(f'    password = "{SECRET}"') == f'    password = "{marker(len(SECRET))}"'
    for line in (
        "    token = tokens[0]",
        '    token = "SELECT"',
        "    credentials: {",
        '    password = "hunter"',  # a word, not a credential
        "    password = os.environ['PASSWORD']",
        '    print("the password is", password)',
        "    if password == expected:",
        "const apiKey = Object;",
        '    sql = "UPDATE users SET password = ? WHERE id = ?"',
    ):
        assert scrub_source(line) is line, line


def test_only_strong_values_are_remembered() -> None:
    from pairdbg.backends.redact import strong

    for value in ("SELECT", "null", "undefined", "Object", "hunter", "/home/ada/project", "1234", "main", "x" * 20):
        assert not strong(value), value
    for value in (SECRET, "hunter2-Secret", "AKIAIOSFODNN7EXAMPLE", "0123456789abcdef0123456789abcdef01234567"):
        assert strong(value), value


def test_shared_values_name_a_strong_secret_in_later_free_text_but_never_in_paths() -> None:
    from pairdbg.backends.events import EventBus
    from pairdbg.backends.policy import AgentPolicy

    policy = AgentPolicy(None, EventBus())
    text, data = locals_reply(row("api_key", f"'{SECRET}'"))
    policy.redact_reply("S1", None, text, data)
    out_text, out = policy.redact_reply(
        "S1", None, f"[stdout] using {SECRET}", {"entries": [{"text": f"using {SECRET}\n"}], "file": f"/tmp/{SECRET}"}
    )
    assert SECRET not in out_text and out["entries"][0]["text"] == f"using {marker(len(SECRET))}\n"
    assert out["file"] == f"/tmp/{SECRET}", "a path is never redacted"


def test_a_short_secret_is_hidden_where_its_value_stands_not_in_a_file_name() -> None:
    data = {"variables": [{"name": "pin", "type": "int", "value": "42"}]}
    text = "  pin  int  42\nStack: @f0 check pin.py:42 · @f1 main app.py:7\nWatches: W1 pin = 42 · W2 n = 3"
    out_text, _ = for_agent(text, data)
    assert out_text.splitlines() == [
        "  pin  int  <redacted: 2 chars>",
        "Stack: @f0 check pin.py:42 · @f1 main app.py:7",
        "Watches: W1 pin = <redacted: 2 chars> · W2 n = 3",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "{'credentials': {'login': 'ada', 'code': 'x1'}, 'user': 'bob'}",
            "{'credentials': {<redacted: 28 chars>}, 'user': 'bob'}",
        ),
        ("{'password': b'hunter2'}", "{'password': b'<redacted: 7 chars>'}"),
        (
            "defaultdict(<class 'list'>, {'token': ['a1', 'b2']})",
            "defaultdict(<class 'list'>, {'token': [<redacted: 10 chars>]})",
        ),
        ("{'credentials': {'login': 'ada', 'co…", "{'credentials': {<redacted: 20 chars>"),
    ],
)
def test_a_container_under_a_secret_name_in_a_preview_is_hidden_whole(text: str, expected: str) -> None:
    assert scrub_text(text) == expected


def test_a_preview_placeholder_under_a_secret_name_stays() -> None:
    text = "{credentials: {…}, tokens: Array(3), x: 1}"
    assert scrub_text(text) is text


def test_app_data_shows_paths_and_hides_map_entries() -> None:
    from pairdbg.backends.redact import REDACTED, Redactor

    state = {
        "ssh_private_key": "/home/ada/.ssh/id_ed25519",  # a path under a secret name: shown
        "token": "Object",  # app data is not a debugger preview: a string is a value
        "entries": [["password", SECRET], ["user", "ada"]],  # a Map serialized as its entries
        "fields": ["token", "password"],  # two names, not a pair
    }
    out = Redactor().redact(state)
    assert out["ssh_private_key"] == state["ssh_private_key"] and out["token"] == REDACTED
    assert out["entries"] == [["password", REDACTED], ["user", "ada"]] and out["fields"] == ["token", "password"]


def test_null_undefined_and_object_are_never_secrets_of_a_session() -> None:
    from pairdbg.backends.events import EventBus
    from pairdbg.backends.policy import AgentPolicy

    policy = AgentPolicy(None, EventBus())
    text, data = locals_reply(
        row("opts", "{token: undefined, secret: null, apiKey: Object}", "Object", "@v1"),
        row("token", "null", "null"),
        row("secret", "undefined", "undefined"),
    )
    assert policy.redact_reply("S1", None, text, data) == (text, data)
    for expression, value in (("typeof x", '"undefined"'), ("typeof y", '"object"'), ("y.constructor", "Object")):
        reply = (f"{expression} = {value}", {"name": expression, "value": value})
        assert policy.redact_reply("S1", None, *reply) == reply


def test_every_secret_name_of_the_table_is_found_in_text() -> None:
    """scrub_text looks for a word of a name before it runs its patterns: each name of the table must pass."""
    from pairdbg.backends.redact.table import NAMES, SUFFIXES

    for name in sorted(NAMES | set(SUFFIXES)):
        text = f"{name}=Zq8vR2kLm9xT"
        assert scrub_text(text) == f"{name}=<redacted: 12 chars>", name


def test_known_secrets_are_found_wherever_they_start() -> None:
    """Past LOOP_UP_TO values the lookup samples a text's pieces; a value at any offset must still be found."""
    import random
    import string

    from pairdbg.backends.redact import KnownSecrets

    rng = random.Random(5)
    values = ["".join(rng.choice(string.ascii_letters + "#!%-") for _ in range(rng.randint(7, 30))) for _ in range(300)]
    known = KnownSecrets(values)
    assert len(values) > known.LOOP_UP_TO
    for value in values:
        for before in ("", "x", "ab", "abc", "abcd", "password=", "{'k': '"):
            assert value not in known.hide(f"{before}{value} and more"), (before, value)
    assert known.hide("nothing to see here") == "nothing to see here"
