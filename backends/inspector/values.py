"""Turns inspector RemoteObjects into the short value strings people and agents read."""

from __future__ import annotations

import json
from typing import Any


def type_of(obj: dict[str, Any]) -> str:
    kind = obj.get("type", "undefined")
    if kind == "object":
        subtype = obj.get("subtype")
        if subtype == "null":
            return "null"
        if subtype == "internal#entry":
            return "entry"
        return obj.get("className") or subtype or "Object"
    return kind


def describe(obj: dict[str, Any]) -> str:
    """A one-line rendering: primitives as JS literals, objects with a short preview when the engine gave one."""
    kind = obj.get("type", "undefined")
    if kind == "undefined":
        return "undefined"
    if kind == "string":
        return json.dumps(obj.get("value", ""))
    if kind in ("number", "boolean", "bigint"):
        if "unserializableValue" in obj:
            return str(obj["unserializableValue"])
        if "value" in obj and obj["value"] is not None:
            value = obj["value"]
            return ("true" if value else "false") if kind == "boolean" else json.dumps(value)
        return str(obj.get("description", ""))
    if kind == "symbol":
        return str(obj.get("description", "Symbol()"))
    if kind == "function":
        text = str(obj.get("description", "function"))
        return text.split("\n", 1)[0][:80]
    if obj.get("subtype") == "null":
        return "null"
    if obj.get("subtype") == "internal#entry":  # V8: one entry of a Map or Set, `{"k0" => 0}`
        return str(obj.get("description", "")).removeprefix("{").removesuffix("}")
    preview = obj.get("preview")
    if preview and preview.get("entries") is not None:
        return _collection_text(obj, preview)
    if preview and preview.get("properties") is not None:
        return _preview_text(obj, preview)
    return str(obj.get("description") or obj.get("className") or "Object")


def collection_size(obj: dict[str, Any]) -> int | None:
    """Entries of a Map/Set: JSC says `size`, V8 writes it into the description (`Map(10000)`) and preview."""
    if isinstance(obj.get("size"), int):
        return obj["size"]
    for prop in (obj.get("preview") or {}).get("properties") or []:
        if prop.get("name") == "size" and str(prop.get("value", "")).isdigit():
            return int(prop["value"])
    return None


def _preview_value(preview: dict[str, Any]) -> str:
    text = str(preview.get("description", ""))
    return json.dumps(text) if preview.get("type") == "string" else text


def _collection_text(obj: dict[str, Any], preview: dict[str, Any]) -> str:
    parts = []
    for entry in preview.get("entries") or []:
        value = _preview_value(entry.get("value") or {})
        parts.append(f"{_preview_value(entry['key'])} => {value}" if entry.get("key") else value)
    size = collection_size(obj)
    if preview.get("overflow") or (size is not None and size > len(parts)):
        parts.append("…")
    name = obj.get("className") or "Object"
    return f"{name}({size}) {{{', '.join(parts)}}}" if size is not None else f"{name} {{{', '.join(parts)}}}"


def _preview_text(obj: dict[str, Any], preview: dict[str, Any]) -> str:
    props = preview.get("properties") or []
    if obj.get("subtype") in ("array", "typedarray"):  # V8 adds buffer, byteLength, … to a typed array's preview
        props = [p for p in props if str(p.get("name", "")).isdigit()]
    more = preview.get("overflow") or (preview.get("lossless") is False and len(props) < (preview.get("size") or 0))
    is_array = obj.get("subtype") in ("array", "typedarray") or preview.get("subtype") in ("array", "typedarray")
    parts = []
    for prop in props:
        value = prop.get("value", "")
        if prop.get("type") == "string":
            value = json.dumps(value)
        elif prop.get("type") == "function":
            value = "ƒ"
        elif prop.get("type") == "object" and not value:
            value = "Array" if prop.get("subtype") == "array" else "{…}"
        parts.append(value if is_array else f"{prop.get('name')}: {value}")
    if more:
        parts.append("…")
    body = ", ".join(parts)
    if is_array:
        return f"{obj.get('description', 'Array')} [{body}]"
    name = obj.get("className") or "Object"
    prefix = "" if name == "Object" else name + " "
    return f"{prefix}{{{body}}}"
