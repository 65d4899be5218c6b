"""pairdbg's Textual front end: `run_tui` for the CLI, `PairDbgApp` for tests and embedding."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pairdbg.runtime import Runtime


async def run_tui_async(
    runtime: Runtime, http: Any = None, *, launch: dict | None = None, theme: str | None = None
) -> str:
    """Run the TUI in the current loop until the person quits; the runtime then closes every session. Returns the
    theme the person left it in. SIGTERM, SIGHUP and a terminal that went away end the app the normal way."""
    runtime.prepare(launch)  # a Python program's debug adapter starts while the app below loads and draws
    from .app import PairDbgApp
    from .hangup import HangupWatch

    app = PairDbgApp(runtime.hub, runtime.registry, http, launch=launch, theme=theme)
    loop = asyncio.get_running_loop()
    watch = HangupWatch(lambda: loop.call_soon_threadsafe(app.exit))  # a closed terminal quits like SIGHUP
    watch.start()
    # Memory is settled (a collection that pauses the loop) just after the launched program's first stop; without a
    # launch once the first frame is up, before a person types; the timer is the fallback.
    settle_after_s = 5.0 if launch else 1.0
    try:
        await runtime.run(app.run_async, on_signal=app.exit, settle_after_s=settle_after_s)
    finally:
        watch.stop()
    return app.theme


def run_tui(runtime: Runtime, http: Any = None, *, launch: dict | None = None, theme: str | None = None) -> str:
    """Blocking entry point for the CLI. `http` is an object with async start()/stop() and .url/.token (the
    embedded MCP endpoint) or None; `launch` is start_debugging's arguments, run as "human" once the app is up;
    `theme` is a theme name (unknown names raise themes.UnknownThemeError before anything starts)."""
    if theme is not None:
        from pairdbg import themes
        from textual.app import App

        themes.check_name(theme, [*themes.load_themes(), *App().available_themes])
    return asyncio.run(run_tui_async(runtime, http, launch=launch, theme=theme))


__all__ = ["run_tui", "run_tui_async"]
