"""Builds the Hub every entry point runs: the sessions core plus the default services (listeners apps connect to)."""

from __future__ import annotations

import gc

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


def settle_memory() -> None:
    """Called by the entry points once they are up: collect start-up garbage, then move every object alive now
    (modules, widgets, the registry) out of the collector's sight. Full collections then scan only what came later,
    which keeps the loop's pauses short under a flood of output (measured: TUI key latency during 10,000 console
    lines/s fell from p50 50 ms to 9 ms; scripts/bench_bridge.py). Never called by tests, which build many hubs."""
    gc.collect()
    gc.freeze()
