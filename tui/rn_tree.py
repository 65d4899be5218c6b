"""The right side of the React Native view: the state at a seq as a lazy tree, and the diff between two seqs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.widgets import RichLog, Tree
from textual.widgets.tree import TreeNode

from .rn_widgets import brief


def _leaf_text(value: Any) -> str:
    if isinstance(value, dict) and "$t" in value:
        return f"<{value['$t']}{(' ' + brief(value.get('v'), 60)) if 'v' in value else ''}>"
    if isinstance(value, dict) and "$trunc" in value:
        return f"<truncated {brief(value, 60)}>"
    return brief(value, 120)


def _is_container(value: Any) -> bool:
    if isinstance(value, list):
        return bool(value)
    return isinstance(value, dict) and bool(value) and "$t" not in value and "$trunc" not in value


@dataclass
class StateNode:
    value: Any
    loaded: bool = False


class StateTree(Tree[StateNode]):
    """A JSON value as a tree whose children are built when a node is first expanded (big states stay cheap)."""

    DEFAULT_CSS = "StateTree { background: $surface; }"
    LIMIT = 500  # children shown per node

    def __init__(self, **kwargs) -> None:
        super().__init__("state", data=StateNode(None, True), **kwargs)
        self.show_root = False
        self.guide_depth = 2

    def show_value(self, value: Any, note: str | None = None) -> None:
        self.clear()
        if note:
            self.root.add_leaf(Text(note, style="italic"), data=StateNode(None, True))
        self.root.data = StateNode(value)
        if _is_container(value):
            self._fill(self.root)
            for child in list(self.root.children)[:8]:  # open the top level's small parts
                if child.allow_expand and child.data and len(child.data.value) <= 20:
                    child.expand()
        else:
            self.root.add_leaf(_leaf_text(value), data=StateNode(value, True))

    def show_note(self, note: str) -> None:
        self.clear()
        self.root.add_leaf(Text(note, style="italic"), data=StateNode(None, True))

    def _fill(self, node: TreeNode[StateNode]) -> None:
        assert node.data is not None
        node.data.loaded = True
        value = node.data.value
        items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
        for key, child in items[: self.LIMIT]:
            name = f"[{key}]" if isinstance(key, int) else str(key)
            if _is_container(child):
                size = f"{{{len(child)}}}" if isinstance(child, dict) else f"[{len(child)}]"
                node.add(Text.assemble((name, "bold"), f" {size}"), data=StateNode(child))
            else:
                node.add_leaf(Text.assemble((name, "bold"), f": {_leaf_text(child)}"), data=StateNode(child, True))
        if len(items) > self.LIMIT:
            node.add_leaf(Text(f"… {len(items) - self.LIMIT} more", style="dim"), data=StateNode(None, True))

    def on_tree_node_expanded(self, event: Tree.NodeExpanded) -> None:
        node = event.node
        if node.data is not None and not node.data.loaded:
            self._fill(node)

    def labels(self) -> list[str]:
        out: list[str] = []

        def walk(node: TreeNode[StateNode]) -> None:
            for child in node.children:
                out.append(str(child.label))
                if child.is_expanded:
                    walk(child)

        walk(self.root)
        return out


class DiffPane(RichLog):
    """RFC 6902-style changes between two seqs: + added (green), - removed (red), ~ replaced (yellow)."""

    STYLE = {"added": ("+", "green"), "removed": ("-", "red"), "changed": ("~", "yellow")}

    def __init__(self, **kwargs) -> None:
        super().__init__(max_lines=2000, wrap=True, markup=False, auto_scroll=False, min_width=20, **kwargs)
        self.lines_text: list[str] = []

    def add(self, line: Text) -> None:
        self.write(line)
        self.lines_text.append(line.plain)

    def show(self, head: str, changes: list[dict[str, Any]], total: int, truncated: bool) -> None:
        self.clear()
        self.lines_text = []
        self.add(Text(head, style="bold"))
        for c in changes:
            sym, colour = self.STYLE.get(c.get("type", ""), ("?", ""))
            line = Text(f"{sym} {c.get('path') or '(root)'}", style=f"bold {colour}")
            if c.get("type") == "changed":
                line.append(f"  {brief(c.get('oldValue'), 60)}", style="red")
                line.append(" → ")
                line.append(brief(c.get("newValue"), 60), style="green")
            elif c.get("type") == "added":
                line.append(f"  {brief(c.get('newValue'), 100)}", style=colour)
            else:
                line.append(f"  was {brief(c.get('oldValue'), 100)}", style="dim")
            self.add(line)
        if not changes:
            self.add(Text("no changes", style="dim italic"))
        if truncated:
            self.add(Text(f"… {total - len(changes)} more changes not shown", style="dim"))

    def show_note(self, note: str) -> None:
        self.clear()
        self.lines_text = []
        self.add(Text(note, style="dim italic"))
