"""Drop-in profiles: `pairdbg --mcp --profile NAME` serves a seed server's tool surface as a thin translation over
the same registry actions (names, argument casing, line bases, result shapes, error format)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from pairdbg.backends.hub import Hub

from .common import Profile

NAMES = ("mcp-debugger", "webkit-inspector", "agent-devtools")


def load(name: str, hub: Hub) -> Profile:
    """The profile `name` bound to `hub` (its records live as long as the server)."""
    if name not in NAMES:
        raise ValueError(f"unknown profile {name!r}; profiles: {', '.join(NAMES)}")
    return importlib.import_module(f".{name.replace('-', '_')}", __name__).build(hub)


def transport(name: str, http: bool, port: int | None, env: Mapping[str, str]) -> tuple[bool, int | None]:
    """(serve HTTP?, port) for a profile: agent-devtools reads its seed's MCP_TRANSPORT (stdio | http), whose HTTP
    port is 3100 unless --port says otherwise. The command line's --http wins. Raises ValueError for an unknown
    profile or transport."""
    if name not in NAMES:
        raise ValueError(f"unknown profile {name!r}; profiles: {', '.join(NAMES)}")
    if name != "agent-devtools":
        return http, port
    from .agent_devtools import HTTP_PORT

    chosen = env.get("MCP_TRANSPORT", "").strip().lower()
    if chosen not in ("", "stdio", "http"):
        raise ValueError(f"MCP_TRANSPORT={chosen!r}: use stdio or http")
    if http or chosen == "http":
        return True, HTTP_PORT if port is None else port
    return False, port
