"""A client flow written for mcp-debugger 0.24.2, as data: each step is (tool, arguments, what to keep from the
answer). Arguments name what earlier answers gave as "{key}" (a session id, a breakpoint id, a frame id, a scope);
a step whose tool is WAIT polls list_debug_sessions until the session is in that state."""

from __future__ import annotations

from typing import Any

from support import prog

SWAP = prog("swap_vars.py")
CRASH = prog("crash.py")
WAIT = "(wait for state)"


def keep(**paths: tuple[Any, ...]):
    """A step's keeper: remember payload[path...] under each name."""

    def keeper(payload: Any, ids: dict[str, Any]) -> None:
        for name, path in paths.items():
            value = payload
            for key in path:
                value = value[key]
            ids[name] = value

    return keeper


FLOW: list[tuple] = [
    ("list_supported_languages", {}),
    ("create_debug_session", {"language": "python", "name": "flow"}, keep(sid=("sessionId",))),
    ("set_breakpoint", {"sessionId": "{sid}", "file": SWAP, "line": 9, "expectedContent": "a = b"}),
    (
        "set_breakpoint",
        {"sessionId": "{sid}", "file": SWAP, "statement": 'print(f"Swapped'},
        keep(bp=("breakpointId",)),
    ),
    ("set_breakpoint", {"sessionId": "{sid}", "file": SWAP, "line": 18, "logMessage": "x={x}"}),
    ("set_breakpoint", {"sessionId": "{sid}", "file": SWAP, "line": 9, "expectedContent": "nothing like it"}),
    ("list_breakpoints", {"sessionId": "{sid}"}),
    ("remove_breakpoint", {"sessionId": "{sid}", "breakpointId": "{bp}"}),
    ("remove_breakpoint", {"sessionId": "{sid}", "breakpointId": "no-such-breakpoint"}),
    ("start_debugging", {"sessionId": "{sid}", "scriptPath": SWAP, "breakOnExceptions": "uncaught"}),
    ("list_debug_sessions", {}),
    ("get_stack_trace", {"sessionId": "{sid}", "includeInternals": False}, keep(frame=("stackFrames", 0, "id"))),
    ("get_scopes", {"sessionId": "{sid}", "frameId": "{frame}"}, keep(scope=("scopes", 0, "variablesReference"))),
    ("get_variables", {"sessionId": "{sid}", "scope": "{scope}"}),
    ("get_variables", {"sessionId": "{sid}", "scope": "{scope}", "names": ["a", "nope"]}),
    ("get_local_variables", {"sessionId": "{sid}"}),
    ("evaluate_expression", {"sessionId": "{sid}", "expression": "a + b", "timeout": 5000}),
    ("evaluate_expression", {"sessionId": "{sid}", "expression": "undefined_name"}),
    ("get_source_context", {"sessionId": "{sid}", "file": SWAP, "line": 15, "linesContext": 2}),
    ("list_threads", {"sessionId": "{sid}"}),
    ("step_over", {"sessionId": "{sid}"}),
    ("step_into", {"sessionId": "{sid}"}),
    ("step_out", {"sessionId": "{sid}"}),
    ("expose_session", {"sessionId": "{sid}"}),
    ("unexpose_session", {"sessionId": "{sid}"}),
    ("redefine_classes", {"sessionId": "{sid}", "classesDir": "/nonexistent-classes"}),
    ("continue_execution", {"sessionId": "{sid}"}),
    (WAIT, {"sessionId": "{sid}", "state": "stopped"}),
    ("get_output", {"sessionId": "{sid}", "since": 0, "limit": 50}),
    ("restart_debugging", {"sessionId": "{sid}"}),
    ("clear_breakpoints", {"sessionId": "{sid}"}),
    ("continue_execution", {"sessionId": "{sid}"}),
    (WAIT, {"sessionId": "{sid}", "state": "stopped"}),
    ("close_debug_session", {"sessionId": "{sid}"}),
    ("create_debug_session", {"language": "python"}, keep(crash=("sessionId",))),
    ("set_breakpoint", {"sessionId": "{crash}", "function": "divide"}),
    ("start_debugging", {"sessionId": "{crash}", "scriptPath": CRASH}),
    ("continue_execution", {"sessionId": "{crash}"}),
    (WAIT, {"sessionId": "{crash}", "state": "paused"}),
    ("get_stack_trace", {"sessionId": "{crash}"}),
    ("close_debug_session", {"sessionId": "{crash}"}),
    ("step_over", {"sessionId": "no-such-session"}),
    ("get_stack_trace", {"sessionId": "no-such-session"}),
    ("close_debug_session", {"sessionId": "no-such-session"}),
    ("no_such_tool", {}),
]


def substitute(value: Any, ids: dict[str, Any]) -> Any:
    """`value` with every "{key}" string replaced by what was kept under key."""
    if isinstance(value, str) and value.startswith("{") and value.endswith("}") and value[1:-1] in ids:
        return ids[value[1:-1]]
    if isinstance(value, dict):
        return {k: substitute(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, ids) for v in value]
    return value
