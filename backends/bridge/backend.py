"""BridgeBackend: a connected web app as a Hub session. It runs, it never pauses; what it can do is evaluate in
the page (when both sides opted in) and report console output and errors. It is not a Debugger: breakpoints and
stepping belong to the inspector backend (`connect_debugger` to the same browser), so the session answers
CAPABILITY_UNSUPPORTED for them, with that hint."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base import Backend, BreakpointState, Capabilities, RawValue

if TYPE_CHECKING:
    from .page import Page
    from .service import BridgeService

NO_DEBUGGER = (
    "a debug-bridge session drives the page's UI; for breakpoints and stepping connect the inspector "
    "(connect_debugger) to the same browser"
)


class BridgeBackend(Backend):
    kind = "bridge"
    language = "web"
    features = Capabilities(global_evaluate=True, ui=True)
    unsupported_hint = NO_DEBUGGER

    def __init__(self, service: BridgeService, page: Page) -> None:
        super().__init__()
        self.service = service
        self.page = page
        self.program = page.url or None
        self.closed = False
        self._away = False  # the page's socket closed and the session waits for it to come back

    # ----- what happened to the page (told by the service); the session hears it as listener callbacks -------------

    def page_output(self, category: str, text: str) -> None:
        if self.listener is not None:
            self.listener.on_output(category, text)

    def page_navigated(self, url: str, how: str) -> None:
        self.program = url
        self.page_output("navigation", f"{how or 'navigation'}: {url}\n")

    def page_attached(self, new_load: bool) -> None:
        """The page's app said hello: the first time, or back after a navigation or a dropped socket."""
        self.program = self.page.url or self.program
        if self._away:
            self._away = False
            if self.listener is not None:
                self.listener.on_reconnected()
        if new_load and self.page.loads > 1:
            self.page_output("navigation", f"page loaded: {self.page.url}\n")
        elif not new_load:
            self.page_output("navigation", "the page reconnected (same page load: its handles still hold)\n")

    def page_left(self, why: str) -> None:
        """The page's socket closed; the session waits the grace time for it to come back."""
        self._away = True
        if self.listener is not None:
            self.listener.on_reconnecting(why)

    def page_gone(self, grace_s: float) -> None:
        """The page did not come back within the grace time: the session ends."""
        self._away = False
        self.page_output("navigation", f"the page did not come back within {grace_s:g} s\n")
        if self.listener is not None:
            self.listener.on_terminated()

    async def start(self, line_breakpoints, exception_mode) -> dict[str, list[BreakpointState]]:
        if line_breakpoints:
            raise self.unsupported("has no breakpoints")
        return {}

    async def evaluate(self, expression: str, frame_id, context: str = "repl", by_value: bool = False) -> RawValue:
        result = await self.service.evaluate(self.page, expression)
        return RawValue(name=expression, value=result, type="json")

    async def close(self, terminate: bool = True) -> None:
        if self.closed:
            return
        self.closed = True
        await self.service.session_closed(self.page)
