"""Builds the MCP server from the action registry: tools, resources, prompts, instructions, notifications."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
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
    Resource,
    ResourceTemplate,
    TextContent,
    TextResourceContents,
)

from pairdbg.backends import queries
from pairdbg.backends.actions import Registry
from pairdbg.backends.actions.registry import cut
from pairdbg.backends.actions.render import session_line, stop_report
from pairdbg.backends.errors import DebugError
from pairdbg.backends.focus import person_view
from pairdbg.backends.hub import Hub
from pairdbg.backends.policy import MODE_SAYS
from pairdbg.backends.redact import for_agent

from .prompts import checked_arguments
from .serving import agent_data, agent_error, agent_text, bounded_result, new_server
from .notify import AGENT_URI, FOCUS_URI, NOTES_URI, SESSIONS_URI, Notifier, client_name, output_uri, session_uri
from .tools import ToolList

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
pairdbg: a live debugger a person in a terminal UI may share, acting on the same sessions.
First call per task:
- debug a script or module: start_debugging(program, breakpoints=[{file,line}]) -> first stop report
- failing tests: debug_tests(args) -> stops at the failing line
- a running program or browser: attach(target='host:port')
- a web page with the debug-bridge SDK: get_bridge_info; a React Native app: debug_health_check
- what the person looks at: get_focus; tell them what you think: post_note(text, on='file:line')
Then step_over/step_into/step_out or continue_execution: each returns the next stop report, or running +
pending=true (call wait_for_stop). Read with handles from the report: get_variables(ref='@v3'),
evaluate_expression(expression, frame='@f1'); valid until it resumes. restart_debugging keeps
breakpoints. session_id may be left out with one live session. Lines are 1-based. Errors say what to do next.
The person sets the agent mode (debug://agent): refusals say PERMISSION_DENIED. Secrets: <redacted>.
"""
# Added to the instructions only while the group's tools are listed.
GROUP_INSTRUCTIONS = {
    "web": "Pages: get_ui_tree lists @eN handles; click/type_text reply with what changed.\n",
    "rn": "RN app: debug_get_snapshot, debug_query_events(since_seq), debug_diff_snapshots.\n",
}


def instructions(groups: set[str]) -> str:
    return INSTRUCTIONS + "".join(text for group, text in GROUP_INSTRUCTIONS.items() if group in groups)


def _tool_result(text: str, data: dict[str, Any], is_error: bool = False) -> CallToolResult:
    return bounded_result(CallToolResult(content=[TextContent(text=text)], structured_content=data, is_error=is_error))


def build_server(
    hub: Hub,
    registry: Registry,
    name: str = "pairdbg",
    *,
    tools: str | Iterable[str] | None = None,
    profile: str | None = None,
    output_schemas: bool = False,
) -> tuple[Server[Any], Notifier]:
    """The MCP server over `registry`. `tools`: optional tool groups listed from the start ("rn,web", "all");
    the others appear when their app connects (see tools.ToolList). `profile`: a seed server's surface over the
    same actions instead (mcp_bridge/profiles). `output_schemas`: declare the tools' outputSchemas (McpSettings)."""
    if profile is not None:
        from .profiles.server import build_profile_server

        return build_profile_server(hub, registry, profile, name)
    listing = ToolList(hub, registry, tools, output_schemas)
    notifier = Notifier(hub, listing)

    async def list_tools(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=listing.tools())

    async def call_tool(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
        actor = f"agent:{client_name(ctx)}"
        try:
            reply = await registry.run(params.name, params.arguments or {}, actor)
        except DebugError as exc:
            exc = listing.explain(params.name, exc)
            return _tool_result(exc.text(), {"error": exc.to_dict()}, is_error=True)
        from .results import structured  # the result models (~3 ms) load with the first call, after initialize

        return _tool_result(reply.text, structured(params.name, reply.data))

    async def list_resources(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        resources = [
            Resource(uri=SESSIONS_URI, name="sessions", description="all debug sessions", mime_type="application/json"),
            Resource(
                uri=AGENT_URI,
                name="agent mode",
                description="what agents may do now (inspect, control, full; the person changes it) and redaction",
                mime_type="application/json",
            ),
            Resource(
                uri=FOCUS_URI,
                name="person's focus",
                description="what the person looks at in the TUI: session, frame, source line, variable, expression",
                mime_type="application/json",
            ),
            Resource(
                uri=NOTES_URI,
                name="notes",
                description="notes the person and agents left on sessions, lines and variables",
                mime_type="application/json",
            ),
        ]
        for sid, session in hub.sessions.items():
            resources.append(
                Resource(
                    uri=session_uri(sid),
                    name=f"session {sid}",
                    description=f"{session.name}: phase, stop report, breakpoints",
                    mime_type="application/json",
                )
            )
            resources.append(
                Resource(
                    uri=output_uri(sid),
                    name=f"session {sid} output",
                    description="recent program output",
                    mime_type="text/plain",
                )
            )
        for service in hub.services:
            resources.extend(
                Resource(uri=r.uri, name=r.name, description=r.description, mime_type=r.mime_type)
                for r in service.resources()
            )
        return ListResourcesResult(resources=resources)

    async def list_templates(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourceTemplatesResult:
        return ListResourceTemplatesResult(
            resource_templates=[
                ResourceTemplate(
                    uri_template=SESSIONS_URI + "/{session_id}",
                    name="session",
                    description="one session: phase, last stop report, breakpoints, watches",
                    mime_type="application/json",
                ),
                ResourceTemplate(
                    uri_template=SESSIONS_URI + "/{session_id}/output",
                    name="session output",
                    description="the last 200 output entries of a session",
                    mime_type="text/plain",
                ),
                ResourceTemplate(
                    uri_template=SESSIONS_URI + "/{session_id}/changes",
                    name="session change log",
                    description="changes its data breakpoints saw: time, thread, file:line, function, old → new",
                    mime_type="text/plain",
                ),
                *(
                    ResourceTemplate(uri_template=r.uri, name=r.name, description=r.description, mime_type=r.mime_type)
                    for service in hub.services
                    for r in service.resource_templates()
                ),
            ]
        )

    async def read_resource(ctx: ServerRequestContext[Any], params: ReadResourceRequestParams) -> ReadResourceResult:
        uri = str(params.uri)
        text, mime = await read_for_agent(hub, uri)
        return ReadResourceResult(contents=[TextResourceContents(uri=uri, text=text, mime_type=mime)])

    prompts = [
        Prompt(
            name="analyze_crash",
            description="Analyse why a session stopped: stack, locals, likely cause.",
            arguments=[PromptArgument(name="session_id", required=True)],
        ),
        Prompt(
            name="investigate_condition",
            description="Evaluate an expression across the call stack to see why a condition holds or not.",
            arguments=[
                PromptArgument(name="session_id", required=True),
                PromptArgument(name="expression", required=True),
            ],
        ),
    ]

    async def list_prompts(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListPromptsResult:
        return ListPromptsResult(prompts=prompts)

    async def get_prompt(ctx: ServerRequestContext[Any], params: GetPromptRequestParams) -> GetPromptResult:
        prompt = next((p for p in prompts if p.name == params.name), None)
        declared = [a.name for a in prompt.arguments or []] if prompt is not None else []
        args = checked_arguments(params.name, [p.name for p in prompts], declared, params.arguments, hub.limits)
        sid = args["session_id"]
        if params.name == "analyze_crash":
            text = _analyze_crash(hub, sid)
        else:
            text = _investigate(hub, sid, args["expression"])
        text = agent_text(hub, text, session_id=sid if isinstance(sid, str) else None)
        return GetPromptResult(
            description=params.name, messages=[PromptMessage(role="user", content=TextContent(text=text))]
        )

    server = new_server(
        name,
        instructions(listing.groups),
        notifier,
        tools_changed=True,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )
    notifier.on_tools_changed = lambda: setattr(server, "instructions", instructions(listing.groups))
    return server, notifier


async def read_for_agent(hub: Hub, uri: str) -> tuple[str, str]:
    """A resource (a service's, else a session's) as an agent may read it: (text, mime type)."""
    for service in hub.services:
        try:
            found = await service.read_resource(uri)
        except DebugError as exc:
            text = agent_error(hub, exc, uri).text()
            raise MCPError(-32602, text, {"uri": cut(uri), "code": str(exc.code)}) from None
        if found is not None:
            text, mime = found
            return agent_text(hub, text, mime), mime
    text, mime = _read(hub, uri)
    return agent_text(hub, text, mime), mime


def _read(hub: Hub, uri: str) -> tuple[str, str]:
    if uri == SESSIONS_URI:
        return json.dumps(queries.sessions_resource(hub)), "application/json"
    if uri == FOCUS_URI:
        view = person_view(hub)
        return json.dumps(agent_data(hub, view["session_id"], view)), "application/json"
    if uri == NOTES_URI:
        # each session's notes hide the secret values that session's replies hid (a value the person pasted)
        body = {sid: agent_data(hub, sid, notes) for sid, notes in hub.notes.view().items()}
        return json.dumps(body), "application/json"
    if uri == AGENT_URI:
        policy = hub.policy
        body = {"mode": policy.mode.value, "may": MODE_SAYS[policy.mode], "redacted": policy.redact}
        return json.dumps(body), "application/json"
    prefix = SESSIONS_URI + "/"
    if uri.startswith(prefix):
        rest = uri[len(prefix) :]
        sid, _, tail = rest.partition("/")
        session = hub.sessions.get(sid)
        if session is not None and tail == "":
            return json.dumps(queries.session_resource(session)), "application/json"
        if session is not None and tail == "output":
            return queries.output_resource(session), "text/plain"
        if session is not None and tail == "changes":
            return queries.changes_resource(session), "text/plain"
    raise MCPError(-32602, f"resource not found: {cut(uri)}", {"uri": cut(uri)})


def _analyze_crash(hub: Hub, sid: str) -> str:
    session = hub.sessions.get(sid)
    context = queries.stop_context(session) if session else None
    state = session_line(context.summary) if context else f"(no session {sid!r} yet)"
    stop = stop_report(context.stop) if context and context.stop else "(no stop report yet)"
    if context and context.stop and hub.policy.redact:  # the locals' values are known by name here
        stop = for_agent(stop, context.stop.model_dump(mode="json"))[0]
    return (
        f"Analyse why session {sid} stopped and what the root cause is.\n\nCurrent state: {state}\n\n{stop}\n\n"
        "1. Read the stop reason and exception above. 2. get_call_stack, then get_local_variables for the frames "
        "that belong to the program (not libraries). 3. evaluate_expression to test each hypothesis (null/None "
        "values, wrong types, off-by-one bounds). 4. Name the faulty line and the fix; say what you verified."
    )


def _investigate(hub: Hub, sid: str, expression: str) -> str:
    session = hub.sessions.get(sid)
    frames = queries.stop_context(session).frames if session else ["@f0"]
    return (
        f"Investigate why `{expression}` has the value it has in session {sid}.\n"
        f"Evaluate it with evaluate_expression in each frame ({', '.join(frames)}) and globally, then evaluate "
        "its sub-expressions where the value first becomes surprising. Report the frame, the values and the cause."
    )
