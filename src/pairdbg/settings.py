"""pairdbg's settings as one typed model: limits, the React Native and debug-bridge listeners and MCP over HTTP.

Read from the environment with the PAIRDBG_ prefix and `__` between a section and its field
(PAIRDBG_LIMITS__MAX_SESSIONS=4, PAIRDBG_MCP__PORT=7400, PAIRDBG_RN__WS_PORT=0, PAIRDBG_AGENTS__MODE=inspect,
PAIRDBG_AGENTS__REDACT=false). Older names keep working:
the React Native listener's own (WS_PORT, WS_HOST, RN_DEBUG_TOKEN, REQUEST_TIMEOUT_MS, MAX_PAYLOAD_SIZE, LOG_LEVEL,
RN_HEARTBEAT_MS, ...), PAIRDBG_BRIDGE_* and PAIRDBG_ALLOW_REMOTE_MCP. Command-line values are passed as keyword
arguments and win over the environment. Below the environment, a TOML settings file in the platform's config folder
(`settings_file()`, e.g. ~/.config/pairdbg/settings.toml) can hold every setting, one table per section
(`[limits]`, `[mcp]`, `[agents]`, `[rn]`, `[bridge]`, `[tui]`); pairdbg writes the TUI's last theme there.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

import platformdirs

from pydantic import BaseModel, Field, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource

from pairdbg.backends.actions.registry import parse_groups
from pairdbg.backends.bridge.config import BridgeConfig
from pairdbg.backends.limits import Limits
from pairdbg.backends.policy import AgentSettings
from pairdbg.backends.rn.config import RnConfig

#: The listeners' sections and the settings each reads (the file's keys are checked against these).
LISTENERS: dict[str, type[BaseModel]] = {"rn": RnConfig, "bridge": BridgeConfig}

#: Old single names -> (section, field); read when the PAIRDBG_<SECTION>__<FIELD> form is not set.
LEGACY = {"PAIRDBG_ALLOW_REMOTE_MCP": ("mcp", "allow_remote")}


# The settings' docs are attribute docstrings, for readers of this file. pydantic is not asked to copy them into the
# fields (use_attribute_docstrings): that parses this module's source once per model, 5-10 ms each at every start,
# and nothing reads the fields' descriptions.


class McpSettings(BaseModel):
    """MCP over Streamable HTTP (the TUI's endpoint, or `pairdbg --mcp --http`)."""

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

    output_schemas: bool = False
    """Declare each tool's outputSchema where its structured content has a stable shape (control results, stacks,
    variables, breakpoints, output): for hosts that check structured content. Off by default: the schemas would
    quadruple the tool list every agent pays for (the seed profiles declare their seeds' result shapes always)."""


class TuiSettings(BaseModel):
    """The terminal UI."""

    theme: str | None = None
    """Theme (pairdbg-dark, pairdbg-light or any Textual theme); pairdbg remembers the last one chosen."""


def settings_file() -> Path:
    """The settings file: settings.toml in the platform's config folder for pairdbg (XDG_CONFIG_HOME on Linux)."""
    return platformdirs.user_config_path("pairdbg") / "settings.toml"


def remember(section: str, key: str, value: str) -> Path:
    """Write one string setting into the settings file, keeping everything else in it (comments too). Raises
    OSError, or ValueError when the file is not TOML it can edit (then it is left as it was)."""
    path = settings_file()
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    line = f"{key} = {json.dumps(value)}"
    header = re.search(rf"(?m)^\[\s*{re.escape(section)}\s*\][ \t]*(#.*)?$", text)
    if header is None:
        text = (text.rstrip("\n") + "\n\n" if text.strip() else "") + f"[{section}]\n{line}\n"
    else:
        body_end = re.search(r"(?m)^\[", text[header.end() :])
        end = header.end() + (body_end.start() if body_end else len(text) - header.end())
        body = text[header.end() : end]
        existing = re.search(rf"(?m)^{re.escape(key)}\s*=.*$", body)
        body = body[: existing.start()] + line + body[existing.end() :] if existing else f"\n{line}" + body
        text = text[: header.end()] + body + text[end:]
    try:
        if tomllib.loads(text).get(section, {}).get(key) != value:
            raise ValueError(f"{key} is set in a form this edit does not handle")
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"not valid TOML: {exc}") from None
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path


def unknown_in_file() -> list[str]:
    """Sections and keys of the settings file that no setting has (a typo there would otherwise be ignored)."""
    path = settings_file()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return []  # a missing file is fine; a broken one fails Settings() with its own message
    out = []
    for section, body in data.items():
        field = Settings.model_fields.get(section)
        if field is None:
            out.append(f"[{section}]")
            continue
        model = LISTENERS.get(section, field.annotation)
        if isinstance(model, type) and issubclass(model, BaseModel) and isinstance(body, dict):
            known = {f.lower() for f in model.model_fields} if section in LISTENERS else set(model.model_fields)
            out += [f"[{section}] {key}" for key in body if (key.lower() if section in LISTENERS else key) not in known]
    return out


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
    """Everything pairdbg can be configured with. The listeners' sections hold the values given here; each
    listener reads the rest of its settings and checks them all when it starts (`RnConfig.load`), so a bad listener
    setting fails only that listener, naming the variable; any other bad value stops pairdbg at start-up."""

    model_config = SettingsConfigDict(
        env_prefix="PAIRDBG_",
        env_nested_delimiter="__",
        extra="ignore",
    )

    limits: Limits = Field(default_factory=Limits)
    """Sessions, breakpoints, watches, output and stop-report caps."""
    mcp: McpSettings = Field(default_factory=McpSettings)
    """MCP over HTTP."""
    agents: AgentSettings = Field(default_factory=AgentSettings)
    """What agents may do (mode: inspect, control, full) and whether what they receive is redacted."""
    rn: dict[str, Any] = Field(default_factory=dict)
    """The React Native adapter's listener (PAIRDBG_RN__WS_PORT, ...): values over its own names (WS_PORT,
    RN_DEBUG_TOKEN, ...), which backends/rn/config.py reads; checked when the listener starts."""
    bridge: dict[str, Any] = Field(default_factory=dict)
    """The debug-bridge listener (PAIRDBG_BRIDGE__PORT, ...): values over its own names (PAIRDBG_BRIDGE_PORT,
    PAIRDBG_BRIDGE_EVAL, ...), which backends/bridge/config.py reads; checked when the listener starts."""
    tui: TuiSettings = Field(default_factory=TuiSettings)
    """The terminal UI (theme)."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml = TomlConfigSettingsSource(settings_cls, settings_file())  # the settings file, below the environment
        return init_settings, env_settings, _LegacyNames(settings_cls), toml
