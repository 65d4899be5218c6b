"""What the default MCP server and the profile servers share: how the Server is built, and what an agent may read
of a resource, a prompt or a failed read (every MCP reader is an agent, so only the redaction setting decides)."""

from __future__ import annotations

import json
from typing import Any

from mcp.server import NotificationOptions, Server
from mcp.types import CallToolResult, TextContent

from pairdbg.backends.actions.registry import shorten_echoes
from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.backends.hub import Hub

from .notify import Notifier


# The last bound on what one tool call answers. Every reply is bounded where it is made (values, pages, source lines,
# records); this catches a path that is not, so an agent gets a clear error instead of an unbounded message.
MAX_REPLY_CHARS = 4 * 1024 * 1024


def bounded_result(result: CallToolResult) -> CallToolResult:
    """`result`, or a LIMIT_EXCEEDED error result when its text or structured content is over MAX_REPLY_CHARS."""
    size = sum(len(getattr(block, "text", "") or "") for block in result.content)
    if result.structured_content is not None:
        size = max(size, len(json.dumps(result.structured_content, default=str)))
    if size <= MAX_REPLY_CHARS:
        return result
    err = DebugError(
        ErrorCode.LIMIT_EXCEEDED,
        f"the reply is {size} characters; replies stop at {MAX_REPLY_CHARS}",
        hint="ask for less: a smaller page, fewer lines, or a narrower expression",
    )
    return CallToolResult(
        content=[TextContent(text=err.text())], structured_content={"error": err.to_dict()}, is_error=True
    )


def new_server(
    name: str, instructions: str, notifier: Notifier, *, tools_changed: bool, **handlers: Any
) -> Server[Any]:
    """A Server with `handlers` and the notifier's subscriptions and list-changed notifications."""
    server: Server[Any] = Server(
        name,
        version="0.1.0",
        instructions=instructions,
        on_subscribe_resource=notifier.on_subscribe,
        on_unsubscribe_resource=notifier.on_unsubscribe,
        on_subscriptions_listen=notifier.listen_handler(),
        **handlers,
    )
    server.middleware.append(notifier.track)
    # Legacy clients learn `listChanged` only from NotificationOptions, which the HTTP session manager never
    # passes; bind them once here so both transports advertise what we send.
    options = NotificationOptions(resources_changed=True, tools_changed=tools_changed)
    original = server.create_initialization_options
    server.create_initialization_options = lambda notification_options=None, *a, **kw: original(  # type: ignore[method-assign]
        notification_options or options, *a, **kw
    )
    return server


def agent_text(hub: Hub, text: str, mime: str = "text/plain", session_id: str | None = None) -> str:
    """A resource or prompt as an agent may read it: JSON is redacted as data, so it stays JSON; other text as text.
    With `session_id`, the secret values that session's replies hid are hidden here too."""
    policy = hub.policy
    if not policy.redact:
        return text
    if mime == "application/json":
        try:
            body = json.loads(text)
        except ValueError:
            return policy.redact_reply(session_id, None, text, None)[0]
        redacted = policy.redact_reply(session_id, None, "", body)[1]
        return text if redacted == body else json.dumps(redacted, ensure_ascii=False)
    return policy.redact_reply(session_id, None, text, None)[0]


def agent_data(hub: Hub, session_id: str | None, data: Any) -> Any:
    """Data of one session as an agent may read it (the secret values that session's replies hid hidden too)."""
    if not hub.policy.redact:
        return data
    return hub.policy.redact_reply(session_id, None, "", data)[1]


def agent_error(hub: Hub, err: DebugError, uri: str) -> DebugError:
    """A failed read's error as an agent may see it: a long URI, or a long part of it, is cut to its start and
    length, and a target's message may quote a secret value."""
    shorten_echoes(err, {"uri": uri, "parts": uri.split("/")})
    if hub.policy.redact:
        hub.policy.redact_error(None, err)
    return err
