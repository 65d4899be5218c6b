"""The source pane: a Line API view of one file with syntax colours, a breakpoint gutter, the stop line and a cursor."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.events import Click
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from pairdbg.backends.errors import DebugError
from pairdbg.backends.models import BreakpointView, VariableView
from pairdbg.backends.source import lines_of

if TYPE_CHECKING:
    from pygments.lexer import Lexer

    from .agent_marks import AgentMark

GUTTER = 8  # "●▶ 1234 " : breakpoint mark, line marker, number, space
INLINE_VALUE = 24  # longest value shown inline (then an ellipsis)
INLINE_LINE = 80  # longest inline note on one line


@dataclass(frozen=True)
class Mark:
    """A breakpoint as the gutter shows it: "verified" ●, "pending" ○ (with the target's reason) or "disabled" ◌."""

    state: str
    note: str | None = None


def gutter_marks(views: list[BreakpointView], path: str | None) -> dict[int, Mark]:
    """The line breakpoints of `path`, by the line they are (or will be) bound to."""
    marks: dict[int, Mark] = {}
    for v in views:
        line = v.actual_line or v.line
        if v.kind != "line" or v.file != path or not line:
            continue
        if not v.enabled:
            marks[line] = Mark("disabled", f"{v.id} disabled")
        elif v.verified:
            marks[line] = Mark("verified")
        else:
            marks[line] = Mark("pending", f"{v.id} pending: {v.message or 'not bound yet (binds when the file loads)'}")
    return marks


def clip(text: str, width: int) -> str:
    """`text` in at most `width` cells, an ellipsis marking a cut."""
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


# The languages pairdbg debugs, by extension: named directly, because finding a lexer by file name matches the name
# against every pattern pygments knows (~100 ms of regex compiling before the first paint).
LEXERS_BY_EXTENSION = {
    ".py": "python",
    ".pyw": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "jsx",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".rs": "rust",
    ".go": "go",
}


def lexer_for(path: str | None) -> Lexer | str:
    """The lexer for a file by its name; plain text when pygments has none. (Never guessed from the content, as
    rich's Syntax.guess_lexer does for names it does not know: that imports every lexer pygments has.)"""
    from pygments.lexers import get_lexer_by_name, get_lexer_for_filename  # after the first frame (see _open)
    from pygments.util import ClassNotFound

    name = LEXERS_BY_EXTENSION.get(_kind(path))
    try:
        if name is not None:
            return get_lexer_by_name(name, stripnl=False, ensurenl=False)
        return get_lexer_for_filename(path or "", stripnl=False, ensurenl=False)
    except ClassNotFound:
        return "text"


def _kind(path: str | None) -> str:
    return os.path.splitext(path or "")[1].lower()


#: The kinds of file (extensions) highlighted so far in this process. The first of a kind costs ~60-150 ms more
#: (pygments imports its lexer and compiles its rules), so it is shown plain for one frame and coloured after it.
_HIGHLIGHTED_KINDS: set[str] = set()


class SourceView(ScrollView, can_focus=True):
    """Shows one file. The person moves `cursor_line` with up/down (F9 toggles a breakpoint there);
    `current_line` is where the program is stopped (or the selected frame's line)."""

    DEFAULT_CSS = """
    SourceView { background: $surface; }
    SourceView > .source--gutter { color: $text-muted; }
    SourceView > .source--breakpoint { color: $breakpoint-color; text-style: bold; }
    SourceView > .source--unverified { color: $breakpoint-color 50%; }
    SourceView > .source--current { background: $current-line-background; }
    SourceView > .source--marker { color: $warning; text-style: bold; }
    SourceView > .source--cursor { background: $cursor-line-background; }
    SourceView:focus > .source--cursor { background: $cursor-line-background; text-style: bold; }
    SourceView > .source--disabled { color: $text-muted; }
    SourceView > .source--inline { color: $text-muted; text-style: italic; }
    SourceView > .source--match { background: $warning 40%; }
    SourceView > .source--agent { color: $agent-color; text-style: bold; }
    SourceView > .source--agent-faded { color: $agent-color 45%; }
    """
    COMPONENT_CLASSES = {
        "source--gutter",
        "source--breakpoint",
        "source--unverified",
        "source--current",
        "source--marker",
        "source--cursor",
        "source--disabled",
        "source--inline",
        "source--match",
        "source--agent",
        "source--agent-faded",
    }
    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", show=False),
        Binding("pagedown", "page(1)", show=False),
        Binding("home", "cursor_to(1)", show=False),
        Binding("end", "cursor_to(-1)", show=False),
        Binding("colon", "app.finder(':')", "Line", show=False),
        Binding("slash", "app.finder('/')", "Search", show=False),
        Binding("at", "app.finder('@')", "Symbol", show=False),
        Binding("n", "next_match(1)", "Next match", show=False),
        Binding("N", "next_match(-1)", "Previous match", show=False),
        Binding("escape", "back_to_stop", "Back to the stop", show=False),
    ]

    cursor_line: reactive[int] = reactive(1, init=False)

    class CursorMoved(Message):
        def __init__(self, line: int) -> None:
            super().__init__()
            self.line = line

    class GutterClicked(Message):
        """The breakpoint column of a line was clicked (toggles a breakpoint there)."""

        def __init__(self, line: int) -> None:
            super().__init__()
            self.line = line

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.path: str | None = None
        self.stop_path: str | None = None  # where the program is stopped (or the selected frame's file)
        self.stop_line: int | None = None
        self.current_is_top = True
        self.breakpoints: dict[int, Mark] = {}
        self.search: str | None = None  # the text `/` looked for; its matches are highlighted, n/N go through them
        self._inline: dict[str, str] = {}  # name -> value of the stopped frame's locals
        self._inline_at: tuple[str | None, int, int] = (None, 0, 0)  # (file, first line, stop line) they show on
        self._lines: tuple[str, ...] = ()
        self._highlighted: list[Text] = []
        self._painted = False  # the first frame is on screen: a file opened before it is coloured right after it
        self._syntax_style = "monokai"
        self._message = "No source yet: ctrl+p → Start debugging"
        #: (file, line) -> where an agent looks (tui/agent_marks.py): a ◆ after the line number and its name
        self.agent_marks: dict[tuple[str, int], AgentMark] = {}

    # ----- what to show ---------------------------------------------------------------------------------------

    @property
    def current_line(self) -> int | None:
        """The stop's line, when the stop's file is the one shown."""
        return self.stop_line if self.path == self.stop_path else None

    @property
    def lines(self) -> tuple[str, ...]:
        return self._lines

    def show(self, path: str | None, line: int | None, *, top: bool = True, move_cursor: bool = True) -> None:
        """Open `path` (if it is not already open) and mark `line` as where the program is."""
        before = self.current_line
        self.stop_path, self.stop_line = path, line
        self.current_is_top = top
        if line is None:
            self._inline = {}
        if path != self.path and (line is not None or move_cursor or self.path is None):
            self._open(path)
            opened = True
        else:
            opened = False
            self._set_title()  # the stop may have come to the file being read (or left it)
        if line and move_cursor and path == self.path:
            # Centre only when the line is out of view (or near an edge): a step to the next lines repaints
            # the two marked rows instead of scrolling the whole pane.
            self.set_cursor(line, center=opened or not self._comfortably_visible(line))
        if opened:
            self.refresh()
        else:
            self._refresh_rows(before, self.current_line)

    def open_file(self, path: str, line: int | None = None) -> None:
        """Show another file (the stop's marker stays where the program is)."""
        if path != self.path:
            self._open(path)
            self.refresh()
        if line:
            self.set_cursor(line, center=True)

    def action_back_to_stop(self) -> None:
        """Escape: back to the line the program is stopped at (and the search highlights go)."""
        self.search = None
        if self.stop_path and self.stop_line:
            self.open_file(self.stop_path, self.stop_line)
        self.refresh()

    def set_inline_values(self, file: str | None, line: int | None, values: list[VariableView]) -> None:
        """The stopped frame's locals, shown at the end of the lines of its function that use them (up to `line`).
        Values come from what the stop already read: nothing is asked of the target."""
        from .symbols import enclosing, outline  # imported at the first stop, not before the first paint

        inline = {v.name: v.value for v in values if v.value and v.name.isidentifier()}
        first = line or 0
        if file and line and file == self.path:
            symbol = enclosing(outline(file, self._lines), line)
            first = symbol.line if symbol is not None else max(1, line - 40)
        if (inline, (file, first, line or 0)) == (self._inline, self._inline_at):
            return  # the frame's load after the stop's own report: the same values
        before = self._inline_at
        self._inline, self._inline_at = inline, (file, first, line or 0)
        # Repaint only the visible rows of the old and new ranges (a step's repaint stays a few rows).
        top, height = int(self.scroll_offset.y), max(self.scrollable_content_region.height, 1)
        rows = {n for _, a, b in (before, self._inline_at) for n in range(max(a, top + 1), min(b, top + height) + 1)}
        self._refresh_rows(*rows)

    def _inline_note(self, line: int) -> str | None:
        file, first, last = self._inline_at
        if not self._inline or file != self.path or not first <= line <= last or file != self.stop_path:
            return None
        from .symbols import outline

        names = outline(self.path, self._lines).names.get(line, ())
        parts = [f"{name} = {clip(self._inline[name], INLINE_VALUE)}" for name in names if name in self._inline]
        return clip(", ".join(parts), INLINE_LINE) if parts else None

    # ----- search ---------------------------------------------------------------------------------------------

    def set_search(self, text: str | None) -> None:
        self.search = text or None
        self.refresh()

    def _pattern(self) -> re.Pattern[str] | None:
        if not self.search:
            return None
        flags = 0 if any(c.isupper() for c in self.search) else re.IGNORECASE  # smart case, as vim and VS Code
        return re.compile(re.escape(self.search), flags)

    def match_lines(self) -> list[int]:
        pattern = self._pattern()
        if pattern is None:
            return []
        return [n for n, text in enumerate(self._lines, 1) if pattern.search(text)]

    def action_next_match(self, direction: int) -> None:
        found = self.match_lines()
        if not found:
            if self.search:
                self.notify(f"no match for {self.search!r} in this file", title="Search", severity="warning")
            return
        if direction > 0:
            target = next((n for n in found if n > self.cursor_line), found[0])
        else:
            target = next((n for n in reversed(found) if n < self.cursor_line), found[-1])
        self.set_cursor(target, center=not self._comfortably_visible(target))

    def _comfortably_visible(self, line: int) -> bool:
        top, height = int(self.scroll_offset.y), self.scrollable_content_region.height
        margin = min(3, height // 4)
        return height > 0 and top + margin <= line - 1 < top + height - margin

    def _refresh_rows(self, *lines: int | None) -> None:
        for line in lines:
            if line:
                self.refresh_line(line - 1)

    def set_breakpoints(self, lines: dict[int, Mark]) -> None:
        if lines != self.breakpoints:
            changed = set(lines.items()) ^ set(self.breakpoints.items())
            self.breakpoints = lines
            self._refresh_rows(*(line for line, _ in changed))

    def set_agent_marks(self, marks: dict[tuple[str, int], AgentMark]) -> None:
        if marks != self.agent_marks:
            changed = set(marks.items()) ^ set(self.agent_marks.items())
            self.agent_marks = dict(marks)
            self._refresh_rows(*(line for (path, line), _ in changed if path == self.path))

    def set_syntax_style(self, style: str) -> None:
        if style != self._syntax_style:
            self._syntax_style = style
            self._highlight()
            self.refresh()

    def _open(self, path: str | None) -> None:
        self.path = path
        self._lines = ()
        if path:
            try:
                self._lines = lines_of(path)
            except DebugError as exc:
                self._message = f"{exc.code}: {exc.message}"
        if self._painted and _kind(path) in _HIGHLIGHTED_KINDS:
            self._highlight()
        else:  # plain lines (same cells: tabs expanded alike), coloured right after the frame that shows them: for
            # the first frame, and for a program's first stop in a file of a kind not highlighted before
            self._highlighted = []
            self.call_after_refresh(self._highlight_late, path)
        width = max((len(line) for line in self._lines), default=0) + GUTTER + 1
        self.virtual_size = Size(width, max(len(self._lines), 1))
        self.cursor_line = 1
        self.scroll_to(0, 0, animate=False)
        self.search = None
        self._set_title()

    def _set_title(self) -> None:
        """`Source · pricing.py`, and how to get back when it is not the file the program stopped in."""
        name = os.path.basename(self.path) if self.path else ""
        elsewhere = self.path != self.stop_path and self.stop_line is not None
        self.border_title = f"Source · {name}" + (" (esc: back to the stop)" if elsewhere else "") if name else "Source"

    def on_mount(self) -> None:
        self.call_after_refresh(self._first_frame_shown)

    def _first_frame_shown(self) -> None:
        self._painted = True

    def _highlight_late(self, path: str | None) -> None:
        self._painted = True
        if path == self.path and not self._highlighted:
            self._highlight()
            self.refresh()

    def _highlight(self) -> None:
        if not self._lines:
            self._highlighted = []
            return
        from rich.syntax import Syntax  # with pygments: not needed for the first frame

        syntax = Syntax("", lexer_for(self.path), theme=self._syntax_style, background_color="default")
        text = syntax.highlight("\n".join(self._lines))
        text.expand_tabs(4)
        self._highlighted = list(text.split("\n", allow_blank=True))
        _HIGHLIGHTED_KINDS.add(_kind(self.path))

    # ----- cursor ---------------------------------------------------------------------------------------------

    def set_cursor(self, line: int, center: bool = False) -> None:
        line = max(1, min(line, max(len(self._lines), 1)))
        self.cursor_line = line
        height = max(self.scrollable_content_region.height, 1)
        top = int(self.scroll_offset.y)
        if center:
            self.scroll_to(y=max(0, line - 1 - height // 2), animate=False)
        elif line - 1 < top:
            self.scroll_to(y=line - 1, animate=False)
        elif line - 1 >= top + height:
            self.scroll_to(y=line - height, animate=False)

    def on_resize(self) -> None:
        """A resize that hid the program's line brings it back into view, centred."""
        line = self.current_line
        if not line:
            return
        top, height = int(self.scroll_offset.y), self.scrollable_content_region.height
        if height and not top <= line - 1 < top + height:
            self.set_cursor(line, center=True)

    def watch_cursor_line(self, before: int, line: int) -> None:
        self._refresh_rows(before, line)
        self.post_message(self.CursorMoved(line))

    def action_cursor(self, delta: int) -> None:
        self.set_cursor(self.cursor_line + delta)

    def action_page(self, direction: int) -> None:
        self.set_cursor(self.cursor_line + direction * max(self.scrollable_content_region.height - 1, 1))

    def action_cursor_to(self, line: int) -> None:
        self.set_cursor(len(self._lines) if line < 0 else line)

    def on_click(self, event: Click) -> None:
        if self._lines:
            line = int(self.scroll_offset.y) + event.y + 1
            self.set_cursor(line)
            if event.x < 2 and line <= len(self._lines):  # the breakpoint column (and the marker's)
                self.post_message(self.GutterClicked(line))

    # ----- rendering ------------------------------------------------------------------------------------------

    def line_text(self, line: int) -> str:
        """The plain text of one rendered line (gutter included), as the person sees it; used by tests too."""
        return self._render(line, 0, 200).text

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        line = int(scroll_y) + y + 1
        if not self._lines:
            if y == 0:
                strip = Strip([Segment(self._message[:width], self.rich_style)])
                return strip.extend_cell_length(width, self.rich_style)
            return Strip.blank(width, self.rich_style)
        if line > len(self._lines):
            return Strip.blank(width, self.rich_style)
        return self._render(line, int(scroll_x), width)

    def _render(self, line: int, scroll_x: int, width: int) -> Strip:
        base = self.rich_style
        if line == self.current_line:
            base += self.get_component_rich_style("source--current")
        elif line == self.cursor_line:
            base += self.get_component_rich_style("source--cursor")
        if line == self.cursor_line and line == self.current_line:
            base += Style(bold=True)
        gutter = self._gutter(line, base)
        if line - 1 < len(self._highlighted):
            code = self._highlighted[line - 1]
        else:  # not coloured yet (the first frame), or a line past the coloured text
            code = Text(self._lines[line - 1].expandtabs(4))
        pattern = self._pattern()
        if pattern is not None:
            found = list(pattern.finditer(code.plain))
            if found:
                code = code.copy()
                for match in found:
                    code.stylize(self.get_component_rich_style("source--match"), match.start(), match.end())
        room = max(width - GUTTER, 0)
        segments = list(code.render(self.app.console))
        code_strip = Strip(segments).crop(scroll_x, scroll_x + room)
        parts = [gutter, code_strip]
        note = self._note(line)
        used = code_strip.cell_length
        if note and room - used > 6:
            style = self.get_component_rich_style("source--inline")
            parts.append(Strip([Segment("  " + clip(note, room - used - 2), style)]))
        strip = Strip.join(parts).apply_style(base)
        return strip.extend_cell_length(width, base)

    def _note(self, line: int) -> str | None:
        """Dim text after a line: a pending or disabled breakpoint's reason, else the inline values; led by the name
        of an agent looking at it."""
        mark = self.breakpoints.get(line)
        if mark is not None and mark.note and (mark.state == "pending" or line == self.cursor_line):
            note = mark.note
        else:
            note = self._inline_note(line)
        agent = self.agent_marks.get((self.path, line)) if self.path else None
        if agent is not None:
            return f"{agent.label}  {note}" if note else agent.label
        return note

    def _gutter(self, line: int, base: Style) -> Strip:
        segments = []
        mark = self.breakpoints.get(line)
        if mark is not None:
            style_name = {"verified": "source--breakpoint", "pending": "source--unverified"}.get(
                mark.state, "source--disabled"
            )
            glyph = {"verified": "●", "pending": "○"}.get(mark.state, "◌")
            segments.append(Segment(glyph, self.get_component_rich_style(style_name)))
        else:
            segments.append(Segment(" "))
        if line == self.current_line:
            marker = "▶" if self.current_is_top else "▷"
            segments.append(Segment(marker, self.get_component_rich_style("source--marker")))
        elif line == self.cursor_line:
            segments.append(Segment("›", self.get_component_rich_style("source--gutter")))
        else:
            segments.append(Segment(" "))
        agent = self.agent_marks.get((self.path, line)) if self.path else None
        if agent is None:
            segments.append(Segment(f"{line:>5} ", self.get_component_rich_style("source--gutter")))
        else:  # the number's trailing space becomes the agent's ◆
            segments.append(Segment(f"{line:>5}", self.get_component_rich_style("source--gutter")))
            style = self.get_component_rich_style("source--agent" if agent.fresh else "source--agent-faded")
            segments.append(Segment("◆", style))
        return Strip(segments)
