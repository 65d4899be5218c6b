"""Settings of the React Native listener, read by pydantic-settings under the names apps already use (WS_PORT,
RN_DEBUG_TOKEN, ...); pairdbg.settings passes PAIRDBG_RN__*, the settings file's [rn] and the command line on top.

A bad value fails the listener's start with a message naming the variable, e.g. `WS_PORT='abc': Input should be ...`.
"""

from __future__ import annotations

import secrets
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import SettingsConfigDict

from ..listener import ListenerConfig
from ..services import ConfigError

__all__ = ["ConfigError", "RnConfig"]


class RnConfig(ListenerConfig):
    model_config = SettingsConfigDict(env_prefix="")  # the field names are the variables' names

    WHAT = "React Native listener"
    TOKEN_FIELD = "RN_DEBUG_TOKEN"

    WS_PORT: int = Field(19850, ge=0, le=65535)
    WS_HOST: str = Field("127.0.0.1", min_length=1)
    REQUEST_TIMEOUT_MS: int = Field(5000, ge=50, le=600_000)
    MAX_PAYLOAD_SIZE: int = Field(524_288, ge=4096, le=64 * 1024 * 1024)
    LOG_LEVEL: Literal["debug", "info", "warn", "error"] = "info"
    RN_DEBUG_TOKEN: str = Field(default_factory=lambda: secrets.token_hex(16), min_length=8, repr=False)
    #: Application heartbeat (PROTOCOL.md §8); environment overrides exist for tests and slow devices.
    RN_HEARTBEAT_MS: int = Field(10_000, ge=20, le=600_000)
    RN_HEARTBEAT_TIMEOUT_MS: int = Field(30_000, ge=20, le=3_600_000)
    RN_HELLO_TIMEOUT_MS: int = Field(5_000, ge=20, le=600_000)

    @field_validator("LOG_LEVEL", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @property
    def token(self) -> str:
        return self.RN_DEBUG_TOKEN

    @property
    def url(self) -> str:
        return f"ws://{self.WS_HOST}:{self.WS_PORT}/adapter"

    def address(self) -> tuple[str, int]:
        return self.WS_HOST, self.WS_PORT

    def max_frame(self) -> int:
        return self.MAX_PAYLOAD_SIZE

    def python_log_level(self) -> str:
        return {"warn": "WARNING"}.get(self.LOG_LEVEL, self.LOG_LEVEL.upper())
