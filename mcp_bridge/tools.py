"""Which tools an MCP server lists: the debugger's always, the other groups when asked for or once in use.

Groups: "debug" (always), "more" (rarely used debugger tools), "rn" (a React Native app's state), "web" (a
debug-bridge page). An app's group is listed from the moment an app connects to its service and stays listed (an app
reloading or a page navigating must not make tools flicker); `--tools` lists groups from the start, for hosts that
ignore `notifications/tools/list_changed`. What is listed is what is advertised: every tool can be called.
"""

from __future__ import annotations

from collections.abc import Iterable

from mcp.types import Tool, ToolAnnotations

from pairdbg.backends.actions import Registry
from pairdbg.backends.actions.registry import DEFAULT_GROUP, Action, parse_groups
from pairdbg.backends.errors import DebugError
from pairdbg.backends.hub import Hub
from pairdbg.backends.policy import Level


# The groups an app brings: what connects.
APPS = {"rn": "React Native app", "web": "debug-bridge page"}


class ToolList:
    """The tools one MCP server lists now, as the MCP types clients receive."""

    def __init__(
        self,
        hub: Hub,
        registry: Registry,
        groups: str | Iterable[str] | None = None,
        output_schemas: bool = False,
    ) -> None:
        self.hub = hub
        self.registry = registry
        self.output_schemas = output_schemas  # declare results.output_schema for the tools that have one
        self.groups = {DEFAULT_GROUP} | parse_groups(groups)
        self._tools: dict[str, Tool] = {}
        self.refresh()

    def refresh(self) -> bool:
        """Add the groups of services an app is connected to now. True when the list grew."""
        before = len(self.groups)
        for service in self.hub.services:
            in_use = getattr(service, "in_use", None)
            if in_use is not None and in_use():
                self.groups.update(a.group for a in service.actions())
        return len(self.groups) != before

    def tools(self) -> list[Tool]:
        return [
            self._tool(a.name)
            for a in self.registry.actions.values()
            if a.group in self.groups and a.level != Level.HUMAN  # the agent mode is the person's to change
        ]

    def _tool(self, name: str) -> Tool:
        tool = self._tools.get(name)
        if tool is None:
            from .results import output_schema  # loaded with the first tools/list, after initialize

            a = self.registry.actions[name]
            tool = Tool(
                name=a.name,
                description=a.description,
                input_schema=a.schema(),
                output_schema=output_schema(a.name) if self.output_schemas else None,
                annotations=annotations(a),
            )
            self._tools[name] = tool
        return tool

    def explain(self, name: str, err: DebugError) -> DebugError:
        """A failed call of a tool this server has but does not list: the error says how to get it listed too.
        (Unlisted tools can still be called: get_bridge_info tells how to connect the first page, and
        debug_health_check answers with no app connected; their failures then say why and how.)"""
        action = self.registry.actions.get(name)
        if action is None or action.group in self.groups:
            return err
        group = action.group
        note = f"{name} is not listed: the {group} tools are listed with --tools {group} (PAIRDBG_MCP__TOOLS)"
        if group in APPS:
            note = (
                f"{name} is not listed yet: the {group} tools are listed once a {APPS[group]} connects, "
                f"or at once with --tools {group} (PAIRDBG_MCP__TOOLS)"
            )
        err.hint = f"{err.hint}; {note}" if err.hint else note
        err.data.setdefault("tool_group", group)
        return err


def annotations(action: Action) -> ToolAnnotations:
    """Every tool's hints, as the values that differ from MCP's defaults (readOnly false, destructive true,
    idempotent false, openWorld true) plus openWorld, which hosts read to decide what to confirm."""
    if action.read_only:
        return ToolAnnotations(read_only_hint=True, open_world_hint=action.open_world)
    return ToolAnnotations(
        destructive_hint=action.destructive,
        idempotent_hint=action.idempotent or None,
        open_world_hint=action.open_world,
    )
