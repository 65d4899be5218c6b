"""pairdbg's Textual front end: `run_tui` for the CLI, `PairDbgApp` for tests and embedding."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from typing import Any

from pairdbg.backends.actions import Registry
from pairdbg.backends.hub import Hub


async def run_tui_async(
    hub: Hub, registry: Registry, http: Any = None, *, launch: dict | None = None, theme: str | None = None
) -> None:
    """Run the TUI in the current loop until the person quits, then close every session."""
    from pairdbg.backends.setup import settle_memory

    from .app import PairDbgApp

    app = PairDbgApp(hub, registry, http, launch=launch, theme=theme)
    # SIGTERM (a closed terminal, a service manager) ends the app the normal way, so sessions are closed below.
    with contextlib.suppress(NotImplementedError, RuntimeError):
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, app.exit)
    try:
        await hub.start_services()
        asyncio.get_running_loop().call_later(2.0, settle_memory)  # once the app has mounted
        await app.run_async()
    finally:
        await hub.shutdown()


def run_tui(
    hub: Hub, registry: Registry, http: Any = None, *, launch: dict | None = None, theme: str | None = None
) -> None:
    """Blocking entry point for the CLI. `http` is an object with async start()/stop() and .url/.token (the
    embedded MCP endpoint) or None; `launch` is start_debugging's arguments, run as "human" once the app is up;
    `theme` is a theme name (unknown names raise themes.UnknownThemeError before anything starts)."""
    if theme is not None:
        from pairdbg import themes
        from textual.app import App

        themes.check_name(theme, [*themes.load_themes(), *App().available_themes])
    asyncio.run(run_tui_async(hub, registry, http, launch=launch, theme=theme))


__all__ = ["run_tui", "run_tui_async"]
