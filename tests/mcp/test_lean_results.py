"""The lean structured content of a stop whose exception was raised in hidden library code (pure logic)."""

from __future__ import annotations

from pairdbg.mcp_bridge.results import lean

RAISED_AT = "in scanner.py:258 in fetch_more_tokens (…), library code that justMyCode keeps out of the stack"
SITE = {
    "handle": "@f0-3",
    "function": "fetch_more_tokens",
    "file": "/lib/yaml/scanner.py",
    "line": 258,
    "package": "yaml",
    "source": [{"line": 258, "text": "raise ScannerError(...)", "current": True}],
    "locals": [
        {"name": "ch", "type": "str", "value": "'\\t'", "truncated": False},
        {"handle": "@v1", "name": "self", "type": "SafeLoader", "value": "<SafeLoader>", "truncated": False},
    ],
    "locals_total": 2,
}


def stop(**extra) -> dict:
    return {
        "session_id": "S1",
        "stop_number": 1,
        "reason": "exception",
        "exception": {"type": "ScannerError", "message": "found a tab", "raised_at": RAISED_AT},
        "location": {"file": "/app/main.py", "line": 9, "function": "load"},
        "source": [{"line": 9, "text": "return yaml.safe_load(text)", "current": True}],
        "locals": [{"name": "text", "type": "str", "value": "'a:\\n\\tb: 1'"}],
        **extra,
    }


def test_a_raise_site_keeps_its_place_values_and_handles_not_its_source():
    out = lean({"session_id": "S1", "stop": stop(raise_site=SITE)})["stop"]
    assert out["raise_site"] == {
        "handle": "@f0-3",
        "function": "fetch_more_tokens",
        "file": "/lib/yaml/scanner.py",
        "line": 258,
        "package": "yaml",
        "locals": {"ch": "'\\t'", "self": "<SafeLoader>"},
        "handles": {"self": "@v1"},
    }
    assert out["exception"] == {"type": "ScannerError", "message": "found a tab"}  # the site says where, once
    assert out["locals"] == {"text": "'a:\\n\\tb: 1'"} and "source" not in out


def test_without_a_raise_site_the_sentence_stays():
    out = lean({"session_id": "S1", "stop": stop()})["stop"]
    assert out["exception"]["raised_at"] == RAISED_AT and "raise_site" not in out
