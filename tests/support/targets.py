"""The tests' debug targets: launch and stop real browsers (Chromium, WebKitGTK's MiniBrowser), serve a folder
over HTTP, poll /json/list. A test rig, not part of the installed package.

Finding the executables is backends/runtimes.py, process groups backends/process.py and reading a runtime's banner
backends/inspector/process.py (all re-exported here for the tests). Every launcher
starts its target in a process group of its own, and `stop_process_group` ends that whole group (Chromium's
helpers, xvfb-run's Xvfb and MiniBrowser's web/network processes) and removes the launcher's temporary directories.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import html
import http.server
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Callable
from typing import Any

import aiohttp

from pairdbg.backends.inspector.process import TargetFailed, read_ws_url
from pairdbg.backends.process import free_port, group_members, spawn, stop_group
from pairdbg.backends.runtimes import TargetMissing, find_bun, find_chromium, find_minibrowser, find_node, find_xvfb_run

__all__ = [
    "TargetFailed",
    "TargetMissing",
    "find_bun",
    "find_chromium",
    "find_minibrowser",
    "find_node",
    "find_xvfb_run",
    "free_port",
    "group_members",
    "launch_chromium",
    "launch_minibrowser",
    "read_ws_url",
    "serve_directory",
    "spawn",
    "stop_process_group",
]


CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
MINIBROWSER_ENV = {
    "WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS": "1",
    "WEBKIT_DISABLE_COMPOSITING_MODE": "1",
}
WEBKIT_SOCKET = re.compile(r"/socket/\d+/\d+/\w+")


# ----- processes ------------------------------------------------------------------------------------------------------


async def stop_process_group(proc: asyncio.subprocess.Process, timeout: float = 5.0) -> None:
    """End the whole process group of `proc` (started by `spawn`): TERM, then KILL after `timeout`; reap `proc`.

    Also removes the temporary directories a launcher attached to `proc`. Safe to call twice.
    """
    await stop_group(proc, timeout, wait_group=True, sweep=False)
    for path in getattr(proc, "pairdbg_tempdirs", ()):
        shutil.rmtree(path, ignore_errors=True)


def _attach_tempdir(proc: asyncio.subprocess.Process, path: str) -> None:
    proc.pairdbg_tempdirs = [*getattr(proc, "pairdbg_tempdirs", ()), path]  # type: ignore[attr-defined]


def _tail(path: str, limit: int = 2000) -> str:
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return ""
    return data[-limit:].decode(errors="replace")


# ----- discovery ----------------------------------------------------------------------------------------------------


async def http_get(url: str, timeout: float = 2.0) -> tuple[int, str]:
    """(status, body) of a GET on a local inspector HTTP endpoint."""
    client_timeout = aiohttp.ClientTimeout(total=timeout)
    async with aiohttp.ClientSession(timeout=client_timeout) as session, session.get(url) as resp:
        return resp.status, await resp.text()


async def poll_json_list(port: int, kind: str, url: str | None = None, timeout: float = 15.0) -> dict[str, Any]:
    """Poll CDP's `/json/list` on 127.0.0.1:`port` until a target of type `kind` (and `url`, if given) shows up.

    Without `url`, the first target of that type wins. Returns the target entry (`webSocketDebuggerUrl` etc.).
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    last = "nothing yet"
    while loop.time() < deadline:
        try:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as session:
                async with session.get(f"http://127.0.0.1:{port}/json/list") as resp:
                    targets = await resp.json(content_type=None) if resp.status == 200 else []
            last = repr(targets)[:500]
            for target in targets:
                wanted = target.get("type") == kind and (url is None or target.get("url") == url)
                if wanted and target.get("webSocketDebuggerUrl"):
                    return target
        except (aiohttp.ClientError, OSError, TimeoutError, ValueError) as exc:
            last = f"{exc.__class__.__name__}: {exc}"
        await asyncio.sleep(0.1)
    raise TargetFailed(f"no {kind} target{f' for {url}' if url else ''} on :{port}/json/list in {timeout}s ({last})")


# ----- browsers -----------------------------------------------------------------------------------------------------


async def launch_chromium(url: str, port: int, timeout: float = 30.0) -> tuple[asyncio.subprocess.Process, str]:
    """Headless Chromium on `url` with DevTools on 127.0.0.1:`port`; returns (process, page target's ws URL).

    Returns as soon as the page target is listed, which may be before `url` has loaded (even while on about:blank).
    Uses a throw-away profile (removed by `stop_process_group`); Chromium's stderr goes to a log beside it and its
    tail is in the error if Chromium fails to start.
    """
    chromium = find_chromium()
    tmp = tempfile.mkdtemp(prefix="pairdbg-chromium-")
    profile = os.path.join(tmp, "profile")
    log_path = os.path.join(tmp, "stderr.log")
    argv = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--remote-debugging-port={port}", url]
    with open(log_path, "wb") as log:
        proc = await spawn(argv, stdout=asyncio.subprocess.DEVNULL, stderr=log)
    _attach_tempdir(proc, tmp)
    try:
        target = await _race_exit(proc, poll_json_list(port, "page", timeout=timeout), "chromium", log_path)
    except BaseException:
        await stop_process_group(proc)
        raise
    return proc, target["webSocketDebuggerUrl"]


async def launch_minibrowser(url: str, port: int, timeout: float = 30.0) -> tuple[asyncio.subprocess.Process, str]:
    """WebKitGTK MiniBrowser on `url` under `xvfb-run -a`, with the WebKit inspector's HTTP/WebSocket server on
    127.0.0.1:`port`; returns (process, ws URL of the page target).

    The socket speaks the WebKit Inspector Protocol with the page multiplexed through `Target.sendMessageToTarget`;
    it is listed once the page exists, which may be before it has loaded. The process is xvfb-run (group leader of
    Xvfb, MiniBrowser and WebKit's web and network processes). Stop it with `stop_process_group`.
    """
    xvfb_run = find_xvfb_run()
    minibrowser = find_minibrowser()
    tmp = tempfile.mkdtemp(prefix="pairdbg-webkit-")
    log_path = os.path.join(tmp, "stderr.log")
    # TMPDIR: xvfb-run's own temp dir lands in ours, so it is removed even when a signal skips xvfb-run's clean-up.
    env = {**os.environ, **MINIBROWSER_ENV, "WEBKIT_INSPECTOR_HTTP_SERVER": f"127.0.0.1:{port}", "TMPDIR": tmp}
    argv = [xvfb_run, "-a", "-s", "-screen 0 1280x800x24", minibrowser, "--enable-developer-extras=true", url]
    with open(log_path, "wb") as log:
        proc = await spawn(argv, env=env, stdout=log, stderr=asyncio.subprocess.STDOUT)
    _attach_tempdir(proc, tmp)
    try:
        path = await _race_exit(proc, _poll_webkit_socket(port, url, timeout), "MiniBrowser", log_path)
    except BaseException:
        await stop_process_group(proc)
        raise
    return proc, f"ws://127.0.0.1:{port}{path}"


async def _poll_webkit_socket(port: int, url: str, timeout: float) -> str:
    """Poll the inspector's HTML target list (`GET /`) for the page's `/socket/<conn>/<target>/WebPage` path."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    last = "nothing yet"
    while loop.time() < deadline:
        try:
            status, body = await http_get(f"http://127.0.0.1:{port}/")
            last = f"HTTP {status}: {body[-300:]}"
            rows = body.split("<tr>")[1:]
            paths = [(html.unescape(row), m.group(0)) for row in rows if (m := WEBKIT_SOCKET.search(row))]
            for row, path in paths:
                if f">{url}<" in row:
                    return path
            if paths:  # the page may still be on about:blank or a redirect target; one target is all there is
                return paths[0][1]
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            last = f"{exc.__class__.__name__}: {exc}"
        await asyncio.sleep(0.1)
    raise TargetFailed(f"no page target on the WebKit inspector :{port} in {timeout}s ({last})")


async def _race_exit(proc: asyncio.subprocess.Process, waiter, what: str, log_path: str):
    """Await `waiter`, but fail early (with the log tail) if `proc` exits first."""
    task = asyncio.ensure_future(waiter)
    exited = asyncio.ensure_future(proc.wait())
    try:
        done, _ = await asyncio.wait({task, exited}, return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            return task.result()
        problem = f"{what} exited with {proc.returncode} before its inspector was ready"
    except TargetFailed as exc:
        problem = str(exc)
    finally:
        for fut in (task, exited):
            if not fut.done():
                fut.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await fut
    raise TargetFailed(f"{problem}\n--- {what} log (tail) ---\n{_tail(log_path)}")


# ----- a static web server for test pages ---------------------------------------------------------------------------


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


def serve_directory(path: str | os.PathLike[str]) -> tuple[str, Callable[[], None]]:
    """Serve `path` over HTTP on 127.0.0.1 (a free port) from a thread; returns (base URL ending in '/', close)."""
    handler = functools.partial(_QuietHandler, directory=os.fspath(path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    closed = False

    def close() -> None:
        nonlocal closed
        if closed:
            return
        closed = True
        server.shutdown()
        server.server_close()
        thread.join(5)

    return f"http://127.0.0.1:{server.server_address[1]}/", close
