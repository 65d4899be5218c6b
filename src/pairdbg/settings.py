"""pairdbg's settings as one typed model: limits, the React Native and debug-bridge listeners and MCP over HTTP.

Read from the environment with the PAIRDBG_ prefix and `__` between a section and its field
(PAIRDBG_LIMITS__MAX_SESSIONS=4, PAIRDBG_MCP__PORT=7400, PAIRDBG_RN__WS_PORT=0, PAIRDBG_AGENTS__MODE=inspect,
PAIRDBG_AGENTS__REDACT=false). Older names keep working:
the React Native listener's own (WS_PORT, WS_HOST, RN_DEBUG_TOKEN, REQUEST_TIMEOUT_MS, MAX_PAYLOAD_SIZE, LOG_LEVEL,
RN_HEARTBEAT_MS, ...), PAIRDBG_BRIDGE_* and PAIRDBG_ALLOW_REMOTE_MCP. Command-line values are passed as keyword
arguments and win over the environment.
"""

from __future__ import annotations

import os
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidatorFunctionWrapHandler, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from pairdbg.backends.actions.registry import parse_groups
from pairdbg.backends.bridge.config import BridgeConfig
from pairdbg.backends.limits import Limits
from pairdbg.backends.policy import AgentSettings
from pairdbg.backends.rn.config import RnConfig
from pairdbg.backends.services import ConfigError

#: Old single names -> (section, field); read when the PAIRDBG_<SECTION>__<FIELD> form is not set.
LEGACY = {"PAIRDBG_ALLOW_REMOTE_MCP": ("mcp", "allow_remote")}


class McpSettings(BaseModel):
    """MCP over Streamable HTTP (the TUI's endpoint, or `pairdbg --mcp --http`)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    host: str = "127.0.0.1"
    """Bind address; loopback unless allow_remote."""
    port: int | None = Field(None, ge=0, le=65535)
    """Port (None: 7391, or a free one if that is taken)."""
    allow_remote: bool = False
    """Serve on a non-loopback address too (the DNS-rebinding protection covers loopback only; put TLS in front)."""
    tools: str = ""
    """Tool groups listed from the start, e.g. "rn,web" or "all" (more, rn, web); by default the React Native and
    page tools are listed once an app or page connects, for hosts that ignore tools/list_changed."""

    @field_validator("tools")
    @classmethod
    def _tools(cls, value: str) -> str:
        return ",".join(sorted(parse_groups(value)))


class _LegacyNames(PydanticBaseSettingsSource):
    """The single environment names from before the settings model, below the PAIRDBG_<SECTION>__ ones."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, (section, field) in LEGACY.items():
            raw = os.environ.get(name)
            if raw is not None and raw.strip():
                out.setdefault(section, {})[field] = raw.strip()
        return out


class Settings(BaseSettings):
    """Everything pairdbg can be configured with. A bad listener setting fails only that listener's start (its
    section then holds the ConfigError naming the variable); any other bad value stops pairdbg at start-up."""

    model_config = SettingsConfigDict(
        env_prefix="PAIRDBG_",
        env_nested_delimiter="__",
        extra="ignore",
        arbitrary_types_allowed=True,
        use_attribute_docstrings=True,
    )

    limits: Limits = Field(default_factory=Limits)
    """Sessions, breakpoints, watches, output and stop-report caps."""
    mcp: McpSettings = Field(default_factory=McpSettings)
    """MCP over HTTP."""
    agents: AgentSettings = Field(default_factory=AgentSettings)
    """What agents may do (mode: inspect, control, full) and whether what they receive is redacted."""
    rn: RnConfig | ConfigError = Field(default_factory=dict, validate_default=True)  # type: ignore[arg-type]
    """The React Native adapter's listener (WS_PORT, RN_DEBUG_TOKEN, ... or PAIRDBG_RN__WS_PORT, ...)."""
    bridge: BridgeConfig | ConfigError = Field(default_factory=dict, validate_default=True)  # type: ignore[arg-type]
    """The debug-bridge listener (PAIRDBG_BRIDGE_PORT, PAIRDBG_BRIDGE_EVAL, ... or PAIRDBG_BRIDGE__PORT, ...)."""

    @field_validator("rn", mode="wrap")
    @classmethod
    def _rn(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> RnConfig | ConfigError:
        if isinstance(value, RnConfig | ConfigError):
            return value
        try:  # the section's own names first, then PAIRDBG_RN__* and keyword overrides
            return RnConfig.from_env(None, **{k.upper(): v for k, v in dict(value).items()})
        except ConfigError as exc:
            return exc

    @field_validator("bridge", mode="wrap")
    @classmethod
    def _bridge(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> BridgeConfig | ConfigError:
        if isinstance(value, BridgeConfig | ConfigError):
            return value
        try:
            return BridgeConfig.from_env(None, **{k.lower(): v for k, v in dict(value).items()})
        except ConfigError as exc:
            return exc

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return init_settings, env_settings, _LegacyNames(settings_cls)
