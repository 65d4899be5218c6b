"""Settings of the debug-bridge listener, read by pydantic-settings from the PAIRDBG_BRIDGE_* names (PROTOCOL.md §1);
pairdbg.settings passes PAIRDBG_BRIDGE__*, the settings file's [bridge] and the command line on top.

A bad value fails the service's start with a message naming the variable; pairdbg itself keeps running.
"""

from __future__ import annotations

import secrets
from typing import Annotated

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import NoDecode, SettingsConfigDict

from ..listener import ListenerConfig
from ..services import ConfigError

__all__ = ["BridgeConfig", "ConfigError"]


class BridgeConfig(ListenerConfig):
    model_config = SettingsConfigDict(env_prefix="PAIRDBG_BRIDGE_")  # host -> PAIRDBG_BRIDGE_HOST, ...

    WHAT = "debug-bridge"
    TOKEN_FIELD = "token"

    host: str = Field("127.0.0.1", min_length=1)
    port: int = Field(19851, ge=0, le=65535)
    token: str = Field(default_factory=lambda: secrets.token_hex(16), min_length=8, repr=False)
    #: Exact extra origins allowed at the upgrade, besides any port on localhost / 127.0.0.1 / [::1]
    #: (PAIRDBG_BRIDGE_ORIGINS: comma-separated).
    origins: Annotated[tuple[str, ...], NoDecode] = ()
    max_message: int = Field(1024 * 1024, ge=4096, le=64 * 1024 * 1024)
    #: The server's half of the evaluate opt-in (the SDK's enableEval is the other half).
    allow_eval: bool = Field(False, validation_alias=AliasChoices("PAIRDBG_BRIDGE_EVAL"))  # init: allow_eval
    hello_timeout_s: float = Field(5.0, gt=0, le=600)
    settle_ms: int = Field(100, ge=0, le=10_000)
    max_wait_ms: int = Field(3000, ge=0, le=60_000)
    #: How long a session whose page went away waits for it to come back before it ends.
    reconnect_grace_s: float = Field(30.0, ge=0, le=3600)

    @field_validator("origins", mode="before")
    @classmethod
    def _origins(cls, value: object) -> object:
        if isinstance(value, str):
            value = value.split(",")
        if isinstance(value, list | tuple):
            return tuple(str(o).strip().rstrip("/") for o in value if str(o).strip())
        return value

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}/debug"

    def address(self) -> tuple[str, int]:
        return self.host, self.port

    def max_frame(self) -> int:
        return self.max_message
