"""`--profile agent-devtools`: the React Native Agent DevTools MCP server of seed 003 over pairdbg's RN actions.

The six tools keep their names and arguments (pairdbg's RN actions already use them); results are the seed's JSON
text, bare where the seed returns a bare payload (a snapshot, a state value); failures are the seed's
`{"error": true, "code", "message", "details"}` with `isError`, INVALID_PARAMS for a call its schema refuses; the
resources are the RN listener's four. The seed's schemas and result shapes are data (agent_devtools_schemas): every
tool is the RN action of the same name, its data passed through."""

from __future__ import annotations

import json
from typing import Any

from mcp.types import Resource, ResourceTemplate

from pairdbg.backends.actions.registry import cut
from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.backends.hub import Hub
from pairdbg.backends.rn.service import RnService

from .agent_devtools_schemas import CODES, TOOLS
from .common import Call, Profile, ToolSpec, json_result, tool_specs

INSTRUCTIONS = """\
pairdbg serving the React Native Agent DevTools tools. The app's debug adapter connects to pairdbg's WebSocket
listener; debug_health_check says whether it is connected. Read state with debug_get_snapshot(stream, scope) and
debug_get_state_path(path), history with debug_query_events(stream, since_seq) and debug_diff_snapshots.
"""

#: the seed's Streamable HTTP port (MCP_TRANSPORT=http)
HTTP_PORT = 3100


def error_body(err: DebugError) -> dict[str, Any]:
    body: dict[str, Any] = {"error": True, "code": CODES.get(err.code, str(err.code)), "message": err.message}
    # The seed's NOT_CONNECTED carries no data: the app's last state (pairdbg's own tools keep it under `stale`)
    # is left out, so nothing here reads as the app's state now.
    details = {k: v for k, v in err.data.items() if k != "stale"}
    if err.hint:
        details["hint"] = err.hint
    if details:
        body["details"] = details
    return body


def rn_service(hub: Hub) -> RnService:
    for service in hub.services:
        if isinstance(service, RnService):
            return service
    raise DebugError(ErrorCode.NOT_CONNECTED, "the React Native listener is not running in this pairdbg")


async def passthrough(call: Call, a: dict[str, Any]) -> Any:
    """The RN action of the tool's name, its structured data as the seed's payload (the one field the seed returns
    alone, where it does)."""
    data = (await call.run(call.tool, **a)).data
    bare = TOOLS[call.tool].get("bare")
    return data[bare] if bare else data


def error(spec: ToolSpec, err: DebugError, args: dict[str, Any]):
    return json_result(error_body(err), is_error=True)


def result(spec: ToolSpec, payload: Any):
    return json_result(payload)


class AppResources:
    """The RN listener's resources; those of an app that is gone are NOT_CONNECTED (§4c)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    def list(self) -> list[Resource]:
        return [
            Resource(uri=r.uri, name=r.name, description=r.description, mime_type=r.mime_type)
            for r in rn_service(self.hub).resources()
        ]

    def templates(self) -> list[ResourceTemplate]:
        return [
            ResourceTemplate(uri_template=r.uri, name=r.name, description=r.description, mime_type=r.mime_type)
            for r in rn_service(self.hub).resource_templates()
        ]

    async def read(self, uri: str) -> tuple[str, str]:
        service = rn_service(self.hub)
        if not service.server_connected():
            raise DebugError(
                ErrorCode.NOT_CONNECTED,
                "no React Native app is connected",
                hint=f"start the app with the pairdbg adapter ({service.url})",
            )
        found = await service.read_resource(uri)
        if found is None:
            raise DebugError(ErrorCode.PATH_NOT_FOUND, f"resource not found: {cut(uri)}")
        return found

    def error_text(self, err: DebugError) -> str:
        return json.dumps(error_body(err))


def build(hub: Hub) -> Profile:
    tools = tool_specs(TOOLS, dict.fromkeys(TOOLS, passthrough))
    return Profile("agent-devtools", INSTRUCTIONS, tools, result, error, resources=AppResources(hub))
