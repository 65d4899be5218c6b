"""The footer: the keys that matter now, as many as fit whole. Textual's own footer lays every key out and lets the
terminal's edge cut the last one mid-word; this one stops before a key that would not fit and ends with
`…`, or `… f1 Keys` where that fits too (F1 lists every key), so what is shown is always readable."""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # not re-exported by textual.widgets; the footer's own key widget

KEYS_ACTION = "keys"  # the app's F1 screen


def key_width(key_display: str, description: str, compact: bool) -> int:
    """Cells a FooterKey takes with Textual's footer styles: ` key desc ` wide, or `key desc` and a margin when
    compact."""
    return cell_len(key_display) + cell_len(description) + (2 if compact else 3)


def hint_width(display: str, description: str, compact: bool) -> int:
    """A key without a description is drawn bare (no padding), with the compact style's margin."""
    if description:
        return key_width(display, description, compact)
    return cell_len(display) + (1 if compact else 0)


def palette_width(key_display: str, description: str) -> int:
    """The command palette key docked right: as wide as a key (measured: its border takes its left padding's
    cell, its right padding the description's trailing one)."""
    return key_width(key_display, description, False)


class FittingFooter(Footer):
    """Shows the active keys in order (most pressed first) while they fit whole; the rest give way to F1's hint.

    What it shows is worked out as plain data first (`plan`), and the keys are rebuilt only when that changes: focus
    moves, resizes and style changes often leave it the same (each key rebuilt costs its styles, ~1 ms; at start-up
    the footer was rebuilt seven times with the same keys). Requests coming together make one rebuild."""

    _shown: tuple | None = None  # the plan the keys on screen were built from
    _rebuild_pending = False

    def plan(self) -> tuple:
        """(keys, ending, palette): each key as (key, display, description, action, enabled, tooltip); ending None,
        "…" or "… f1 Keys" (see `_hint`); palette the command palette's key or None."""
        active = self.screen.active_bindings
        width = self.size.width or self.app.size.width
        palette = None
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            found = active.get(self.app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _, binding, enabled, _ = found
                shown = self.app.get_key_display(binding)
                tooltip = binding.tooltip or binding.description
                palette = (binding.key, shown, binding.description, binding.action, enabled, tooltip)
                width -= palette_width(shown, binding.description)
        keys = []
        seen: set[str] = set()
        for _, binding, enabled, tooltip in active.values():
            if binding.show and binding.action not in seen:  # one key per action, as Textual's footer does
                seen.add(binding.action)
                keys.append((binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                             enabled, tooltip))  # fmt: skip
        # Every key ends in a blank cell (padding or margin) the edge may take. A footer that leaves keys out ends
        # with `…`: room is kept for that much, so one more key shows; F1's hint is added when it fits too.
        ellipsis = hint_width(*self._hint_text(plain=True), self.compact)
        used, fitted = 0, 0
        for n, (_, display, description, _, _, _) in enumerate(keys):
            needed = key_width(display, description, self.compact)
            if used + needed + (ellipsis if n < len(keys) - 1 else 0) - 1 > width:
                break
            used, fitted = used + needed, n + 1
        ending = None
        if fitted < len(keys):
            f1_shown = any(key[3] == KEYS_ACTION for key in keys[:fitted])
            fits = used + hint_width(*self._hint_text(plain=False), self.compact) - 1 <= width
            ending = "hint" if not f1_shown and fits else "plain"
        return tuple(keys[:fitted]), ending, palette

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        self._shown = keys, ending, palette = self.plan()
        for key, display, description, action, enabled, tooltip in keys:
            yield FooterKey(key, display, description, action, disabled=not enabled, tooltip=tooltip).data_bind(
                compact=Footer.compact
            )
        if ending is not None:
            yield self._hint(plain=ending == "plain")
        if palette is not None:
            key, display, description, action, enabled, tooltip = palette
            yield FooterKey(
                key, display, description, action, classes="-command-palette", disabled=not enabled, tooltip=tooltip
            )

    def _hint_text(self, plain: bool) -> tuple[str, str]:
        """What ends a footer that left keys out: `…`, or `… f1 Keys` (F1 lists every key)."""
        if plain:
            return "…", ""
        return f"… {self.app.get_key_display(Binding('f1', ''))}", "Keys"

    def _hint(self, plain: bool) -> FooterKey:
        display, description = self._hint_text(plain)
        key = FooterKey("f1", display, description, KEYS_ACTION, tooltip="F1: every key")
        return key.data_bind(compact=Footer.compact)

    def rebuild(self) -> None:
        """Rebuild the keys after the next refresh if what they should show has changed by then."""
        if not self._rebuild_pending:
            self._rebuild_pending = self.call_after_refresh(self._rebuild_if_changed)  # (False: not queued)

    async def _rebuild_if_changed(self) -> None:
        self._rebuild_pending = False
        if self._bindings_ready and self.is_attached and self.plan() != self._shown:
            await self.recompose()

    def bindings_changed(self, screen: Screen) -> None:  # Textual's, with `rebuild` for its direct recompose
        self._bindings_ready = True
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self.rebuild()

    def on_resize(self, event: events.Resize) -> None:
        self.rebuild()

    def watch_compact(self) -> None:
        self.rebuild()  # the keys' widths change with the style

    def watch_show_command_palette(self) -> None:
        self.rebuild()
