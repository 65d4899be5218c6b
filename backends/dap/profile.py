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

from pydantic import BaseModel, Field, ValidationError, field_validator

from ..base import Capabilities
from ..errors import DebugError, ErrorCode
from .backend import DapBackend

BUILTIN = Path(__file__).with_name("profiles")


class AdapterProfile(BaseModel):
    name: str
    description: str = ""
    languages: list[str] = Field(min_length=1)
    candidates: list[str] = Field(min_length=1, description="executables to try, first found on PATH wins")
    args: list[str] = Field(default_factory=list, description="arguments for the adapter command ({port} for tcp)")
    transport: Literal["stdio", "tcp"] = Field(
        "stdio", description="stdio, or tcp: the adapter listens on a free loopback port passed to it as {port}"
    )
    adapter_id: str
    launch: dict[str, Any]
    attach: dict[str, Any] | None = None
    exception_filters: dict[str, list[str]] = Field(default_factory=lambda: {"none": [], "uncaught": [], "all": []})
    features: list[str] | None = Field(
        None, description="capabilities to use of those the adapter announces (default: all of them)"
    )
    hide_variables: list[str] = Field(default_factory=list, description="variable names never shown")
    output_noise: list[str] = Field(default_factory=list, description="the adapter's own lines, kept out of output")
    install_hint: str = ""

    @field_validator("features")
    @classmethod
    def _known_capabilities(cls, names: list[str] | None) -> list[str] | None:
        unknown = set(names or ()) - Capabilities.names()
        if unknown:
            raise ValueError(f"unknown capabilities {sorted(unknown)}; known: {sorted(Capabilities.names())}")
        return names

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
        self.allowed = frozenset(profile.features) if profile.features is not None else None
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
        if self.profile.transport == "stdio":
            await self._spawn_adapter([self.profile.executable(), *self.profile.args])
            assert self.proc is not None and self.proc.stdout is not None and self.proc.stdin is not None
            return self.proc.stdout, self.proc.stdin  # type: ignore[return-value]
        from ..process import free_port

        port = free_port()
        await self._spawn_adapter([self.profile.executable(), *fill(self.profile.args, {"port": port})])
        # A TCP adapter's stdout is free for the program (delve runs it there): forward it, and keep the pipe
        # drained so a chatty program never blocks on it.
        self._stdout_task = asyncio.create_task(self._forward_stdout())
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while True:  # the adapter opens its port a moment after it starts
            try:
                return await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                if self.proc is not None and self.proc.returncode is not None:
                    raise DebugError(
                        ErrorCode.CONNECTION_FAILED,
                        f"the {self.profile.name} adapter exited with code {self.proc.returncode}",
                        hint="\n".join(self.stderr_tail)[-500:] or None,
                    ) from None
                if loop.time() > deadline:
                    raise DebugError(
                        ErrorCode.TIMEOUT, f"the {self.profile.name} adapter never opened port {port}"
                    ) from None
                await asyncio.sleep(0.05)

    async def _forward_stdout(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        while chunk := await self.proc.stdout.read(65536):
            text = chunk.decode(errors="replace")
            kept = "".join(
                line
                for line in text.splitlines(keepends=True)
                if not any(noise in line for noise in self.profile.output_noise)
            )
            if kept and self.listener is not None:
                self.listener.on_output("stdout", kept)

    def _on_event(self, event: str, body: dict[str, Any]) -> None:
        if event == "output" and any(noise in body.get("output", "") for noise in self.profile.output_noise):
            return
        super()._on_event(event, body)

    async def close(self, terminate: bool = True) -> None:
        await super().close(terminate)
        task = getattr(self, "_stdout_task", None)
        if task is not None:
            task.cancel()

    def _start_request(self) -> tuple[str, dict[str, Any]]:
        return "launch", fill(self.profile.launch, self.values)

    async def variables(self, ref: int, start: int = 0, count: int = 0):
        values = await super().variables(ref, start, count)
        hidden = set(self.profile.hide_variables)
        return [v for v in values if v.name not in hidden] if hidden else values
