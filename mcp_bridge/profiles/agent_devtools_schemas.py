"""Seed 003's React Native Agent DevTools tool surface as data: each tool's description, argument schema, and its
result shape (the seed's §3 **Returns**, declared as the tool's outputSchema; none for the two tools that return a
bare payload, a snapshot or a state value), plus the field the seed returns alone and its error codes. The handlers
live in `agent_devtools.py`; nothing here runs."""

from __future__ import annotations

from typing import Any

from pairdbg.backends.errors import ErrorCode

from .common import NULLABLE_STRING, prop, shape

STREAM = prop("string", "Target stream", enum=["redux", "navigation", "mmkv"])
#: pairdbg codes -> the seed's (§5); codes the seed does not name keep pairdbg's string
CODES = {ErrorCode.INVALID_PARAMETERS: "INVALID_PARAMS", ErrorCode.BAD_REQUEST: "INVALID_PARAMS"}

NUMBER = {"type": "number"}
NULLABLE_NUMBER = {"type": ["number", "null"]}
SEQ = {"type": ["integer", "null"]}

#: tool name -> description, properties, required, read_only, bare (the reply field the seed returns alone),
#: result; in the seed's order. Every tool only reads the app's state.
TOOLS: dict[str, dict[str, Any]] = {
    "debug_health_check": {
        "description": "Check connection status and adapter capabilities (never fails for a missing app)",
        "properties": {},
        "read_only": True,
        "result": shape(
            {
                "connected": {"type": "boolean"},
                "adapter": {
                    "anyOf": [
                        {"type": "null"},
                        shape(
                            {},
                            {
                                "sessionId": NULLABLE_STRING,
                                "adapterVersion": NULLABLE_STRING,
                                "uptime": NULLABLE_NUMBER,
                                "connectedAt": NULLABLE_STRING,
                            },
                        ),
                    ]
                },
                "streams": {
                    "type": "array",
                    "items": shape(
                        {
                            "name": {"type": "string"},
                            "active": {"type": "boolean"},
                            "eventCount": NUMBER,
                            "lastEventAt": NULLABLE_STRING,
                        }
                    ),
                },
            }
        ),
    },
    "debug_list_streams": {
        "description": "List available data streams and their status",
        "properties": {},
        "read_only": True,
        "result": shape(
            {
                "streams": {
                    "type": "array",
                    "items": shape(
                        {
                            "name": {"type": "string"},
                            "active": {"type": "boolean"},
                            "eventCount": NUMBER,
                            "latestSeq": SEQ,
                            "oldestSeq": SEQ,
                            "hasSnapshot": {"type": "boolean"},
                        }
                    ),
                }
            }
        ),
    },
    "debug_get_snapshot": {
        "description": "Latest state snapshot of a stream, scoped by a JSON path if given",
        "properties": {
            "stream": STREAM,
            "scope": prop("string", "JSON path for a partial snapshot (e.g. auth.user), or an MMKV instance"),
        },
        "required": ["stream"],
        "read_only": True,
        "bare": "data",
    },
    "debug_query_events": {
        "description": "Events from a stream's ring buffer, filtered and paginated (ascending seq)",
        "properties": {
            "stream": STREAM,
            "limit": prop("number", "Max events to return (1-200)", default=50),
            "since_seq": prop("number", "Return events after this sequence number"),
            "event_type": prop("string", "Filter by event type (e.g. action_dispatched, route_change)"),
        },
        "required": ["stream"],
        "read_only": True,
        "result": shape(
            {
                "events": {"type": "array", "items": shape({"seq": NUMBER})},
                "hasMore": {"type": "boolean"},
                "oldestSeq": SEQ,
                "latestSeq": SEQ,
            }
        ),
    },
    "debug_get_state_path": {
        "description": "A value from the Redux state tree by dot-notation path",
        "properties": {"path": prop("string", "Dot-notation path (e.g. api.queries, auth.user.role)")},
        "required": ["path"],
        "read_only": True,
        "bare": "value",
    },
    "debug_diff_snapshots": {
        "description": "Structural diff between two snapshots of the same stream",
        "properties": {
            "stream": STREAM,
            "base_seq": prop("number", "Sequence number of the base snapshot"),
            "target_seq": prop("number", "Sequence number of the target snapshot"),
        },
        "required": ["stream", "base_seq", "target_seq"],
        "read_only": True,
        "result": shape(
            {
                "changes": {
                    "type": "array",
                    "items": shape(
                        {"path": {"type": "string"}, "type": {"enum": ["added", "removed", "changed"]}},
                        {"oldValue": {}, "newValue": {}},
                    ),
                },
                "baseSeq": NUMBER,
                "targetSeq": NUMBER,
            }
        ),
    },
}
