"""The backend factory: which backend debugs a language, runtime or target, and what is installed here for each."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from .base import Backend
from .errors import DebugError, ErrorCode

#: Languages with a built-in backend; others come from DAP adapter profiles (dap/profiles/*.json).
BUILT_IN = ("python", "javascript", "typescript")
JS_EXTENSIONS = (".js", ".mjs", ".cjs", ".jsx")
TS_EXTENSIONS = (".ts", ".mts", ".cts", ".tsx")

#: Builds the backend; awaited only after the Hub has checked capacity, since it may spawn a runtime.
Make = Callable[[], Awaitable[Backend]]


def language_of(program: str) -> str:
    """The language a program file is in, by its extension (Python unless it is JavaScript or TypeScript)."""
    ext = os.path.splitext(program)[1].lower()
    if ext in JS_EXTENSIONS:
        return "javascript"
    if ext in TS_EXTENSIONS:
        return "typescript"
    return "python"


@dataclass
class LaunchSpec:
    """What to launch; `language` None means "by the program's extension"."""

    program: str
    language: str | None = None
    runtime: str | None = None  # node | bun (JavaScript/TypeScript)
    backend: str | None = None  # inspector | dap (JavaScript)
    args: list[str] = field(default_factory=list)
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    executable_path: str | None = None  # Python only
    module: bool = False  # Python only: program is a module name
    stop_on_entry: bool = False
    just_my_code: bool = True  # Python only: steps skip library code
    test_runner: str | None = None  # "pytest", "unittest" or "node --test" when the program is that runner (testrun.py)
    test_files: list[str] = field(default_factory=list)  # node --test: further test files run with the program


def _conflict(what: str, language: str, hint: str) -> DebugError:
    return DebugError(ErrorCode.INVALID_PARAMETERS, f"{what} contradicts language={language!r}", hint=hint)


def _known_languages() -> list[str]:
    from .dap.profile import load_profiles

    return sorted({*BUILT_IN, *(lang for prof in load_profiles().values() for lang in prof.languages)})


def launcher(spec: LaunchSpec) -> tuple[str, str, Make]:
    """Check `spec` and choose its backend: (language, absolute program, a coroutine function that builds it).

    Everything that can be refused without starting anything is refused here, before the Hub checks capacity.
    """
    language = spec.language or language_of(spec.program)
    profile = None
    if language not in BUILT_IN:  # checked first: the answer names what exists
        from .dap.profile import profile_for

        profile = profile_for(language)
        if profile is None:
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                f"no debugger for language {language!r}",
                hint=f"languages: {', '.join(_known_languages())}; or add an adapter profile (see README)",
            )
    if language not in ("javascript", "typescript"):
        if spec.runtime is not None:
            raise _conflict(
                f"runtime={spec.runtime!r}", language, "runtime is for JavaScript/TypeScript; pass language too"
            )
        if spec.backend == "inspector":
            raise _conflict("backend='inspector'", language, f"{language} runs on a DAP adapter: leave backend out")
    program = spec.program
    if not spec.module:
        program = os.path.abspath(os.path.expanduser(program))
        if not os.path.isfile(program):
            raise DebugError(
                ErrorCode.PATH_NOT_FOUND,
                f"program not found: {program}",
                hint="pass the path of an existing file (relative paths are from pairdbg's cwd)",
            )
    if spec.cwd and not os.path.isdir(spec.cwd):
        raise DebugError(ErrorCode.PATH_NOT_FOUND, f"cwd is not a directory: {spec.cwd}")
    make: Make
    if profile is not None:
        from .dap.profile import ProfileLaunch

        backend = ProfileLaunch(profile, language, program, spec.args, spec.cwd, spec.env, spec.stop_on_entry)
        make = _ready(backend)
    elif language == "python":
        from .dap.python import PythonLaunch, choose_python

        python, chosen_by = choose_python(spec.executable_path, program, module=spec.module, cwd=spec.cwd)
        backend = PythonLaunch(
            program,
            spec.args,
            spec.cwd,
            spec.env,
            python,
            spec.stop_on_entry,
            just_my_code=spec.just_my_code,
            module=spec.module,
            test_runner=spec.test_runner if spec.test_runner in ("pytest", "unittest") else None,
            python_chosen_by=chosen_by,
        )
        make = _ready(backend)
    elif spec.backend == "dap":
        if language != "javascript" or (spec.runtime or "node") != "node":
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                "backend='dap' (js-debug) debugs JavaScript on Node only",
                hint="use the default inspector backend for TypeScript or Bun",
            )
        from .dap.jsdebug import JsDebugLaunch

        make = _ready(JsDebugLaunch(program, spec.args, spec.cwd, spec.env, spec.stop_on_entry))
    else:
        runtime = spec.runtime or ("bun" if language == "typescript" else "node")
        if language == "typescript" and runtime == "node":
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                "Node cannot run TypeScript files directly",
                hint="use runtime='bun', or compile to JavaScript with source maps and debug that",
            )

        async def make() -> Backend:
            from .inspector.launch import launch_js

            tests = spec.test_files if spec.test_runner == "node --test" and runtime == "node" else None
            return await launch_js(
                program, runtime, language, spec.args, spec.cwd, spec.env, spec.stop_on_entry, test_files=tests
            )

    return language, program, make


def local_roots(mappings: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Path mappings with each local root made absolute and checked: it must be a folder here."""
    checked = []
    for local, remote in mappings:
        folder = os.path.abspath(os.path.expanduser(local))
        if not os.path.isdir(folder):
            raise DebugError(
                ErrorCode.PATH_NOT_FOUND,
                f"path mapping localRoot {local[:200]!r} is not a folder here",
                hint="localRoot is the folder on this machine that holds the program's files",
            )
        if not remote.strip():
            raise DebugError(ErrorCode.INVALID_PARAMETERS, "path mapping remoteRoot is empty")
        checked.append((folder, remote))
    return checked


def attacher(
    target: str,
    language: str,
    backend: str | None,
    allowed_hosts: list[str],
    just_my_code: bool = True,
    path_mappings: list[tuple[str, str]] | None = None,
) -> Make:
    """A running program at host:port (debugpy, or a JavaScript inspector) or an inspector ws:// URL.
    `path_mappings`: (local root, remote root) pairs when the program runs its files from another root (a container,
    another host); debugpy takes several, a JavaScript target one."""
    mappings = local_roots(path_mappings or [])
    if len(mappings) > 1 and language != "python":
        raise DebugError(
            ErrorCode.INVALID_PARAMETERS,
            f"a JavaScript target takes one path mapping, not {len(mappings)}",
            hint="give the common root of the program's files: [{localRoot, remoteRoot}]",
        )
    if language == "python" and not target.startswith(("ws://", "http://")):
        if backend == "inspector":
            raise _conflict("backend='inspector'", language, "Python attaches to debugpy: leave backend out")
        host, sep, port_text = target.rpartition(":")
        if not sep or not port_text.isdigit():
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS, f"target {target!r} is not host:port", hint="e.g. 127.0.0.1:5678"
            )
        from .dap.python import PythonAttach

        return _ready(
            PythonAttach(
                host or "127.0.0.1",
                int(port_text),
                just_my_code,
                allowed_hosts=allowed_hosts,
                path_mappings=mappings,
            )
        )
    roots = mappings[0] if mappings else None
    if backend == "dap":
        from .dap.jsdebug import JsDebugAttach

        return _ready(JsDebugAttach(target, allowed_hosts, roots))

    async def make() -> Backend:
        from .inspector.launch import attach_js
        from .inspector.scripts import Roots

        mapped = Roots(*roots) if roots is not None else None
        return await attach_js(target, "javascript" if language == "python" else language, allowed_hosts, mapped)

    return make


def connector(url: str, allowed_hosts: list[str]) -> Make:
    """An inspector WebSocket URL (Bun's banner, Node, a Chromium or WebKitGTK page)."""

    async def make() -> Backend:
        from .inspector.launch import connect_ws

        return await connect_ws(url, allowed_hosts)

    return make


def _ready(backend: Backend) -> Make:
    """For backends whose constructor starts nothing: the process is spawned by `Backend.start`."""

    async def make() -> Backend:
        return backend

    return make


def installed() -> list[dict]:
    """Each language and backend pairdbg offers, whether it is ready here (`installed`), what was found or why not
    (`detail`), and for a missing one how to get it (`install`)."""
    from .dap.profile import load_profiles
    from .dap.python import debugpy_available
    from .runtimes import find_bun, find_chromium, find_js_debug, find_minibrowser, find_node

    def row(language: str, backend: str, status: tuple[bool, str, str | None]) -> dict:
        ready, detail, install = status
        return {"language": language, "backend": backend, "installed": ready, "detail": detail, "install": install}

    ok, why = debugpy_available()
    python = (ok, why, None if ok else why.split(": run ", 1)[-1].strip("`"))
    node = _runtime_status(find_node)
    bun = _runtime_status(find_bun)
    js_debug = _runtime_status(lambda: (find_node(), find_js_debug())[1])
    langs = [
        row("python", "dap (debugpy)", python),
        row("javascript", "inspector (node)", node),
        row("javascript", "dap (js-debug on node)", js_debug),
        row("javascript", "inspector (bun)", bun),
        row("typescript", "inspector (bun)", bun),
    ]
    for name, find in (("chromium page", find_chromium), ("webkitgtk page", find_minibrowser)):
        langs.append(row("javascript", f"inspector attach ({name})", _runtime_status(find)))
    try:
        profiles = list(load_profiles().values())
    except DebugError as exc:  # a broken user profile: say so, keep the rest of the answer
        langs.append(row("?", "dap (adapter profiles)", (False, exc.message, exc.hint)))
        profiles = []
    for profile in profiles:
        try:
            status: tuple[bool, str, str | None] = (True, profile.executable(), None)
        except DebugError as exc:
            status = (False, f"not installed: {exc.message}", profile.install_hint or exc.hint)
        langs.extend(row(language, f"dap ({profile.name})", status) for language in profile.languages)
    return langs


def _runtime_status(find: Callable[[], str]) -> tuple[bool, str, str | None]:
    from .runtimes import TargetMissing

    try:
        return True, find(), None
    except TargetMissing as exc:
        return False, f"not installed: {exc.how_to_install}", exc.how_to_install
