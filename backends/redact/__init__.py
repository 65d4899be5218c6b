"""Redaction at the agent boundary: one pattern table (`table`: secret names, credential shapes, ordinary values),
text rules derived from it (`text`: free text and source lines) and the structural walk (`walk`: app data and
debugger replies). People see real values; agents see `<redacted: N chars>` (or {"$t": "redacted"} in app data)."""

from .table import credential_shaped, ordinary, secret_key, strong
from .text import KnownSecrets, hide_values, marker, scrub_source, scrub_text
from .walk import REDACTED, AgentRedaction, Redactor, for_agent, secret_name, trivial

__all__ = [
    "REDACTED",
    "AgentRedaction",
    "KnownSecrets",
    "Redactor",
    "credential_shaped",
    "for_agent",
    "hide_values",
    "marker",
    "ordinary",
    "scrub_source",
    "scrub_text",
    "secret_key",
    "secret_name",
    "strong",
    "trivial",
]
