"""Stop reports: the StopReports mixin builds the bounded report of one stop (frames, locals, source, watches)."""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING

from .base import StopInfo
from .errors import DebugError
from .models import ExceptionInfo, FrameView, Location, StopReport
from .source import has_source, register_source, window

if TYPE_CHECKING:
    from .base import Backend
    from .handles import Handles
    from .limits import Limits
    from .output import OutputRing

TEXT_CAP = 300  # characters of an exception message, description or output line in a stop report


class StopReports:
    """Mixed into Session: reads the stopped program through the backend; recording the stop stays in Session."""

    id: str
    backend: Backend
    limits: Limits
    handles: Handles
    output: OutputRing

    async def _build_report(self, info: StopInfo, stop_number: int) -> StopReport:
        backend = self.backend
        thread_id = info.thread_id
        if thread_id is None:
            threads = await backend.threads()
            thread_id = threads[0][0] if threads else 0
        self._current_thread = thread_id
        frames, total = await backend.stack(thread_id, 0, max(self.limits.report_frames, 1))
        handles = self.handles
        handles.begin(stop_number)
        stack = [
            FrameView(handle=handles.frame(i, f.id), function=f.name, file=f.file, line=f.line, column=f.column)
            for i, f in enumerate(frames)
        ]
        top = frames[0] if frames else None
        location = Location(file=top.file, line=top.line, column=top.column, function=top.name) if top else Location()
        locals_, locals_total = ([], 0)
        if top is not None:
            locals_, locals_total = await self.frame_locals(top.id, limit=self.limits.report_locals)
        watches = await self._evaluate_watches(top.id if top else None)
        exception = None
        if info.reason == "exception":
            details = await backend.exception_details(thread_id)
            if details is not None:
                exception = ExceptionInfo(
                    type=_cap(details.type, 120), message=_cap(details.message), break_mode=details.break_mode
                )
            elif info.text or info.description:
                exception = ExceptionInfo(type=_cap(info.text or "Exception", 120), message=_cap(info.description))
        thread_name = None
        with contextlib.suppress(DebugError):
            thread_name = dict(await backend.threads()).get(thread_id)
        return StopReport(
            session_id=self.id,
            stop_number=stop_number,
            reason=info.reason,
            description=_cap(info.description),
            exception=exception,
            thread_id=thread_id,
            thread_name=thread_name,
            hit_breakpoints=[
                bp.id for bp in self.breakpoints.values() if bp.state.backend_id in info.hit_breakpoint_ids
            ],
            location=location,
            source=await self._source_window(location),
            locals=locals_,
            locals_total=locals_total,
            stack=stack,
            stack_total=total,
            watches=watches,
            output_tail=self.output.tail_text(self._output_mark, self.limits.report_output_lines),
            output_cursor=self.output.cursor,
        )

    async def _source_window(self, location: Location) -> list:
        """Source lines around the stop; a script with no local file is fetched from the target once."""
        if location.file and not os.path.isfile(location.file) and not has_source(location.file):
            fetch = getattr(self.backend, "script_source", None)
            if fetch is not None:
                with contextlib.suppress(DebugError):
                    text = await fetch(location.file)
                    if text is not None:
                        register_source(location.file, text)
        return window(location.file, location.line, self.limits.report_context)


def _cap(text: str | None, limit: int = TEXT_CAP) -> str | None:
    if text is None or len(text) <= limit:
        return text
    return text[: limit - 1] + f"… ({len(text) - limit + 1} more characters)"
