"""Units of the React Native backend: mirror (seq, duplicates, gaps, eviction, materialisation, diff), JSON paths
and patches, redaction, configuration and wire-message validation. No sockets."""

from __future__ import annotations

import copy
import time

import pytest

from pairdbg.backends.rn.config import ConfigError, RnConfig
from pairdbg.backends.rn.jsondoc import Diff, PatchError, apply_patch, dotted, lookup, parse_path
from pairdbg.backends.rn.mirror import Limits, Mirror, Unavailable
from pairdbg.backends.rn.protocol import ProtocolViolation, parse_message
from pairdbg.backends.redact import REDACTED, Redactor
from pairdbg.backends.rn.redact import RnRedactor


def ev(seq: int, patch=None, type_: str = "action", stream: str = "redux") -> dict:
    data: dict = {"action": {"type": f"a{seq}"}}
    if patch is not None:
        data["patch"] = patch
    return {"stream": stream, "seq": seq, "type": type_, "data": data}


def stream(limits: Limits | None = None, initial=None):
    m = Mirror(limits or Limits())
    s, _ = m.open("s1")
    st = s.stream("redux")
    if initial is not None:
        st.add_snapshot(0, initial, 100, time.time())
    return m, st


# ----- mirror -------------------------------------------------------------------------------------------------------


def test_seq_duplicates_and_unannounced_gap():
    _, st = stream()
    assert st.add_event(ev(1), 10, 0) and st.add_event(ev(2), 10, 0)
    assert not st.add_event(ev(2), 10, 0) and not st.add_event(ev(1), 10, 0)
    assert st.duplicates == 2
    assert st.add_event(ev(5), 10, 0)
    assert [g.as_dict() for g in st.gaps] == [{"from": 3, "to": 4, "reason": "unannounced", "announced": False}]
    st.gap(6, 9, "evicted")
    assert st.last_seq == 9 and st.gaps[-1].announced
    assert st.add_event(ev(10), 10, 0) and len(st.gaps) == 2
    assert [e["seq"] for e in st.query(None, 100, None)[0]] == [1, 2, 5, 10]


def test_eviction_by_count_and_bytes():
    _, st = stream(Limits(max_events=100, max_event_bytes=5_000))
    for i in range(1, 1001):
        st.add_event(ev(i), 10, 0)
    assert len(st) == 100 and st.oldest_seq == 901 and st.latest_seq == 1000 and st.evicted == 900
    for i in range(1001, 1101):
        st.add_event(ev(i), 200, 0)
    assert st.bytes <= 5_000 and len(st) == 25 and st.oldest_seq == 1076
    events, more = st.query(10, 5, None)
    assert [e["seq"] for e in events] == [1076, 1077, 1078, 1079, 1080] and more
    assert st.total == 1100


def test_query_filter_and_paging():
    _, st = stream()
    for i in range(1, 31):
        st.add_event(ev(i, type_="nav" if i % 3 == 0 else "action"), 10, 0)
    page, more = st.query(None, 4, "nav")
    assert [e["seq"] for e in page] == [3, 6, 9, 12] and more
    page, more = st.query(12, 100, "nav")
    assert [e["seq"] for e in page] == [15, 18, 21, 24, 27, 30] and not more


def test_materialise_any_seq_from_snapshot_and_patches():
    _, st = stream(Limits(checkpoint_every=7), initial={"n": 0, "items": []})
    for i in range(1, 51):
        st.add_event(ev(i, [{"op": "replace", "path": "/n", "value": i},
                            {"op": "add", "path": "/items/-", "value": {"i": i}}]), 50, 0)
    assert st.cur_seq == 50 and st.current()[2]
    for seq in (0, 1, 13, 49, 50):
        state = st.state_at(seq)
        assert state["n"] == seq and len(state["items"]) == seq
    assert st.state_at(0) == {"n": 0, "items": []}, "the snapshot itself is never mutated"
    d = st.diff(10, 12)
    assert d.patch() == [{"op": "replace", "path": "/n", "value": 12},
                         {"op": "add", "path": "/items/10", "value": {"i": 11}},
                         {"op": "add", "path": "/items/11", "value": {"i": 12}}]
    assert apply_patch(st.state_at(10), d.patch()) == st.state_at(12)
    with pytest.raises(Unavailable) as info:
        st.state_at(51)
    assert info.value.available == [[0, 50]]


def test_missing_patch_breaks_the_chain_until_next_snapshot():
    _, st = stream(initial={"n": 0})
    st.add_event(ev(1, [{"op": "replace", "path": "/n", "value": 1}]), 10, 0)
    st.add_event(ev(2), 10, 0)  # patch omitted (too large): unknown change
    st.add_event(ev(3, [{"op": "replace", "path": "/n", "value": 3}]), 10, 0)
    assert st.state_at(1) == {"n": 1}
    with pytest.raises(Unavailable):
        st.state_at(3)
    assert st.current() == (0, {"n": 0}, False) or st.current()[0] <= 1
    st.add_snapshot(3, {"n": 3, "late": True}, 10, 0)
    assert st.state_at(3) == {"n": 3, "late": True} and st.current()[2]
    st.add_event(ev(4, [{"op": "add", "path": "/m", "value": 4}]), 10, 0)
    assert st.state_at(4) == {"n": 3, "late": True, "m": 4}
    assert st.available() == [[0, 1], [3, 4]]


def test_snapshot_that_overtakes_events_then_catches_up():
    _, st = stream()
    st.add_snapshot(2, {"n": 2}, 10, 0)
    st.add_event(ev(1, [{"op": "replace", "path": "/n", "value": 1}]), 10, 0)
    st.add_event(ev(2, [{"op": "replace", "path": "/n", "value": 2}]), 10, 0)
    st.add_event(ev(3, [{"op": "replace", "path": "/n", "value": 3}]), 10, 0)
    assert st.current() == (3, {"n": 3}, True)


def test_snapshot_lru_by_bytes_keeps_newest_per_stream():
    m, st = stream(Limits(max_snapshot_bytes=1000))
    for seq in range(0, 10):
        st.add_snapshot(seq, {"seq": seq}, 300, 0)
    session = m.current
    assert session.snapshot_bytes <= 1000 and st.snapshot_seqs[-1] == 9
    assert st.latest_snapshot.data == {"seq": 9} and len(st.snapshot_seqs) == 3


def test_sessions_survive_disconnect_and_ended_ones_are_bounded():
    m = Mirror(Limits(ended_sessions=2))
    s1, resumed = m.open("a")
    assert not resumed
    s1.stream("redux").add_event(ev(1), 10, 0)
    again, resumed = m.open("a")
    assert resumed and again is s1 and again.streams["redux"].last_seq == 1
    for name in ("b", "c", "d"):
        m.open(name)
    assert list(m.sessions) == ["b", "c", "d"] and m.sessions["b"].ended_at and m.current.session_id == "d"
    m.end(m.current)
    assert m.latest().session_id == "d" and m.current is None


# ----- JSON documents ---------------------------------------------------------------------------------------------


def test_path_lookup():
    doc = {"auth": {"user": {"role": "admin"}}, "items": [{"name": "a"}, {"name": "b"}], "odd.key": 1,
           "wrapped": {"$t": "instance", "cls": "Decimal", "v": {"value": "1.5"}}, "nil": None}
    assert lookup(doc, "auth.user.role") == (True, "admin")
    assert lookup(doc, "items[0].name") == (True, "a")
    assert lookup(doc, "items.1.name") == (True, "b")
    assert lookup(doc, "items[-1].name") == (True, "b")
    assert lookup(doc, '["odd.key"]') == (True, 1)
    assert lookup(doc, "/items/1/name") == (True, "b")
    assert lookup(doc, "wrapped.value") == (True, "1.5")
    assert lookup(doc, "nil") == (True, None)
    assert lookup(doc, "nil.x") == (False, None)
    assert lookup(doc, "items[5]") == (False, None)
    assert lookup(doc, "auth.nope") == (False, None)
    assert lookup(doc, "") == (True, doc)
    with pytest.raises(ValueError):
        parse_path("a..[")
    assert dotted(parse_path("items[0].name")) == "items[0].name"


def test_patch_ops_and_immutability():
    doc = {"a": {"b": [1, 2, 3]}, "keep": {"big": [1]}}
    before = copy.deepcopy(doc)
    out = apply_patch(doc, [
        {"op": "add", "path": "/a/b/1", "value": 9},
        {"op": "remove", "path": "/a/b/0"},
        {"op": "copy", "from": "/a/b", "path": "/c"},
        {"op": "move", "from": "/c", "path": "/d"},
        {"op": "test", "path": "/d/0", "value": 9},
        {"op": "add", "path": "/e~1f", "value": {"x": 1}},
    ])
    assert doc == before
    assert out == {"a": {"b": [9, 2, 3]}, "keep": {"big": [1]}, "d": [9, 2, 3], "e/f": {"x": 1}}
    assert out["keep"] is doc["keep"], "untouched subtrees are shared"
    for bad in ([{"op": "remove", "path": "/nope"}], [{"op": "test", "path": "/keep", "value": 1}],
                [{"op": "replace", "path": "/a/b/7", "value": 1}], [{"op": "frob", "path": "/a"}]):
        with pytest.raises(PatchError):
            apply_patch(doc, bad)


def test_diff_is_rfc6902_and_capped():
    a = {"x": 1, "list": [1, 2, 3], "obj": {"k": "v", "gone": True}}
    b = {"x": 2, "list": [1, 5], "obj": {"k": "v", "new": [1]}, "added": None}
    d = Diff().run(a, b)
    assert apply_patch(a, d.patch()) == b
    big_a = {f"k{i}": i for i in range(1000)}
    big_b = {f"k{i}": i + 1 for i in range(1000)}
    capped = Diff(max_ops=10).run(big_a, big_b)
    assert len(capped.ops) == 10 and capped.total == 1000 and capped.truncated
    assert Diff().run({"$t": "date", "v": "1"}, {"$t": "date", "v": "2"}).patch() == [
        {"op": "replace", "path": "", "value": {"$t": "date", "v": "2"}}]


def test_value_tags_and_truncation_markers_pass_through():
    tags = {"u": {"$t": "undefined"}, "big": {"$t": "bigint", "v": "100000000000000000000"},
            "when": {"$t": "date", "v": "1970-01-01T00:00:00.000Z"}, "s": {"$t": "set", "size": 2, "v": ["a", "b"]},
            "long": {"$trunc": "string", "len": 100000, "head": "aaaa"}, "nan": {"$t": "number", "v": "NaN"}}
    msg = parse_message({"v": 1, "t": "snapshot", "stream": "redux", "seq": 0, "data": tags})
    assert msg.data == tags
    _, st = stream(initial=tags)
    st.add_event(ev(1, [{"op": "replace", "path": "/when", "value": {"$t": "date", "v": "2000-01-01T00:00:00Z"}}]),
                 10, 0)
    assert st.state_at(1)["when"] == {"$t": "date", "v": "2000-01-01T00:00:00Z"}
    assert st.state_at(1)["long"] == tags["long"]
    assert Redactor().redact(tags) is tags


# ----- redaction ----------------------------------------------------------------------------------------------------


def test_redaction_keys_values_and_trivial():
    r = RnRedactor()  # the shared rules and the listener's own (MMKV pairs, patch paths, action payloads)
    state = {"auth": {"token": "abc123", "refresh_token": "r", "password": "", "apiKey": None, "userPassword": "x",
                      "tokenCount": 3, "tokenExpiresAt": 5, "authorization": "Bearer abcdefghijklmnop"},
             "headers": {"Authorization": "Basic dXNlcjpwYXNzd29yZA=="},
             "profile": {"name": "Ada", "note": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl"},
             "loose": "Bearer abcdefghijklmnopqrstuvwxyz", "stripe": "sk_live_abcdefghijklmnop",
             "url": "https://api.example.com/x?token=abc&page=2", "secret": {"nested": "deep"},
             "sessionId": "s-123", "theme": "dark"}
    out = r.redact(state)
    a = out["auth"]
    assert a["token"] == REDACTED and a["refresh_token"] == REDACTED and a["userPassword"] == REDACTED
    assert a["password"] == "" and a["apiKey"] is None, "trivial values stay visible"
    assert a["tokenCount"] == 3 and a["tokenExpiresAt"] == 5
    assert a["authorization"] == REDACTED and out["headers"]["Authorization"] == REDACTED
    assert out["profile"] == {"name": "Ada", "note": REDACTED}
    assert out["loose"] == REDACTED and out["stripe"] == REDACTED
    assert out["url"] == "https://api.example.com/x?token=<redacted: 3 chars>&page=2"
    assert out["secret"] == REDACTED and out["sessionId"] == "s-123" and out["theme"] == "dark"
    assert state["auth"]["token"] == "abc123", "the input is not modified"
    assert out["profile"] is not state["profile"] and r.redact({"a": {"b": 1}})["a"] == {"b": 1}
    assert r.redact({"key": "password", "value": "p"})["value"] == REDACTED
    assert r.redact({"op": "add", "path": "/auth/token", "value": "t"})["value"] == REDACTED
    assert r.redact({"type": "auth/setPassword", "payload": "p"})["payload"] == REDACTED
    assert Redactor().redact({"key": "password", "value": "p"})["value"] == "p"  # an RN rule, not a shared one
    r.add_names(["pinCode"])
    assert r.redact({"pin_code": "1234"}) == {"pin_code": REDACTED}


# ----- configuration and protocol ---------------------------------------------------------------------------------


RN_NAMES = ("WS_PORT", "WS_HOST", "LOG_LEVEL", "RN_DEBUG_TOKEN", "REQUEST_TIMEOUT_MS", "MAX_PAYLOAD_SIZE")


def test_config_defaults_overrides_and_errors(monkeypatch):
    for name in RN_NAMES:
        monkeypatch.delenv(name, raising=False)
    c = RnConfig.load()
    assert (c.WS_PORT, c.WS_HOST, c.REQUEST_TIMEOUT_MS, c.MAX_PAYLOAD_SIZE, c.LOG_LEVEL) == (
        19850, "127.0.0.1", 5000, 524288, "info")
    assert c.token_generated and len(c.token) >= 16 and c.token not in repr(c)
    env = {"WS_PORT": "0", "WS_HOST": "0.0.0.0", "LOG_LEVEL": "DEBUG", "RN_DEBUG_TOKEN": "t" * 12,
           "REQUEST_TIMEOUT_MS": "250", "MAX_PAYLOAD_SIZE": " 8192 ", "WS_PORT_UNRELATED": "x"}
    with monkeypatch.context() as m:  # the seed's names, read from the environment by pydantic-settings
        for name, value in env.items():
            m.setenv(name, value)
        c2 = RnConfig.load()
        assert (c2.WS_PORT, c2.LOG_LEVEL, c2.token, c2.token_generated, c2.MAX_PAYLOAD_SIZE) == (
            0, "debug", "t" * 12, False, 8192)
        assert RnConfig.load({"ws_port": "7"}).WS_PORT == 7  # a section's values win over the old names
        m.setenv("WS_PORT", "")  # empty counts as unset
        assert RnConfig.load().WS_PORT == 19850
    assert c2.python_log_level() == "DEBUG" and RnConfig.load({"LOG_LEVEL": "warn"}).python_log_level() == "WARNING"
    for env, var in [({"WS_PORT": "abc"}, "WS_PORT"), ({"WS_PORT": "70000"}, "WS_PORT"),
                     ({"LOG_LEVEL": "loud"}, "LOG_LEVEL"), ({"REQUEST_TIMEOUT_MS": "-1"}, "REQUEST_TIMEOUT_MS"),
                     ({"MAX_PAYLOAD_SIZE": "12"}, "MAX_PAYLOAD_SIZE"), ({"RN_DEBUG_TOKEN": "short"}, "RN_DEBUG_TOKEN")]:
        with monkeypatch.context() as m:
            for name, value in env.items():
                m.setenv(name, value)
            with pytest.raises(ConfigError) as info:
                RnConfig.load()
        assert var in str(info.value) and "short" not in str(info.value)  # a token is never echoed


def test_service_with_bad_config_reports_it_and_does_not_start(monkeypatch):
    import asyncio

    from pairdbg.backends.rn.service import RnService

    from pairdbg.settings import Settings

    monkeypatch.setenv("WS_PORT", "nope")
    svc = RnService(None, Settings().rn)
    assert "WS_PORT" in svc.config_error
    health = svc.health()
    assert "WS_PORT" in health["listening"]["error"] and not health["connected"]
    with pytest.raises(ConfigError):
        asyncio.run(svc.start())
    assert svc.server.port is None


def test_protocol_validation():
    assert parse_message('{"v":1,"t":"gap","stream":"redux","from":3,"to":5}').from_ == 3
    assert parse_message(b'{"v":1,"t":"pong","ts":1,"extra":"ignored"}').ts == 1
    cases = [("{", "malformed"), ("[1]", "malformed"), ('{"t":"zzz"}', "unknown"), ('{"v":1}', "unknown"),
             ('{"v":1,"t":"events","items":[{"seq":0}]}', "invalid"), ('{"v":2,"t":"pong"}', "invalid"),
             ('{"v":1,"t":"res","id":"r1"}', "invalid")]
    for frame, kind in cases:
        with pytest.raises(ProtocolViolation) as info:
            parse_message(frame)
        assert info.value.kind == kind, frame
