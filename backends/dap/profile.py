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

from ..base import Capabilities, DataBreakpointSpec, DataWatch, RawFrame, StepKind
from ..errors import DebugError, ErrorCode
from ..models import DataChange
from .adapterwatch import LOG_LINE, AdapterWatches, WatchCommands
from .backend import DapBackend
from .datawatch import change_line

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
    watch_commands: WatchCommands | None = Field(
        None, description="the debugger's own watchpoint commands, for an adapter without DAP data breakpoints"
    )
    data_breakpoints_hint: str = Field("", description="where to get data breakpoints when this adapter has none")
    runs_in_terminal: bool = Field(
        False,
        description="pairdbg answers the adapter's runInTerminal request: it starts the program (its own process "
        "group and pipes) and reads its output itself (the launch template asks the adapter for it)",
    )

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
        self.runs_in_terminal = profile.runs_in_terminal
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
        self.data_watches = AdapterWatches(
            self._req,
            self.evaluate,
            self.stack,
            self.variables,
            lambda: self.adapter_capabilities,
            profile.name,
            profile.data_breakpoints_hint or None,
            profile.watch_commands,
        )
        self._frame_names: dict[int, str] = {}  # frames of the current stop, by id: where a watch was set
        # A data-breakpoint stop is delivered once its values are read; events after it wait behind it.
        self._behind_data_stop: list[tuple[str, dict[str, Any]]] | None = None
        self._annotating: asyncio.Task[None] | None = None

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        # Delve builds the program from its own working folder: started elsewhere, `go build` cannot find the
        # program's module (a main.go importing a package of its own fails with "Build error"). So every adapter
        # starts in the program's working folder.
        folder = self.values["cwd"] if os.path.isdir(self.values["cwd"] or "") else None
        if self.profile.transport == "stdio":
            await self._spawn_adapter([self.profile.executable(), *self.profile.args], cwd=folder)
            assert self.proc is not None and self.proc.stdout is not None and self.proc.stdin is not None
            return self.proc.stdout, self.proc.stdin  # type: ignore[return-value]
        from ..process import free_port

        port = free_port()
        await self._spawn_adapter([self.profile.executable(), *fill(self.profile.args, {"port": port})], cwd=folder)
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
        if self._behind_data_stop is not None:
            self._behind_data_stop.append((event, body))
        elif event == "stopped" and self.data_watches.is_data_stop(body):
            self._behind_data_stop = []
            self._annotating = asyncio.create_task(self._deliver_data_stop(body))
        else:
            super()._on_event(event, body)

    async def _deliver_data_stop(self, body: dict[str, Any]) -> None:
        logged = None
        try:
            body = await self.data_watches.annotate_stop(body)
            logged = body.pop(LOG_LINE, None)
            if logged is not None:  # a log-only watch: record the change and go on, as if it never stopped
                if self.listener is not None:
                    self.listener.on_output("changes", change_line(logged), DataChange.of(logged))
                await self.resume(body.get("threadId"))
        except DebugError:
            logged = None  # the adapter's own stop is still a stop; its values could not be read, or it stayed
        finally:
            held, self._behind_data_stop = self._behind_data_stop or [], None
            if not self._closing:  # a session that is ending has nothing to report to
                if logged is None:
                    super()._on_event("stopped", body)
                for event, later in held:
                    self._on_event(event, later)

    # ----- data breakpoints (adapterwatch.py) -------------------------------------------------------------------

    async def set_data_breakpoint(self, spec: DataBreakpointSpec, frame_id: int) -> DataWatch:
        return await self.data_watches.arm(spec, frame_id, self._frame_names.get(frame_id, ""))

    async def clear_data_breakpoint(self, bp_id: str) -> None:
        await self.data_watches.clear(bp_id)

    async def update_data_breakpoint(self, bp_id: str, enabled: bool | None, condition: str | None) -> None:
        await self.data_watches.update(bp_id, enabled, condition)

    async def stack(self, thread_id: int, start: int = 0, levels: int = 20) -> tuple[list[RawFrame], int]:
        frames, total = await super().stack(thread_id, start, levels)
        self._frame_names.update((f.id, f.name) for f in frames)
        return frames, total

    async def resume(self, thread_id: int | None) -> None:
        self._frame_names.clear()  # frame ids last one stop
        await super().resume(thread_id)

    async def step(self, kind: StepKind, thread_id: int | None) -> None:
        self._frame_names.clear()
        await super().step(kind, thread_id)

    async def close(self, terminate: bool = True) -> None:
        await super().close(terminate)
        for task in (getattr(self, "_stdout_task", None), self._annotating):
            if task is not None:
                task.cancel()

    def _start_request(self) -> tuple[str, dict[str, Any]]:
        return "launch", fill(self.profile.launch, self.values)

    async def variables(self, ref: int, start: int = 0, count: int = 0):
        values = await super().variables(ref, start, count)
        hidden = set(self.profile.hide_variables)
        return [v for v in values if v.name not in hidden] if hidden else values
