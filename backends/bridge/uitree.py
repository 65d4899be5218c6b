"""The UI tree as agents read it: one line per element, `role "name" [states] @e12`, capped with an explicit
truncation line; `find` by text; a diff keyed by handle for what an action changed (PROTOCOL.md §4).

Items come from the page (it mints the handles); this module only renders, scopes, searches and diffs them.
"""

from __future__ import annotations

import json
from typing import Any

Item = dict[str, Any]

DEFAULT_MAX_CHARS = 12_000  # ~3k tokens
VALUE_CHARS = 40
NAME_CHARS = 80


def handle(item: Item) -> str:
    return f"@{item.get('ref')}" if item.get("ref") else ""


def parse_handle(text: str) -> str | None:
    """'@e12' or 'e12' -> 'e12'; anything else -> None."""
    t = text.strip().lstrip("@")
    return t if len(t) > 1 and t[0] == "e" and t[1:].isdigit() else None


def _quote(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return json.dumps(text, ensure_ascii=False)


def line(item: Item) -> str:
    """One element without indentation, e.g. `textbox "Name" [value="Ada"] [focused] @e3`."""
    parts = [str(item.get("role") or "generic")]
    name = item.get("name") or item.get("text")
    if name:
        parts.append(_quote(name, NAME_CHARS))
    states = item.get("states") or {}
    if item.get("level"):
        parts.append(f"[level={item['level']}]")
    value = item.get("value")
    if value not in (None, ""):
        parts.append(f"[value={_quote(value, VALUE_CHARS)}]")
    for key in ("checked", "pressed", "selected", "expanded"):
        if states.get(key) is True:
            parts.append(f"[{key}]")
        elif states.get(key) is False and key == "expanded":
            parts.append("[collapsed]")
    if item.get("disabled"):
        parts.append("[disabled]")
    for key in ("focused", "required", "readonly", "invalid"):
        if states.get(key):
            parts.append(f"[{key}]")
    if item.get("visible") is False:
        parts.append("[hidden]")
    href = item.get("href")
    if href:
        parts.append(f"[url={_quote(href, 60)}]")
    testid = (item.get("meta") or {}).get("testid")
    if testid:
        parts.append(f"[testid={testid}]")
    ref = handle(item)
    if ref:
        parts.append(ref)
    return " ".join(parts)


def scope_items(items: list[Item], ref: str) -> list[Item] | None:
    """The element with handle `ref` and its listed descendants (contiguous in document order); None if absent."""
    for i, item in enumerate(items):
        if item.get("ref") == ref:
            base = int(item.get("depth") or 0)
            out = [item]
            for later in items[i + 1 :]:
                if int(later.get("depth") or 0) <= base:
                    break
                out.append(later)
            return out
    return None


def render(
    items: list[Item],
    *,
    header: str,
    max_chars: int = DEFAULT_MAX_CHARS,
    include_hidden: bool = False,
) -> tuple[str, dict[str, int]]:
    """Text lines under a header; stops before `max_chars` with a line saying how many were left out."""
    shown_items = [it for it in items if include_hidden or it.get("visible") is not False]
    hidden = len(items) - len(shown_items)
    base = min((int(it.get("depth") or 0) for it in shown_items), default=0)
    lines: list[str] = []
    used = 0
    for item in shown_items:
        text = "  " * max(0, int(item.get("depth") or 0) - base) + "- " + line(item)
        if used + len(text) + 1 > max_chars and lines:
            break
        lines.append(text)
        used += len(text) + 1
    left = len(shown_items) - len(lines)
    counts = {"elements": len(items), "shown": len(lines), "hidden": hidden, "not_shown": left}
    head = f"{header} elements={len(items)} shown={len(lines)}"
    if hidden:
        head += f" hidden={hidden} (include_hidden=true lists them)"
    out = [head, *lines]
    if left:
        out.append(
            f"... {left} more elements not shown (get_ui_tree scope=@eN for one part, find_element text=... "
            "to search, or a larger max_chars)"
        )
    if not shown_items:
        out.append("(no interactive elements, headings or landmarks on this page)")
    return "\n".join(out), counts


def _path(items: list[Item], index: int) -> list[Item]:
    """Listed ancestors of items[index], nearest first."""
    depth = int(items[index].get("depth") or 0)
    out = []
    for item in reversed(items[:index]):
        d = int(item.get("depth") or 0)
        if d < depth:
            out.append(item)
            depth = d
            if d == 0:
                break
    return out


def find(items: list[Item], text: str | None, role: str | None, limit: int = 30) -> tuple[list[str], int]:
    """Elements whose name, text, value, test id or placeholder contains `text` (case-insensitive), optionally of
    one role; each with the names of its containers so near-duplicates can be told apart."""
    needle = (text or "").casefold()
    want_role = (role or "").casefold()
    matches: list[str] = []
    total = 0
    for i, item in enumerate(items):
        if want_role and str(item.get("role") or "").casefold() != want_role:
            continue
        meta = item.get("meta") or {}
        hay = " ".join(
            str(v)
            for v in (
                item.get("name"),
                item.get("text"),
                item.get("value"),
                meta.get("testid"),
                meta.get("placeholder"),
            )
            if v
        ).casefold()
        if needle and needle not in hay:
            continue
        total += 1
        if len(matches) < limit:
            where = " > ".join(
                f"{a.get('role')} {_quote(a['name'], 30)}" if a.get("name") else str(a.get("role"))
                for a in _path(items, i)[:3]
            )
            matches.append(f"- {line(item)}" + (f"   in {where}" if where else ""))
    return matches, total


def diff(old: list[Item], new: list[Item], limit: int = 20) -> list[str]:
    """What changed between two trees, keyed by handle: `+` added, `-` removed, `~` changed (new text shown)."""
    before = {it.get("ref"): line(it) for it in old if it.get("ref")}
    after = {it.get("ref"): line(it) for it in new if it.get("ref")}
    out: list[str] = []
    for ref, text in after.items():
        if ref not in before:
            out.append(f"+ {text}")
        elif before[ref] != text:
            out.append(f"~ {text}")
    out.extend(f"- {text}" for ref, text in before.items() if ref not in after)
    if len(out) > limit:
        out = [*out[:limit], f"... {len(out) - limit} more changes (get_ui_tree for the whole tree)"]
    return out
