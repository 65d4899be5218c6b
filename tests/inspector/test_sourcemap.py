"""Source map decoding against real Bun captures (transpiled JS and TS) plus hand-written maps. Pure logic."""

from __future__ import annotations

import base64
import json
import urllib.parse
from pathlib import Path

import pytest

from pairdbg.backends.inspector.sourcemap import OriginalPosition, Position, SourceMap, SourceMapError
from support import TESTS

DATA = TESTS / "data" / "sourcemaps"


def _script_parsed(name: str) -> dict:
    for line in (DATA / name).read_text().splitlines():
        msg = json.loads(line)["msg"]
        if msg.get("method") == "Debugger.scriptParsed" and msg["params"].get("sourceMapURL"):
            return msg["params"]
    raise AssertionError(f"no scriptParsed with a sourceMapURL in {name}")


def _vlq(value: int) -> str:
    digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    value = (-value << 1) | 1 if value < 0 else value << 1
    out = ""
    while True:
        digit, value = value & 31, value >> 5
        out += digits[digit | (32 if value else 0)]
        if not value:
            return out


def _encode(lines: list[list[tuple[int, ...]]]) -> str:
    """Encode absolute segments (gen_col[, source, line, col[, name]]) per generated line as `mappings`."""
    state = [0, 0, 0, 0]
    out = []
    for segments in lines:
        col = 0
        encoded = []
        for seg in segments:
            text = _vlq(seg[0] - col)
            col = seg[0]
            for k, value in enumerate(seg[1:]):
                text += _vlq(value - state[k])
                state[k] = value
            encoded.append(text)
        out.append(",".join(encoded))
    return ";".join(out)


def _data_url(obj: dict, header: str = "data:application/json;base64,") -> str:
    return header + base64.b64encode(json.dumps(obj).encode()).decode()


@pytest.fixture
def bun_script(tmp_path: Path) -> tuple[SourceMap, str]:
    script = str(tmp_path / "js" / "script.js")
    return SourceMap.parse((DATA / "bun-script-sourcemap.json").read_text(), None, script), script


# ---- Bun: transpiled script.js ------------------------------------------------------------------------------


def test_bun_source_resolves_to_the_script_itself(bun_script: tuple[SourceMap, str]) -> None:
    sm, script = bun_script
    assert sm.raw_sources == ["/script.js"]  # Bun's "/<basename>", not a real absolute path
    assert sm.sources_list == [script]
    content = sm.source_content(script)
    assert content is not None and content.splitlines()[9].strip().startswith("acc = add(acc, i);")
    assert sm.source_content("/script.js") == content  # the raw map name works too
    assert sm.source_content("/elsewhere/other.js") is None


def test_bun_original_line_9_is_transpiled_line_8_and_back(bun_script: tuple[SourceMap, str]) -> None:
    sm, script = bun_script
    transpiled = (DATA / "bun-transpiled-script.js").read_text().splitlines()
    pos = sm.generated_for(script, 9)
    assert pos == Position(8, 4, script, 9, 4)
    assert transpiled[pos.line][pos.column :].startswith("acc = add(acc, i)")
    gen_line, gen_col = pos  # unpacks like a (line, column) pair
    assert sm.original_for(gen_line, gen_col) == (script, 9, 4)
    assert sm.original_for(8, 10) == OriginalPosition(script, 9, 10)  # inside the statement: closest before


def test_every_transpiled_code_line_round_trips(bun_script: tuple[SourceMap, str]) -> None:
    sm, script = bun_script
    transpiled = (DATA / "bun-transpiled-script.js").read_text().splitlines()
    original = (sm.source_content(script) or "").splitlines()
    for gen_line in range(1, 30):
        text = transpiled[gen_line]
        if text.lstrip().startswith("}"):
            # A closing brace of a function or `try` block has no segment of its own: the column-0 "AAAA" points at
            # the end of the previous original statement.
            continue
        col = len(text) - len(text.lstrip())
        orig = sm.original_for(gen_line, col)
        assert orig is not None, gen_line
        # The statement text survives transpilation up to whitespace inside `for (...)`.
        assert original[orig.line][orig.column :].replace(" ", "")[:8] == text[col:].replace(" ", "")[:8], gen_line
        assert tuple(sm.generated_for(script, orig.line)) == (gen_line, col)


def test_injected_debugger_line_maps_to_start_of_file(bun_script: tuple[SourceMap, str]) -> None:
    sm, script = bun_script
    assert (DATA / "bun-transpiled-script.js").read_text().startswith("debugger;\n")
    # Line 0 has no mapping; it is the --inspect-brk pause, shown at the top of the user's file.
    assert sm.original_for(0, 0) == (script, 0, 0)
    assert sm.original_for(30, 0) is None  # trailing blank line before the sourceMappingURL comment
    assert sm.original_for(31, 0) is None  # past the mappings entirely
    assert sm.original_for(-1, 0) is None


def test_column_zero_of_an_indented_line_is_the_previous_statement(bun_script: tuple[SourceMap, str]) -> None:
    # Bun maps each line's indentation (segment "AAAA" at column 0) to the end of the previous statement.
    sm, script = bun_script
    assert sm.original_for(8, 0) == (script, 8, 30)
    assert sm.original_for(8, 3) == (script, 8, 30)
    assert sm.original_for(8, 4) == (script, 9, 4)


def test_comment_and_blank_lines_bind_to_the_next_code_line(bun_script: tuple[SourceMap, str]) -> None:
    sm, script = bun_script
    assert sm.generated_for(script, 0) == Position(1, 0, script, 1, 0)  # first-line comment -> `function add`
    assert sm.generated_for(script, 5) == Position(5, 0, script, 6, 0)  # blank line -> `function outer`
    assert sm.generated_for(script, 15) == Position(14, 0, script, 16, 0)  # blank -> `let counter = 0`
    assert sm.generated_for(script, 31).original_line == 31
    assert sm.generated_for(script, 32) is None  # past the last line with code
    assert sm.generated_for("/not/this/file.js", 9) is None


def test_column_breakpoint_picks_nearest_original_column(bun_script: tuple[SourceMap, str]) -> None:
    sm, script = bun_script
    # Original line 8: `  for (let i = 0; i < n; i++) {` -> transpiled `  for (let i = 0;i < n; i++) {`
    pos = sm.generated_for(script, 8, 18)
    assert (pos.original_line, pos.original_column) == (8, 18)
    assert (pos.line, pos.column) == (7, 17)
    assert sm.generated_for(script, 8, 500) == sm.generated_for(script, 8)  # no column after it: the line start


# ---- Bun: inline maps from scriptParsed --------------------------------------------------------------------


def test_typescript_line_5_is_generated_line_3(tmp_path: Path) -> None:
    params = _script_parsed("bun-ts.ndjson")
    assert params["url"] == "./js/tsdemo.ts"  # Bun reports the path as given on its command line
    sm = SourceMap.from_url(params["sourceMapURL"], params["url"], base_dir=str(tmp_path))
    assert sm is not None
    ts = str(tmp_path / "js" / "tsdemo.ts")
    assert sm.sources_list == [ts]
    assert sm.generated_for(ts, 5) == Position(3, 2, ts, 5, 2)  # `return r;`
    assert sm.original_for(3, 2) == (ts, 5, 2)
    assert sm.generated_for(ts, 4).line == 2  # `const r: number = ...` with its type erased
    assert sm.generated_for(ts, 1) == Position(1, 0, ts, 3, 0)  # `interface P` is erased -> `function area`
    assert "interface P" in (sm.source_content(ts) or "")


def test_bun_prepends_debugger_even_when_line_0_is_code(tmp_path: Path) -> None:
    params = json.loads((DATA / "bun-extra-scriptParsed.json").read_text())["msg"]["params"]
    sm = SourceMap.from_url(params["sourceMapURL"], str(tmp_path / "extra.js"))
    assert sm is not None
    extra = str(tmp_path / "extra.js")
    assert (sm.source_content(extra) or "").startswith("function work(k)")
    assert sm.generated_for(extra, 0) == Position(1, 0, extra, 0, 0)
    assert sm.original_for(0, 0) == (extra, 0, 0)


# ---- data URLs and files -----------------------------------------------------------------------------------

SIMPLE = {"version": 3, "sources": ["a.ts"], "sourcesContent": ["x"], "names": [], "mappings": "AAAA;AACA"}


@pytest.mark.parametrize(
    "url",
    [
        _data_url(SIMPLE),
        _data_url(SIMPLE, "data:application/json;charset=utf-8;base64,"),
        _data_url(SIMPLE, "data:application/json;charset=UTF-8;BASE64,").rstrip("="),  # unpadded
        "data:application/json," + urllib.parse.quote(json.dumps(SIMPLE)),
        "data:application/json;charset=utf-8," + urllib.parse.quote(json.dumps(SIMPLE)),
    ],
)
def test_data_url_variants(url: str) -> None:
    sm = SourceMap.from_url(url, "/srv/app/dist/a.js")
    assert sm is not None
    assert sm.sources_list == ["/srv/app/dist/a.ts"]
    assert sm.original_for(1, 0) == ("/srv/app/dist/a.ts", 1, 0)
    assert sm.source_content("/srv/app/dist/a.ts") == "x"


def test_map_file_next_to_the_script(tmp_path: Path) -> None:
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "app.js.map").write_text(json.dumps({**SIMPLE, "sources": ["../src/a.ts"]}))
    script = tmp_path / "dist" / "app.js"
    for script_url in (str(script), script.as_uri()):
        sm = SourceMap.from_url("app.js.map", script_url)
        assert sm is not None
        assert sm.sources_list == [str(tmp_path / "src" / "a.ts")]
    assert SourceMap.from_url((tmp_path / "dist" / "app.js.map").as_uri(), None) is not None
    assert SourceMap.from_url("missing.js.map", str(script)) is None
    assert SourceMap.from_url("app.js.map", "http://127.0.0.1:8000/app.js") is None  # not fetched
    assert SourceMap.from_url("", str(script)) is None


# ---- hand-written maps ---------------------------------------------------------------------------------------


def test_source_root_multiple_sources_and_vlq() -> None:
    # Generated line 0: col 0 -> a.ts 0:0, col 10 -> b.ts 4:2 (name 0), col 20 -> nothing (1-field segment).
    # Generated line 1 empty. Generated line 2: col 4 -> a.ts 2:0, col 40 -> b.ts 40:1 (multi-char VLQ).
    mappings = _encode([[(0, 0, 0, 0), (10, 1, 4, 2, 0), (20,)], [], [(4, 0, 2, 0), (40, 1, 40, 1)]])
    assert mappings == "AAAA,UCIEA,U;;IDFF,oCCsCC"
    sm = SourceMap.parse(
        {
            "version": 3,
            "sourceRoot": "/proj/src/",
            "sources": ["a.ts", "lib/b.ts"],
            "names": ["f"],
            "mappings": mappings,
        },
        "/proj/dist/out.js.map",
        "/proj/dist/out.js",
    )
    a, b = "/proj/src/a.ts", "/proj/src/lib/b.ts"
    assert sm.sources_list == [a, b]
    assert sm.original_for(0, 0) == (a, 0, 0)
    assert sm.original_for(0, 15) == (b, 4, 2)
    assert sm.original_for(0, 25) is None  # explicitly unmapped range
    assert sm.original_for(1, 0) is None
    assert sm.original_for(2, 0) == (a, 2, 0)  # before the first mapping: the line's first mapping
    assert sm.original_for(2, 50) == (b, 40, 1)
    assert sm.generated_for(b, 4) == Position(0, 10, b, 4, 2)
    assert sm.generated_for(b, 5) == Position(2, 40, b, 40, 1)
    assert sm.generated_for("lib/b.ts", 40) == Position(2, 40, b, 40, 1)  # raw name accepted
    assert sm.generated_for("b.ts", 40) is not None  # unique basename accepted
    assert sm.generated_for(a, 1) == Position(2, 4, a, 2, 0)
    assert sm.source_content(a) is None


def test_relative_sources_resolve_against_the_map_and_urls_stay_urls() -> None:
    sm = SourceMap.parse({"version": 3, "sources": ["../src/x.ts", "webpack://app/y.ts"], "mappings": ""}, "/p/d/m.map")
    assert sm.sources_list == ["/p/src/x.ts", "webpack://app/y.ts"]
    sm = SourceMap.parse({"version": 3, "sources": ["x.ts"], "mappings": "AAAA"}, "http://h/js/app.js.map")
    assert sm.sources_list == ["http://h/js/x.ts"]
    sm = SourceMap.parse({"version": 3, "sources": ["file:///p/q%20r.ts"], "mappings": "AAAA"})
    assert sm.sources_list == ["/p/q r.ts"]


def test_xssi_prefix_and_empty_mappings() -> None:
    sm = SourceMap.parse(")]}'\n" + json.dumps(SIMPLE))
    assert sm.original_for(0, 0) == ("a.ts", 0, 0)
    empty = SourceMap.parse({"version": 3, "sources": [], "mappings": ""})
    assert empty.original_for(0, 0) is None
    assert empty.generated_for("a.ts", 0) is None


# ---- malformed input ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("data:application/json;base64,ewogIC!!!", "cannot decode"),
        ("data:application/json;base64,e", "cannot decode"),
        ("data:application/json;base64" + "eyJ2ZXJzaW9uIjozfQ==", "no ','"),
        ("data:application/json," + urllib.parse.quote("{not json"), "not valid JSON"),
        (_data_url({"version": 3, "sources": ["a.js"]}), "no 'mappings'"),
    ],
)
def test_malformed_data_urls(url: str, message: str) -> None:
    with pytest.raises(SourceMapError, match=message):
        SourceMap.from_url(url, "/x/a.js")


@pytest.mark.parametrize(
    ("mappings", "message"),
    [
        ("AA!A", "invalid VLQ character '!'"),
        ("AAAg", "truncated VLQ"),  # 'g' has the continuation bit and nothing follows
        ("AA", "2 fields"),
        ("AAAAAA", "6 fields"),
        ("AEAA", "source index"),  # source 2 of 1
        ("AADA", "negative original"),
        ("EAAA,DAAA", "negative or unsorted"),
        ("gggggggggggggA", "too long"),
    ],
)
def test_malformed_mappings(mappings: str, message: str) -> None:
    with pytest.raises(SourceMapError, match=message):
        SourceMap.parse({"version": 3, "sources": ["a.js"], "mappings": mappings})


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ("[1, 2]", "not an object"),
        ('{"version": 2, "sources": [], "mappings": ""}', "version 2"),
        ('{"version": 3, "sections": []}', "sections"),
        ('{"version": 3, "sources": "a.js", "mappings": ""}', "not a list"),
        ('{"version": 3, "sources": [], "mappings": "AAAA"}', "'sources' is empty"),
        (b"\xff\xfe", "not UTF-8"),
    ],
)
def test_malformed_documents(doc: str | bytes, message: str) -> None:
    with pytest.raises(SourceMapError, match=message):
        SourceMap.parse(doc)


def test_source_map_error_is_a_value_error() -> None:
    assert issubclass(SourceMapError, ValueError)


def test_names_at_exact_generated_positions() -> None:
    # `function x(l,e){return l}` from `function marked(src, opt) { return src; }`: names on x, l, e and the use of l.
    lines = [[(0, 0, 0, 0), (9, 0, 0, 9, 0), (11, 0, 0, 16, 1), (13, 0, 0, 21, 2), (23, 0, 0, 35, 1)]]
    data = {"version": 3, "sources": ["a.ts"], "names": ["marked", "src", "opt"], "mappings": _encode(lines)}
    sm = SourceMap.parse(data, "/p/a.js.map", "/p/a.js")
    assert [sm.name_at(0, c) for c in (9, 11, 13, 23)] == ["marked", "src", "opt", "src"]
    assert sm.name_at(0, 0) is None and sm.name_at(0, 12) is None  # no name, or not the identifier's start
    assert SourceMap.parse({**data, "names": []}, "/p/a.js.map", "/p/a.js").name_at(0, 11) is None
