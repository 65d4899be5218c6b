"""Stops: the StopRecorder builds one stop's bounded report and its StopSnapshot (frames and scopes, kept)."""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING

from .base import StopInfo
from .errors import DebugError
from .models import ExceptionInfo, FailedTest, FrameView, HiddenFrames, Location, RaiseSite, StopReport
from .source import has_source, register_source, window

if TYPE_CHECKING:
    from .base import Backend, Debugger, RawFrame, RawScope
    from .breakpoints import BreakpointBook
    from .handles import Handles
    from .limits import Limits
    from .output import OutputRing
    from .values import ValueInspector, WatchList

TEXT_CAP = 300  # characters of an exception message, description or output line in a stop report
RAISE_SITE_CONTEXT = 2  # source lines either side of a hidden raise site
RAISE_SITE_LOCALS = 8  # locals of a hidden raise site in a stop report (the frame's handle reads the rest)


class StopSnapshot:
    """One stop as the target showed it: the stopped thread's frames and frames' scopes, each fetched once (the
    report's frames at the stop, further frames and scopes on first ask). Values are not kept: an evaluation or
    set_variable may change them. Valid while the program stays paused at this stop."""

    def __init__(
        self, debugger: Debugger, stop_number: int, thread_id: int, frames: list[RawFrame], total: int
    ) -> None:
        self.stop_number = stop_number
        self.thread_id = thread_id
        self.total = total
        self._debugger = debugger
        self._frames = list(frames)
        self._scopes: dict[int, list[RawScope]] = {}
        self._full: list[RawFrame] | None = None
        self._full_asked = False
        #: The program's threads as they were at this stop (read with the report), None until read.
        self.threads: list[tuple[int, str]] | None = None
        self._other_stacks: dict[int, tuple[list[RawFrame], int]] = {}  # other threads' frames, read once

    async def stack(self, start: int = 0, levels: int = 20) -> tuple[list[RawFrame], int]:
        """Frames start..start+levels of the stopped thread, and the depth; only frames not seen yet are fetched."""
        end = min(start + levels, self.total)
        if end > len(self._frames):
            more, total = await self._debugger.stack(self.thread_id, len(self._frames), end - len(self._frames))
            self._frames.extend(more)
            self.total = max(total, len(self._frames))
        return self._frames[start:end], self.total

    async def full_stack(self) -> list[RawFrame] | None:
        """The whole stack with the library frames the target hides (None: it hides none); asked once per stop."""
        if not self._full_asked:
            self._full_asked = True
            if self._frames:
                with contextlib.suppress(DebugError):
                    self._full = await self._debugger.stack_with_library(self.thread_id, self._frames[0].id)
        return self._full
    async def thread_stack(self, thread_id: int, start: int, levels: int) -> tuple[list[RawFrame], int]:
        """Frames of a thread: the stopped one's as `stack`; another's read once per stop (from its top, as many as
        asked for so far), so a person's tree and an agent's get_call_stack share one request."""
        if thread_id == self.thread_id:
            return await self.stack(start, levels)
        frames, total = self._other_stacks.get(thread_id, ([], -1))
        if total < 0 or (start + levels > len(frames) and len(frames) < total):
            frames, total = await self._debugger.stack(thread_id, 0, start + levels)
            self._other_stacks[thread_id] = (frames, total)
        return frames[start : start + levels], total

    async def scopes(self, frame_id: int) -> list[RawScope]:
        if frame_id not in self._scopes:
            self._scopes[frame_id] = await self._debugger.scopes(frame_id)
        return self._scopes[frame_id]


class StopRecorder:
    """Reads the stopped program through the backend into a StopReport; the session decides whether to keep it."""

    def __init__(
        self,
        session_id: str,
        backend: Backend,
        limits: Limits,
        handles: Handles,
        output: OutputRing,
        breakpoints: BreakpointBook,
        values: ValueInspector,
        watches: WatchList,
    ) -> None:
        self.session_id = session_id
        self.backend = backend
        self.limits = limits
        self.handles = handles
        self.output = output
        self.breakpoints = breakpoints
        self.values = values
        self.watches = watches

    async def thread_of(self, info: StopInfo) -> int:
        """The thread that stopped; a target that does not say is asked for its first thread."""
        if info.thread_id is not None:
            return info.thread_id
        threads = await self.backend.threads()
        return threads[0][0] if threads else 0

    async def build(
        self, info: StopInfo, thread_id: int, stop_number: int, output_mark: int
    ) -> tuple[StopReport, StopSnapshot]:
        """The report of stop `stop_number` and its snapshot; the output tail starts at `output_mark`."""
        backend = self.backend.debugger("has no stops")
        frames, total = await backend.stack(thread_id, 0, max(self.limits.report_frames, 1))
        snapshot = StopSnapshot(backend, stop_number, thread_id, frames, total)
        handles = self.handles
        handles.begin(stop_number)
        stack = [
            FrameView(handle=handles.frame(i, f.id), function=f.name, file=f.file, line=f.line, column=f.column)
            for i, f in enumerate(frames)
        ]
        hidden: list[HiddenFrames] = []
        placed: list[tuple[str, RawFrame]] = []
        full = await snapshot.full_stack()
        if full is not None:
            placed, hidden = place_library_frames(full, handles)
        top = frames[0] if frames else None
        location = Location(file=top.file, line=top.line, column=top.column, function=top.name) if top else Location()
        locals_, locals_total = ([], 0)
        if top is not None:
            scopes = await snapshot.scopes(top.id)
            locals_, locals_total = await self.values.frame_locals(
                top.id, limit=self.limits.report_locals, scopes=scopes
            )
        watches = await self.watches.evaluate_all(top.id if top else None)
        exception = None
        if info.reason == "exception":
            details = await backend.exception_details(thread_id)
            if details is not None:
                exception = ExceptionInfo(
                    type=cap_text(details.type, 120),
                    message=cap_text(details.message),
                    break_mode=details.break_mode,
                    raised_at=details.raised_at,
                    test=FailedTest(**details.test) if details.test else None,
                )
            elif info.text or info.description:
                exception = ExceptionInfo(
                    type=cap_text(info.text or "Exception", 120), message=cap_text(info.description)
                )
        raise_site = write_site = None
        if exception is not None and placed and placed[0][1].unwound:
            raise_site = await self._raise_site(snapshot, *placed[0])
        elif info.reason == "data breakpoint" and placed and placed[0][1].library:
            # The writer is library code justMyCode hides (the program stopped in it): shown like a raise site.
            write_site = await self._raise_site(snapshot, *placed[0])
        thread_name = None
        with contextlib.suppress(DebugError):
            snapshot.threads = await backend.threads()
            thread_name = dict(snapshot.threads).get(thread_id)
        report = StopReport(
            session_id=self.session_id,
            stop_number=stop_number,
            reason=info.reason,
            description=cap_text(info.description),
            exception=exception,
            thread_id=thread_id,
            thread_name=thread_name,
            hit_breakpoints=self._hit(info, location),
            location=location,
            source=await self._source_window(location),
            locals=locals_,
            locals_total=locals_total,
            stack=stack,
            stack_total=total,
            hidden_frames=hidden,
            raise_site=raise_site,
            write_site=write_site,
            watches=watches,
            output_tail=self.output.tail_text(output_mark, self.limits.report_output_lines),
            output_cursor=self.output.cursor,
            location_note=None if top is not None else self._empty_stack_note(backend),
        )
        return report, snapshot

    async def _raise_site(self, snapshot: StopSnapshot, handle: str, frame: RawFrame) -> RaiseSite | None:
        """The innermost frame the exception unwound, hidden library code: its source and first locals (the stop
        itself is at the caller's line). None when its locals cannot be read: the report stays as it was."""
        try:
            scopes = await snapshot.scopes(frame.id)
            locals_, total = await self.values.frame_locals(frame.id, limit=RAISE_SITE_LOCALS, scopes=scopes)
        except DebugError:
            return None
        return RaiseSite(
            handle=handle,
            function=frame.name,
            file=frame.file,
            line=frame.line,
            package=frame.package,
            source=window(frame.file, frame.line, RAISE_SITE_CONTEXT),
            locals=locals_,
            locals_total=total,
        )

    @staticmethod
    def _empty_stack_note(backend: Debugger) -> str:
        """Why a stop shows no frame at all: said from what is known, never guessed (the program may well have run)."""
        if backend.skipped_code_hint:  # the backend leaves library frames out of stacks (debugpy's justMyCode)
            return (
                "every frame on the stack is library code, which just_my_code hides; start again with "
                "just_my_code=false to see those frames"
            )
        return "the target reported no frames for the stopped thread"

    def _hit(self, info: StopInfo, location: Location) -> list[str]:
        """The breakpoints a stop hit: by the ids the target gave, else (a breakpoint stop without ids: lldb-vscode
        16 says only "breakpoint 3.1") those placed on the stop's line."""
        hit = self.breakpoints.ids_of(info.hit_breakpoint_ids, location.file)
        if hit or info.hit_breakpoint_ids or info.reason != "breakpoint" or not location.file or not location.line:
            return hit
        return self.breakpoints.ids_at(location.file, location.line)

    async def _source_window(self, location: Location) -> list:
        """Source lines around the stop; a script with no local file is fetched from the target once."""
        file = location.file
        if file and self.backend.features.remote_sources and not os.path.isfile(file) and not has_source(file):
            with contextlib.suppress(DebugError):
                text = await self.backend.debugger("has no scripts").script_source(file)
                if text is not None:
                    register_source(file, text)
        return window(file, location.line, self.limits.report_context)


def place_library_frames(
    full: list[RawFrame], handles: Handles
) -> tuple[list[tuple[str, RawFrame]], list[HiddenFrames]]:
    """The whole stack with a handle for each frame (a shown frame keeps its @fN; a hidden one is named from the
    shown frame next to it, @f0+1 below it or @f0-1 above the top), and the runs of hidden frames."""
    entries: list[tuple[str, RawFrame]] = []
    groups: list[HiddenFrames] = []
    pending: list[RawFrame] = []
    shown = -1

    def flush(before: int | None) -> None:
        if not pending:
            return

        if shown < 0:  # above the top shown frame: counted upwards from it
            names = [handles.library_frame(0, -(len(pending) - j), f.id) for j, f in enumerate(pending)]
        else:
            names = [handles.library_frame(shown, j + 1, f.id) for j, f in enumerate(pending)]
        entries.extend(zip(names, pending, strict=True))
        groups.append(
            HiddenFrames(
                count=len(pending),
                packages=list(dict.fromkeys(f.package for f in pending if f.package)),
                after=f"@f{shown}" if shown >= 0 else None,
                before=f"@f{before}" if before is not None else None,
                handles=names,
                unwound=all(f.unwound for f in pending),
            )
        )
        pending.clear()

    for frame in full:
        if frame.library:
            pending.append(frame)
            continue
        flush(shown + 1)
        shown += 1
        entries.append((handles.frame(shown, frame.id), frame))
    flush(None)
    return entries, groups


def cap_text(text: str | None, limit: int = TEXT_CAP) -> str | None:
    if text is None or len(text) <= limit:
        return text
    return text[: limit - 1] + f"… ({len(text) - limit + 1} more characters)"
