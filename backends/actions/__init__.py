"""The action mechanism: every capability declared once, reached by the TUI and by MCP alike."""

from .registry import Action, Registry, Reply

__all__ = ["Action", "Registry", "Reply"]
