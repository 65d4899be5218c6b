"""Where each actor is looking: a Focus (session, thread, frame) per actor, and the newest stop each was shown.

Kept in the core so the person and each agent are alike: the TUI's selection is the person's Focus, and
`wait_for_stop` answers an agent from what its own replies have shown it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .models import StopReport

TOP_FRAME = "@f0"


@dataclass
class Focus:
    session_id: str | None = None
    thread_id: int | None = None
    frame: str = TOP_FRAME
    #: session id -> the newest stop number a reply or a view has shown this actor
    seen: dict[str, int] = field(default_factory=dict)

    def select(self, session_id: str | None) -> None:
        """Look at another session (or none), from its top frame."""
        self.session_id, self.thread_id, self.frame = session_id, None, TOP_FRAME

    def stopped(self, report: StopReport) -> None:
        """The focused session stopped: back to the top frame of the thread that stopped."""
        self.thread_id, self.frame = report.thread_id, TOP_FRAME

    def saw(self, report: StopReport | None) -> None:
        """Record that this actor was shown `report` (nothing when there was no stop)."""
        if report is not None:
            self.seen[report.session_id] = max(self.seen.get(report.session_id, 0), report.stop_number)

    def seen_stop(self, session_id: str) -> int | None:
        return self.seen.get(session_id)


class Focuses:
    """Every actor's Focus; an actor met for the first time looks at nothing yet."""

    def __init__(self) -> None:
        self._by_actor: dict[str, Focus] = {}

    def of(self, actor: str) -> Focus:
        return self._by_actor.setdefault(actor, Focus())

    def __iter__(self):
        return iter(self._by_actor.items())
