"""Pure logic of the debug-bridge: UI-tree rendering, caps, scope, find and diff; redaction of page data."""

from __future__ import annotations

from pairdbg.backends.bridge import uitree
from pairdbg.backends.bridge.redact import Redactor, scrub_message, scrub_text


def items(n: int = 3) -> list[dict]:
    out = [{"ref": "e1", "role": "form", "name": "Login", "depth": 0}]
    out += [{"ref": f"e{i + 2}", "role": "textbox", "name": f"Field {i}", "depth": 1} for i in range(n)]
    out.append({"ref": f"e{n + 2}", "role": "button", "name": "Go", "depth": 0, "disabled": True})
    return out


def test_line_shows_role_name_states_and_handle() -> None:
    item = {
        "ref": "e7",
        "role": "checkbox",
        "name": "Remember   me",
        "states": {"checked": True, "focused": True},
        "meta": {"testid": "remember"},
    }
    assert uitree.line(item) == 'checkbox "Remember me" [checked] [focused] [testid=remember] @e7'
    long_value = uitree.line({"ref": "e2", "role": "textbox", "name": "Name", "value": "v" * 100})
    assert long_value == 'textbox "Name" [value="' + "v" * 39 + '…"] @e2'
    assert uitree.line({"role": "heading", "name": "Hi", "level": 2}) == 'heading "Hi" [level=2]'


def test_render_caps_with_a_truncation_line_and_hides_hidden() -> None:
    many = items(500)
    many[3]["visible"] = False
    text, counts = uitree.render(many, header="# t", max_chars=2000)
    assert len(text) < 2400 and counts["not_shown"] > 0 and counts["hidden"] == 1
    assert text.splitlines()[-1].startswith(f"... {counts['not_shown']} more elements not shown")
    assert "@e4 " not in text + " "  # the hidden one (Field 2)
    full, counts = uitree.render(items(), header="# t")
    assert full.splitlines()[2] == '  - textbox "Field 0" @e2' and counts["not_shown"] == 0


def test_scope_find_and_parse_handle() -> None:
    tree = items()
    assert [it["ref"] for it in uitree.scope_items(tree, "e1")] == ["e1", "e2", "e3", "e4"]
    assert uitree.scope_items(tree, "e99") is None
    matches, total = uitree.find(tree, "field 1", None)
    assert total == 1 and matches[0].startswith('- textbox "Field 1" @e3') and 'in form "Login"' in matches[0]
    assert uitree.find(tree, None, "button")[1] == 1
    assert uitree.parse_handle("@e12") == "e12" and uitree.parse_handle("e3") == "e3"
    assert uitree.parse_handle("button") is None and uitree.parse_handle("@e") is None


def test_diff_by_handle() -> None:
    old = items(1)
    new = [dict(it) for it in old[:-1]] + [{"ref": "e4", "role": "status", "name": "Saved", "depth": 0}]
    new[1]["value"] = "ada"
    assert uitree.diff(old, new) == [
        '~ textbox "Field 0" [value="ada"] @e2',
        '+ status "Saved" @e4',
        '- button "Go" [disabled] @e3',
    ]
    assert uitree.diff(old, old) == []


def test_scrub_text_keeps_plain_text_and_keys() -> None:
    plain = "added milk (3 items)"
    assert scrub_text(plain) is plain
    assert scrub_text("tokens: 5, token count 3") == "tokens: 5, token count 3"
    assert scrub_text('{"user":"ada","authToken":"abc"}') == '{"user":"ada","authToken":"<redacted: 3 chars>"}'
    assert scrub_text("GET /api?x=1&api_key=sk_live_abcdefghijkl") == "GET /api?x=1&api_key=<redacted: 20 chars>"
    assert scrub_text("Authorization: Bearer abcdefghijkl") == "Authorization: Bearer <redacted: 12 chars>"
    assert scrub_text("<b>password=hunter2</b>") == "<b>password=<redacted: 7 chars></b>"
    # The gaps issue 13 found: Python-repr text and prose.
    assert scrub_text("{'user': 'ada', 'password': 'pw-123'}") == "{'user': 'ada', 'password': '<redacted: 6 chars>'}"
    assert scrub_text("the password is hunter2") == "the password is <redacted: 7 chars>"


def test_scrub_message_copies_only_what_changed() -> None:
    r = Redactor()
    msg = {"type": "console", "args": ["hello", "world"]}
    assert scrub_message(msg, r) is msg
    state = scrub_message({"type": "state_update", "scope": "auth", "state": {"user": "a", "token": "t-12345"}}, r)
    assert state["state"] == {"user": "a", "token": {"$t": "redacted"}}
    err = scrub_message({"type": "error", "message": "bad jwt eyJhbGciOiJI.eyJzdWIiOiIx.abc"}, r)
    assert err["message"] == "bad jwt <redacted: 29 chars>"
    tree = {"type": "ui_tree", "items": [{"ref": "e1", "value": "Bearer abcdefghijklmnop"}]}
    assert scrub_message(tree, r)["items"][0]["value"] == "Bearer <redacted: 16 chars>"
    # Object console arguments are redacted like state (the gap issue 13 found).
    logged = scrub_message({"type": "console", "args": ["login", {"user": "ada", "password": "pw-123"}]}, r)
    assert logged["args"] == ["login", {"user": "ada", "password": {"$t": "redacted"}}]
