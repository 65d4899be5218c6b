"""The source pane: a Line API view of one file with syntax colours, a breakpoint gutter, the stop line and a cursor."""

from __future__ import annotations

import os

from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from textual.binding import Binding
from textual.events import Click
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.util import ClassNotFound

from pairdbg.backends.errors import DebugError
from pairdbg.backends.source import lines_of

GUTTER = 8  # "●▶ 1234 " : breakpoint mark, line marker, number, space


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
    name = LEXERS_BY_EXTENSION.get(os.path.splitext(path or "")[1].lower())
    try:
        if name is not None:
            return get_lexer_by_name(name, stripnl=False, ensurenl=False)
        return get_lexer_for_filename(path or "", stripnl=False, ensurenl=False)
    except ClassNotFound:
        return "text"


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
    """
    COMPONENT_CLASSES = {
        "source--gutter",
        "source--breakpoint",
        "source--unverified",
        "source--current",
        "source--marker",
        "source--cursor",
    }
    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", show=False),
        Binding("pagedown", "page(1)", show=False),
        Binding("home", "cursor_to(1)", show=False),
        Binding("end", "cursor_to(-1)", show=False),
    ]

    cursor_line: reactive[int] = reactive(1, init=False)

    class CursorMoved(Message):
        def __init__(self, line: int) -> None:
            super().__init__()
            self.line = line

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.path: str | None = None
        self.current_line: int | None = None
        self.current_is_top = True
        self.breakpoints: dict[int, bool] = {}  # line -> verified
        self._lines: tuple[str, ...] = ()
        self._highlighted: list[Text] = []
        self._syntax_style = "monokai"
        self._message = "No source yet: ctrl+p → Start debugging"

    # ----- what to show ---------------------------------------------------------------------------------------

    def show(self, path: str | None, line: int | None, *, top: bool = True, move_cursor: bool = True) -> None:
        """Open `path` (if it is not already open) and mark `line` as where the program is."""
        opened = path != self.path
        if opened:
            self._open(path)
        before = self.current_line
        self.current_line = line
        self.current_is_top = top
        if line and move_cursor:
            # Centre only when the line is out of view (or near an edge): a step to the next lines repaints
            # the two marked rows instead of scrolling the whole pane.
            self.set_cursor(line, center=opened or not self._comfortably_visible(line))
        if opened:
            self.refresh()
        else:
            self._refresh_rows(before, line)

    def _comfortably_visible(self, line: int) -> bool:
        top, height = int(self.scroll_offset.y), self.scrollable_content_region.height
        margin = min(3, height // 4)
        return height > 0 and top + margin <= line - 1 < top + height - margin

    def _refresh_rows(self, *lines: int | None) -> None:
        for line in lines:
            if line:
                self.refresh_line(line - 1)

    def set_breakpoints(self, lines: dict[int, bool]) -> None:
        if lines != self.breakpoints:
            changed = set(lines.items()) ^ set(self.breakpoints.items())
            self.breakpoints = lines
            self._refresh_rows(*(line for line, _ in changed))

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
        self._highlight()
        width = max((len(line) for line in self._lines), default=0) + GUTTER + 1
        self.virtual_size = Size(width, max(len(self._lines), 1))
        self.cursor_line = 1
        self.scroll_to(0, 0, animate=False)

    def _highlight(self) -> None:
        if not self._lines:
            self._highlighted = []
            return
        syntax = Syntax("", lexer_for(self.path), theme=self._syntax_style, background_color="default")
        text = syntax.highlight("\n".join(self._lines))
        text.expand_tabs(4)
        self._highlighted = list(text.split("\n", allow_blank=True))

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
            self.set_cursor(int(self.scroll_offset.y) + event.y + 1)

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
        code = self._highlighted[line - 1] if line - 1 < len(self._highlighted) else Text(self._lines[line - 1])
        segments = list(code.render(self.app.console))
        code_strip = Strip(segments).crop(scroll_x, scroll_x + max(width - GUTTER, 0))
        strip = Strip.join([gutter, code_strip]).apply_style(base)
        return strip.extend_cell_length(width, base)

    def _gutter(self, line: int, base: Style) -> Strip:
        segments = []
        if line in self.breakpoints:
            verified = self.breakpoints[line]
            style = self.get_component_rich_style("source--breakpoint" if verified else "source--unverified")
            segments.append(Segment("●" if verified else "○", style))
        else:
            segments.append(Segment(" "))
        if line == self.current_line:
            marker = "▶" if self.current_is_top else "▷"
            segments.append(Segment(marker, self.get_component_rich_style("source--marker")))
        elif line == self.cursor_line:
            segments.append(Segment("›", self.get_component_rich_style("source--gutter")))
        else:
            segments.append(Segment(" "))
        segments.append(Segment(f"{line:>5} ", self.get_component_rich_style("source--gutter")))
        return Strip(segments)
