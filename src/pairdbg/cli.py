"""The `pairdbg` command: the TUI (with MCP over HTTP beside it), headless MCP, the demo and mcp-config."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import logging
import os
import re
import shutil
import sys
from collections.abc import Awaitable, Callable

USAGE = """\
pairdbg                              open the TUI (agents join over MCP at the URL in its header)
pairdbg [-b FILE:LINE]... PROGRAM.py [ARGS...]   debug a program in the TUI (pairdbg's options go first)
pairdbg demo                         debug a small buggy program shipped with pairdbg
pairdbg [--python PY] test [ARGS...]   debug this project's tests (pytest, unittest, node --test):
                                     stops where a test fails; ARGS go to the runner
pairdbg --mcp                        headless MCP server on stdio (for agents)
pairdbg --mcp --http [--port N]      headless MCP server on Streamable HTTP
pairdbg --mcp --join                 stdio relay into a running pairdbg TUI's session
pairdbg mcp-config                   print configuration to paste into an agent host
pairdbg install bun|js-debug         fetch a JavaScript runtime pairdbg debugs with (from npm, pinned)
"""


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="pairdbg", usage=USAGE, description="A debugger a person and an agent share.")
    p.add_argument("--version", action=VersionAction, help="show pairdbg's version and exit")
    p.add_argument("--mcp", action="store_true", help="run headless as an MCP server (stdio unless --http)")
    p.add_argument("--http", action="store_true", help="with --mcp: serve Streamable HTTP instead of stdio")
    p.add_argument("--join", action="store_true", help="with --mcp: relay stdio into the running TUI")
    p.add_argument("--host", default=None, help="HTTP bind address (default loopback)")
    p.add_argument("--port", type=int, default=None, help="HTTP port (default 7391; a free one if taken)")
    p.add_argument(
        "--profile",
        default=None,
        metavar="NAME",
        help="serve a seed server's MCP tools instead of pairdbg's (mcp-debugger, webkit-inspector, agent-devtools)",
    )
    p.add_argument("--no-http", action="store_true", help="TUI only: do not serve MCP over HTTP")
    p.add_argument(
        "--tools",
        default=None,
        metavar="GROUPS",
        help="MCP: also list these tool groups from the start: rn, web, more or all (comma-separated; by default "
        "the React Native and page tools are listed once an app or page connects)",
    )
    p.add_argument(
        "-b",
        "--break",
        dest="breaks",
        action="append",
        default=[],
        metavar="FILE:LINE",
        help="breakpoint to set before the program starts (repeatable)",
    )
    p.add_argument(
        "--python",
        default=None,
        help="interpreter for a Python program (default: the active virtualenv, else the project's .venv, "
        "else python3 on PATH)",
    )
    p.add_argument(
        "--runtime",
        choices=["node", "bun"],
        default=None,
        help="runtime for a JavaScript/TypeScript program (default: node for .js, bun for .ts)",
    )
    p.add_argument("--config", default=None, metavar="NAME", help="start from this .vscode/launch.json configuration")
    p.add_argument("--workspace", default=None, help="folder holding .vscode/launch.json (default: here)")
    p.add_argument(
        "--bridge-eval",
        action="store_true",
        help="let debug-bridge pages run evaluate (the page must opt in too: enableEval)",
    )
    p.add_argument("--theme", default=None, help="TUI theme (pairdbg-dark, pairdbg-light, or any Textual theme)")
    p.add_argument("program", nargs="?", help="program to debug, or `demo`, `test` or `mcp-config`")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the program")
    return p.parse_args(argv)


class VersionAction(argparse.Action):
    """--version, looked up only when asked: reading the installed metadata took ~20-40 ms of every launch."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=argparse.SUPPRESS, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None) -> None:  # type: ignore[override]
        print(f"pairdbg {version()}")
        parser.exit()


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("pairdbg")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def _breakpoints(specs: list[str], program: str | None) -> list[dict]:
    out = []
    for spec in specs:
        file, sep, line = spec.rpartition(":")
        if not sep:
            file, line = program or "", spec
        if not line.isdigit() or int(line) < 1 or not file:
            raise SystemExit(f"pairdbg: -b expects FILE:LINE (or LINE for the program), got {spec!r}")
        path = os.path.abspath(file)
        if not os.path.isfile(path):
            raise SystemExit(
                f"pairdbg: -b {spec}: no such file {path}" + (f" (LINE alone means {program})" if program else "")
            )
        out.append({"file": path, "line": int(line)})
    return out


def _demo_launch(breaks: list[str] | None = None) -> dict:
    """The demo stopped at the first line of main(), or at the person's -b lines (LINE alone: the demo's)."""
    from pairdbg.backends.samples import DEMO

    if breaks:
        return {"program": DEMO, "breakpoints": _breakpoints(breaks, DEMO)}
    with open(DEMO, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    first_body_line = lines.index("def main():") + 2  # 1-based line after `def main():`
    return {"program": DEMO, "breakpoints": [{"file": DEMO, "line": first_body_line}]}


def _tests_launch(args: argparse.Namespace) -> dict:
    """`pairdbg test [ARGS...]`: the debug_tests action on the project in the current folder."""
    launch: dict = {"action": "debug_tests", "args": list(args.args), "cwd": os.getcwd()}
    if args.python:
        launch["executable_path"] = args.python
    if args.breaks:
        raise SystemExit(
            "pairdbg test: -b is not taken here; the run stops where a test fails, and breakpoints set then in the "
            "TUI hit in the tests that run after it"
        )
    return launch


def _setup_logging(headless: bool) -> None:
    """Logs never go to the TUI's screen or the stdio protocol pipe; the file is private to the user and never holds
    a token. Headless, warnings also go to stderr (an agent host's log), but not the ones about a token: with the
    token hidden they say nothing a host can use."""
    from pairdbg.mcp_bridge.state import state_dir

    folder = state_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / "pairdbg.log"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.close(fd)
    root = logging.getLogger()
    root.setLevel(logging.WARNING)
    handlers: list[logging.Handler] = [logging.FileHandler(path)]
    if headless:
        handlers.append(logging.StreamHandler(sys.stderr))
    for handler in handlers:
        handler.setLevel(logging.WARNING)  # a logger set to INFO (the RN listener's LOG_LEVEL) stays out too
        handler.setFormatter(logging.Formatter(logging.BASIC_FORMAT))
        handler.addFilter(hide_tokens)
        root.addHandler(handler)
    if headless:
        handlers[1].addFilter(without_tokens)  # after hide_tokens, which marks the record


# "... token for this run: 3f9a…", "Authorization: Bearer …", "token=…": the secret is the word after these.
TOKEN_TEXT = re.compile(r"(?i)(\btoken\b[^:=\n]{0,40}[:=]\s*|\bbearer\s+)([A-Za-z0-9_\-.~+/]{8,}=*)")


def hide_tokens(record: logging.LogRecord) -> bool:
    """A log filter: tokens never reach pairdbg.log (a file that outlives the run and gets pasted into issues)."""
    text = record.getMessage()
    hidden = TOKEN_TEXT.sub(r"\1<hidden>", text)
    if hidden != text:
        record.msg, record.args = hidden, ()
        record.had_token = True
    return True


def without_tokens(record: logging.LogRecord) -> bool:
    """A log filter for stderr: drops a record that named a token (hide_tokens, run first, marked it)."""
    return not getattr(record, "had_token", False)


def mcp_config() -> str:
    from pairdbg.mcp_bridge.http import DEFAULT_PORT, read_endpoint

    exe = shutil.which("pairdbg") or f"{sys.executable} -m pairdbg"
    command, *rest = exe.split()
    stdio = {"mcpServers": {"pairdbg": {"command": command, "args": [*rest, "--mcp"]}}}
    join = {"mcpServers": {"pairdbg": {"command": command, "args": [*rest, "--mcp", "--join"]}}}
    out = [
        "# Headless (the agent starts its own pairdbg over stdio):",
        json.dumps(stdio, indent=2),
        "",
        "# Share the TUI's live session, stdio-only agent hosts (relays into the running TUI):",
        json.dumps(join, indent=2),
        "",
    ]
    info = read_endpoint()
    if info:
        http = {
            "mcpServers": {
                "pairdbg": {"type": "http", "url": info["url"], "headers": {"Authorization": f"Bearer {info['token']}"}}
            }
        }
        who = "the TUI's live session" if info.get("kind", "tui") == "tui" else "a headless pairdbg (--mcp --http)"
        out += [
            f"# Share {who} over HTTP (this token is valid while it runs, pid {info['pid']}):",
            json.dumps(http, indent=2),
        ]
    else:
        out += [
            f"# No pairdbg TUI is running. Start `pairdbg`: it serves MCP at http://127.0.0.1:{DEFAULT_PORT}/mcp",
            "# with a fresh bearer token each run; run `pairdbg mcp-config` again then for the HTTP entry.",
        ]
    return "\n".join(out)


def install(names: list[str]) -> int:
    """`pairdbg install bun|js-debug`: fetch pinned npm packages into pairdbg's user data folder, where the
    debugger finds them from then on (no environment variable to set)."""
    from pairdbg.backends import runtimes

    if not names or any(name not in runtimes.ON_DEMAND for name in names):
        print(f"pairdbg install: name one or more of: {', '.join(runtimes.ON_DEMAND)}", file=sys.stderr)
        return 2
    for name in names:
        print(f"installing {runtimes.ON_DEMAND[name]} into {runtimes.user_tools()} …", file=sys.stderr, flush=True)
        try:
            where = runtimes.install(name)
        except (runtimes.TargetMissing, RuntimeError) as exc:
            print(f"pairdbg install: {exc}", file=sys.stderr)
            return 1
        print(f"{name}: {where}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    if args.program == "mcp-config":
        print(mcp_config())
        return 0
    if args.program == "install":
        return install(args.args)
    if args.profile is not None:  # a seed server's tools, headless or on the TUI's endpoint (mcp_bridge/profiles)
        from pairdbg.mcp_bridge.profiles import transport

        if args.no_http and not args.mcp:
            print("pairdbg: --profile serves MCP; it cannot go with --no-http", file=sys.stderr)
            return 2

        try:
            args.http, args.port = transport(args.profile, args.http, args.port, os.environ)
        except ValueError as exc:
            print(f"pairdbg: {exc}", file=sys.stderr)
            return 2
    if args.breaks and (args.mcp or args.config or not args.program):
        print(
            "pairdbg: -b sets breakpoints in a program the TUI starts: "
            "pairdbg -b FILE:LINE PROGRAM, or pairdbg -b LINE demo",
            file=sys.stderr,
        )
        return 2
    if args.mcp:
        _setup_logging(headless=True)
        return _run_headless(args)
    launch = None
    if args.config:
        from pairdbg.backends import launch_json
        from pairdbg.backends.errors import DebugError

        workspace = os.path.abspath(args.workspace or os.getcwd())
        try:  # refuse a wrong name or a broken file here, before a window opens
            launch_json.to_action(launch_json.find(workspace, args.config), workspace)
        except DebugError as exc:
            print(f"pairdbg: {exc.text()}", file=sys.stderr)
            return 2
        launch = {"action": "start_from_launch_config", "name": args.config, "workspace": workspace}
    elif args.program == "demo":
        launch = _demo_launch(args.breaks)
    elif args.program == "test":
        launch = _tests_launch(args)
    elif args.program:
        program = os.path.abspath(args.program)
        if not os.path.isfile(program):
            print(f"pairdbg: no such program: {args.program}", file=sys.stderr)
            return 2
        bps = _breakpoints(args.breaks, program)
        launch = {"program": program, "args": args.args, "breakpoints": bps, "stop_on_entry": not bps}
        from pairdbg.backends.factory import language_of

        language = language_of(program)
        if language != "python":
            launch["language"] = language
            if args.runtime:
                launch["runtime"] = args.runtime
        elif args.python:
            launch["executable_path"] = args.python
    _setup_logging(headless=False)
    return _run_tui(args, launch)


def settings_of(args: argparse.Namespace):
    """The settings: the settings file, the environment over it, the command line's values on top."""
    import tomllib

    from pydantic import ValidationError

    from pairdbg.settings import Settings, settings_file, unknown_in_file

    overrides: dict = {}
    mcp = {k: v for k, v in (("host", args.host), ("port", args.port), ("tools", args.tools)) if v is not None}
    if mcp:
        overrides["mcp"] = mcp
    if args.bridge_eval:
        overrides["bridge"] = {"allow_eval": True}
    try:
        settings = Settings(**overrides)
    except tomllib.TOMLDecodeError as exc:
        raise SystemExit(f"pairdbg: the settings file {settings_file()} is not valid TOML: {exc}") from None
    except ValidationError as exc:  # a listener's bad value fails only its start; anything else stops here
        problems = "; ".join(
            f"PAIRDBG_{'__'.join(map(str, e['loc'])).upper()} (or [{e['loc'][0]}] {'.'.join(map(str, e['loc'][1:]))} "
            f"in {settings_file()}): {e['msg']}"
            for e in exc.errors()
        )
        raise SystemExit(f"pairdbg: invalid setting: {problems}") from None
    unknown = unknown_in_file()
    if unknown:
        print(f"pairdbg: {settings_file()}: no such setting: {', '.join(unknown)} (ignored)", file=sys.stderr)
    return settings


def _run_headless(args: argparse.Namespace) -> int:
    """MCP without the TUI: the join relay, Streamable HTTP, or stdio."""
    if not (args.join or args.http):
        # No cyclic collections while the SDK and pairdbg load (~45 ms of the way to the initialize answer): the
        # one full collection comes when memory settles, after that answer, and turns them back on.
        gc.disable()
    from pairdbg.runtime import LISTENERS_AT_THE_LATEST_S, Runtime, exit_on_end_signals

    if args.join:
        from pairdbg.mcp_bridge.join import serve_join

        if args.tools:
            print("pairdbg --mcp --join: --tools is ignored; the joined pairdbg's own --tools decides", file=sys.stderr)

        async def relay() -> int:
            exit_on_end_signals()  # no Hub here: the TUI being joined owns the sessions
            return await serve_join()

        with contextlib.suppress(KeyboardInterrupt, asyncio.CancelledError):
            return asyncio.run(relay())
        return 0
    runtime = Runtime(settings_of(args))

    def ready(serve: Callable[[], Awaitable[None]], debuggee_later: bool = False) -> Callable[[], Awaitable[None]]:
        """`serve` with debugpy's adapter and a debuggee kept ready beside it (pairdbg's own tools; a seed's debug
        other targets)."""

        async def serving() -> None:
            if args.profile is None:
                runtime.keep_adapter_ready(debuggee_later)
                await asyncio.sleep(0)  # its process starts on this turn of the loop, before `serve` loads the SDK
            await serve()

        return serving

    if args.http:
        from pairdbg.mcp_bridge.http import serve_http

        try:
            http = runtime.http_service(args.profile)
            http.kind = "http"  # its own endpoint entry; readers still prefer a running TUI's
            with contextlib.suppress(KeyboardInterrupt, asyncio.CancelledError):
                asyncio.run(runtime.run(ready(lambda: serve_http(http))))
        except OSError as exc:
            print(f"pairdbg: cannot serve MCP over HTTP: {exc}", file=sys.stderr)
            return 2
        return 0

    async def stdio() -> None:
        # The MCP SDK (~0.3 s of imports) loads here, once debugpy's adapter has started (`ready`): the adapter
        # boots meanwhile, on another processor, and the first call right after the initialize answer finds it up.
        # (The runtime's 1 s timers below now count from before this import; the answer still comes well before.)
        from pairdbg.mcp_bridge.stdio import serve_stdio

        await serve_stdio(
            runtime.hub,
            runtime.registry,
            tools=runtime.settings.mcp.tools,
            profile=args.profile,
            open_listeners=runtime.open_listeners,
            output_schemas=runtime.settings.mcp.output_schemas,
        )

    with contextlib.suppress(KeyboardInterrupt, asyncio.CancelledError):
        asyncio.run(
            runtime.run(
                ready(stdio, debuggee_later=True),  # with the listeners, after the initialize answer
                listeners_later=True,
                # its full collection (~30 ms) after the initialize answer, not on the way to it
                settle_after_s=LISTENERS_AT_THE_LATEST_S,
            )
        )
    return 0


def _run_tui(args: argparse.Namespace, launch: dict | None) -> int:
    from pairdbg.runtime import Runtime
    from pairdbg.settings import remember, settings_file
    from pairdbg.tui import run_tui, theme_names

    if args.theme:  # before anything binds a port or starts a program (this loads Textual first)
        from pairdbg import themes

        try:
            themes.check_name(args.theme, theme_names())
        except themes.UnknownThemeError as exc:
            print(f"pairdbg: {exc}", file=sys.stderr)
            return 2
    settings = settings_of(args)
    runtime = Runtime(settings)
    http = None
    if not args.no_http:
        try:
            http = runtime.http_service(args.profile)
        except OSError as exc:
            print(f"pairdbg: cannot serve MCP over HTTP: {exc}", file=sys.stderr)
            return 2
    # Textual loads while the launch starts (run_tui); a remembered theme is checked then, and a gone one is said.
    saved = None if args.theme else settings.tui.theme
    opened, chosen = run_tui(
        runtime, http, launch=launch, theme=args.theme, saved_theme=saved, saved_where=str(settings_file())
    )
    if chosen != opened:  # the person switched: the next start opens with it
        try:
            remember("tui", "theme", chosen)
        except (OSError, ValueError) as exc:
            print(f"pairdbg: could not remember the theme in {settings_file()}: {exc}", file=sys.stderr)
    end_without_stray_threads()
    return 0


def end_without_stray_threads(grace_s: float = 0.5) -> None:
    """Python's exit joins every non-daemon thread. When the terminal went away while the app quit, Textual can be
    left with an input thread looping on the dead terminal (seen: one started again after its driver stopped), and
    the process would never end. The sessions are closed by now: such a thread is given `grace_s`, then pairdbg
    ends without it."""
    import threading
    import time

    deadline = time.monotonic() + grace_s
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join(max(0.0, deadline - time.monotonic()))
    main = threading.main_thread()
    stray = [t.name for t in threading.enumerate() if t is not main and not t.daemon and t.is_alive()]
    if stray:
        logging.getLogger(__name__).warning("ending with threads still running: %s", ", ".join(stray))
        logging.shutdown()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
