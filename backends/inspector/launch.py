"""Starting a JavaScript/TypeScript program under Node or Bun with the inspector, stopped before its first line."""

from __future__ import annotations

import os
import secrets
from typing import Literal

from ..errors import DebugError, ErrorCode
from .backend import Endpoint, InspectorBackend
from .dialect import Dialect
from .discovery import discover, endpoint_for_ws, find_again
from .inspection import PLAIN_CONSOLE_FILE, TEST_HOOK_FILE
from .process import RuntimeProcess
from .scripts import Roots
from ..process import free_port
from ..runtimes import TargetMissing, find_bun, find_node

Runtime = Literal["node", "bun"]


def runtime_path(runtime: Runtime) -> str:
    try:
        return find_bun() if runtime == "bun" else find_node()
    except TargetMissing as exc:
        raise DebugError(ErrorCode.CONNECTION_FAILED, str(exc), hint=exc.how_to_install) from None


async def launch_js(
    program: str,
    runtime: Runtime,
    language: str,
    args: list[str],
    cwd: str | None,
    env: dict[str, str],
    stop_on_entry: bool,
    test_files: list[str] | None = None,
) -> InspectorBackend:
    """Spawn the runtime paused before the first line (--inspect-brk on a loopback port) and wrap it.

    `test_files` (Node): a `node --test` run of `program` and these files, in one process with the failure hook
    preloaded, so a failing test pauses where it throws (Node's own --test would run each file in a child process)."""
    executable = runtime_path(runtime)
    if runtime == "bun":
        # Bun needs a port up front and prints the path it serves; a random path keeps other clients out.
        flag = f"--inspect-brk=127.0.0.1:{free_port()}/pairdbg-{secrets.token_hex(8)}"
        dialect = Dialect("jsc")
    else:
        flag = "--inspect-brk=127.0.0.1:0"
        dialect = Dialect("v8")
    # Console calls print to the pipes only (see plainconsole.cjs).
    preload = ["--preload" if runtime == "bun" else "--require", PLAIN_CONSOLE_FILE]
    if test_files is not None:
        preload += ["--require", TEST_HOOK_FILE]
        for file in test_files:  # the files after the first run before it, in the same process
            preload += ["--import" if file.endswith(".mjs") else "--require", file]
    argv = [executable, flag, *preload, program, *args]
    process = await RuntimeProcess.spawn(argv, cwd or os.path.dirname(program), env)
    endpoint = Endpoint(process.ws_url, dialect, waiting=True)
    backend = InspectorBackend(endpoint, language, program, process, stop_on_entry)
    backend.test_hook = test_files is not None
    return backend


async def attach_js(target: str, language: str, allowed: list[str], roots: Roots | None = None) -> InspectorBackend:
    """A running target at host:port / http:// (discovered) or ws:// (as given); re-found when it restarts. With
    `roots`, its files live under another root than the local ones (a container, another host)."""
    endpoint = await discover(target, allowed)

    async def rediscover() -> Endpoint:
        return await discover(target, allowed)

    endpoint.rediscover = rediscover
    return InspectorBackend(endpoint, language, target, roots=roots)


async def connect_ws(url: str, allowed: list[str]) -> InspectorBackend:
    """A target by its inspector URL; re-found when it restarts (on the same port, maybe under a new target id)."""
    endpoint = await endpoint_for_ws(url, allowed)
    last = endpoint

    async def rediscover() -> Endpoint:
        nonlocal last
        last = await find_again(last, allowed)
        return last

    endpoint.rediscover = rediscover
    return InspectorBackend(endpoint, "javascript", url)
