"""Prompt arguments checked like tool arguments: the prompt must exist, every required argument be given, no unknown
one, each a string within the same limits tools have (a session id far shorter), and every error quotes at most 120
characters of what was sent. Both the default surface and the profiles' prompts go through here."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mcp import MCPError

from pairdbg.backends.actions.registry import check_values, cut
from pairdbg.backends.errors import DebugError
from pairdbg.backends.limits import Limits

ID_CHARS = 100  # session ids are short (S3, a UUID); a longer one names nothing


def _invalid(message: str) -> MCPError:
    return MCPError(-32602, message)


def checked_arguments(
    name: str, known: Iterable[str], declared: Iterable[str], args: dict[str, Any] | None, limits: Limits
) -> dict[str, str]:
    """The arguments of prompt `name` (all of `declared` are required), or MCP error -32602 saying what is wrong."""
    known = list(known)
    if name not in known:
        raise _invalid(f"unknown prompt {cut(str(name), 60)!r}; have {', '.join(known)}")
    declared = list(declared)
    args = dict(args or {})
    unknown = [k for k in args if k not in declared]
    if unknown:
        named = ", ".join(repr(cut(str(k), 60)) for k in unknown)
        plural = "s" if len(unknown) > 1 else ""
        raise _invalid(f"{name}: unknown argument{plural} {named}; it takes {', '.join(declared)}")
    missing = [k for k in declared if not args.get(k)]
    if missing:
        raise _invalid(f"{name}: missing required argument{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    for key, value in args.items():
        if not isinstance(value, str):
            raise _invalid(f"{name}: {key} must be a string, got {type(value).__name__}")
        if key == "session_id" and len(value) > ID_CHARS:
            raise _invalid(f"{name}: session_id is {len(value)} characters; no session id is longer than {ID_CHARS}")
    try:
        check_values(name, args, limits)
    except DebugError as exc:
        raise _invalid(exc.message) from None
    return args
