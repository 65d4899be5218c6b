"""JSON documents as immutable values: path lookup, RFC 6902 patch application with structural sharing, and an
RFC 6902 diff with a capped op count.

`apply_patch` never mutates its input: it copies only the containers along each changed path (once per call), so
a state materialised from a snapshot shares every untouched subtree with it and older states stay valid.
"""

from __future__ import annotations

import re
from typing import Any

_MISSING = object()
_TOKEN = re.compile(r"([^.\[\]]+)|\[(-?\d+|\"[^\"]*\"|'[^']*')\]")


class PatchError(ValueError):
    pass


def parse_path(path: str) -> list[str | int]:
    """`auth.user.role`, `items[0].name`, `routes.0.name`, `a["x.y"]`, or a JSON Pointer (`/items/0/name`)."""
    path = path.strip()
    if path in ("", ".", "$", "/"):
        return []
    if path.startswith("/"):
        return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]
    if path.startswith("$."):
        path = path[2:]
    parts: list[str | int] = []
    pos = 0
    for m in _TOKEN.finditer(path):
        between = path[pos : m.start()].strip(".")
        if between:
            raise ValueError(f"cannot parse path {path!r} near {between!r}")
        pos = m.end()
        if m.group(1) is not None:
            parts.append(m.group(1))
        else:
            tok = m.group(2)
            parts.append(tok[1:-1] if tok[0] in "\"'" else int(tok))
    if path[pos:].strip("."):
        raise ValueError(f"cannot parse path {path!r}")
    return parts


def _unwrap(node: Any) -> Any:
    """Look through value tags that wrap a plain container ({"$t":"object"|"instance","v":{...}})."""
    if isinstance(node, dict) and node.get("$t") in ("object", "instance") and isinstance(node.get("v"), dict):
        return node["v"]
    return node


def lookup(doc: Any, path: str | list[str | int]) -> tuple[bool, Any]:
    """(found, value) for a path; a path into a missing key or past an array's end is not found."""
    parts = parse_path(path) if isinstance(path, str) else path
    node = doc
    for part in parts:
        node = _unwrap(node)
        if isinstance(node, dict):
            key = str(part)
            if key not in node:
                return False, None
            node = node[key]
        elif isinstance(node, list):
            try:
                idx = int(part)
            except (TypeError, ValueError):
                return False, None
            if idx < 0:
                idx += len(node)
            if not 0 <= idx < len(node):
                return False, None
            node = node[idx]
        else:
            return False, None
    return True, node


def pointer(parts: list[str | int]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def dotted(parts: list[str | int]) -> str:
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif re.fullmatch(r"[A-Za-z_$][\w$-]*", p):
            out += ("." if out else "") + p
        else:
            out += f'["{p}"]'
    return out


# ----- RFC 6902 application ---------------------------------------------------------------------------------------


class _Doc:
    """One patch application: copies a container the first time this application writes into it."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.fresh: set[int] = set()

    def _own(self, node: Any) -> Any:
        if id(node) in self.fresh:
            return node
        copy = dict(node) if isinstance(node, dict) else list(node)
        self.fresh.add(id(copy))
        return copy

    def _parent(self, parts: list[str]) -> tuple[Any, str]:
        """The (owned) container holding parts[-1], copying the chain from the root."""
        if not isinstance(self.root, (dict, list)):
            raise PatchError("the document root is not a container")
        self.root = self._own(self.root)
        node = self.root
        for part in parts[:-1]:
            key: Any = _index(node, part, allow_end=False)
            child = node[key]
            if not isinstance(child, (dict, list)):
                raise PatchError(f"path segment {part!r} is not a container")
            child = self._own(child)
            node[key] = child
            node = child
        return node, parts[-1]

    def get(self, parts: list[str]) -> Any:
        found, value = lookup(self.root, parts)  # type: ignore[arg-type]
        if not found:
            raise PatchError(f"path {pointer(parts)!r} does not exist")  # type: ignore[arg-type]
        return value

    def add(self, parts: list[str], value: Any) -> None:
        if not parts:
            self.root = value
            return
        parent, last = self._parent(parts)
        if isinstance(parent, list):
            idx = len(parent) if last == "-" else _index(parent, last, allow_end=True)
            parent.insert(idx, value)
        else:
            parent[last] = value

    def remove(self, parts: list[str]) -> Any:
        if not parts:
            raise PatchError("cannot remove the document root")
        parent, last = self._parent(parts)
        if isinstance(parent, list):
            return parent.pop(_index(parent, last, allow_end=False))
        if last not in parent:
            raise PatchError(f"path {pointer(parts)!r} does not exist")  # type: ignore[arg-type]
        return parent.pop(last)

    def replace(self, parts: list[str], value: Any) -> None:
        if not parts:
            self.root = value
            return
        parent, last = self._parent(parts)
        if isinstance(parent, list):
            parent[_index(parent, last, allow_end=False)] = value
        else:
            if last not in parent:
                raise PatchError(f"path {pointer(parts)!r} does not exist")  # type: ignore[arg-type]
            parent[last] = value


def _index(node: Any, part: str, allow_end: bool) -> Any:
    if isinstance(node, dict):
        if part not in node:
            raise PatchError(f"key {part!r} does not exist")
        return part
    try:
        idx = int(part)
    except ValueError:
        raise PatchError(f"{part!r} is not an array index") from None
    if idx < 0 or idx > len(node) or (idx == len(node) and not allow_end):
        raise PatchError(f"index {idx} is out of range")
    return idx


def _split(ptr: Any) -> list[str]:
    if not isinstance(ptr, str) or (ptr and not ptr.startswith("/")):
        raise PatchError(f"bad JSON Pointer {ptr!r}")
    return [] if ptr == "" else [p.replace("~1", "/").replace("~0", "~") for p in ptr[1:].split("/")]


def apply_patch(doc: Any, ops: list[dict[str, Any]]) -> Any:
    """The document after `ops` (RFC 6902). Raises PatchError; `doc` itself is never modified."""
    d = _Doc(doc)
    for op in ops:
        if not isinstance(op, dict):
            raise PatchError("a patch operation must be an object")
        kind = op.get("op")
        parts = _split(op.get("path"))
        if kind == "add":
            d.add(parts, op.get("value"))
        elif kind == "remove":
            d.remove(parts)
        elif kind == "replace":
            d.replace(parts, op.get("value"))
        elif kind == "move":
            src = _split(op.get("from"))
            value = d.get(src)
            d.remove(src)
            d.add(parts, value)
        elif kind == "copy":
            d.add(parts, d.get(_split(op.get("from"))))
        elif kind == "test":
            if d.get(parts) != op.get("value"):
                raise PatchError(f"test failed at {op.get('path')!r}")
        else:
            raise PatchError(f"unknown patch op {kind!r}")
    return d.root


# ----- RFC 6902 diff ----------------------------------------------------------------------------------------------


class Diff:
    """Ops from `a` to `b`, with the old value kept for each remove/replace. Stops recording at `max_ops` but keeps
    counting (up to `count_limit`) so the caller can say how many were left out."""

    def __init__(self, max_ops: int = 200, count_limit: int = 100_000) -> None:
        self.max_ops = max_ops
        self.count_limit = count_limit
        self.ops: list[tuple[str, list[str | int], Any, Any]] = []  # (op, path parts, old, new)
        self.total = 0

    def _emit(self, op: str, parts: list[str | int], old: Any, new: Any) -> None:
        self.total += 1
        if len(self.ops) < self.max_ops:
            self.ops.append((op, list(parts), old, new))

    def run(self, a: Any, b: Any, parts: list[str | int] | None = None) -> Diff:
        self._walk(a, b, parts or [])
        return self

    def _walk(self, a: Any, b: Any, parts: list[str | int]) -> None:
        if a is b or self.total >= self.count_limit:
            return
        if isinstance(a, dict) and isinstance(b, dict) and a.get("$t") is None and b.get("$t") is None:
            for k, va in a.items():
                if k not in b:
                    self._emit("remove", [*parts, k], va, None)
            for k, vb in b.items():
                if k not in a:
                    self._emit("add", [*parts, k], None, vb)
                else:
                    va = a[k]
                    if va is not vb:
                        self._walk(va, vb, [*parts, k])
            return
        if isinstance(a, list) and isinstance(b, list):
            n = min(len(a), len(b))
            for i in range(n):
                if a[i] is not b[i]:
                    self._walk(a[i], b[i], [*parts, i])
            for i in range(len(a) - 1, n - 1, -1):
                self._emit("remove", [*parts, i], a[i], None)
            for i in range(n, len(b)):
                self._emit("add", [*parts, i], None, b[i])
            return
        if type(a) is not type(b) or a != b:
            self._emit("replace", parts, a, b)

    @property
    def truncated(self) -> bool:
        return self.total > len(self.ops)

    def patch(self) -> list[dict[str, Any]]:
        out = []
        for op, parts, _old, new in self.ops:
            item: dict[str, Any] = {"op": op, "path": pointer(parts)}
            if op != "remove":
                item["value"] = new
            out.append(item)
        return out
