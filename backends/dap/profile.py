"""Any DAP adapter by configuration: a profile (JSON) says how to start the adapter and what to send it.

Built-in profiles live in backends/dap/profiles/*.json; users add their own in $XDG_CONFIG_HOME/pairdbg/adapters/
(~/.config/pairdbg/adapters/). Adding an adapter is writing a file, not code. Templates in `launch`/`attach`:
a value that is exactly "{name}" is replaced by the value itself (a list, a bool…); other strings are formatted.
Names: program, args, cwd, env (object), env_list (["K=V", …]), stop_on_entry, host, port, pid.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from ..errors import DebugError, ErrorCode
from .backend import DapBackend

BUILTIN = Path(__file__).with_name("profiles")


class AdapterProfile(BaseModel):
    name: str
    description: str = ""
    languages: list[str] = Field(min_length=1)
    candidates: list[str] = Field(min_length=1, description="executables to try, first found on PATH wins")
    args: list[str] = Field(default_factory=list, description="arguments for the adapter command")
    transport: Literal["stdio"] = "stdio"
    adapter_id: str
    launch: dict[str, Any]
    attach: dict[str, Any] | None = None
    exception_filters: dict[str, list[str]] = Field(default_factory=lambda: {"none": [], "uncaught": [], "all": []})
    features: list[str] = Field(default_factory=list)
    hide_variables: list[str] = Field(default_factory=list, description="variable names never shown")
    install_hint: str = ""

    def executable(self) -> str:
        for candidate in self.candidates:
            found = shutil.which(candidate)
            if found:
                return found
        raise DebugError(
            ErrorCode.CONNECTION_FAILED,
            f"no {self.name} debug adapter found (looked for {', '.join(self.candidates)})",
            hint=self.install_hint or None,
        )


def profile_dirs() -> list[Path]:
    config = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "pairdbg" / "adapters"
    return [BUILTIN, config]


def load_profiles() -> dict[str, AdapterProfile]:
    """Every profile by name; a user file with a built-in's name replaces it. A broken file is an error naming it."""
    profiles: dict[str, AdapterProfile] = {}
    for folder in profile_dirs():
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            try:
                profile = AdapterProfile.model_validate(json.loads(path.read_text(encoding="utf-8")))
            except (ValueError, ValidationError) as exc:
                raise DebugError(
                    ErrorCode.INVALID_PARAMETERS,
                    f"adapter profile {path} is invalid: {exc}",
                    hint="fix or remove the file",
                ) from None
            profiles[profile.name] = profile
    return profiles


def profile_for(language: str) -> AdapterProfile | None:
    for profile in load_profiles().values():
        if language in profile.languages:
            return profile
    return None


def fill(template: Any, values: dict[str, Any]) -> Any:
    if isinstance(template, dict):
        return {k: fill(v, values) for k, v in template.items()}
    if isinstance(template, list):
        return [fill(v, values) for v in template]
    if isinstance(template, str):
        if template.startswith("{") and template.endswith("}") and template[1:-1] in values:
            return values[template[1:-1]]
        return template.format(**values) if "{" in template else template
    return template


class ProfileLaunch(DapBackend):
    """A program launched through any stdio DAP adapter described by a profile."""

    launched = True

    def __init__(
        self,
        profile: AdapterProfile,
        language: str,
        program: str,
        args: list[str] | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        stop_on_entry: bool = False,
    ) -> None:
        super().__init__()
        self.profile = profile
        self.language = language
        self.adapter_id = profile.adapter_id
        self.features = frozenset(profile.features)
        self.exception_filters = {**{"none": [], "uncaught": [], "all": []}, **profile.exception_filters}
        self.program = program
        env = dict(env or {})
        self.values = {
            "program": program,
            "args": list(args or []),
            "cwd": cwd or os.path.dirname(program),
            "env": env,
            "env_list": [f"{k}={v}" for k, v in env.items()],
            "stop_on_entry": stop_on_entry,
        }

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        await self._spawn_adapter([self.profile.executable(), *self.profile.args])
        assert self.proc is not None and self.proc.stdout is not None and self.proc.stdin is not None
        return self.proc.stdout, self.proc.stdin  # type: ignore[return-value]

    def _start_request(self) -> tuple[str, dict[str, Any]]:
        return "launch", fill(self.profile.launch, self.values)

    async def variables(self, ref: int, start: int = 0, count: int = 0):
        values = await super().variables(ref, start, count)
        hidden = set(self.profile.hide_variables)
        return [v for v in values if v.name not in hidden] if hidden else values
