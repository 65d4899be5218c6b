"""Pure logic around binding before a file runs: finding a source's compiled files by their maps (predict.py), the
local/remote root mapping (scripts.Roots) and two maps in a row (sourcemap.ChainedMap)."""

from __future__ import annotations

import json
from pathlib import Path

from pairdbg.backends.inspector.predict import compiled_files_for, project_root
from pairdbg.backends.inspector.scripts import Roots
from pairdbg.backends.inspector.sourcemap import ChainedMap, SourceMap, map_comment
from test_sourcemap import _encode


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "dist").mkdir()
    (root / "node_modules" / "dep").mkdir(parents=True)
    (root / "package.json").write_text("{}")
    (root / "src" / "a.ts").write_text("const x: number = 1;\nconsole.log(x);\n")
    (root / "dist" / "a.js").write_text("const x = 1;\nconsole.log(x);\n//# sourceMappingURL=a.js.map\n")
    mapping = _encode([[(0, 0, 0, 0)], [(0, 0, 1, 0)]])
    (root / "dist" / "a.js.map").write_text(
        json.dumps({"version": 3, "sourceRoot": "../src", "sources": ["a.ts"], "mappings": mapping})
    )
    # A package's compiled file mapping a source of the same name is never searched.
    (root / "node_modules" / "dep" / "a.js").write_text("x\n")
    (root / "node_modules" / "dep" / "a.js.map").write_text(
        json.dumps({"version": 3, "sources": ["../../src/a.ts"], "mappings": "AAAA"})
    )
    return root


def test_a_source_is_found_in_its_projects_compiled_files(tmp_path: Path) -> None:
    root = _project(tmp_path)
    assert project_root(str(root / "src" / "a.ts")) == str(root)
    (found,) = compiled_files_for(str(root / "src" / "a.ts"))
    assert found.path == str((root / "dist" / "a.js").resolve())
    assert tuple(found.source_map.generated_for(str(root / "src" / "a.ts"), 1)) == (1, 0)
    assert compiled_files_for(str(root / "dist" / "a.js")) == []  # a JS file is its own compiled file
    assert compiled_files_for(str(root / "src" / "other.ts")) == []


def test_roots_map_both_ways_and_leave_other_paths() -> None:
    roots = Roots("/home/me/app", "/srv/app/")
    assert roots.to_local("/srv/app/lib/x.js") == "/home/me/app/lib/x.js"
    assert roots.to_remote("/home/me/app/lib/x.js") == "/srv/app/lib/x.js"
    assert roots.to_local("/srv/application/x.js") == "/srv/application/x.js"  # a prefix, not a folder
    assert roots.to_local("/usr/lib/node/x.js") == "/usr/lib/node/x.js"


def test_two_maps_in_a_row(tmp_path: Path) -> None:
    """Bun's map (transpiled line g -> dist/a.js line g+1) then tsc's (dist/a.js line n -> src/a.ts line n+2)."""
    via, source = str(tmp_path / "dist" / "a.js"), str(tmp_path / "src" / "a.ts")
    outer = SourceMap.parse(
        {"version": 3, "sources": [via], "mappings": _encode([[(0, 0, 1, 0)], [(0, 0, 2, 0), (4, 0, 2, 6)]])}
    )
    inner = SourceMap.parse(
        {"version": 3, "sources": [source], "mappings": _encode([[], [(0, 0, 3, 0)], [(0, 0, 4, 0), (6, 0, 4, 9)]])}
    )
    chained = ChainedMap(outer, via, inner)
    assert chained.original_for(0, 0) == (source, 3, 0)
    assert chained.original_for(1, 5) == (source, 4, 9)
    position = chained.generated_for(source, 4, 9)
    assert (position.line, position.column, position.original_line) == (1, 4, 4)
    assert chained.sources_list == [source]
    assert map_comment("x\n//# sourceMappingURL=a.js.map\n") == "a.js.map" and map_comment("x\n") is None


def test_a_pause_at_column_zero_shows_its_statements_line() -> None:
    # Bun starts a line with a segment at column 0 that maps to the previous statement's end.
    sm = SourceMap.parse(
        {"version": 3, "sources": ["/p/a.ts"], "mappings": _encode([[(0, 0, 0, 0)], [(0, 0, 1, 20), (7, 0, 4, 7)]])}
    )
    assert sm.original_for(1, 0) == ("/p/a.ts", 1, 20)  # what the map says
    assert sm.statement_at(1, 0) == ("/p/a.ts", 4, 0)  # where a statement that starts there is
    assert sm.statement_at(1, 7) == ("/p/a.ts", 4, 7)
