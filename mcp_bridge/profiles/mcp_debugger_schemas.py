"""The tool surface of mcp-debugger 0.24.2 as data: each tool's name, one-line description, argument schema
(names, JSON types, enums and required lists as 0.24.2 lists them) and whether it only reads. The handlers live in
`mcp_debugger.py`; nothing here runs."""

from __future__ import annotations

from typing import Any

SID = {"type": "string", "description": "The debug session's ID (create_debug_session)."}
EXCEPTIONS = {
    "type": "string",
    "enum": ["uncaught", "all", "none"],
    "description": "Pause on exceptions: uncaught (launch default), all (where raised), none",
}
NAMES = {
    "type": "array",
    "items": {"type": "string"},
    "description": "Only these variables (exact names); names not in the scope come back in notFound",
}


def prop(kind: str | list[str], description: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "description": description, **extra}


def only_session(description: str, read_only: bool = False) -> dict[str, Any]:
    return {
        "description": description,
        "properties": {"sessionId": SID},
        "required": ["sessionId"],
        "read_only": read_only,
    }


#: tool name -> description, properties, required, read_only; in 0.24.2's listing order
TOOLS: dict[str, dict[str, Any]] = {
    "create_debug_session": {
        "description": "Create a debugging session; with host and port it attaches at once to a running process",
        "properties": {
            "language": prop("string", "Programming language (list_supported_languages)"),
            "name": prop("string", "Optional session name"),
            "executablePath": prop("string", "Interpreter to run the program on (default: found automatically)"),
            "host": prop("string", "Attach mode: host of the debug server (default 127.0.0.1)"),
            "port": prop("number", "Attach mode: port of the debug server"),
            "timeout": prop(
                "number", "Attach mode: connection timeout in ms (accepted; pairdbg applies its own bound)"
            ),
            "verifyTimeout": prop("number", "Attach mode: ms to verify the attach (accepted; pairdbg applies its own)"),
            "adapterConfig": prop("object", "Attach mode: adapter-specific attach settings (pairdbg ignores them)"),
        },
        "required": ["language"],
    },
    "list_supported_languages": {
        "description": "List the debuggable languages, which are installed, and their launch/attach modes",
        "properties": {},
        "read_only": True,
    },
    "list_debug_sessions": {
        "description": "List the sessions with their state; paused ones carry lastStop (why they stopped)",
        "properties": {},
        "read_only": True,
    },
    "set_breakpoint": {
        "description": "Set a breakpoint by file and line, by statement text, or on a function; returns the line's "
        "source context",
        "properties": {
            "sessionId": SID,
            "file": prop("string", "Source file (absolute, or relative to the working directory)"),
            "line": prop("number", "1-based line (or give statement)"),
            "expectedContent": prop("string", "Text expected on that line; a mismatch sets nothing and shows the line"),
            "statement": prop("string", "Text of the target line instead of line (a distinctive part is enough)"),
            "nearLine": prop("number", "With statement: pick the match nearest this line"),
            "function": prop("string", "Break on entry to this function (no file or line)"),
            "condition": prop("string", "Only stop (or log) when this expression is true"),
            "logMessage": prop("string", "A logpoint: log this ({expr} interpolated) instead of stopping"),
            "suspendPolicy": prop("string", "Java only: which threads a hit suspends", enum=["all", "thread"]),
        },
        "required": ["sessionId"],
    },
    "list_breakpoints": {
        "description": "List a session's breakpoints with their verified state, before a start too",
        "properties": {"sessionId": SID, "file": prop("string", "Only breakpoints in this file")},
        "required": ["sessionId"],
        "read_only": True,
    },
    "remove_breakpoint": {
        "description": "Remove a breakpoint by breakpointId, by function name, or by file and line",
        "properties": {
            "sessionId": SID,
            "breakpointId": prop("string", "Id from set_breakpoint or list_breakpoints (wins over file and line)"),
            "function": prop("string", "Remove the function breakpoints on this name"),
            "file": prop("string", "With line: remove every breakpoint at that place"),
            "line": prop("number", "With file"),
        },
        "required": ["sessionId"],
    },
    "clear_breakpoints": {
        "description": "Remove every breakpoint of a session, or of one file",
        "properties": {"sessionId": SID, "file": prop("string", "Only this file's breakpoints")},
        "required": ["sessionId"],
    },
    "start_debugging": {
        "description": "Start the program in a created session; answers once it stops (or runs on)",
        "properties": {
            "sessionId": SID,
            "scriptPath": prop("string", "The program to debug"),
            "args": {"type": "array", "items": {"type": "string"}, "description": "Command line arguments"},
            "dapLaunchArgs": {
                "type": "object",
                "description": "stopOnEntry, justMyCode (default true), cwd, env; other keys ignored with a warning",
                "properties": {"stopOnEntry": {"type": "boolean"}, "justMyCode": {"type": "boolean"}},
                "additionalProperties": True,
            },
            "dryRunSpawn": prop("boolean", "Check the launch and report the command without starting anything"),
            "breakOnExceptions": EXCEPTIONS,
            "adapterLaunchConfig": {
                "type": "object",
                "description": "Adapter-specific launch settings (pairdbg ignores them, with a warning)",
                "additionalProperties": True,
            },
        },
        "required": ["sessionId", "scriptPath"],
    },
    "restart_debugging": only_session(
        "End the program and start it again as last started, breakpoints kept; get_output starts fresh"
    ),
    "attach_to_process": {
        "description": "Attach a created session to a running program's debug server (host and port)",
        "properties": {
            "sessionId": SID,
            "port": prop("number", "Port of the debug server (python -m debugpy --listen PORT)"),
            "host": prop("string", "Host of the debug server (default 127.0.0.1)"),
            "processId": prop(["number", "string"], "Not supported by pairdbg (refused): attach by port"),
            "timeout": prop("number", "Connection timeout in ms (accepted; pairdbg applies its own bound)"),
            "verifyTimeout": prop("number", "ms to verify the attach (accepted; pairdbg applies its own bound)"),
            "sourcePaths": {"type": "array", "items": {"type": "string"}, "description": "Ignored by pairdbg"},
            "stopOnEntry": prop("boolean", "Pause the program once attached"),
            "justMyCode": prop("boolean", "Python: steps skip library code (default true)"),
            "breakOnExceptions": {**EXCEPTIONS, "description": "Pause on exceptions (attach default: none)"},
            "adapterConfig": prop("object", "Adapter-specific attach settings (pairdbg ignores them)"),
        },
        "required": ["sessionId"],
    },
    "detach_from_process": {
        "description": "Detach from the program, leaving it running unless terminateProcess",
        "properties": {"sessionId": SID, "terminateProcess": prop("boolean", "Also end the program (default false)")},
        "required": ["sessionId"],
    },
    "expose_session": only_session(
        "Offer the session to an IDE as a read-only DAP mirror (not in pairdbg: share it in pairdbg's terminal UI)"
    ),
    "unexpose_session": only_session("Close the session's IDE mirror; a no-op when it has none"),
    "close_debug_session": only_session("Close a session and end its program"),
    "step_over": only_session("Step over the current line; answers with the new location and its source"),
    "step_into": only_session("Step into the call on the current line; answers with the new location"),
    "step_out": only_session("Step out of the current function; answers with the new location"),
    "continue_execution": only_session(
        "Resume and answer at once; list_debug_sessions or get_stack_trace shows the next stop"
    ),
    "pause_execution": {
        "description": "Pause the running program",
        "properties": {
            "sessionId": SID,
            "threadId": prop("number", "Thread to pause (accepted; pairdbg pauses every thread)"),
        },
        "required": ["sessionId"],
    },
    "list_threads": only_session("List the program's threads", read_only=True),
    "get_variables": {
        "description": "Variables of a scope or value (scope is a variablesReference)",
        "properties": {
            "sessionId": SID,
            "scope": prop("number", "The variablesReference of a scope or variable"),
            "names": NAMES,
        },
        "required": ["sessionId", "scope"],
        "read_only": True,
    },
    "get_local_variables": {
        "description": "Local variables of the current frame in one call",
        "properties": {
            "sessionId": SID,
            "includeSpecial": prop("boolean", "Include special/internal names (default false)"),
            "names": NAMES,
        },
        "required": ["sessionId"],
        "read_only": True,
    },
    "get_stack_trace": {
        "description": "The stack of the paused program, with why it stopped (stopReason, lastStop)",
        "properties": {
            "sessionId": SID,
            "includeInternals": prop("boolean", "Include library/internal frames (default false)"),
        },
        "required": ["sessionId"],
        "read_only": True,
    },
    "get_scopes": {
        "description": "Scopes of a stack frame",
        "properties": {"sessionId": SID, "frameId": prop("number", "A frame id from get_stack_trace")},
        "required": ["sessionId", "frameId"],
        "read_only": True,
    },
    "evaluate_expression": {
        "description": "Evaluate an expression in the paused program (it may change state)",
        "properties": {
            "sessionId": SID,
            "expression": prop("string", "The expression"),
            "frameId": prop("number", "Frame id from get_stack_trace (default: the top frame)"),
            "timeout": prop("number", "Max ms to wait (accepted; pairdbg's own request bound applies)"),
        },
        "required": ["sessionId", "expression"],
    },
    "get_source_context": {
        "description": "Source lines around a line of a file",
        "properties": {
            "sessionId": SID,
            "file": prop("string", "Source file"),
            "line": prop("number", "1-based line"),
            "linesContext": prop("number", "Lines before and after (default 5)"),
        },
        "required": ["sessionId", "file", "line"],
        "read_only": True,
    },
    "get_output": {
        "description": "The program's stdout/stderr captured for a session, paged by since/nextSince",
        "properties": {
            "sessionId": SID,
            "since": prop("number", "Only entries after this seq (nextSince of the last call; default 0)"),
            "limit": prop("number", "At most this many entries (default 100, max 1000)"),
        },
        "required": ["sessionId"],
        "read_only": True,
    },
    "redefine_classes": {
        "description": "Hot-swap changed Java classes into a running JVM (Java sessions only: none in pairdbg)",
        "properties": {
            "sessionId": SID,
            "classesDir": prop("string", "Compiled classes directory"),
            "sinceTimestamp": prop("number", "Only .class files modified after this time (ms)"),
            "timeout": prop("number", "Max ms to wait (no Java here: unused)"),
        },
        "required": ["sessionId", "classesDir"],
    },
}
