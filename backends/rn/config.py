"""Settings of the React Native listener, validated from the environment's names (WS_PORT, RN_DEBUG_TOKEN, ...).

A bad value fails start-up with a message naming the variable, e.g. `WS_PORT: Input should be ...`.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..services import ConfigError

__all__ = ["ConfigError", "RnConfig"]


class RnConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    WS_PORT: int = Field(19850, ge=0, le=65535)
    WS_HOST: str = Field("127.0.0.1", min_length=1)
    REQUEST_TIMEOUT_MS: int = Field(5000, ge=50, le=600_000)
    MAX_PAYLOAD_SIZE: int = Field(524_288, ge=4096, le=64 * 1024 * 1024)
    LOG_LEVEL: Literal["debug", "info", "warn", "error"] = "info"
    RN_DEBUG_TOKEN: str = Field(default_factory=lambda: secrets.token_hex(16), min_length=8, repr=False)
    #: True when the token was generated for this run (the person must pass it to the app).
    token_generated: bool = False
    #: Application heartbeat (PROTOCOL.md §8); environment overrides exist for tests and slow devices.
    RN_HEARTBEAT_MS: int = Field(10_000, ge=20, le=600_000)
    RN_HEARTBEAT_TIMEOUT_MS: int = Field(30_000, ge=20, le=3_600_000)
    RN_HELLO_TIMEOUT_MS: int = Field(5_000, ge=20, le=600_000)

    @property
    def token(self) -> str:
        return self.RN_DEBUG_TOKEN

    @property
    def url(self) -> str:
        return f"ws://{self.WS_HOST}:{self.WS_PORT}/adapter"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> RnConfig:
        """Build from `env` (default os.environ); empty variables count as unset. Raises ConfigError."""
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        for name in cls.model_fields:
            if name == "token_generated":
                continue
            raw = env.get(name)
            if raw is not None and raw.strip() != "":
                values[name] = raw.strip()
        values["token_generated"] = "RN_DEBUG_TOKEN" not in values
        values.update(overrides)
        if overrides.get("RN_DEBUG_TOKEN"):
            values["token_generated"] = False
        if "LOG_LEVEL" in values and isinstance(values["LOG_LEVEL"], str):
            values["LOG_LEVEL"] = values["LOG_LEVEL"].lower()
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc'])}={values.get(str(err['loc'][0]), '')!r}: {err['msg']}"
                for err in exc.errors()
            )
            raise ConfigError(f"invalid React Native listener setting: {problems}") from None

    def python_log_level(self) -> str:
        return {"warn": "WARNING"}.get(self.LOG_LEVEL, self.LOG_LEVEL.upper())
