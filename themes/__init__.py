"""pairdbg's themes as data: JSON files here become Textual themes, validated by name with a friendly error."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from textual.theme import Theme

HERE = Path(__file__).parent
DEFAULT_DARK = "pairdbg-dark"
DEFAULT_LIGHT = "pairdbg-light"

#: CSS variables every pairdbg theme may set; widgets fall back to these when a theme (e.g. a built-in one) does not.
VARIABLE_DEFAULTS = {
    "agent-color": "#F2A541",
    "human-color": "#5FA8D3",
    "breakpoint-color": "#E5534B",
    "current-line-background": "#4A4020",
    "cursor-line-background": "#2A3242",
}

_THEME_FIELDS = (
    "primary",
    "secondary",
    "accent",
    "warning",
    "error",
    "success",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
    "dark",
    "luminosity_spread",
    "text_alpha",
    "variables",
)


class UnknownThemeError(ValueError):
    """A theme name that is not registered; the message lists the ones that are."""

    def __init__(self, name: str, available: list[str]) -> None:
        self.name = name
        self.available = available
        super().__init__(f"unknown theme {name!r}; available: {', '.join(available)}")


@dataclass(frozen=True)
class ThemeSpec:
    theme: Theme
    syntax: str  # the Pygments style the source pane highlights with


def _load(path: Path) -> ThemeSpec:
    data = json.loads(path.read_text(encoding="utf-8"))
    kwargs = {key: data[key] for key in _THEME_FIELDS if key in data}
    kwargs["variables"] = {**VARIABLE_DEFAULTS, **kwargs.get("variables", {})}
    theme = Theme(name=data["name"], **kwargs)
    return ThemeSpec(theme, data.get("syntax", "monokai" if theme.dark else "friendly"))


@cache
def load_themes() -> dict[str, ThemeSpec]:
    """Every theme shipped in this folder, by name (read once)."""
    specs = [_load(path) for path in sorted(HERE.glob("*.json"))]
    return {spec.theme.name: spec for spec in specs}


def syntax_style(theme_name: str, dark: bool) -> str:
    """The Pygments style for the source pane under a theme, including Textual's built-in themes."""
    spec = load_themes().get(theme_name)
    if spec is not None:
        return spec.syntax
    return "monokai" if dark else "friendly"


def check_name(name: str, available: list[str]) -> str:
    """Return `name` if it is one of `available`, else raise UnknownThemeError listing them."""
    cleaned = name.strip()
    if cleaned not in available:
        raise UnknownThemeError(cleaned, sorted(available))
    return cleaned
