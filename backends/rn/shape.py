"""Bounding what reaches the agent: compact JSON, size estimates, and caps that say what they left out."""

from __future__ import annotations

import json
from typing import Any

MAX_RESPONSE_BYTES = 100_000  # ~25k tokens: the hard budget of one tool result's data
MAX_VALUE_BYTES = 4096  # one value inside a diff change
TEXT_BYTES = 6000  # the text block's JSON excerpt


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def size(value: Any) -> int:
    return len(dumps(value))


def cap_value(value: Any, limit: int = MAX_VALUE_BYTES) -> Any:
    """The value, or a `$trunc` marker with a preview when its JSON is larger than `limit`."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    text = dumps(value)
    if len(text) <= limit:
        return value
    return {"$trunc": "value", "bytes": len(text), "preview": text[:200]}


def excerpt(value: Any, limit: int = TEXT_BYTES) -> str:
    text = dumps(value)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} chars; full value in structured content)"


def key_sizes(value: Any, top: int = 20) -> dict[str, int]:
    """Sizes of a container's biggest children, to help pick a scope."""
    if isinstance(value, dict):
        items = [(str(k), size(v)) for k, v in value.items()]
    elif isinstance(value, list):
        items = [(f"[{i}]", size(v)) for i, v in enumerate(value)]
    else:
        return {}
    items.sort(key=lambda kv: -kv[1])
    return dict(items[:top])


def fit_resource(value: Any, limit: int = MAX_RESPONSE_BYTES * 4) -> Any:
    """A resource body within `limit`: the value, or its top level with big children replaced by markers."""
    if size(value) <= limit or not isinstance(value, dict):
        return value if size(value) <= limit else {"$trunc": "value", "bytes": size(value)}
    out: dict[str, Any] = {}
    budget = limit
    for k, v in value.items():
        n = size(v)
        if n <= min(budget, limit // 4):
            out[k] = v
            budget -= n
        else:
            out[k] = {"$trunc": "size", "bytes": n, "hint": f"debug_get_snapshot(scope='{k}')"}
    return out
