"""Drop-in profiles: `pairdbg --mcp --profile NAME` serves a seed server's tool surface as a thin translation over
the same registry actions (names, argument casing, line bases, result shapes, error format)."""

from __future__ import annotations

import importlib

from pairdbg.backends.hub import Hub

from .common import Profile

NAMES = ("mcp-debugger", "webkit-inspector", "agent-devtools")


def load(name: str, hub: Hub) -> Profile:
    """The profile `name` bound to `hub` (its records live as long as the server)."""
    if name not in NAMES:
        raise ValueError(f"unknown profile {name!r}; profiles: {', '.join(NAMES)}")
    return importlib.import_module(f".{name.replace('-', '_')}", __name__).build(hub)
