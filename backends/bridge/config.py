"""Settings of the debug-bridge listener, validated from the PAIRDBG_BRIDGE_* names (PROTOCOL.md §1).

A bad value fails the service's start with a message naming the variable; pairdbg itself keeps running.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..services import ConfigError

__all__ = ["BridgeConfig", "ConfigError"]

ENV = {
    "host": "PAIRDBG_BRIDGE_HOST",
    "port": "PAIRDBG_BRIDGE_PORT",
    "token": "PAIRDBG_BRIDGE_TOKEN",
    "origins": "PAIRDBG_BRIDGE_ORIGINS",
    "max_message": "PAIRDBG_BRIDGE_MAX_MESSAGE",
    "allow_eval": "PAIRDBG_BRIDGE_EVAL",
}


class BridgeConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    host: str = Field("127.0.0.1", min_length=1)
    port: int = Field(19851, ge=0, le=65535)
    token: str = Field(default_factory=lambda: secrets.token_hex(16), min_length=8, repr=False)
    #: True when the token was generated for this run (the person must give it to the app).
    token_generated: bool = True
    #: Exact extra origins allowed at the upgrade, besides any port on localhost / 127.0.0.1 / [::1].
    origins: tuple[str, ...] = ()
    max_message: int = Field(1024 * 1024, ge=4096, le=64 * 1024 * 1024)
    #: The server's half of the evaluate opt-in (the SDK's enableEval is the other half).
    allow_eval: bool = False
    hello_timeout_s: float = Field(5.0, gt=0, le=600)
    settle_ms: int = Field(100, ge=0, le=10_000)
    max_wait_ms: int = Field(3000, ge=0, le=60_000)
    #: How long a session whose page went away waits for it to come back before it ends.
    reconnect_grace_s: float = Field(30.0, ge=0, le=3600)

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}/debug"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> BridgeConfig:
        """Build from `env` (default os.environ); empty variables count as unset. Raises ConfigError."""
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        for field, var in ENV.items():
            raw = env.get(var)
            if raw is None or not raw.strip():
                continue
            raw = raw.strip()
            if field == "origins":
                values[field] = tuple(o.strip().rstrip("/") for o in raw.split(",") if o.strip())
            elif field == "allow_eval":
                values[field] = raw.lower() in ("1", "true", "yes", "on")
            else:
                values[field] = raw
        values["token_generated"] = "token" not in values
        values.update(overrides)
        if overrides.get("token"):
            values["token_generated"] = False
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            names = {f: v for f, v in ENV.items()}
            problems = "; ".join(
                f"{names.get(str(err['loc'][0]), err['loc'][0])}={values.get(str(err['loc'][0]), '')!r}: {err['msg']}"
                for err in exc.errors()
            )
            raise ConfigError(f"invalid debug-bridge setting: {problems}") from None
