"""The structured content the default MCP surface sends: what a program needs from a reply (ids, handles, states,
locations, values), never a second rendering of the text block beside it.

The core's replies carry full views (the TUI and the seed profiles build on them); hosts that hand both the text and
the structured content to a model paid for every stop twice. Here a stop keeps its place, cause, exception and the
handles to drill into, and loses the source lines, the output tail and the frame list the text already shows.
"""

from __future__ import annotations

from typing import Any

# Keys of a stop report that the text shows in full and a program can ask for again by handle or cursor.
STOP_TEXT_ONLY = ("source", "output_tail", "description", "thread_name", "locals_total", "stack_total")


def lean(data: dict[str, Any]) -> dict[str, Any]:
    """`data` as structured content: stops made lean, the output tail (in the text) left out."""
    out = {k: v for k, v in data.items() if k != "output_tail"}
    stop = out.get("stop")
    if isinstance(stop, dict):
        out["stop"] = lean_stop(stop)
    for key in ("variables", "scopes"):
        if isinstance(out.get(key), list):
            out[key] = [lean_variable(v) for v in out[key]]
    return out


def lean_stop(stop: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in stop.items() if k not in STOP_TEXT_ONLY and k not in ("locals", "stack", "watches")}
    out.pop("session_id", None)  # the reply says it once, at the top
    site = stop.get("raise_site")
    written = stop.get("write_site")
    exception = stop.get("exception")
    if isinstance(exception, dict):
        # raised_at says in a sentence where the raise site (when there is one) already says it with its handle
        keys = ("type", "message") if isinstance(site, dict) else ("type", "message", "raised_at")
        out["exception"] = {k: exception[k] for k in keys if exception.get(k)}
    out.update(lean_locals(stop.get("locals") or []))
    if isinstance(site, dict):
        out["raise_site"] = {
            **{k: site[k] for k in ("handle", "function", "file", "line", "package") if site.get(k) is not None},
            **lean_locals(site.get("locals") or []),
        }
    if isinstance(written, dict):
        out["write_site"] = {
            **{k: written[k] for k in ("handle", "function", "file", "line", "package") if written.get(k) is not None},
            **lean_locals(written.get("locals") or []),
        }
    frames = stop.get("stack") or []
    if frames:
        out["frames"] = len(frames) if stop.get("stack_total") is None else stop["stack_total"]
    watches = stop.get("watches") or []
    if watches:
        out["watches"] = {w["expression"]: w.get("value") for w in watches if "expression" in w}
    return out


def lean_locals(views: list[dict[str, Any]]) -> dict[str, Any]:
    """Values by name, and the handle of each one that has children: what a program reads or expands next."""
    out: dict[str, Any] = {"locals": {v["name"]: v.get("value") for v in views if "name" in v}}
    handles = {v["name"]: v["handle"] for v in views if v.get("handle")}
    if handles:
        out["handles"] = handles
    return out


def lean_variable(view: dict[str, Any]) -> dict[str, Any]:
    """name, value, and the handle when it can be expanded (the type is in the text)."""
    keep = {k: view[k] for k in ("name", "value", "handle") if view.get(k) is not None}
    if view.get("truncated"):
        keep["truncated"] = True
    return keep
