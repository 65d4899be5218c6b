"""`--profile agent-devtools`: the React Native Agent DevTools MCP server of seed 003 over pairdbg's RN actions.

The six tools keep their names and arguments (pairdbg's RN actions already use them); results are the seed's JSON
text, bare where the seed returns a bare payload (a snapshot, a state value); failures are the seed's
`{"error": true, "code", "message", "details"}` with `isError`, INVALID_PARAMS for a call its schema refuses; the
resources are the RN listener's four."""

from __future__ import annotations

import json
from typing import Any

from mcp.types import Resource, ResourceTemplate

from pairdbg.backends.actions.registry import cut
from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.backends.hub import Hub
from pairdbg.backends.rn.service import RnService

from .common import Call, Profile, ToolSpec, json_result, prop

INSTRUCTIONS = """\
pairdbg serving the React Native Agent DevTools tools. The app's debug adapter connects to pairdbg's WebSocket
listener; debug_health_check says whether it is connected. Read state with debug_get_snapshot(stream, scope) and
debug_get_state_path(path), history with debug_query_events(stream, since_seq) and debug_diff_snapshots.
"""

#: the seed's Streamable HTTP port (MCP_TRANSPORT=http)
HTTP_PORT = 3100
STREAM = prop("string", "Target stream", enum=["redux", "navigation", "mmkv"])
#: pairdbg codes -> the seed's (§5); codes the seed does not name keep pairdbg's string
CODES = {ErrorCode.INVALID_PARAMETERS: "INVALID_PARAMS", ErrorCode.BAD_REQUEST: "INVALID_PARAMS"}


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


def build(hub: Hub) -> Profile:
    def passthrough(action: str, bare: str | None = None):
        """The action's structured data as the seed's payload; `bare` names the field the seed returns alone."""

        async def handler(call: Call, a: dict[str, Any]) -> Any:
            data = (await call.run(action, **a)).data
            return data[bare] if bare else data

        return handler

    def error(spec: ToolSpec, err: DebugError, args: dict[str, Any]):
        return json_result(error_body(err), is_error=True)

    def result(spec: ToolSpec, payload: Any):
        return json_result(payload)

    class Resources:
        def list(self) -> list[Resource]:
            return [
                Resource(uri=r.uri, name=r.name, description=r.description, mime_type=r.mime_type)
                for r in rn_service(hub).resources()
            ]

        def templates(self) -> list[ResourceTemplate]:
            return [
                ResourceTemplate(uri_template=r.uri, name=r.name, description=r.description, mime_type=r.mime_type)
                for r in rn_service(hub).resource_templates()
            ]

        async def read(self, uri: str) -> tuple[str, str]:
            service = rn_service(hub)
            if not service.server_connected():  # §4c: the resources of an app that is gone are NOT_CONNECTED
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

    tools = [
        ToolSpec(
            "debug_health_check",
            "Check connection status and adapter capabilities (never fails for a missing app)",
            {},
            passthrough("debug_health_check"),
            read_only=True,
        ),
        ToolSpec(
            "debug_list_streams",
            "List available data streams and their status",
            {},
            passthrough("debug_list_streams"),
            read_only=True,
        ),
        ToolSpec(
            "debug_get_snapshot",
            "Latest state snapshot of a stream, scoped by a JSON path if given",
            {
                "stream": STREAM,
                "scope": prop("string", "JSON path for a partial snapshot (e.g. auth.user), or an MMKV instance"),
            },
            passthrough("debug_get_snapshot", bare="data"),
            ("stream",),
            read_only=True,
        ),
        ToolSpec(
            "debug_query_events",
            "Events from a stream's ring buffer, filtered and paginated (ascending seq)",
            {
                "stream": STREAM,
                "limit": prop("number", "Max events to return (1-200)", default=50),
                "since_seq": prop("number", "Return events after this sequence number"),
                "event_type": prop("string", "Filter by event type (e.g. action_dispatched, route_change)"),
            },
            passthrough("debug_query_events"),
            ("stream",),
            read_only=True,
        ),
        ToolSpec(
            "debug_get_state_path",
            "A value from the Redux state tree by dot-notation path",
            {"path": prop("string", "Dot-notation path (e.g. api.queries, auth.user.role)")},
            passthrough("debug_get_state_path", bare="value"),
            ("path",),
            read_only=True,
        ),
        ToolSpec(
            "debug_diff_snapshots",
            "Structural diff between two snapshots of the same stream",
            {
                "stream": STREAM,
                "base_seq": prop("number", "Sequence number of the base snapshot"),
                "target_seq": prop("number", "Sequence number of the target snapshot"),
            },
            passthrough("debug_diff_snapshots"),
            ("stream", "base_seq", "target_seq"),
            read_only=True,
        ),
    ]
    return Profile("agent-devtools", INSTRUCTIONS, tools, result, error, resources=Resources())
