"""Streamable HTTP MCP on loopback with a bearer token, embedded in the running asyncio loop (TUI or headless)."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import os
import secrets
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pairdbg.backends.actions.registry import Registry
from pairdbg.backends.hub import Hub

from .state import state_dir

if TYPE_CHECKING:
    from .http_app import EmbeddedUvicorn
    from .notify import Notifier

DEFAULT_PORT = 7391
MCP_PATH = "/mcp"
# A request's headers must be complete this long after the connection opens (or after the previous response): uvicorn
# has no such deadline, and a client trickling one header byte at a time held a connection for as long as it liked
# (150 of them held the door 45 s). Headers are also capped at h11's 16 KiB.
HEADER_TIMEOUT_S = 10.0
LISTEN_BACKLOG = 128


def endpoint_file(port: int | None = None, pid: int | None = None) -> Path:
    """This process's entry (one per serving endpoint, so two TUIs never share or overwrite one); with no port,
    the newest live entry of this process."""
    pid = os.getpid() if pid is None else pid
    if port is None:
        mine = sorted(state_dir().glob(f"endpoint-{pid}-*.json"), key=_mtime, reverse=True)
        return mine[0] if mine else state_dir() / f"endpoint-{pid}-0.json"
    return state_dir() / f"endpoint-{pid}-{port}.json"


def read_endpoint() -> dict[str, Any] | None:
    """The live endpoint of a running pairdbg, or None: a TUI's before a headless server's, the newest first.
    Entries whose process is gone are ignored (and removed)."""
    live = []
    for path in [*state_dir().glob("endpoint-*.json"), state_dir() / "endpoint.json"]:
        try:
            info = json.loads(path.read_text())
            os.kill(int(info["pid"]), 0)
        except ProcessLookupError:
            with contextlib.suppress(OSError):
                path.unlink()
            continue
        except (OSError, ValueError, KeyError, TypeError):
            continue
        live.append((info.get("kind", "tui") == "tui", _mtime(path), info))
    if not live:
        return None
    return max(live, key=lambda entry: entry[:2])[2]


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


class HttpMcpService:
    def __init__(
        self,
        hub: Hub,
        registry: Registry,
        host: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        token: str | None = None,
        publish_endpoint: bool = True,
        allow_remote: bool = False,
        kind: str = "tui",
        tools: str | None = None,
        profile: str | None = None,
        output_schemas: bool = False,
    ) -> None:
        self.hub = hub
        self.registry = registry
        self.tools = tools
        self.profile = profile
        self.output_schemas = output_schemas
        self.token = token or secrets.token_urlsafe(32)
        self.host = host
        self._check_loopback(host, allow_remote)
        # Listening from here on: an agent that connects before start() has finished waits in the backlog and is
        # served then, rather than refused.
        self.sock = self._listen(host, port)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://{f'[{host}]' if ':' in host else host}:{self.port}{MCP_PATH}"
        self.publish_endpoint = publish_endpoint
        self.kind = kind  # "tui" or "http" (headless): readers prefer a TUI's endpoint
        self._endpoint: Path | None = None
        # Built by start(): the MCP server and uvicorn (http_app) take longer to import than the TUI to draw.
        self.server: Any = None
        self.notifier: Notifier | None = None
        self.uvicorn: EmbeddedUvicorn | None = None
        self._task: asyncio.Task[None] | None = None

    @staticmethod
    def _check_loopback(host: str, allow_remote: bool) -> None:
        import ipaddress

        try:
            loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if not loopback and not allow_remote:
            raise OSError(
                f"refusing to serve MCP on {host}: the DNS-rebinding protection only covers loopback addresses; "
                "set PAIRDBG_ALLOW_REMOTE_MCP=1 if you really mean it (and put TLS in front)"
            )

    @staticmethod
    def _listen(host: str, port: int) -> socket.socket:
        """Listen now so the real port is known; if the default port is taken, fall back to a free one. Taken is
        known only at listen(): with SO_REUSEADDR two processes starting at once may both bind the port, and the
        second is refused when it listens."""
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        for candidate in (port, 0) if port else (0,):
            sock = socket.socket(family, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind((host, candidate))
                sock.listen(LISTEN_BACKLOG)
                return sock
            except OSError:
                sock.close()
                if candidate == 0:
                    raise
        raise OSError("unreachable")

    async def start(self) -> None:
        """Build the MCP server and serve it. The SDK is imported in a thread, so a loop that already runs (the
        TUI's, a debug session starting) keeps going meanwhile."""
        http_app = await asyncio.to_thread(importlib.import_module, "pairdbg.mcp_bridge.http_app")
        self.server, self.notifier, self.uvicorn = http_app.build(
            self.hub,
            self.registry,
            self.host,
            self.token,
            tools=self.tools,
            profile=self.profile,
            output_schemas=self.output_schemas,
        )
        self._task = asyncio.create_task(self.uvicorn.serve(sockets=[self.sock]), name="pairdbg-mcp-http")
        while not self.uvicorn.started:
            if self._task.done():
                self._task.result()
            await asyncio.sleep(0.01)
        if self.publish_endpoint:
            self._write_endpoint()

    def _write_endpoint(self) -> None:
        folder = state_dir()
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(folder, 0o700)  # an older or hand-made folder keeps its mode otherwise
        for old in [*folder.glob("endpoint*.json")]:  # entries other versions or runs left: tokens stay private
            with contextlib.suppress(OSError):
                os.chmod(old, 0o600)
        path = endpoint_file(self.port)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)  # O_CREAT's mode applies only to a new file; the token must never be readable
        with os.fdopen(fd, "w") as fh:
            json.dump({"url": self.url, "token": self.token, "pid": os.getpid(), "kind": self.kind}, fh)
        self._endpoint = path

    def remove_endpoint(self) -> None:
        """Remove this endpoint's entry at once (also from a signal's cleanup, before anything is awaited)."""
        if self._endpoint is not None:
            with contextlib.suppress(OSError):
                self._endpoint.unlink()
            self._endpoint = None

    async def stop(self) -> None:
        self.remove_endpoint()  # first: a SIGTERM's cleanup may end the process while uvicorn winds down
        if self._task is not None and self.uvicorn is not None:
            self.uvicorn.should_exit = True
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        self.sock.close()  # listening since __init__: closed even when start() never ran or failed
        if self.notifier is not None:
            self.notifier.close()


async def serve_http(service: HttpMcpService) -> None:
    """Headless Streamable HTTP until cancelled; the caller starts and shuts down the Hub."""
    await service.start()
    print(f"pairdbg MCP at {service.url}\nAuthorization: Bearer {service.token}", file=sys.stderr, flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await service.stop()
