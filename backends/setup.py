"""Builds the Hub every entry point runs: the sessions core plus the default services (listeners apps connect to)."""

from __future__ import annotations

from .hub import Hub


def make_hub() -> Hub:
    """A Hub with the default services registered (not started: the entry point starts them in its loop)."""
    hub = Hub()
    for service in default_services(hub):
        hub.add_service(service)
    return hub


def default_services(hub: Hub | None = None) -> list:
    """The listeners pairdbg runs by default. Each reads its own configuration (environment) when created;
    `hub` lets a service publish resource changes on the Hub's bus."""
    from .bridge.service import BridgeService  # the debug-bridge relay (PAIRDBG_BRIDGE_PORT, default 19851)
    from .rn.service import RnService  # the React Native adapter's WebSocket (WS_PORT, default 19850)

    return [RnService(hub), BridgeService(hub)]
