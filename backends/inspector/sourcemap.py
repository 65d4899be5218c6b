"""Source map v3 reader: maps engine (generated) positions to the user's lines and back.

Bun transpiles every file it runs (comments and blank lines dropped, ``debugger;`` prepended for
``--inspect-brk``), so wire positions are not the user's lines; Node/Chromium scripts can carry a
``sourceMappingURL``. All lines and columns here are **0-based**; callers convert.

Decoding is done once, eagerly, into flat lists: segment deltas are memoised per distinct segment string
and running sums use ``itertools.accumulate``, so a 1 MB map stays far below 100 ms. The reverse index
(original line -> generated positions) is built on the first ``generated_for`` call.
"""

from __future__ import annotations

import base64
import binascii
import gc
import json
import os
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate
from operator import add, itemgetter, methodcaller
from typing import Any, NamedTuple
from urllib.parse import unquote, unquote_to_bytes, urljoin, urlsplit
from urllib.request import url2pathname

_B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


class SourceMapError(ValueError):
    """The source map (or its data URL) is malformed."""


class OriginalPosition(NamedTuple):
    """Where a generated position came from; unpacks as ``(source, line, column)``."""

    source: str
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class Position:
    """A generated position chosen for an original line. ``original_line`` is the line it really bound to:
    the requested one, or the next line with code when the requested one has none (comment, blank line)."""

    line: int
    column: int
    source: str
    original_line: int
    original_column: int

    def __iter__(self) -> Iterator[int]:  # ``gen_line, gen_col = sm.generated_for(...)``
        yield self.line
        yield self.column


def _decode_values(seg: str) -> list[int]:
    values: list[int] = []
    value = shift = 0
    for ch in seg:
        digit = _B64.get(ch)
        if digit is None:
            raise SourceMapError(f"invalid VLQ character {ch!r} in mappings segment {seg!r}")
        value += (digit & 31) << shift
        if digit & 32:
            shift += 5
            if shift > 60:
                raise SourceMapError(f"VLQ value too long in mappings segment {seg!r}")
            continue
        values.append(-(value >> 1) if value & 1 else value >> 1)
        value = shift = 0
    if shift:
        raise SourceMapError(f"truncated VLQ value in mappings segment {seg!r}")
    if len(values) not in (1, 4, 5):
        raise SourceMapError(f"mappings segment {seg!r} has {len(values)} fields (expected 1, 4 or 5)")
    return values


# One VLQ value: continuation digits (32..63: g-z, 0-9, +, /) then a final digit (0..31: A-Z, a-f).
_VLQ = "[g-z0-9+/]*[A-Za-f]"
# A whole segment (group 1) of 1, 4 or 5 values, the first four captured; run on ",".join(distinct segments).
_SEGMENT_RE = re.compile(f"(({_VLQ})(?:({_VLQ})({_VLQ})({_VLQ})(?:{_VLQ})?)?)(?:,|$)")


class _ValueTable(dict[str, int]):
    """VLQ value text -> int; a map holds only a few hundred distinct value texts."""

    def __missing__(self, key: str) -> int:
        value = self[key] = _decode_values(key)[0] if key else 0
        return value


def _decode_distinct(segments: set[str]) -> tuple[dict[str, tuple[int, ...]], set[str]]:
    """Decode each distinct segment once, into a table (text -> its four field deltas), plus the texts of
    1-field segments (ranges mapped to nothing). One regex pass over all of them keeps this in C; a malformed
    segment anywhere falls back to decoding one by one, which reports exactly what is wrong."""
    texts = list(segments)
    rows = _SEGMENT_RE.findall(",".join(texts))
    if list(map(itemgetter(0), rows)) == texts:  # every segment well-formed, nothing skipped
        values = _ValueTable()
        fields = [list(map(values.__getitem__, map(itemgetter(k), rows))) for k in range(1, 5)]
        table = dict(zip(texts, zip(*fields, strict=True), strict=True))
        return table, {text for text, row in zip(texts, rows, strict=True) if not row[2]}
    table: dict[str, tuple[int, ...]] = {}
    unmapped: set[str] = set()
    for text in texts:
        decoded = _decode_values(text)
        if len(decoded) == 1:
            unmapped.add(text)
            decoded += (0, 0, 0)
        table[text] = tuple(decoded[:4])
    return table, unmapped


def _split_url(url: str) -> tuple[str, str]:
    """(scheme, rest) with Windows drive letters and plain paths reported as scheme ''."""
    scheme = urlsplit(url).scheme
    return ("", url) if len(scheme) <= 1 else (scheme.lower(), url)


def _to_path(url: str | None) -> str | None:
    """A local filesystem path for a path or file:// URL; None for other schemes (http, bun:, node:...)."""
    if not url:
        return None
    scheme, _ = _split_url(url)
    if scheme == "file":
        return url2pathname(unquote(urlsplit(url).path))
    return url if scheme == "" else None


def _absolute(path: str, base_dir: str | None) -> str:
    if not os.path.isabs(path):
        path = os.path.join(base_dir or os.getcwd(), path)
    return os.path.normpath(path)


def _decode_data_url(url: str) -> str:
    header, sep, payload = url[5:].partition(",")
    if not sep:
        raise SourceMapError("data URL has no ',' separating the header from the data")
    params = [p.strip().lower() for p in header.split(";")]
    try:
        if params and params[-1] == "base64":
            raw = "".join(unquote(payload).split())
            raw += "=" * (-len(raw) % 4)
            data = base64.b64decode(raw, validate=True)
        else:
            data = unquote_to_bytes(payload)
        return data.decode("utf-8-sig")
    except (binascii.Error, ValueError) as exc:
        raise SourceMapError(f"cannot decode source map data URL: {exc}") from exc


class SourceMap:
    """A parsed source map v3. Build with ``parse`` or ``from_url``."""

    def __init__(
        self,
        sources: list[str],
        raw_sources: list[str],
        contents: list[str | None],
        names: list[str],
        line_starts: list[int],
        col_sums: list[int],
        src: list[int],
        orig_line: list[int],
        orig_col: list[int],
        unmapped: frozenset[int],
        base_dir: str | None,
    ) -> None:
        self.sources = sources
        self.raw_sources = raw_sources
        self.names = names
        self._contents = contents
        # Segment i of generated line L has index line_starts[L] <= i < line_starts[L + 1]; its generated
        # column is col_sums[i] - col_sums[line_starts[L] - 1] (running sum of non-negative deltas).
        self._line_starts = line_starts
        self._col_sums = col_sums
        self._src = src
        self._orig_line = orig_line
        self._orig_col = orig_col
        self._unmapped = unmapped  # indices of 1-field segments, usually none
        self._any_mapped = len(unmapped) < len(col_sums)
        self._base_dir = base_dir
        self._reverse: dict[int, tuple[list[int], dict[int, list[int]]]] | None = None
        self._lookup: dict[str, int] | None = None
        self._mappings = ""
        self._named: dict[tuple[int, int], str] | None = None

    # ---- construction ------------------------------------------------------------------------------

    @classmethod
    def parse(
        cls,
        text_or_dict: str | bytes | dict[str, Any],
        map_url: str | None = None,
        script_url: str | None = None,
        *,
        base_dir: str | None = None,
    ) -> SourceMap:
        """Parse source map JSON. ``map_url`` is where the map lives (None or a data: URL for inline maps);
        ``script_url`` is the generated script as the engine reports it. Relative script paths (Bun reports
        ``./js/x.ts`` when started that way) are taken against ``base_dir``, the debuggee's cwd (default: ours).
        """
        data = cls._load_json(text_or_dict)
        if data.get("sections") is not None:
            raise SourceMapError("indexed source maps ('sections') are not supported")
        if data.get("version", 3) != 3:
            raise SourceMapError(f"unsupported source map version {data.get('version')!r}")
        mappings = data.get("mappings")
        if not isinstance(mappings, str):
            raise SourceMapError("source map has no 'mappings' string")
        raw_sources = data.get("sources") or []
        if not isinstance(raw_sources, list):
            raise SourceMapError("source map 'sources' is not a list")
        raw_sources = ["" if s is None else str(s) for s in raw_sources]
        contents_in = data.get("sourcesContent")
        contents: list[str | None] = [None] * len(raw_sources)
        if isinstance(contents_in, list):
            for i, c in enumerate(contents_in[: len(raw_sources)]):
                contents[i] = c if isinstance(c, str) else None
        names = [str(n) for n in data.get("names") or []]
        root = data.get("sourceRoot") or ""
        if not isinstance(root, str):
            raise SourceMapError("source map 'sourceRoot' is not a string")

        # The decoding allocates ~1 object per distinct segment and lists as long as the map; the cyclic GC would
        # rescan those lists over and over (20% of the time on a 1 MB map) though they cannot form cycles.
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            line_starts, segments = cls._split_mappings(mappings)
            table, unmapped_texts = _decode_distinct(set(segments))
            if table and min(map(itemgetter(0), table.values())) < 0:
                raise SourceMapError("mappings has negative or unsorted generated columns within a line")
            unmapped = (
                frozenset(i for i, seg in enumerate(segments) if seg in unmapped_texts)
                if unmapped_texts
                else frozenset()
            )
            # Generated columns restart on each line (a line's first delta is absolute), so one running sum over all
            # lines still gives column(i) = col_sums[i] - col_sums[first segment of its line - 1].
            decoded = list(map(table.__getitem__, segments))
            col_sums, src, orig_line, orig_col = (list(accumulate(map(itemgetter(k), decoded))) for k in range(4))
        finally:
            if gc_was_enabled:
                gc.enable()
        if len(unmapped) < len(segments):
            if not raw_sources:
                raise SourceMapError("mappings refer to sources but 'sources' is empty")
            if min(src) < 0 or max(src) >= len(raw_sources):
                raise SourceMapError(f"mappings refer to a source index outside 0..{len(raw_sources) - 1}")
            if min(orig_line) < 0 or min(orig_col) < 0:
                raise SourceMapError("mappings produce a negative original line or column")
        sources = [cls._resolve_source(s, root, map_url, script_url, base_dir, len(raw_sources)) for s in raw_sources]
        made = cls(
            sources,
            raw_sources,
            contents,
            names,
            line_starts,
            col_sums,
            src,
            orig_line,
            orig_col,
            unmapped,
            base_dir,
        )
        made._mappings = mappings if names else ""  # the names index is built from it on first use
        return made

    @classmethod
    def from_url(
        cls, source_map_url: str | None, script_url: str | None = None, *, base_dir: str | None = None
    ) -> SourceMap | None:
        """Load the map named by a ``sourceMappingURL`` / ``scriptParsed.sourceMapURL``: inline data: URLs,
        or a local file (relative to the script, or file://). Returns None when there is no map or the file
        is not available locally (http maps are not fetched); raises SourceMapError when it is malformed."""
        if not source_map_url or not source_map_url.strip():
            return None
        url = source_map_url.strip()
        if url[:5].lower() == "data:":
            return cls.parse(_decode_data_url(url), None, script_url, base_dir=base_dir)
        path = _to_path(url)
        if path is None:
            return None
        if not os.path.isabs(path):
            script_path = _to_path(script_url)
            if script_url and script_path is None:  # http(s) script: the map is remote too
                return None
            if script_path is not None:
                path = os.path.join(os.path.dirname(_absolute(script_path, base_dir)), path)
        path = _absolute(path, base_dir)
        try:
            with open(path, "rb") as fh:
                text = fh.read()
        except OSError:
            return None
        return cls.parse(text, path, script_url, base_dir=base_dir)

    @staticmethod
    def _load_json(text_or_dict: str | bytes | dict[str, Any]) -> dict[str, Any]:
        if isinstance(text_or_dict, dict):
            return text_or_dict
        if isinstance(text_or_dict, bytes):
            try:
                text_or_dict = text_or_dict.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                raise SourceMapError(f"source map is not UTF-8: {exc}") from exc
        text = text_or_dict.lstrip("\ufeff")
        if text.startswith(")]}"):  # the spec allows an XSSI-protection first line
            text = text.partition("\n")[2]
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise SourceMapError(f"source map is not valid JSON: {exc}") from exc
        if not isinstance(data, dict):
            raise SourceMapError("source map JSON is not an object")
        return data

    @staticmethod
    def _split_mappings(mappings: str) -> tuple[list[int], list[str]]:
        """Segment texts in order, and the index of each generated line's first segment (plus a final end)."""
        lines = mappings.split(";")
        # Segments per line: its commas, plus one unless the line is empty (stray commas are dropped below).
        counts = map(add, map(methodcaller("count", ","), lines), map(bool, lines))
        segments = mappings.replace(";", ",").split(",")
        if "" in segments:  # empty lines, or stray commas
            segments = list(filter(None, segments))
            if ",," in mappings or ";," in mappings or ",;" in mappings or mappings[:1] == "," or mappings[-1:] == ",":
                counts = (len(list(filter(None, line.split(",")))) for line in lines)
        return [0, *accumulate(counts)], segments

    @staticmethod
    def _resolve_source(
        raw: str, root: str, map_url: str | None, script_url: str | None, base_dir: str | None, count: int
    ) -> str:
        source = raw
        if root and _split_url(source)[0] == "" and not source.startswith("/"):
            source = root.rstrip("/") + "/" + source
        scheme, _ = _split_url(source)
        if scheme == "file":
            return os.path.normpath(_to_path(source) or source)
        if scheme:
            return source  # webpack://, http://... left as they are
        map_path = None if map_url is None or map_url[:5].lower() == "data:" else _to_path(map_url)
        if map_url is not None and map_path is None and map_url[:5].lower() != "data:":
            return urljoin(map_url, source)  # remote map: a URL relative to it
        script_path = _to_path(script_url)
        if script_url and script_path is None and map_path is None:
            return urljoin(script_url, source)
        if os.path.isabs(source):
            if root or map_path is not None or script_path is None or os.path.exists(source):
                return os.path.normpath(source)
            # Bun's inline maps name sources "/<name>", relative to the file's own directory: not real paths.
            script_abs = _absolute(script_path, base_dir)
            if count == 1 and os.path.basename(source) == os.path.basename(script_abs):
                return script_abs
            directory = os.path.dirname(script_abs)
            return os.path.normpath(os.path.join(directory, source.lstrip("/")))
        base = map_path if map_path is not None else script_path
        if base is None:
            return os.path.normpath(source)
        return os.path.normpath(os.path.join(os.path.dirname(_absolute(base, base_dir)), source))

    # ---- queries -------------------------------------------------------------------------------------

    @property
    def sources_list(self) -> list[str]:
        """Resolved source paths (or URLs), in map order."""
        return list(self.sources)

    @property
    def line_count(self) -> int:
        """Generated lines covered by ``mappings``."""
        return len(self._line_starts) - 1

    def source_content(self, path: str) -> str | None:
        """``sourcesContent`` for a source (path, raw map name or unique basename), or None."""
        index = self._source_index(path)
        return None if index is None else self._contents[index]

    def _column(self, i: int, lo: int) -> int:
        return self._col_sums[i] - (self._col_sums[lo - 1] if lo else 0)

    def original_for(self, gen_line: int, gen_col: int = 0) -> OriginalPosition | None:
        """Original position for a generated one: the mapping at or before ``gen_col`` on that line, else the
        line's first mapping. Lines before the first mapping (Bun's prepended ``debugger;``) map to the start of
        the only source; other unmapped lines, and ranges explicitly mapped to nothing, give None."""
        if gen_line < 0 or gen_line >= self.line_count:
            return None
        lo, hi = self._line_starts[gen_line], self._line_starts[gen_line + 1]
        if lo == hi:
            if len(self.sources) == 1 and lo == 0 and self._any_mapped:
                return OriginalPosition(self.sources[0], 0, 0)
            return None
        base = self._col_sums[lo - 1] if lo else 0
        i = bisect_right(self._col_sums, base + max(gen_col, 0), lo, hi) - 1
        if i < lo:
            i = next((j for j in range(lo, hi) if j not in self._unmapped), -1)
            if i < 0:
                return None
        elif i in self._unmapped:
            return None
        return OriginalPosition(self.sources[self._src[i]], self._orig_line[i], self._orig_col[i])

    def statement_at(self, gen_line: int, gen_col: int = 0) -> OriginalPosition | None:
        """original_for a position the engine paused at. Bun starts each line with a segment that maps to the end of
        the previous statement (the indentation's), so a statement at column 0 of its line (a module's top level)
        would show on the line before: when the position is that first segment and the next one on the line maps
        further on, the next one's line is where the statement is."""
        found = self.original_for(gen_line, gen_col)
        if found is None or gen_line < 0 or gen_line >= self.line_count:
            return found
        lo, hi = self._line_starts[gen_line], self._line_starts[gen_line + 1]
        if hi - lo < 2 or self._column(lo, lo) != gen_col or lo in self._unmapped or lo + 1 in self._unmapped:
            return found
        following = lo + 1
        if self._src[following] != self._src[lo] or self._orig_line[following] <= self._orig_line[lo]:
            return found
        column = max(self._orig_col[following] - (self._column(following, lo) - gen_col), 0)
        return OriginalPosition(self.sources[self._src[following]], self._orig_line[following], column)

    def name_at(self, gen_line: int, gen_col: int) -> str | None:
        """The original name a mapping gives the identifier that starts exactly at a generated position."""
        if self._named is None:
            self._named = self._names_index()
        return self._named.get((gen_line, gen_col))

    def _names_index(self) -> dict[tuple[int, int], str]:
        """(generated line, column) -> name, for the segments that carry one (the 5th field, a running delta)."""
        named: dict[tuple[int, int], str] = {}
        decoded: dict[str, list[int]] = {}
        name = 0
        for line, text in enumerate(self._mappings.split(";")):
            column = 0
            for segment in filter(None, text.split(",")):
                values = decoded.get(segment)
                if values is None:
                    values = decoded[segment] = _decode_values(segment)
                column += values[0]
                if len(values) == 5:
                    name += values[4]
                    if 0 <= name < len(self.names):
                        named[(line, column)] = self.names[name]
        return named

    def generated_for(self, source_path: str, orig_line: int, orig_col: int = 0) -> Position | None:
        """Generated position for a breakpoint on an original line: the lowest generated position mapped from
        that line (with ``orig_col`` > 0, the mapping at the nearest original column at or after it). A line
        without code binds to the next original line that has some; None past the last one."""
        index = self._source_index(source_path)
        if index is None:
            return None
        lines, by_line = self._reverse_index().get(index, ([], {}))
        k = bisect_left(lines, max(orig_line, 0))
        if k == len(lines):
            return None
        bound = lines[k]
        candidates = by_line[bound]  # segment indices in generated order
        best = candidates[0]
        if orig_col > 0 and bound == orig_line:
            after = [i for i in candidates if self._orig_col[i] >= orig_col]
            if after:
                best = min(after, key=lambda i: self._orig_col[i])  # min() keeps the first (lowest generated)
        gen_line = bisect_right(self._line_starts, best) - 1  # the last line starting at or before it
        column = self._column(best, self._line_starts[gen_line])
        return Position(gen_line, column, self.sources[index], bound, self._orig_col[best])

    def _reverse_index(self) -> dict[int, tuple[list[int], dict[int, list[int]]]]:
        if self._reverse is None:
            table: dict[tuple[int, int], list[int]] = {}
            for i, key in enumerate(zip(self._src, self._orig_line, strict=True)):
                if i not in self._unmapped:
                    entry = table.get(key)
                    if entry is None:
                        table[key] = [i]
                    else:
                        entry.append(i)
            reverse: dict[int, tuple[list[int], dict[int, list[int]]]] = {}
            for (source, line), indices in table.items():
                reverse.setdefault(source, ([], {}))[1][line] = indices
            for lines, by_line in reverse.values():
                lines.extend(sorted(by_line))
            self._reverse = reverse
        return self._reverse

    def _source_index(self, path: str) -> int | None:
        if self._lookup is None:
            lookup: dict[str, int] = {}
            for i, (resolved, raw) in enumerate(zip(self.sources, self.raw_sources, strict=True)):
                for key in (raw, resolved):
                    lookup.setdefault(key, i)
            self._lookup = lookup
        if path in self._lookup:
            return self._lookup[path]
        local = _to_path(path)
        if local is not None:
            wanted = _absolute(local, self._base_dir)
            if wanted in self._lookup:
                return self._lookup[wanted]
            real = os.path.realpath(wanted)
            for i, source in enumerate(self.sources):
                if os.path.isabs(source) and os.path.realpath(source) == real:
                    return i
        base = os.path.basename(path)
        matches = [i for i, s in enumerate(self.sources) if os.path.basename(s) == base]
        return matches[0] if len(matches) == 1 else None


_MAP_COMMENT = re.compile(r"[#@]\s*sourceMappingURL=\s*(\S+)\s*(?:\*/)?\s*$")


def map_comment(text: str) -> str | None:
    """The `sourceMappingURL` named by a file's last comment lines (tsc and bundlers put it last), or None."""
    for line in text[-2000:].splitlines()[::-1][:5]:
        match = _MAP_COMMENT.search(line)
        if match:
            return match.group(1)
    return None


class ChainedMap:
    """Two maps in a row: the engine's own (Bun maps its transpiled code back to the file it ran) and that file's
    map (tsc's `main.js.map` back to `src/main.ts`). Answers the same queries as SourceMap, through both."""

    def __init__(self, outer: SourceMap, via: str, inner: SourceMap) -> None:
        self.outer = outer
        self.via = via  # the file the outer map leads to and the inner map starts from
        self.inner = inner
        self.names = inner.names

    @property
    def sources_list(self) -> list[str]:
        return self.inner.sources_list + [s for s in self.outer.sources_list if s != self.via]

    def source_content(self, path: str) -> str | None:
        return self.inner.source_content(path) or self.outer.source_content(path)

    def name_at(self, gen_line: int, gen_col: int) -> str | None:
        found = self.outer.original_for(gen_line, gen_col)
        if found is None:
            return None
        if found.source != self.via:
            return self.outer.name_at(gen_line, gen_col)
        return self.inner.name_at(found.line, found.column)

    def original_for(self, gen_line: int, gen_col: int = 0) -> OriginalPosition | None:
        found = self.outer.original_for(gen_line, gen_col)
        if found is None or found.source != self.via:
            return found
        return self.inner.original_for(found.line, found.column) or found

    def statement_at(self, gen_line: int, gen_col: int = 0) -> OriginalPosition | None:
        found = self.outer.statement_at(gen_line, gen_col)
        if found is None or found.source != self.via:
            return found
        return self.inner.original_for(found.line, found.column) or found

    def generated_for(self, source_path: str, orig_line: int, orig_col: int = 0) -> Position | None:
        middle = self.inner.generated_for(source_path, orig_line, orig_col)
        if middle is None:
            return self.outer.generated_for(source_path, orig_line, orig_col)
        end = self.outer.generated_for(self.via, middle.line, middle.column)
        if end is None:
            return None
        return Position(end.line, end.column, middle.source, middle.original_line, middle.original_column)


def chain_file_map(outer: SourceMap) -> SourceMap | ChainedMap:
    """The engine's map, followed on through the one file it leads to when that file names a map of its own."""
    if len(outer.sources) != 1 or not os.path.isabs(outer.sources[0]):
        return outer
    via = outer.sources[0]
    text = outer.source_content(via)
    if text is None:
        try:
            with open(via, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            return outer
    url = map_comment(text)
    if url is None:
        return outer
    try:
        inner = SourceMap.from_url(url, via)
    except (SourceMapError, OSError):
        return outer
    return outer if inner is None else ChainedMap(outer, via, inner)
