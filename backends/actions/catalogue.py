"""The debugging actions every pairdbg offers, in MCP tool order: sessions, breakpoints, execution, inspection."""

from __future__ import annotations

from . import attention, breakpoints, execution, inspection, sessions

# The order is the MCP tool order (and the golden files').
ACTIONS = [*sessions.ACTIONS, *breakpoints.ACTIONS, *execution.ACTIONS, *inspection.ACTIONS, *attention.ACTIONS]
