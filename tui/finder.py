"""The finder (ctrl+o): a file of the program's project, a file the program loaded, or an installed module by name;
with a prefix, a line (`:42`), a function or class of the open file (`@name`) or a text in it (`/text`)."""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from pairdbg.backends.errors import DebugError
from pairdbg.backends.project import Listing

from .fuzzy import MAX_RESULTS, rank
from .symbols import outline

MODULE = re.compile(r"^[A-Za-z_@][\w.@/-]*$")
FILE_EXTENSIONS = frozenset(
    [
        "py",
        "pyi",
        "js",
        "mjs",
        "cjs",
        "jsx",
        "ts",
        "mts",
        "cts",
        "tsx",
        "json",
        "md",
        "toml",
        "txt",
        "yaml",
        "yml",
        "cfg",
        "ini",
        "html",
        "css",
        "c",
        "h",
        "cc",
        "cpp",
        "go",
        "rs",
        "sh",
    ]
)
PREFIXES = {":": "line", "@": "symbol", "/": "search"}


@dataclass(frozen=True)
class Jump:
    """Where the finder sends the source pane: a file, a line of it, and the text to highlight."""

    path: str
    line: int | None = None
    search: str | None = None


@dataclass
class FinderSources:
    """What the finder lists, given by the app through the core's queries (the finder never sees a session)."""

    path: str | None  # the file the source pane shows
    lines: tuple[str, ...]
    project: Callable[[], Listing]  # blocking: run in a thread
    loaded: Callable[[], Awaitable[list[str]]]
    module: Callable[[str], Awaitable[str]] | None  # None: no interpreter known to resolve names with
    cached: Listing | None = None  # the project's listing from the last time: shown at once, then refreshed
    remember: Callable[[Listing], None] | None = None


@dataclass(frozen=True)
class Note:
    """The finder's one line under the input: what is listed, or what is wrong with what was typed."""

    text: str
    error: bool = False


@dataclass(frozen=True)
class Entry:
    label: Text
    jump: Jump | None = None
    module: str | None = None  # resolve this name first


class Finder(ModalScreen[Jump | None]):
    DEFAULT_CSS = """
    Finder { align: center top; }
    Finder > Vertical { width: 90%; max-width: 110; height: auto; max-height: 80%; margin-top: 2;
                        border: round $primary; background: $panel; padding: 0 1; }
    Finder #finder-input { margin: 0; }
    Finder #finder-note { width: 100%; color: $text-muted; height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    Finder #finder-note.-error { color: $error; }
    Finder OptionList { height: auto; max-height: 20; border: none; background: $panel; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("down", "move(1)", show=False, priority=True),
        Binding("up", "move(-1)", show=False, priority=True),
    ]

    def __init__(self, sources: FinderSources, query: str = "") -> None:
        super().__init__()
        self.sources = sources
        self.initial = query
        self.listing: Listing | None = sources.cached
        self.loaded: list[str] = []
        self.entries: list[Entry] = []
        self.resolving = False

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Input(
                self.initial,
                placeholder="file or module · :line · @function · /text",
                id="finder-input",
                select_on_focus=False,
            )
            yield Label("", id="finder-note", markup=False)
            yield OptionList(id="finder-results")

    def on_mount(self) -> None:
        self.query_one("#finder-input", Input).focus()
        self.query_one("#finder-input", Input).cursor_position = len(self.initial)
        if self.initial[:1] in PREFIXES or self.listing is not None:
            self.refilter()
        else:
            self.note("listing the project…")
        self.list_project()
        self.list_loaded()

    # ----- candidates ------------------------------------------------------------------------------------------

    @work(thread=True, group="finder-project", exclusive=True)
    def list_project(self) -> None:
        listing = self.sources.project()
        self.app.call_from_thread(self._listed, listing)

    def _listed(self, listing: Listing) -> None:
        if self.sources.remember is not None:
            self.sources.remember(listing)
        changed = self.listing is None or (listing.root, listing.files) != (self.listing.root, self.listing.files)
        self.listing = listing
        if changed:
            self.refilter()

    @work(group="finder-loaded", exclusive=True)
    async def list_loaded(self) -> None:
        self.loaded = await self.sources.loaded()
        if self.loaded and self.listing is not None:
            self.refilter()

    def candidates(self) -> list[str]:
        """Project files (relative to its root), then loaded files outside it (absolute)."""
        listing = self.listing
        files = list(listing.files) if listing is not None else []
        root = listing.root.rstrip("/") + "/" if listing is not None and listing.root else None
        seen = set(files)
        for path in self.loaded:
            relative = path[len(root) :] if root and path.startswith(root) else path
            if relative not in seen:
                seen.add(relative)
                files.append(relative)
        return files

    def absolute(self, path: str) -> str:
        if os.path.isabs(path) or "://" in path or self.listing is None or not self.listing.root:
            return path
        return os.path.join(self.listing.root, path)

    # ----- filtering -------------------------------------------------------------------------------------------

    @on(Input.Changed, "#finder-input")
    def handle_changed(self) -> None:
        self.refilter()

    def refilter(self) -> None:
        query = self.query_one("#finder-input", Input).value
        mode = PREFIXES.get(query[:1])
        if mode == "line":
            self.entries, note = self.line_entries(query[1:].strip())
        elif mode == "symbol":
            self.entries, note = self.symbol_entries(query[1:].strip())
        elif mode == "search":
            self.entries, note = self.search_entries(query[1:])
        else:
            self.entries, note = self.file_entries(query.strip())
        results = self.query_one("#finder-results", OptionList)
        results.clear_options()
        results.add_options([Option(entry.label, id=str(n)) for n, entry in enumerate(self.entries)])
        if self.entries:
            results.highlighted = 0
        self.note(note.text, note.error)

    def note(self, text: str, error: bool = False) -> None:
        label = self.query_one("#finder-note", Label)
        label.update(text)
        label.set_class(error, "-error")

    def file_entries(self, query: str) -> tuple[list[Entry], Note]:
        if self.listing is None:
            return [], Note("listing the project…")
        files = self.candidates()
        matches = rank(files, query)
        entries = [Entry(_highlighted(m.path, m.positions), Jump(self.absolute(m.path))) for m in matches]
        module = self.sources.module is not None and MODULE.match(query) is not None
        if module:
            label = Text.assemble(("import ", "bold"), query, ("  (resolved by the program's interpreter)", "dim"))
            # First for a dotted name (json.decoder), last for what reads as a file name (orders.py).
            dotted = "." in query and query.rsplit(".", 1)[1].lower() not in FILE_EXTENSIONS
            entries.insert(0 if dotted else len(entries), Entry(label, module=query))
        where = self.listing.root or "no project folder"
        how = {"git": "git", "walk": ".gitignore"}.get(self.listing.how, "")
        cut = " (listing cut short)" if self.listing.truncated else ""
        if query and not matches:
            text = f"no file matches {query!r}" + (": enter looks it up as a module" if module else "")
            return entries, Note(text, not module)
        count = f"{len(matches)}{'+' if len(matches) == MAX_RESULTS else ''} of {len(files)}" if query else len(files)
        return entries, Note(f"{count} files · {where}{f' ({how})' if how else ''}{cut}")

    def line_entries(self, text: str) -> tuple[list[Entry], Note]:
        path, total = self.sources.path, len(self.sources.lines)
        if not path:
            return [], Note("no file is open", True)
        if not text:
            return [], Note(f"type a line number (1-{total}) and enter")
        if not text.isdigit() or int(text) < 1:
            return [], Note(f"{text!r} is not a line number", True)
        line = int(text)
        if line > total:
            return [], Note(f"line {line} is past the end: {os.path.basename(path)} has {total} lines", True)
        label = Text.assemble((f"{line:>5}  ", "bold"), self.sources.lines[line - 1].strip()[:200])
        return [Entry(label, Jump(path, line))], Note(f"go to line {line} of {os.path.basename(path)}")

    def symbol_entries(self, text: str) -> tuple[list[Entry], Note]:
        path = self.sources.path
        if not path:
            return [], Note("no file is open", True)
        found = outline(path, self.sources.lines)
        if found.error:
            return [], Note(found.error, True)
        by_name = {s.name: s for s in found.symbols}
        names = [m.path for m in rank(list(by_name), text)] if text else list(by_name)[:MAX_RESULTS]
        entries = [
            Entry(
                Text.assemble((f"{by_name[n].kind:<8} ", "dim"), n, (f"  :{by_name[n].line}", "dim")),
                Jump(path, by_name[n].line),
            )
            for n in names
        ]
        if not entries:
            return [], Note(f"no function or class matches {text!r}", True)
        return entries, Note(f"{len(entries)} of {len(found.symbols)} functions and classes")

    def search_entries(self, text: str) -> tuple[list[Entry], Note]:
        path = self.sources.path
        if not path:
            return [], Note("no file is open", True)
        if not text:
            return [], Note("type text to find; n / N go through the matches afterwards")
        flags = 0 if any(c.isupper() for c in text) else re.IGNORECASE
        pattern = re.compile(re.escape(text), flags)
        hits = [(n, line) for n, line in enumerate(self.sources.lines, 1) if pattern.search(line)]
        if not hits:
            return [], Note(f"no match for {text!r} in {os.path.basename(path)}", True)
        entries = [
            Entry(Text.assemble((f"{n:>5}  ", "bold"), line.strip()[:200]), Jump(path, n, text))
            for n, line in hits[:MAX_RESULTS]
        ]
        return entries, Note(f"{len(hits)} lines match")

    # ----- choosing --------------------------------------------------------------------------------------------

    def action_move(self, delta: int) -> None:
        results = self.query_one("#finder-results", OptionList)
        if results.option_count:
            current = results.highlighted if results.highlighted is not None else -delta
            results.highlighted = max(0, min(results.option_count - 1, current + delta))

    @on(Input.Submitted, "#finder-input")
    def handle_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        results = self.query_one("#finder-results", OptionList)
        index = results.highlighted if results.highlighted is not None else 0
        if self.entries:
            self.choose(self.entries[min(index, len(self.entries) - 1)])

    @on(OptionList.OptionSelected, "#finder-results")
    def handle_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.choose(self.entries[int(event.option.id or 0)])

    def choose(self, entry: Entry) -> None:
        if entry.module is not None:
            self.resolve(entry.module)
        elif entry.jump is not None:
            self.dismiss(entry.jump)

    @work(group="finder-module", exclusive=True)
    async def resolve(self, name: str) -> None:
        assert self.sources.module is not None
        self.note(f"looking up {name}…")
        try:
            path = await self.sources.module(name)
        except DebugError as exc:
            self.note(f"{exc.message}" + (f" ({exc.hint})" if exc.hint else ""), True)
            return
        self.dismiss(Jump(path))

    def action_cancel(self) -> None:
        self.dismiss(None)


def _highlighted(path: str, positions: tuple[int, ...]) -> Text:
    text = Text(path, no_wrap=True, overflow="ellipsis")
    for pos in positions:
        text.stylize("bold underline", pos, pos + 1)
    return text
