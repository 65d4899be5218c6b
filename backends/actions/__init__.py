"""The action registry: every capability declared once, reached by the TUI and by MCP alike."""

from .registry import Action, Registry, Reply, build_registry

__all__ = ["Action", "Registry", "Reply", "build_registry"]
