"""The footer: the keys that matter now, as many as fit whole. Textual's own footer lays every key out and lets the
terminal's edge cut the last one mid-word; this one stops before a key that would not fit and ends with
`…`, or `… f1 Keys` where that fits too (F1 lists every key), so what is shown is always readable."""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # not re-exported by textual.widgets; the footer's own key widget

KEYS_ACTION = "keys"  # the app's F1 screen


def key_width(key_display: str, description: str, compact: bool) -> int:
    """Cells a FooterKey takes with Textual's footer styles: ` key desc ` wide, or `key desc` and a margin when
    compact."""
    return cell_len(key_display) + cell_len(description) + (2 if compact else 3)


def hint_width(hint: FooterKey, compact: bool) -> int:
    """A key without a description is drawn bare (no padding), with the compact style's margin."""
    if hint.description:
        return key_width(hint.key_display, hint.description, compact)
    return cell_len(hint.key_display) + (1 if compact else 0)


def palette_width(key_display: str, description: str) -> int:
    """The command palette key docked right: as wide as a key (measured: its border takes its left padding's
    cell, its right padding the description's trailing one)."""
    return key_width(key_display, description, False)


class FittingFooter(Footer):
    """Shows the active keys in order (most pressed first) while they fit whole; the rest give way to F1's hint."""

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        active = self.screen.active_bindings
        width = self.size.width or self.app.size.width
        palette: FooterKey | None = None
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            found = active.get(self.app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _, binding, enabled, tooltip = found
                shown = self.app.get_key_display(binding)
                palette = FooterKey(
                    binding.key,
                    shown,
                    binding.description,
                    binding.action,
                    classes="-command-palette",
                    disabled=not enabled,
                    tooltip=binding.tooltip or binding.description,
                )
                width -= palette_width(shown, binding.description)
        keys: list[tuple[Binding, bool, str]] = []
        seen: set[str] = set()
        for _, binding, enabled, tooltip in active.values():
            if binding.show and binding.action not in seen:  # one key per action, as Textual's footer does
                seen.add(binding.action)
                keys.append((binding, enabled, tooltip))
        # Every key ends in a blank cell (padding or margin) the edge may take. A footer that leaves keys out ends
        # with `…`: room is kept for that much, so one more key shows; F1's hint is added when it fits too.
        ellipsis = hint_width(self._hint(plain=True), self.compact)
        used, fitted = 0, 0
        for n, (binding, _, _) in enumerate(keys):
            needed = key_width(self.app.get_key_display(binding), binding.description, self.compact)
            if used + needed + (ellipsis if n < len(keys) - 1 else 0) - 1 > width:
                break
            used, fitted = used + needed, n + 1
        for binding, enabled, tooltip in keys[:fitted]:
            yield FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                disabled=not enabled,
                tooltip=tooltip,
            ).data_bind(compact=Footer.compact)
        if fitted < len(keys):
            f1_shown = any(binding.action == KEYS_ACTION for binding, _, _ in keys[:fitted])
            hint = self._hint(plain=False)
            yield hint if not f1_shown and used + hint_width(hint, self.compact) - 1 <= width else self._hint(True)
        if palette is not None:
            yield palette

    def _hint(self, plain: bool) -> FooterKey:
        """What ends a footer that left keys out: `…`, or `… f1 Keys` (F1 lists every key)."""
        display = "…" if plain else f"… {self.app.get_key_display(Binding('f1', ''))}"
        key = FooterKey("f1", display, "" if plain else "Keys", KEYS_ACTION, tooltip="F1: every key")
        return key.data_bind(compact=Footer.compact)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self.recompose)

    def watch_compact(self) -> None:
        self.call_after_refresh(self.recompose)  # the keys' widths change with the style

    def watch_show_command_palette(self) -> None:
        self.call_after_refresh(self.recompose)
