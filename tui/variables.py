"""The variables pane: a lazy tree of scopes and values. Children load when a node is first expanded; containers
with more than BUCKET children get "[0..99]"-style bucket nodes, each loading its own page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from pairdbg.backends.models import VariableView
from pairdbg.backends.redact import for_agent

from . import variable_edits

if TYPE_CHECKING:
    from .agent_marks import AgentMark

BUCKET = 100


@dataclass
class VarNode:
    handle: str | None  # @vN to expand, or None for a leaf
    start: int = 0
    count: int = BUCKET
    bucket: bool = False
    loaded: bool = False
    view: VariableView | None = None  # the value as read, so its label can be redrawn masked or revealed


class VariablesTree(Tree[VarNode]):
    DEFAULT_CSS = """
    VariablesTree { background: $surface; }
    """
    BINDINGS = [
        Binding("s", "app.reveal_secrets", "Secrets"),
        Binding("enter", "enter_node", "Open/edit", show=False),
        Binding("e", "edit_value", "Edit"),
        Binding("y", "copy_value", "Copy"),
        Binding("v", "view_value", "Whole value"),
        Binding("w", "watch_value", "Watch"),
        Binding("b", "data_breakpoint(False)", "Stop when it changes"),
        Binding("B", "data_breakpoint(True)", "Log its changes"),
    ]

    class Said(Message):
        """One line about what the person's last key in this pane did (a refusal in red), kept in the pane's
        bottom border until the next one or the next frame."""

        def __init__(self, text: str, failed: bool) -> None:
            super().__init__()
            self.text = text
            self.failed = failed

    class LoadRequested(Message):
        """A lazy node was expanded; the app fetches its children and answers with `fill`."""

        def __init__(self, node_id: int, handle: str, start: int, count: int, generation: int) -> None:
            super().__init__()
            self.node_id = node_id
            self.handle = handle
            self.start = start
            self.count = count
            self.generation = generation

    def __init__(self, **kwargs) -> None:
        super().__init__("variables", data=VarNode(None), **kwargs)
        self.show_root = False
        self.guide_depth = 2
        #: Bumped whenever the tree is rebuilt for another stop or frame; late answers for older ones are dropped.
        self.generation = 0
        #: Secrets (what agents get redacted) are masked unless the person revealed them for this session.
        self.reveal = False
        #: The one line the pane's bottom border says about the person's last data breakpoint key (b / B).
        self.said = ""
        #: this tree's handle -> the agent that read that value (tui/agent_marks.py matches an agent's handle to it)
        self.agent_marks: dict[str, AgentMark] = {}

    def reset(self, scopes: list[VariableView], note: str | None = None) -> None:
        self.generation += 1
        self.said = ""
        self.border_subtitle = ""
        self.clear()
        if note:
            self.root.add_leaf(Text(note, style="italic"), data=VarNode(None))
        for scope in scopes:
            self.root.add(Text(scope.name, style="bold"), data=VarNode(scope.handle), allow_expand=bool(scope.handle))

    def scope_node(self, index: int) -> TreeNode[VarNode] | None:
        children = [c for c in self.root.children if c.data and c.data.handle]
        return children[index] if index < len(children) else None

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[VarNode]) -> None:
        event.stop()
        data = event.node.data
        if data is None or data.handle is None or data.loaded:
            return
        data.loaded = True
        event.node.add_leaf(Text("loading…", style="italic dim"), data=VarNode(None))
        self.post_message(self.LoadRequested(event.node.id, data.handle, data.start, data.count, self.generation))

    def fill(self, node_id: int, generation: int, views: list[VariableView], total: int) -> None:
        """Put loaded children under a node; a container bigger than BUCKET gets bucket nodes instead."""
        if generation != self.generation:
            return
        try:
            node = self.get_node_by_id(node_id)
        except Exception:  # the node was removed by a rebuild meanwhile
            return
        node.remove_children()
        data = node.data
        assert data is not None
        if total > BUCKET and not data.bucket:
            for start in range(0, total, BUCKET):
                end = min(start + BUCKET, total) - 1
                node.add(Text(f"[{start}..{end}]", style="dim"), data=VarNode(data.handle, start, BUCKET, bucket=True))
            return
        for view in views:
            self.add_value(node, view)
        if not views:
            node.add_leaf(Text("(empty)", style="dim italic"), data=VarNode(None))

    def fail(self, node_id: int, generation: int, message: str) -> None:
        if generation != self.generation:
            return
        try:
            node = self.get_node_by_id(node_id)
        except Exception:
            return
        node.remove_children()
        if node.data is not None:
            node.data.loaded = False  # let the person try again
        node.add_leaf(Text(message, style="italic"), data=VarNode(None))

    def add_value(self, parent: TreeNode[VarNode], view: VariableView) -> None:
        label = self.label(view)
        if view.handle:
            parent.add(label, data=VarNode(view.handle, view=view))
        else:
            parent.add_leaf(label, data=VarNode(None, view=view))

    def label(self, view: VariableView) -> Text:
        label = Text(view.name, style="bold")
        if view.value:
            masked = view.value if self.reveal else for_agent("", {"name": view.name, "value": view.value})[1]["value"]
            label.append(" = ")
            label.append(masked, style="" if masked == view.value else "italic yellow")
        if view.type:
            label.append(f"  {view.type}", style="dim")
        mark = self.agent_marks.get(view.handle) if view.handle else None
        if mark is not None:
            color = self.app.theme_variables.get("agent-color", "yellow")
            label.append(f"  {mark.label}", style=f"bold {color}" if mark.fresh else f"dim {color}")
        return label

    def set_agent_marks(self, marks: dict[str, AgentMark]) -> None:
        if marks == self.agent_marks:
            return
        changed = {h for h in set(marks) | set(self.agent_marks) if marks.get(h) != self.agent_marks.get(h)}
        self.agent_marks = dict(marks)
        stack = list(self.root.children)
        while stack:
            node = stack.pop()
            if node.data is not None and node.data.view is not None and node.data.handle in changed:
                node.set_label(self.label(node.data.view))
            stack.extend(node.children)

    # ----- the person's changes and copies (values.py holds the logic; these only read the node) ------------------

    def selected_value(self) -> tuple[TreeNode[VarNode], VariableView, str] | None:
        """The highlighted value, its view and the @vN of the scope or object it lives in (None on a scope, a
        bucket or a note)."""
        node = self.cursor_node
        if node is None or node.data is None or node.data.view is None or node.parent is None:
            return None
        parent = node.parent
        while parent is not None and parent.data is not None and parent.data.bucket:
            parent = parent.parent  # a bucket's items live in the bucket's container
        if parent is None or parent.data is None or parent.data.handle is None:
            return None
        return node, node.data.view, parent.data.handle

    def action_enter_node(self) -> None:
        node = self.cursor_node
        if node is not None and node.allow_expand:
            node.toggle()
        else:
            self.action_edit_value()

    def action_edit_value(self) -> None:
        picked = self.selected_value()
        if picked is not None:
            variable_edits.edit_value(self, *picked)

    def action_copy_value(self) -> None:
        picked = self.selected_value()
        if picked is not None:
            variable_edits.copy_value(self, picked[1], picked[2])

    def action_view_value(self) -> None:
        picked = self.selected_value()
        if picked is not None:
            variable_edits.view_value(self, picked[1], picked[2])

    def action_watch_value(self) -> None:
        picked = self.selected_value()
        if picked is not None:
            variable_edits.watch_value(self, picked[1], picked[2])

    def action_data_breakpoint(self, log_only: bool) -> None:
        picked = self.selected_value()
        if picked is None:
            self.post_message(self.Said("b / B: pick a value (an attribute or an item) first", True))
            return
        variable_edits.set_data_breakpoint(self, picked[1], picked[2], log_only)

    def on_variables_tree_said(self, message: Said) -> None:
        message.stop()
        self.said = message.text
        self.border_subtitle = Text(message.text, style="bold red" if message.failed else "italic")

    def relabel(self, node: TreeNode[VarNode], view: VariableView) -> None:
        """A value the person set: its new text, and its children read again when next expanded."""
        if node.data is None:
            return
        node.data.view = view
        node.data.handle = view.handle
        node.data.loaded = False
        node.remove_children()
        node.allow_expand = bool(view.handle)
        node.set_label(self.label(view))

    def set_reveal(self, reveal: bool) -> None:
        """Show or mask the secrets of the values on screen (no reload: each node kept what it was shown)."""
        self.reveal = reveal
        stack = list(self.root.children)
        while stack:
            node = stack.pop()
            if node.data is not None and node.data.view is not None:
                node.set_label(self.label(node.data.view))
            stack.extend(node.children)
