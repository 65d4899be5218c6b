"""The call stack pane as a tree: every thread of the stop (the stopped one open), each thread's frames, and the
asyncio tasks of the stopped thread's loop (Python) with where each awaits. JavaScript's async callers come in the
stopped thread's frames, under an "async" line. With one thread it is the plain list of frames.

Rows are OptionList options: a frame's id is its handle (@fN, or @f<thread>.<N> in another thread), a thread's
`thread:<id>`, the tasks' opener `tasks`, a task's `task:<n>`. Enter or space opens or closes a thread (its frames
are read on first open) or the tasks; on a frame it shows that frame's source again. A stop costs no debugger
request here: the threads come from the stop's snapshot, and the tasks (an evaluation in the program) are read only
once the person opened them in that session, then at each stop.

Library frames the debugger hides (debugpy's justMyCode) leave a dim note where they are ("3 library frames hidden
(jinja2)"); `l` lists them, greyed, with their own handles (@f0+1, …), which work like any frame's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option, OptionDoesNotExist

from pairdbg.backends import queries
from pairdbg.backends.actions.render import where
from pairdbg.backends.errors import DebugError
from pairdbg.backends.models import FrameView, HiddenFrames, Phase
from pairdbg.backends.session import Session

if TYPE_CHECKING:
    from .agent_marks import AgentMark

ASYNC_MARK = "[async"  # the inspector's async callers are named "fn [async await]"


@dataclass
class ThreadRow:
    id: int
    name: str
    frames: list[FrameView] | None = None  # None: not read yet
    total: int = 0
    note: str | None = None  # why its frames could not be read


MAX_FRAMES = 100


class StackPane(OptionList):
    BINDINGS = [
        Binding("enter,space", "open_thread", "Open/close, or show the frame's source", show=False),
        Binding("l", "toggle_library", "Show/hide library frames", show=False),
    ]

    class LibraryToggled(Message):
        """The person asked to list (or hide again) the library frames the debugger hides."""

        def __init__(self, shown: bool) -> None:
            super().__init__()
            self.shown = shown

    class TaskChosen(Message):
        """An asyncio task's row was highlighted: where its own coroutine is (the chain's outermost frame)."""

        def __init__(self, file: str | None, line: int | None) -> None:
            super().__init__()
            self.file = file
            self.line = line

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.stop_key: tuple[str, int] | None = None  # (session, stop) the threads and tasks belong to
        self.stopped_thread: int | None = None
        self.threads: list[ThreadRow] = []
        self.tasks: list[dict[str, Any]] | None = None  # None: not read (at this stop)
        self.python = False  # the session's program is Python: it may run asyncio tasks
        self.tasks_open: set[str] = set()  # sessions whose person opened the tasks (read at every stop since)
        self.open_threads: set[int] = set()
        self.frames: list[FrameView] = []  # the stopped thread's
        self.total = 0
        self.selected = "@f0"
        self.hidden: list[HiddenFrames] = []  # the stop's runs of library frames the stack leaves out
        self.show_library = False  # the person's choice (l), kept across stops
        self._frames_by_handle: dict[str, FrameView] = {}
        self.agent_marks: dict[str, AgentMark] = {}  # frame handle -> the agent that read it (tui/agent_marks.py)

    # ----- what the controller hands in --------------------------------------------------------------------------

    def for_stop(self, key: tuple[str, int], stopped_thread: int | None, python: bool = False) -> None:
        """A new stop: threads and tasks of the last one are forgotten (its handles are gone)."""
        if key != self.stop_key:
            self.stop_key = key
            self.stopped_thread = stopped_thread
            self.python = python
            self.threads, self.tasks = [], None
            self.open_threads = {stopped_thread} if stopped_thread is not None else set()

    def show(
        self, frames: list[FrameView], total: int, selected: str, hidden: list[HiddenFrames] | None = None
    ) -> None:
        self.frames, self.total, self.selected = list(frames), total, selected
        self.hidden = list(hidden or [])
        self.rebuild()

    def show_threads(self, key: tuple[str, int], threads: list[tuple[int, str]]) -> None:
        if key != self.stop_key:
            return
        known = {t.id: t for t in self.threads}
        self.threads = [known.get(tid) or ThreadRow(tid, name) for tid, name in threads]
        self.rebuild()

    def show_tasks(self, key: tuple[str, int], tasks: list[dict[str, Any]]) -> None:
        if key == self.stop_key:
            self.tasks = list(tasks)
            self.rebuild()

    def show_thread_frames(self, key: tuple[str, int], thread_id: int, frames: list[FrameView], total: int) -> None:
        if key != self.stop_key:
            return
        for row in self.threads:
            if row.id == thread_id:
                row.frames, row.total = list(frames), total
        self.rebuild()

    def show_thread_failed(self, key: tuple[str, int], thread_id: int, note: str) -> None:
        if key != self.stop_key:
            return
        for row in self.threads:
            if row.id == thread_id:
                row.frames, row.note = [], note
        self.rebuild()

    def show_note(self, note: str) -> None:
        self.stop_key = None
        self.threads, self.tasks, self.frames = [], None, []
        self.clear_options()
        self.add_option(Option(Text(note, style="dim italic"), disabled=True))

    def set_agent_marks(self, marks: dict[str, AgentMark]) -> None:
        if marks != self.agent_marks:
            self.agent_marks = dict(marks)
            if self.stop_key is not None:
                self.rebuild()

    def index_of(self, handle: str) -> int | None:
        """The row of a frame handle, if the tree shows it."""
        try:
            return self.get_option_index(handle)
        except OptionDoesNotExist:  # a closed thread's frame, or another stop's
            return None

    def frame_view(self, handle: str) -> FrameView | None:
        """Where a frame on the tree is (another thread's frames are not in the stop's list)."""
        return self._frames_by_handle.get(handle)

    def thread_of(self, handle: str) -> int | None:
        """The thread a frame handle belongs to: @f<thread>.<N> names it, @fN is the stopped thread's."""
        body = handle.removeprefix("@f")
        if "." in body:
            number = body.split(".", 1)[0]
            return int(number) if number.isdigit() else None
        return self.stopped_thread

    # ----- reading (the core's queries: the stop's snapshot answers what it has read already) -----------------------

    @work(group="threads", exclusive=True)
    async def load_threads(self, session: Session) -> None:
        """The stop's threads (read with the stop), and its tasks if the person opened them in this session."""
        key = self.stop_key
        if key is None or session.phase != Phase.PAUSED:
            return
        try:
            threads, _ = await queries.threads(session)
        except DebugError:
            threads = []
        if session.stop_number == key[1]:
            self.show_threads(key, threads)
        if self.python and session.id in self.tasks_open:
            await self._read_tasks(session, key)

    @work(group="tasks", exclusive=True)
    async def load_tasks(self, session: Session) -> None:
        if self.stop_key is not None:
            await self._read_tasks(session, self.stop_key)

    async def _read_tasks(self, session: Session, key: tuple[str, int]) -> None:
        """The stopped thread's loop's tasks (list_async_tasks' query: nothing is imported into a program that has
        not imported asyncio itself)."""
        try:
            tasks = await queries.async_tasks(session, "@f0") or []
        except DebugError:
            tasks = []
        if session.stop_number == key[1]:
            self.show_tasks(key, tasks)

    @work(group="thread-frames")
    async def load_thread(self, session: Session, thread_id: int) -> None:
        key = self.stop_key
        if key is None:
            return
        try:
            frames, total = await queries.call_stack(session, thread_id, 0, MAX_FRAMES)
        except DebugError as exc:
            self.show_thread_failed(key, thread_id, f"{exc.code}: {exc.message}")
            return
        self.show_thread_frames(key, thread_id, frames, total)

    # ----- drawing ---------------------------------------------------------------------------------------------

    @property
    def as_tree(self) -> bool:
        return len(self.threads) > 1

    def rebuild(self) -> None:
        options: list[Option] = []
        self._frames_by_handle = {f.handle: f for f in self.frames}
        if not self.as_tree:
            options += self._frame_rows(self.frames, self.total, "", self.hidden)
            options += self._task_rows("")
        for row in self.threads if self.as_tree else []:
            stopped = row.id == self.stopped_thread
            is_open = row.id in self.open_threads
            label = Text("▾ " if is_open else "▸ ", style="bold")
            label.append(f"{row.name or 'thread'} #{row.id}", style="bold" if stopped else "")
            if stopped:
                label.append("  ⏸ stopped here", style="italic")
            options.append(Option(label, id=f"thread:{row.id}"))
            if not is_open:
                continue
            if stopped:
                options += self._frame_rows(self.frames, self.total, "  ", self.hidden)
                options += self._task_rows("  ")
            elif row.frames is None:
                options.append(Option(Text("  reading its frames…", style="dim italic"), disabled=True))
            elif row.note:
                options.append(Option(Text(f"  {row.note}", style="dim italic"), disabled=True))
            else:
                for frame in row.frames:
                    self._frames_by_handle[frame.handle] = frame
                options += self._frame_rows(row.frames, row.total, "  ")
        keep = self.selected
        self.clear_options()
        self.add_options(options)
        ids = [o.id for o in options]
        if keep in ids:
            self.highlighted = ids.index(keep)

    def _frame_rows(
        self, frames: list[FrameView], total: int, indent: str, hidden: list[HiddenFrames] | None = None
    ) -> list[Option]:
        rows: list[Option] = []
        in_async = False
        # Where each run of hidden frames is noted: at its first frame when listed, else under the frame above it.
        notes: dict[str | None, list[tuple[HiddenFrames, bool]]] = {}
        for run in hidden or []:
            listed = self.show_library and bool(run.handles) and any(f.handle == run.handles[0] for f in frames)
            at = f"at:{run.handles[0]}" if listed else run.after
            notes.setdefault(at, []).append((run, listed))
        rows += [self._hidden_note(*note, indent) for note in notes.get(None, [])]
        for frame in frames:
            rows += [self._hidden_note(*note, indent) for note in notes.get(f"at:{frame.handle}", [])]
            if ASYNC_MARK in frame.function and not in_async:
                in_async = True
                rows.append(
                    Option(
                        Text(f"{indent}── async callers (can be seen, not inspected) ──", style="dim"), disabled=True
                    )
                )
            style = "dim" if in_async or frame.library else ""
            label = Text(f"{indent}{frame.handle:<4} {frame.function}  {where(frame.file, frame.line)}", style=style)
            mark = self.agent_marks.get(frame.handle)
            if mark is not None:
                color = self.app.theme_variables.get("agent-color", "yellow")
                label.append(f"  {mark.label}", style=f"bold {color}" if mark.fresh else f"dim {color}")
            rows.append(Option(label, id=frame.handle))
            rows += [self._hidden_note(*note, indent) for note in notes.get(frame.handle, [])]
        if total > len(frames):
            rows.append(Option(Text(f"{indent}… {total - len(frames)} more frames", style="dim"), disabled=True))
        return rows

    def _hidden_note(self, run: HiddenFrames, listed: bool, indent: str) -> Option:
        """One dim line: how many frames of which packages the stack leaves out here (or lists greyed below it,
        when `listed`), and the key that switches."""
        frames = f"frame{'s' if run.count != 1 else ''}"
        what = f"{run.count} {frames} unwound by the exception" if run.unwound else f"{run.count} library {frames}"
        if not listed and not run.unwound:
            what += " hidden"
        if run.packages:
            what += f" ({', '.join(run.packages)})"
        if run.handles:
            what += " · l hides them" if listed else " · l lists them"
        return Option(Text(f"{indent}┄ {what}", style="dim italic"), disabled=True)

    def _task_rows(self, indent: str) -> list[Option]:
        session_id = self.stop_key[0] if self.stop_key else ""
        if not self.python or not self.frames:
            return []
        if session_id not in self.tasks_open:
            return [Option(Text(f"{indent}▸ asyncio tasks (enter lists them)", style="dim"), id="tasks")]
        if self.tasks is None:
            return [Option(Text(f"{indent}▾ asyncio tasks: reading…", style="dim italic"), id="tasks")]
        if not self.tasks:
            return [Option(Text(f"{indent}▾ asyncio tasks: no loop runs in this thread", style="dim"), id="tasks")]
        rows = [Option(Text(f"{indent}▾ asyncio tasks ({len(self.tasks)})", style="bold"), id="tasks")]
        for n, task in enumerate(self.tasks):
            chain = task.get("chain") or []
            steps = [f"{c['function']} {where(c['file'], c['line'])}" for c in chain]
            mark = "*" if task["current"] else " "
            label = Text(f"{indent}  {mark} {task['name']}", style="bold" if task["current"] else "")
            if steps:  # its own coroutine first, then what it awaits through
                label.append("  " + " → ".join(steps if len(steps) <= 3 else [*steps[:2], "…", steps[-1]]))
            state = "running (the stopped code)" if task["current"] else "done" if task["done"] else ""
            if task.get("awaiting") and not task["current"]:
                state = f"awaits {task['awaiting']}"
            if state:
                label.append(f"  {state}", style="dim italic")
            rows.append(Option(label, id=f"task:{n}"))
        return rows

    # ----- keys ------------------------------------------------------------------------------------------------

    def action_open_thread(self) -> None:
        if self.highlighted is None:
            return
        option_id = self.get_option_at_index(self.highlighted).id or ""
        if option_id == "tasks":
            self._switch_tasks()
            return
        if not option_id.startswith("thread:"):
            self.action_select()  # a frame: Enter shows its source again (the controller hears OptionSelected)
            return
        thread_id = int(option_id.removeprefix("thread:"))
        self.selected = option_id
        if thread_id in self.open_threads:
            self.open_threads.discard(thread_id)
        else:
            self.open_threads.add(thread_id)
            row = next((t for t in self.threads if t.id == thread_id), None)
            session = getattr(self.app, "session", None)
            if row is not None and row.frames is None and thread_id != self.stopped_thread and session is not None:
                self.load_thread(session, thread_id)
        self.rebuild()

    def action_toggle_library(self) -> None:
        self.show_library = not self.show_library
        self.post_message(self.LibraryToggled(self.show_library))

    def _switch_tasks(self) -> None:
        session = getattr(self.app, "session", None)
        if self.stop_key is None or session is None:
            return
        self.selected = "tasks"
        if session.id in self.tasks_open:
            self.tasks_open.discard(session.id)
        else:
            self.tasks_open.add(session.id)
            if self.tasks is None:
                self.load_tasks(session)
        self.rebuild()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        option_id = event.option.id or ""
        self.selected = option_id  # a redraw (threads arriving) keeps the person's row
        if option_id.startswith("task:"):
            event.stop()
            task = self.tasks[int(option_id.removeprefix("task:"))]
            chain = task.get("chain") or []
            if chain:
                self.post_message(self.TaskChosen(chain[0]["file"], chain[0]["line"]))
        elif option_id.startswith("thread:") or option_id == "tasks":
            event.stop()
