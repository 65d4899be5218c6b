"""The composition root: Hub, services and action registry built once, and one start/settle/shutdown for every
entry point (the TUI, MCP on stdio, headless MCP over HTTP, the join relay)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from pairdbg.backends.actions.catalogue import ACTIONS
from pairdbg.backends.actions.registry import Registry
from pairdbg.backends.events import Event, Stopped
from pairdbg.backends.hub import Hub
from pairdbg.backends.process import Reaper
from pairdbg.settings import Settings

if TYPE_CHECKING:
    from pairdbg.backends.actions.registry import Reply
    from pairdbg.backends.dap.spare import SpareAdapter
    from pairdbg.mcp_bridge.http import HttpMcpService

T = TypeVar("T")
#: Signals that end pairdbg the normal way: a service manager's stop, a closed terminal.
END_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
SHUTDOWN_TIMEOUT_S = 10
#: With the listeners opened after the first answer (stdio): open them anyway this long after serving began, for a
#: host that starts pairdbg well before it initializes (an app may connect first).
LISTENERS_AT_THE_LATEST_S = 1.0


def build_registry(hub: Hub) -> Registry:
    """Every debugging action, then each registered service's actions (register services first)."""
    registry = Registry(hub)
    for action in ACTIONS:
        registry.add(action)
    for service in hub.services:
        for action in service.actions():
            registry.add(action)
    return registry


def default_services(hub: Hub, settings: Settings) -> list:
    """The listeners pairdbg runs by default; `hub` lets a service publish resource changes on the Hub's bus."""
    from pairdbg.backends.bridge.service import BridgeService  # the debug-bridge relay (default port 19851)
    from pairdbg.backends.rn.service import RnService  # the React Native adapter's WebSocket (default 19850)

    return [RnService(hub, settings.rn), BridgeService(hub, settings.bridge)]


def settle_memory() -> None:
    """Called once an entry point is up: collect start-up garbage, then move every object alive now (modules,
    widgets, the registry) out of the collector's sight. Full collections then scan only what came later, which
    keeps the loop's pauses short under a flood of output (measured: TUI key latency during 10,000 console lines/s
    fell from p50 50 ms to 9 ms; scripts/bench_bridge.py). The collector is on after it (`pairdbg --mcp` holds it
    off while loading). Never called by tests, which build many hubs."""
    gc.collect()
    gc.freeze()
    gc.enable()


#: After the first stop, settle this long later: once the stopped screen is drawn, before a person can press a key.
SETTLE_AFTER_STOP_S = 0.25


def settle_when_quiet(hub: Hub, after_s: float, shown: asyncio.Future[None] | None = None) -> None:
    """settle_memory once, `after_s` from now or SETTLE_AFTER_STOP_S after the first stop, whichever comes first.
    Its full collection pauses the loop (~50-130 ms measured under load); on a fixed timer from the start it could
    fall on the first key a person presses once a quicker start has stopped sooner. `shown`: done once a front end's
    first frame is up; never before it (a launch started while the TUI loads may stop first), but
    SETTLE_AFTER_STOP_S after it then, so the app's own objects are frozen too and its drawing is not paused."""
    loop = asyncio.get_running_loop()
    done = False

    def settle() -> None:
        nonlocal done
        if done:
            return
        if shown is not None and not shown.done():
            shown.add_done_callback(lambda _: loop.call_later(SETTLE_AFTER_STOP_S, settle))
            return
        done = True
        timer.cancel()
        hub.bus.remove_listener(on_event)
        settle_memory()

    def on_event(event: Event) -> None:
        if isinstance(event, Stopped):
            loop.call_later(SETTLE_AFTER_STOP_S, settle)

    timer = loop.call_later(after_s, settle)
    hub.bus.add_listener(on_event)


def on_end_signals(handler: Callable[[], None]) -> None:
    """Call `handler` on SIGTERM or SIGHUP (where the loop supports signal handlers)."""
    loop = asyncio.get_running_loop()
    for sig in END_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, handler)


def exit_on_end_signals(cleanup: Callable[[], Awaitable[None]] | None = None) -> None:
    """On SIGTERM/SIGHUP cancel the current task, run `cleanup` (bounded), then exit the process. Cancelling alone
    is not enough on stdio: the thread blocked reading stdin keeps the process alive until the host closes the
    pipe, which a host that signalled us may never do."""
    loop = asyncio.get_running_loop()
    main = asyncio.current_task()
    pending: set[asyncio.Task[None]] = set()

    async def clean_up_and_exit() -> None:
        try:
            if cleanup is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(cleanup(), SHUTDOWN_TIMEOUT_S)
        finally:
            # Also when the cancelled task's own clean-up finished first and the loop's end cancels this one.
            os._exit(0)

    def on_signal() -> None:
        if main is not None:
            main.cancel()
        pending.add(loop.create_task(clean_up_and_exit()))

    on_end_signals(on_signal)


def launches_python(launch: dict) -> bool:
    """Whether a front end's launch runs on debugpy: a Python program, or `debug_tests` on a project whose tests
    are Python's."""
    if launch.get("action") == "debug_tests":
        from pairdbg.backends.testrun import runs_python_tests

        return runs_python_tests(launch.get("cwd") or os.getcwd())
    return "action" not in launch and launch.get("language", "python") == "python"


def launch_python(launch: dict) -> str | None:
    """The interpreter a front end's Python launch will run its program on, worked out as the launch will (a
    debuggee is started on it ahead: backends/dap/spare.py); None where that cannot be told from the arguments."""
    from pairdbg.backends.dap.python import choose_python
    from pairdbg.backends.errors import DebugError
    from pairdbg.backends.testrun import project_python

    cwd = os.path.abspath(launch.get("cwd") or os.getcwd())
    given = launch.get("executable_path")
    try:
        if launch.get("action") == "debug_tests":
            return project_python(cwd, given) or choose_python(None, "", module=True, cwd=cwd)[0]
        if "action" in launch or not (launch.get("program") or launch.get("module")):
            return None
        return choose_python(given, launch.get("program") or "", module=bool(launch.get("module")), cwd=cwd)[0]
    except DebugError:
        return None


class Runtime:
    """One pairdbg: the Hub with its default services and the registry both front ends call."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.hub = Hub(self.settings.limits, self.settings.agents)
        for service in default_services(self.hub, self.settings):
            self.hub.add_service(service)
        self.registry = build_registry(self.hub)
        self._services: asyncio.Task[None] | None = None
        self.reaper = Reaper()
        self._spare: SpareAdapter | None = None
        self._keep_debuggee = False  # a server: keep a debuggee ready too (keep_adapter_ready)
        self._launch: asyncio.Task[Reply] | None = None

    def prepare(self, launch: dict | None) -> None:
        """Before a front end loads and draws (on the running loop): start the reaper, and for a Python program
        or a project's Python tests about to be launched, debugpy's adapter (for tests a debuggee on their
        interpreter too: dap/spare.py), so the program starts while the front end is still coming up."""
        self.reaper.start()  # before anything is spawned: even a SIGKILL of pairdbg then takes its children along
        if launch and launches_python(launch):
            from pairdbg.backends.dap.python import SPARE_ADAPTER, start_spare_program

            self._spare = SPARE_ADAPTER
            SPARE_ADAPTER.start()
            # A test run's debuggee too: the runner's own start is long, and the debuggee's start would come after
            # the adapter's, on the way to the stop (measured: the stop 0.12 s sooner). Not for a program: it stops
            # while the window still loads, and the spare's imports only delayed the first paint (by ~0.05 s).
            python = launch_python(launch) if launch.get("action") == "debug_tests" else None
            if python is not None:
                start_spare_program(os.path.abspath(python), launch.get("cwd") or os.getcwd())

    def start_launch(self, launch: dict) -> asyncio.Task[Reply]:
        """Run a front end's launch now, as the person (on the running loop, inside `run`): start_debugging's
        arguments, or {"action": name, ...} for another starting action. It goes through the registry like any
        action the person takes; the front end loads meanwhile and shows the reply when it comes (a DebugError is
        raised from the task). One still starting at shutdown is cancelled first, which closes what it opened."""
        from pairdbg.backends.focus import HUMAN

        args = dict(launch)
        name = args.pop("action", "start_debugging")
        loop = asyncio.get_running_loop()
        self._launch = loop.create_task(self.registry.run(name, args, HUMAN), name=f"pairdbg-launch-{name}")
        return self._launch

    def keep_adapter_ready(self, debuggee_later: bool = False) -> None:
        """For a headless server (on the running loop): debugpy's adapter, and a debuggee that has done debugpy's
        imports (`_start_debuggee`), started now and again after each session takes them, so a Python session's
        start waits for neither (~0.2 s and ~0.1 s). An agent's first call comes well after the server is up; the
        processes it costs are ended at shutdown. `debuggee_later`: the debuggee starts once the listeners are up,
        after the first answer (`run(listeners_later=True)`): its imports would share the processors with the front
        end's own on the way to that answer."""
        self.reaper.start()
        from pairdbg.backends.dap.python import SPARE_ADAPTER

        self._spare = SPARE_ADAPTER
        SPARE_ADAPTER.keep_ready()
        self._keep_debuggee = True
        if not debuggee_later:
            self._start_debuggee()

    def _start_debuggee(self) -> None:
        """The server's first spare runs on an interpreter the person already runs: the active virtualenv's, else
        pairdbg's own. Never the folder's .venv, before anyone asked to launch anything there: starting it runs code
        of the folder's (its .pth files). After each launch the next spare is for that launch's interpreter."""
        from pairdbg.backends.dap.python import start_spare_program, venv_python

        active = os.environ.get("VIRTUAL_ENV")
        python = (venv_python(active) if active else None) or sys.executable
        start_spare_program(os.path.abspath(python), os.getcwd(), keep_ready=True)

    def open_listeners(self) -> asyncio.Task[None]:
        """Start the services (the RN and debug-bridge listeners) once, in the background; for front ends that
        answer first and listen after (`run(listeners_later=True)`). Await the task to have them up."""
        if self._services is None:
            self._services = asyncio.get_running_loop().create_task(self.hub.start_services())
            if self._keep_debuggee:  # after them: its start (a fork of this process) is not on their way either
                self._services.add_done_callback(lambda _: self._keep_debuggee and self._start_debuggee())
        return self._services

    def http_service(self, profile: str | None = None) -> HttpMcpService:
        """The MCP-over-HTTP endpoint for this Hub, as configured (raises OSError, e.g. a refused address); `profile`
        serves a seed server's tools instead of pairdbg's own."""
        from pairdbg.mcp_bridge.http import DEFAULT_PORT, HttpMcpService

        mcp = self.settings.mcp
        return HttpMcpService(
            self.hub,
            self.registry,
            mcp.host,
            DEFAULT_PORT if mcp.port is None else mcp.port,
            allow_remote=mcp.allow_remote,
            tools=mcp.tools,
            profile=profile,
            output_schemas=mcp.output_schemas,
        )

    async def run(
        self,
        serve: Callable[[], Awaitable[T]],
        *,
        on_signal: Callable[[], None] | None = None,
        settle_after_s: float = 0.0,
        listeners_later: bool = False,
        shown: asyncio.Future[None] | None = None,
    ) -> T:
        """Start the services, await `serve()`, then close every session and stop every service, so nothing
        outlives pairdbg. SIGTERM/SIGHUP call `on_signal` (a front end's own quit), else end the process after
        shutting down. `listeners_later`: `serve()` calls open_listeners once its first answer is out (at the latest
        LISTENERS_AT_THE_LATEST_S after it began), so opening them is not on the path to that answer."""
        self.reaper.start()  # before anything is spawned (prepare may have done it)

        at_the_latest: asyncio.TimerHandle | None = None

        async def shut_down() -> None:
            self._keep_debuggee = False  # none started from here on
            if at_the_latest is not None:
                at_the_latest.cancel()  # never open listeners while (or after) stopping them
            if self._services is not None:  # a listener still opening is stopped with the others, not left behind
                with contextlib.suppress(Exception):
                    await self._services
            if self._launch is not None and not self._launch.done():  # quit while the program was still starting
                self._launch.cancel()
                await asyncio.wait([self._launch])  # (its outcome is the front end's; it is gone with it)
            if self._spare is not None:  # an adapter (and debuggee) started for a launch that never took it
                from pairdbg.backends.dap.python import SPARE_PROGRAM

                await asyncio.gather(self._spare.close(), SPARE_PROGRAM.close())
            await self.hub.shutdown()
            # While pairdbg still runs, the reaper ends whatever is left under it (daemons its programs left).
            await asyncio.to_thread(self.reaper.stop)

        if on_signal is not None:
            on_end_signals(on_signal)
        else:
            exit_on_end_signals(shut_down)
        try:
            loop = asyncio.get_running_loop()
            if listeners_later:
                at_the_latest = loop.call_later(LISTENERS_AT_THE_LATEST_S, self.open_listeners)
            else:
                await self.hub.start_services()
            settle_when_quiet(self.hub, settle_after_s, shown)
            return await serve()
        finally:
            await shut_down()
