"""Seed 000's WebKit Inspector tool surface as data: each tool's description, argument schema (snake_case, 0-based
lines), whether it only reads, and its result shape (the seed's **Returns**, declared as the tool's outputSchema),
plus the seed's words for states, scopes and error codes. The handlers live in `webkit_inspector.py`; nothing here
runs."""

from __future__ import annotations

from typing import Any

from pairdbg.backends.errors import ErrorCode
from pairdbg.backends.models import Phase

from .common import NULLABLE_INT, NULLABLE_STRING, prop, shape

SID = prop("string", "ID of the debugging session")
SESSION_ONLY = {"session_id": SID}

#: pairdbg phase -> the seed's SessionState
STATES = {
    Phase.STARTING: "connecting",
    Phase.RUNNING: "running",
    Phase.RECONNECTING: "connecting",
    Phase.PAUSED: "paused",
    Phase.TERMINATED: "disconnected",
    Phase.DISCONNECTED: "disconnected",
    Phase.ERROR: "disconnected",
}
#: pairdbg's error codes -> the seed's six
CODES = {
    ErrorCode.NOT_PAUSED: "SESSION_INVALID_STATE",
    ErrorCode.BUSY: "SESSION_INVALID_STATE",
    ErrorCode.PATH_NOT_FOUND: "INVALID_PARAMETERS",
    ErrorCode.LIMIT_EXCEEDED: "INVALID_PARAMETERS",
    ErrorCode.NOT_CONNECTED: "CONNECTION_FAILED",
    ErrorCode.CAPABILITY_UNSUPPORTED: "PROTOCOL_ERROR",
    ErrorCode.INTERNAL: "PROTOCOL_ERROR",
}
SEED_CODES = {
    "SESSION_NOT_FOUND",
    "SESSION_INVALID_STATE",
    "CONNECTION_FAILED",
    "PROTOCOL_ERROR",
    "INVALID_PARAMETERS",
    "TIMEOUT",
}
#: pairdbg scope name (its first word) -> the seed's scope type
SCOPE_TYPES = {
    "Locals": "local",
    "Closure": "closure",
    "Global": "global",
    "Script": "script",
    "Block": "block",
    "Module": "module",
}

# ----- result shapes ------------------------------------------------------------------------------------------------

#: the CDP/WebKit RemoteObject the seed shows for values
REMOTE_OBJECT = shape(
    {"type": {"type": "string"}},
    {
        "subtype": {"type": "string"},
        "className": {"type": "string"},
        "description": {"type": "string"},
        "value": {},
        "unserializableValue": {"type": "string"},
        "objectId": {"type": "string"},
    },
)
LOCATION = {"url": NULLABLE_STRING, "line_number": NULLABLE_INT, "column_number": NULLABLE_INT}
ASYNC_FRAME = shape({"function_name": {"type": "string"}, **LOCATION})
CALL_FRAME = shape(
    {
        "call_frame_id": {"type": "string"},
        "function_name": {"type": "string"},
        **LOCATION,
        "scope_chain": {
            "type": "array",
            "items": shape(
                {"type": {"type": "string"}, "object": shape({"type": {"type": "string"}}, {"objectId": {}})}
            ),
        },
    }
)


def done(**extra: dict[str, Any]) -> dict[str, Any]:
    """The seed's acknowledgement: success, and what it acted on."""
    return shape({"success": {"const": True}, **extra})


STEPPING = done(state={"enum": ["stepping", "paused", "running", "disconnected"]})

# ----- the tools ------------------------------------------------------------------------------------------------------

#: tool name -> description, properties, required, read_only, result; in the seed's order
TOOLS: dict[str, dict[str, Any]] = {
    "connect_debugger": {
        "description": "Connect to a WebKit Inspector / DevTools WebSocket endpoint",
        "properties": {
            "websocket_url": prop(
                "string", "WebSocket URL of the inspector endpoint (e.g. ws://localhost:9222/devtools/page/1)"
            ),
            "session_name": prop("string", "Optional human-readable name for the debugging session"),
        },
        "required": ["websocket_url"],
        "result": shape(
            {
                "session_id": {"type": "string"},
                "state": {"enum": ["connected", "paused", "disconnected"]},
                "target_info": shape({"title": NULLABLE_STRING, "url": NULLABLE_STRING}),
            }
        ),
    },
    "disconnect_debugger": {
        "description": "Close a debugging session (the target keeps running)",
        "properties": SESSION_ONLY,
        "required": ["session_id"],
        "result": done(session_id={"type": "string"}),
    },
    "set_breakpoint": {
        "description": "Set a breakpoint at a script URL and 0-based line",
        "properties": {
            "session_id": SID,
            "url": prop("string", "URL of the script (file:// URLs and paths for local scripts)"),
            "line_number": prop("integer", "Line number (0-based)"),
            "column_number": prop("integer", "Optional column number (0-based); only 0 is supported"),
            "condition": prop("string", "Optional condition that must be true for the breakpoint to trigger"),
            "ignore_count": prop("integer", "Number of times to ignore this breakpoint before stopping", default=0),
        },
        "required": ["session_id", "url", "line_number"],
        "result": shape(
            {
                "breakpoint_id": {"type": "string"},
                "locations": {
                    "type": "array",
                    "items": shape({"line_number": NULLABLE_INT, "column_number": {"type": "integer"}}),
                },
            }
        ),
    },
    "remove_breakpoint": {
        "description": "Remove a breakpoint",
        "properties": {"session_id": SID, "breakpoint_id": prop("string", "ID of the breakpoint to remove")},
        "required": ["session_id", "breakpoint_id"],
        "result": done(breakpoint_id={"type": "string"}),
    },
    "list_breakpoints": {
        "description": "List the breakpoints of a session",
        "properties": SESSION_ONLY,
        "required": ["session_id"],
        "read_only": True,
        "result": shape(
            {
                "breakpoints": {
                    "type": "array",
                    "items": shape(
                        {
                            "id": {"type": "string"},
                            "url": NULLABLE_STRING,
                            "line_number": NULLABLE_INT,
                            "column_number": {"type": "integer"},
                            "condition": NULLABLE_STRING,
                            "enabled": {"type": "boolean"},
                        }
                    ),
                }
            }
        ),
    },
    "resume_execution": {
        "description": "Resume execution (the next pause changes debug://sessions)",
        "properties": SESSION_ONLY,
        "required": ["session_id"],
        "result": done(state={"enum": ["running", "paused", "disconnected"]}),
    },
    "step_over": {
        "description": "Step over the current statement",
        "properties": SESSION_ONLY,
        "required": ["session_id"],
        "result": STEPPING,
    },
    "step_into": {
        "description": "Step into a function call",
        "properties": SESSION_ONLY,
        "required": ["session_id"],
        "result": STEPPING,
    },
    "step_out": {
        "description": "Step out of the current function",
        "properties": SESSION_ONLY,
        "required": ["session_id"],
        "result": STEPPING,
    },
    "pause_execution": {
        "description": "Pause at the next possible opportunity",
        "properties": SESSION_ONLY,
        "required": ["session_id"],
        "result": done(state={"enum": ["pausing", "paused", "running", "disconnected"]}),
    },
    "get_call_stack": {
        "description": "The call stack while paused (0-based lines)",
        "properties": {
            "session_id": SID,
            "include_async": prop("boolean", "Whether to include asynchronous stack traces", default=True),
        },
        "required": ["session_id"],
        "read_only": True,
        "result": shape(
            {"call_frames": {"type": "array", "items": {"$ref": "#/$defs/frame"}}},
            {
                "async_stack_trace": shape(
                    {"description": {"type": "string"}, "call_frames": {"type": "array", "items": ASYNC_FRAME}}
                )
            },
            defs={"frame": CALL_FRAME},
        ),
    },
    "evaluate_expression": {
        "description": "Evaluate JavaScript in a call frame, or globally without call_frame_id",
        "properties": {
            "session_id": SID,
            "expression": prop("string", "JavaScript expression to evaluate"),
            "call_frame_id": prop("string", "Call frame ID to evaluate in (default: the global context)"),
            "return_by_value": prop("boolean", "Return the value itself, not only a reference", default=True),
        },
        "required": ["session_id", "expression"],
        "result": shape(
            {
                "result": {"$ref": "#/$defs/remote"},
                "exception_details": {
                    "anyOf": [
                        {"type": "null"},
                        shape({"text": {"type": "string"}, "exception": {"$ref": "#/$defs/remote"}}),
                    ]
                },
            },
            defs={"remote": REMOTE_OBJECT},
        ),
    },
    "get_scope_variables": {
        "description": "Variables of one scope of a call frame",
        "properties": {
            "session_id": SID,
            "call_frame_id": prop("string", "ID of the call frame"),
            "scope_index": prop("integer", "Index of the scope in the scope chain (0 is local scope)", default=0),
        },
        "required": ["session_id", "call_frame_id"],
        "read_only": True,
        "result": shape(
            {"variables": {"type": "array", "items": shape({"name": {"type": "string"}, "value": REMOTE_OBJECT})}},
            {"total": {"type": "integer"}},
        ),
    },
    "set_variable_value": {
        "description": "Set a variable in a scope of a call frame",
        "properties": {
            "session_id": SID,
            "call_frame_id": prop("string", "ID of the call frame containing the variable"),
            "scope_index": prop("integer", "Index of the scope containing the variable"),
            "variable_name": prop("string", "Name of the variable to modify"),
            "new_value": prop("string", "JavaScript expression that evaluates to the new value"),
        },
        "required": ["session_id", "call_frame_id", "scope_index", "variable_name", "new_value"],
        "result": done(),
    },
    "set_pause_on_exceptions": {
        "description": "When to pause on exceptions",
        "properties": {
            "session_id": SID,
            "state": prop("string", "none, uncaught or all", enum=["none", "uncaught", "all"]),
        },
        "required": ["session_id", "state"],
        "result": done(state={"enum": ["none", "uncaught", "all"]}),
    },
}
