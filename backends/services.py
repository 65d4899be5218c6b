"""Long-lived parts of the Hub that are not one debug session: listeners apps connect to (the React Native
adapter's WebSocket, later the debug-bridge relay), with the actions and MCP resources they add.

A service is registered and started by the runtime (pairdbg.runtime) and stopped by `Hub.shutdown()`. The registry
collects its `actions`; the MCP server lists and reads its resources, and hears of changes through `ResourceChanged`
events.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .actions.registry import Action


class ConfigError(ValueError):
    """A service's setting has a value it cannot use; the message names the variable. It fails only that
    service's start: pairdbg keeps running and the service's health check says why."""


@dataclass(frozen=True)
class ResourceInfo:
    uri: str  # a URI, or an RFC 6570 template such as debug://mmkv/{instance}
    name: str
    description: str
    mime_type: str = "application/json"


class Service(Protocol):
    name: str

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def actions(self) -> list[Action]:
        """Actions (MCP tools and TUI commands) this service adds; their `group` names its MCP tool group."""
        ...

    def in_use(self) -> bool:
        """An app is connected now (MCP then lists this service's tool group)."""
        ...

    def resources(self) -> list[ResourceInfo]:
        """Concrete resources right now (their list may change: publish ResourceListChanged)."""
        ...

    def resource_templates(self) -> list[ResourceInfo]: ...

    async def read_resource(self, uri: str) -> tuple[str, str] | None:
        """(text, mime type) for a URI this service owns, None for one it does not; raise DebugError if it owns
        the URI but cannot serve it now."""
        ...
