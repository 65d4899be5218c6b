"""Redaction at the agent boundary for page data: structured values (state, object console arguments) go through
the shared Redactor (secret-named keys, credential-shaped strings); free text (console lines, errors, relayed
frames) through the shared `scrub_text` (credential shapes, `"token": "..."` and `password=...` pairs in JSON,
Python reprs and logs, "the password is ..."). Password field values never leave the page at all (the SDK masks
them)."""

from __future__ import annotations

from typing import Any

from ..redact import Redactor, scrub_text

__all__ = ["Redactor", "scrub_message", "scrub_text"]

_OBJECTS = Redactor()  # object arguments of console lines inside command effects


def scrub_message(msg: dict[str, Any], redactor: Redactor) -> dict[str, Any]:
    """A relayed app message safe for an agent (a copy only where something changed)."""
    kind = msg.get("type")
    if kind == "console":
        args = msg.get("args")
        if isinstance(args, list):
            new = [scrub_text(a) if isinstance(a, str) else redactor.redact(a) for a in args]
            if any(a is not b for a, b in zip(new, args, strict=True)):
                return {**msg, "args": new}
    elif kind in ("error", "unhandledrejection"):
        return _scrub_fields(msg, ERROR_FIELDS)
    elif kind == "navigation":
        return _scrub_fields(msg, ("url",))
    elif kind == "state_update":
        state = redactor.redact(msg.get("state"))
        if state is not msg.get("state"):
            return {**msg, "state": state}
    elif kind == "dom_snapshot" and isinstance(msg.get("html"), str):
        html = scrub_text(msg["html"])
        if html is not msg["html"]:
            return {**msg, "html": html}
    elif kind == "ui_tree" and isinstance(msg.get("items"), list):
        items = [
            _scrub_fields(it, ("name", "text", "value", "href")) if isinstance(it, dict) else it for it in msg["items"]
        ]
        out = _scrub_fields(msg, ("url",))
        if out is not msg or any(a is not b for a, b in zip(items, msg["items"], strict=True)):
            return {**out, "items": items}
    elif kind == "dom_mutations" and isinstance(msg.get("mutations"), list):
        records = [_scrub_record(r) if isinstance(r, dict) else r for r in msg["mutations"]]
        if any(a is not b for a, b in zip(records, msg["mutations"], strict=True)):
            return {**msg, "mutations": records}
    elif kind == "command_result":
        out = _scrub_fields(msg, ("result", "error"))
        effects = msg.get("effects")
        if isinstance(effects, dict):
            new = _scrub_effects(effects)
            if new is not effects:
                out = {**out, "effects": new}
        return out
    return msg


ERROR_FIELDS = ("message", "stack", "reason", "filename")


def _scrub_list(items: Any, scrub) -> Any:
    if not isinstance(items, list):
        return items
    new = [scrub(x) for x in items]
    return items if all(a is b for a, b in zip(new, items, strict=True)) else new


def _scrub_effects(effects: dict[str, Any]) -> dict[str, Any]:
    """The effects of a command: console lines, errors and navigations observed during its window."""
    out = _scrub_fields(effects, ("navigated",))
    console = _scrub_list(
        effects.get("console"),
        lambda c: {**c, "args": _scrub_list(c.get("args"), _text)} if isinstance(c, dict) else c,
    )
    errors = _scrub_list(effects.get("errors"), lambda e: _scrub_fields(e, ERROR_FIELDS) if isinstance(e, dict) else e)
    navs = _scrub_list(effects.get("navigations"), lambda n: _scrub_fields(n, ("url",)) if isinstance(n, dict) else n)
    for key, new in (("console", console), ("errors", errors), ("navigations", navs)):
        if new is not effects.get(key):
            out = {**out, key: new}
    return out


def _text(v: Any) -> Any:
    return scrub_text(v) if isinstance(v, str) else _OBJECTS.redact(v)


def _scrub_fields(item: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    changed = {k: scrub_text(item[k]) for k in keys if isinstance(item.get(k), str)}
    changed = {k: v for k, v in changed.items() if v is not item[k]}
    return {**item, **changed} if changed else item


def _scrub_record(rec: dict[str, Any]) -> dict[str, Any]:
    out = _scrub_fields(rec, ("textContent", "attributeValue"))
    for key in ("addedNodes", "removedNodes"):
        nodes = out.get(key)
        if isinstance(nodes, list):
            new = [scrub_text(n) if isinstance(n, str) else n for n in nodes]
            if any(a is not b for a, b in zip(new, nodes, strict=True)):
                out = {**out, key: new}
    return out
