"""The MCP server for a profile: the profile's tools, resources and errors over the same Hub, registry and
change notifications as the default server."""

from __future__ import annotations

from typing import Any

from mcp import MCPError
from mcp.server import Server, ServerRequestContext
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    GetPromptRequestParams,
    GetPromptResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    PaginatedRequestParams,
    Prompt,
    PromptArgument,
    PromptMessage,
    ReadResourceRequestParams,
    ReadResourceResult,
    TextContent,
    TextResourceContents,
    Tool,
    ToolAnnotations,
)

from pairdbg.backends.actions import Registry
from pairdbg.backends.actions.registry import cut
from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.backends.hub import Hub

from ..notify import Notifier, client_name
from ..prompts import checked_arguments
from ..serving import agent_error, agent_text, bounded_result, new_server
from . import load
from .common import Profile, call_tool


def build_profile_server(hub: Hub, registry: Registry, profile_name: str, name: str) -> tuple[Server[Any], Notifier]:
    profile = load(profile_name, hub)
    notifier = Notifier(hub)
    tools = [
        Tool(
            name=t.name,
            description=t.description,
            input_schema=t.input_schema(),
            output_schema=t.output_schema,
            annotations=ToolAnnotations(read_only_hint=t.read_only),
        )
        for t in profile.tools
    ]

    async def list_tools(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=tools)

    async def on_call(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
        actor = f"agent:{client_name(ctx)}"
        return bounded_result(await call_tool(profile, hub, registry, actor, params.name, params.arguments or {}))

    # A profile without resources answers empty lists (a relay like `--join` asks every server for them).
    resources = profile.resources or NoResources()

    async def list_resources(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        return ListResourcesResult(resources=resources.list())

    async def list_templates(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourceTemplatesResult:
        return ListResourceTemplatesResult(resource_templates=resources.templates())

    async def read_resource(ctx: ServerRequestContext[Any], params: ReadResourceRequestParams) -> ReadResourceResult:
        uri = str(params.uri)
        try:
            text, mime = await resources.read(uri)
        except DebugError as exc:
            text = resources.error_text(agent_error(hub, exc, uri))
            raise MCPError(-32602, text, {"uri": cut(uri), "code": str(exc.code)}) from None
        return ReadResourceResult(
            contents=[TextResourceContents(uri=uri, text=agent_text(hub, text, mime), mime_type=mime)]
        )

    server = new_server(
        name,
        profile.instructions,
        notifier,
        tools_changed=False,
        on_list_tools=list_tools,
        on_call_tool=on_call,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
        **(prompt_handlers(hub, profile) if profile.prompts else {}),
    )
    return server, notifier


class NoResources:
    def list(self) -> list[Any]:
        return []

    def templates(self) -> list[Any]:
        return []

    async def read(self, uri: str) -> tuple[str, str]:
        raise DebugError(
            ErrorCode.PATH_NOT_FOUND, f"resource not found: {cut(uri)}", hint="this profile has no resources"
        )

    def error_text(self, err: DebugError) -> str:
        return err.text()


def prompt_handlers(hub: Hub, profile: Profile) -> dict[str, Any]:
    """The profile's prompts, in its own words and tool names."""
    prompts = [
        Prompt(
            name=p.name,
            description=p.description,
            arguments=[PromptArgument(name=a, required=True) for a in p.arguments],
        )
        for p in profile.prompts
    ]
    by_name = {p.name: p for p in profile.prompts}

    async def list_prompts(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListPromptsResult:
        return ListPromptsResult(prompts=prompts)

    async def get_prompt(ctx: ServerRequestContext[Any], params: GetPromptRequestParams) -> GetPromptResult:
        spec = by_name.get(params.name)
        args = checked_arguments(params.name, by_name, spec.arguments if spec else (), params.arguments, hub.limits)
        assert spec is not None  # checked_arguments refuses an unknown prompt
        text = agent_text(hub, spec.render(args), session_id=args.get("session_id"))
        return GetPromptResult(
            description=spec.description, messages=[PromptMessage(role="user", content=TextContent(text=text))]
        )

    return {"on_list_prompts": list_prompts, "on_get_prompt": get_prompt}
