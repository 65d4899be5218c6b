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
        policy.redact_reply("S1", None, "", {"name": "token", "value": f"'tok-{n:06d}'"})
    kept = policy.redact_reply("S1", None, "tok-000000 tok-000249 hunter2-Secret", None)[0]
    assert kept == "tok-000000 <redacted: 10 chars> hunter2-Secret"
