"""pairdbg's Textual front end: `run_tui` for the CLI, `PairDbgApp` for tests and embedding."""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pairdbg.runtime import Runtime

    from .app import PairDbgApp

log = logging.getLogger(__name__)


def theme_names() -> list[str]:
    """Every theme the app can open with: pairdbg's and Textual's own (this loads Textual)."""
    from textual.app import App

    from pairdbg import themes

    return [*themes.load_themes(), *App().available_themes]


def _load_app(saved_theme: str | None, saved_where: str) -> str | None:
    """Load Textual and the app (run in a thread: ~0.15-0.25 s of imports, while the loop starts the launch);
    return `saved_theme` if it still exists, else None after saying so."""
    from . import app  # noqa: F401  (the import is the work)

    if saved_theme is None or saved_theme in theme_names():
        return saved_theme
    print(f"pairdbg: theme {saved_theme!r} from {saved_where} is unknown; using the default", file=sys.stderr)
    return None


async def run_tui_async(
    runtime: Runtime,
    http: Any = None,
    *,
    launch: dict | None = None,
    theme: str | None = None,
    saved_theme: str | None = None,
    saved_where: str = "the settings",
) -> tuple[str, str]:
    """Run the TUI in the current loop until the person quits; the runtime then closes every session. Returns the
    theme it opened with and the one the person left it in. SIGTERM, SIGHUP and a terminal that went away end the
    app the normal way; before the app is up they keep it from starting. `theme` was checked by the caller;
    without it `saved_theme` (remembered in `saved_where`) is used if it still exists.

    The launch starts first, through the registry as the person's action, and runs while Textual and the app load
    in a thread and the window mounts, so the program's first stop is on screen after the longer of the two, not
    their sum. The app hears what the Hub said meanwhile (`EarlyEvents`) and shows the launch's reply."""
    runtime.prepare(launch)  # the reaper, and a Python program's debug adapter
    from .early import EarlyEvents
    from .hangup import HangupWatch

    loop = asyncio.get_running_loop()
    app: PairDbgApp | None = None
    quit_early = False

    def quit_app() -> None:
        nonlocal quit_early
        if app is not None:
            app.exit()
        else:
            quit_early = True  # asked to end while the app loads: it is not started

    watch = HangupWatch(lambda: loop.call_soon_threadsafe(quit_app))  # a closed terminal quits like SIGHUP
    watch.start()

    async def serve() -> tuple[str, str]:
        nonlocal app
        early = EarlyEvents(runtime.hub.bus) if launch else None  # listening before the launch's first event
        launched = runtime.start_launch(launch) if launch else None
        try:
            chosen = await asyncio.to_thread(_load_app, None if theme else saved_theme, saved_where)
            from pairdbg import themes

            from .app import PairDbgApp

            opened = theme or chosen or themes.DEFAULT_DARK
            if quit_early:
                log.info("asked to end while the app loaded: it is not started")
                if http is not None:
                    await http.stop()  # its port listens since the command line bound it
                return opened, opened
            app = PairDbgApp(
                runtime.hub, runtime.registry, http, launch=launch, theme=opened, launched=launched, early=early,
                on_drawn=lambda: shown.done() or shown.set_result(None),
            )  # fmt: skip
            await app.run_async()
            return opened, app.theme
        finally:
            if early is not None:
                early.take()  # (taken by the app as it mounted; if it never did, this stops the listening)
            if launched is not None and launched.done() and not launched.cancelled():
                launched.exception()  # its failure was the app's to show (a launch still starting is cancelled)

    # Memory is settled (a collection that pauses the loop) just after the launched program's first stop; without a
    # launch once the first frame is up, before a person types; the timer is the fallback. Never before that frame
    # (`shown`): the launch may stop while the app loads.
    settle_after_s = 5.0 if launch else 1.0
    shown: asyncio.Future[None] = loop.create_future()
    try:
        return await runtime.run(serve, on_signal=quit_app, settle_after_s=settle_after_s, shown=shown)
    finally:
        watch.stop()


def run_tui(
    runtime: Runtime,
    http: Any = None,
    *,
    launch: dict | None = None,
    theme: str | None = None,
    saved_theme: str | None = None,
    saved_where: str = "the settings",
) -> tuple[str, str]:
    """Blocking entry point for the CLI; returns run_tui_async's. `http` is an object with async start()/stop()
    and .url/.token (the embedded MCP endpoint) or None; `launch` is start_debugging's arguments (or {"action": name,
    ...}), run as "human" at once; `theme` is a theme name (unknown names raise themes.UnknownThemeError before
    anything starts); `saved_theme` one remembered in `saved_where`, used if it still exists."""
    if theme is not None:
        from pairdbg import themes

        themes.check_name(theme, theme_names())
    return asyncio.run(
        run_tui_async(runtime, http, launch=launch, theme=theme, saved_theme=saved_theme, saved_where=saved_where)
    )


__all__ = ["run_tui", "run_tui_async", "theme_names"]
