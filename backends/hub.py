"""The Hub: owns every session, the event bus and the limits; both front ends go through it (via actions)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable
from typing import TypeVar

from .base import Backend, ExceptionMode
from .errors import DebugError, ErrorCode
from .events import EventBus, PhaseChanged, SessionAdded, SessionRemoved
from .focus import Focuses
from .limits import Limits
from .notes import NoteBook
from .policy import AgentPolicy, AgentSettings
from .process import LINEAGE
from .services import Service
from .session import Session

log = logging.getLogger(__name__)
S = TypeVar("S")
MAX_ENDED_KEPT = 20


class Hub:
    def __init__(self, limits: Limits | None = None, agents: AgentSettings | None = None) -> None:
        self.limits = limits or Limits()
        self.bus = EventBus()
        self.policy = AgentPolicy(agents, self.bus)  # what agents may do and see
        self.sessions: dict[str, Session] = {}
        self.focus = Focuses(self.bus)  # actor -> what it looks at and the newest stop it was shown
        self.notes = NoteBook(self.bus, self.limits.max_notes, self.limits.note_chars)  # between person and agents
        self.services: list[Service] = []  # listeners apps connect to (started by the runtime)
        self._next = 1
        self._forgetting: set[asyncio.Future[None]] = set()  # forgotten sessions being closed
        self.bus.add_listener(self._on_event)

    def get(self, session_id: str | None) -> Session:
        if not session_id:
            if len(self.sessions) == 1:
                return next(iter(self.sessions.values()))
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                "session_id is required" + (f" (live: {', '.join(self.sessions)})" if self.sessions else ""),
                hint="call list_debug_sessions" if self.sessions else "call start_debugging first",
            )
        session = self.sessions.get(session_id.strip())
        if session is None:
            known = ", ".join(self.sessions) or "none"
            raise DebugError(
                ErrorCode.SESSION_NOT_FOUND,
                f"no session {session_id!r} (live sessions: {known})",
                hint="call list_debug_sessions, or start_debugging to begin one",
            )
        return session

    def infer(self, focused: str | None, *, may_choose: bool = True) -> str:
        """The session a call without session_id means: the only live one (the only one at all, once every session
        has ended), else the caller's focused live session when `may_choose`; else INVALID_PARAMETERS listing them.
        Destructive actions pass may_choose=False: they never pick one of several."""
        live = [s.id for s in self.sessions.values() if not s.phase.ended]
        if len(live) == 1:
            return live[0]
        if not live and len(self.sessions) == 1:
            return next(iter(self.sessions))
        if may_choose and focused in live:
            return focused  # type: ignore[return-value]
        if not self.sessions:
            raise DebugError(ErrorCode.INVALID_PARAMETERS, "no debug session yet", hint="call start_debugging first")
        listed = ", ".join(
            f"{s.id} {s.name} ({s.phase.value})" for s in list(self.sessions.values())[-8:]
        )
        why = "several sessions are live" if live else "every session has ended"
        hint = "pass session_id" + ("" if may_choose else " (this action never picks one of several)")
        raise DebugError(ErrorCode.INVALID_PARAMETERS, f"session_id is needed: {why}: {listed}", hint=hint)

    def live_count(self) -> int:
        return sum(1 for s in self.sessions.values() if not s.phase.ended)

    def check_capacity(self) -> None:
        if self.live_count() >= self.limits.max_sessions:
            raise DebugError(
                ErrorCode.LIMIT_EXCEEDED,
                f"{self.limits.max_sessions} sessions are already live (the limit)",
                hint="close_debug_session one you no longer need",
            )

    async def create(
        self,
        make: Callable[[], Awaitable[Backend]],
        name: str,
        breakpoints: list[dict] | None = None,
        actor: str = "human",
        exception_mode: ExceptionMode | None = None,
    ) -> Session:
        """Check capacity once, before anything is spawned, then build the backend (which may start a runtime)
        and open its session. A backend whose session cannot open is closed again. `exception_mode`: what the
        program pauses on from its first line (default: uncaught)."""
        self.check_capacity()
        backend = await make()
        try:
            return await self.open(backend, name, breakpoints, actor, exception_mode=exception_mode)
        except BaseException:
            with contextlib.suppress(Exception):
                await backend.close(terminate=True)
            await backend.leftovers.end()  # a start that failed after its program was started leaves nothing
            raise

    async def open(
        self,
        backend: Backend,
        name: str,
        breakpoints: list[dict] | None = None,
        actor: str = "human",
        parent: Session | None = None,
        exception_mode: ExceptionMode | None = None,
    ) -> Session:
        """Register a session for `backend`, validate its first breakpoints and start it.

        If the start fails, the session is removed again and nothing is left running.
        """
        self.check_capacity()
        session_id = f"S{self._next}"
        self._next += 1
        session = Session(
            session_id, name, backend, self.bus, self.limits, backend.language, open_child=self._open_child
        )
        if parent is not None:  # a child process: listed with its parent, starts with the parent's breakpoints
            session.parent = parent
            session.breakpoints.inherit(parent.breakpoints)
        if exception_mode is not None:
            session.breakpoints.exception_mode = exception_mode  # sent with the first breakpoints, before any code
        try:
            initial = list(session.breakpoints.values())
            for spec in breakpoints or []:
                bp = session.breakpoints.new(actor=actor, **spec)
                session.breakpoints.keep(bp)  # counted at once, so the per-session limit holds for these too
                initial.append(bp)
        except DebugError:
            self._next -= 1
            raise
        self._forget_old_ended()
        self.sessions[session_id] = session
        if parent is not None:
            parent.child_sessions.append(session)
        self.bus.publish(SessionAdded(session_id, name=name))
        try:
            await session.start(initial)
        except BaseException:
            with contextlib.suppress(Exception):
                await backend.close(terminate=True)
            await backend.leftovers.end()  # a start that failed after its program was started leaves nothing
            self.sessions.pop(session_id, None)
            self.bus.publish(SessionRemoved(session_id))
            raise
        return session

    async def restart(self, session_id: str, make: Callable[[], Awaitable[Backend]], name: str) -> Session:
        """End a session's program and start it again (`make` builds its backend) under the same session id, with
        its breakpoints, watches, exception mode, output and stop numbers (Session's `previous`). Child processes'
        sessions end with the old program. If the new start fails, the session is there in phase error, saying why."""
        old = self.get(session_id)
        if old.parent is not None:
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                f"session {old.id} is a child process of {old.parent.id}; its program starts with its parent's",
                hint=f"restart_debugging(session_id='{old.parent.id}')",
            )
        await old.close(terminate=True)
        backend = await make()
        session = Session(
            old.id, name, backend, self.bus, self.limits, backend.language, open_child=self._open_child, previous=old
        )
        self.sessions[old.id] = session
        self.bus.publish(SessionAdded(old.id, name=name))
        try:
            await session.start([])
        except BaseException:
            with contextlib.suppress(Exception):
                await backend.close(terminate=True)
            await backend.leftovers.end()  # a start that failed after its program was started leaves nothing
            raise
        return session

    async def close(self, session_id: str, terminate: bool = True) -> Session:
        session = self.get(session_id)
        # Note what runs under each process pairdbg started before disconnecting ends any of them: an adapter that
        # ends its program orphans the program's daemons, which must still be known to be this session's.
        LINEAGE.observe()
        await session.close(terminate)
        if self.sessions.pop(session.id, None) is not None:  # a concurrent close may have removed it already
            self.bus.publish(SessionRemoved(session.id))
        return session

    async def _open_child(self, parent: Session, backend: Backend, name: str) -> None:
        """A program's further process (fork, worker, subprocess) as a session of its own, listed with its parent.
        Nobody awaits this: a failure is said in the parent's output (and logged), not raised."""
        try:
            if parent.phase.ended:
                raise DebugError(ErrorCode.SESSION_INVALID_STATE, f"its parent session {parent.id} has ended")
            await self.open(backend, name, parent=parent)
        except Exception as exc:
            if parent.closing:  # announced while its parent closes: released, and it goes the way the parent's go
                log.debug("child %s announced while session %s closes: %s", name, parent.id, exc)
                with contextlib.suppress(Exception):
                    await backend.close(terminate=False)
                return
            log.warning("could not open a session for %s: %s", name, exc)
            message = exc.message if isinstance(exc, DebugError) else str(exc)
            parent.on_output(
                "important", f"pairdbg: {name} is not debugged ({message}); it runs on without a debugger\n"
            )
            with contextlib.suppress(Exception):
                await backend.close(terminate=False)

    def service(self, kind: type[S]) -> S | None:
        """The registered service of this type (e.g. `hub.service(RnService)`), or None if this run has none."""
        return next((s for s in self.services if isinstance(s, kind)), None)

    def require_service(self, kind: type[S], listener: str, short: str) -> S:
        """`service(kind)`, or CAPABILITY_UNSUPPORTED for a registry built without the runtime's default services."""
        svc = self.service(kind)
        if svc is None:
            raise DebugError(
                ErrorCode.CAPABILITY_UNSUPPORTED,
                f"this pairdbg runs no {listener} listener",
                hint=f"start pairdbg normally (the runtime adds the {short} service)",
            )
        return svc

    def add_service(self, service) -> None:
        """Register a service before the registry is built (its actions become tools)."""
        self.services.append(service)

    async def start_services(self) -> None:
        for service in self.services:
            try:
                await service.start()
            except Exception as exc:  # a port in use must not stop the debugger; health checks say why
                log.warning("service %s did not start: %s", getattr(service, "name", service), exc)

    async def shutdown(self) -> None:
        """Close every session and stop every service; used when pairdbg exits, so nothing outlives it."""
        for service in list(self.services):
            with contextlib.suppress(Exception):
                await service.stop()
        LINEAGE.observe()  # as in close
        await asyncio.gather(
            *(s.close(True) for s in list(self.sessions.values())), *self._forgetting, return_exceptions=True
        )
        for sid in list(self.sessions):
            if self.sessions.pop(sid, None) is not None:
                self.bus.publish(SessionRemoved(sid))

    def _on_event(self, event) -> None:
        if isinstance(event, PhaseChanged) and event.phase.ended:
            self._bound_ended_output()

    def _bound_ended_output(self) -> None:
        """Ended sessions share one output budget; the newest keep theirs, older ones lose their oldest output."""
        left = self.limits.ended_output_bytes
        for session in reversed([s for s in self.sessions.values() if s.phase.ended]):
            if session.output.size > left:
                session.output.shrink(left)
            left = max(0, left - session.output.size)

    def _forget_old_ended(self) -> None:
        """Ended sessions stay readable (output, last stop) until there are too many; the oldest go first, closed
        (what their programs left running ends with them). One whose child sessions still run stays."""
        ended = [s for s in self.sessions.values() if s.phase.ended and all(c.phase.ended for c in s.descendants())]
        for session in ended[: max(0, len(ended) - MAX_ENDED_KEPT)]:
            self.sessions.pop(session.id, None)
            self.bus.publish(SessionRemoved(session.id))
            closing = asyncio.ensure_future(session.close(True))
            self._forgetting.add(closing)
            closing.add_done_callback(self._forgetting.discard)


def display_name(program: str) -> str:
    return os.path.basename(program.rstrip("/")) or program
