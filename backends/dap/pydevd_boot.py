"""Runs debugpy's debuggee side with TCP_NODELAY on its connection to the adapter (a script, not imported).

pydevd writes each message's header and body with two separate sendall() calls. With Nagle's algorithm on, the
body waits for the peer's delayed ACK of the header, which costs ~40 ms per message on Linux: every request
pairdbg makes while the program is paused paid it. The debugpy launcher starts the program as
`<python> <pythonArgs...> -X frozen_modules=off <debugpy dir> --connect ...`; pairdbg passes this file in
pythonArgs, so this script runs first, turns Nagle off on pydevd's client socket and then hands over to debugpy.
It also skips debugpy's environment description where nothing logs it (pairdbg_quietlog.py: ~400 ms, traced, before
the program's first line). It must run on any Python the user's program needs, so it uses nothing but the standard
library and debugpy.

Run as `<python> -X frozen_modules=off pydevd_boot.py --spare <fd> <debugpy dir>` it is a spare program
(backends/dap/spare.py): it does everything above that needs neither the program nor its environment (debugpy's and
pydevd's imports, ~0.1 s), then reads one JSON message on pipe `fd`, `{"command", "cwd", "env"}`: the command line
pairdbg would have started, its folder and environment. It moves there and takes that environment (pairdbg sends a
spare only a launch whose environment is the spare's own but for PAIRDBG_TEST_HOOK, read below) and goes on as if
started with that command line; if what the interpreter read at its start has changed since (a .pth file added by an
editable install, the interpreter replaced), it starts that command line afresh in its place (exec). The pipe
closing with nothing on it (pairdbg gone) ends it.
"""

import json
import os
import socket
import sys


def main() -> None:
    spare = sys.argv[1:2] == ["--spare"]
    go_fd, started_with = (int(sys.argv[2]), interpreter_state()) if spare else (-1, None)
    args = without_interpreter_options(sys.argv[3:] if spare else sys.argv[1:])
    debugpy_dir = args[0]
    sys.argv = args
    import pairdbg_quietlog  # (from this script's folder, first on sys.path until the next lines)

    # Python put this script's folder first on sys.path; the program must not see it (nor debugpy's folder),
    # or `import client` / `import common` would find pairdbg's or debugpy's modules instead of the user's.
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]
    sys.path.insert(0, os.path.dirname(debugpy_dir))
    import debugpy._vendored.force_pydevd  # noqa: F401  (sets pydevd up exactly as debugpy's CLI would)
    import pydevd

    pairdbg_quietlog.skip_unlogged_descriptions()
    hide_from_pydevd("pairdbg_quietlog.py")  # it runs traced ("Pre-launch environment"): never a stop or a step
    original = pydevd.start_client

    def start_client(host, port):
        sock = original(host, port)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass
        return sock

    pydevd.start_client = start_client
    skip_start_wait(pydevd)
    include_files_with_breakpoints()
    del sys.path[0]
    from debugpy.server import cli  # what debugpy's own __main__ runs, without it touching sys.path

    if spare:
        become_program(go_fd, debugpy_dir, started_with)
    load_test_hook()
    cli.main()


def without_interpreter_options(args: list) -> list:
    """`args` past the interpreter options the launcher placed after this script (given to the interpreter
    already)."""
    while args[:1] == ["-X"]:
        args = args[2:]
    return args


def become_program(go_fd: int, debugpy_dir: str, started_with: list) -> None:
    """A spare's wait for its program: its command line, folder and environment, sent on pipe `go_fd`."""
    chunks = []
    while True:
        chunk = os.read(go_fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(go_fd)
    if not chunks:
        sys.exit(0)  # nobody needs this spare any more
    go = json.loads(b"".join(chunks))
    command = list(go["command"])
    args = without_interpreter_options(command[4:])  # after `<python> -X frozen_modules=off <this file>`
    if not args or os.path.abspath(args[0]) != os.path.abspath(debugpy_dir):
        sys.stderr.write("pairdbg: a spare program was sent another debugpy's command line\n")
        sys.exit(2)
    os.chdir(go["cwd"])
    if interpreter_state() != started_with:  # a start now would find another interpreter: make that start
        try:
            os.execve(command[0], command, go["env"])
        except OSError as exc:
            sys.stderr.write(f"pairdbg: cannot start {command[0]}: {exc}\n")
            os._exit(127)
    os.environ.clear()
    os.environ.update(go["env"])
    if hasattr(sys, "orig_argv"):  # (3.10+) as if started with the whole command line
        sys.orig_argv = command
    sys.argv = args


def interpreter_state() -> list:
    """What this interpreter read as it started and a start now would read again: the interpreter, its
    pyvenv.cfg, its site-packages folders, their .pth files and sitecustomize (times, sizes, inodes)."""
    import site

    paths = [sys.executable, os.path.join(sys.prefix, "pyvenv.cfg")]
    folders = list(getattr(site, "getsitepackages", list)())
    if getattr(site, "ENABLE_USER_SITE", False):
        folders.append(site.getusersitepackages())
    for folder in folders:
        paths.append(folder)
        try:
            paths += [os.path.join(folder, name) for name in sorted(os.listdir(folder)) if name.endswith(".pth")]
        except OSError:
            pass
    for name in ("sitecustomize", "usercustomize"):
        path = getattr(sys.modules.get(name), "__file__", None)
        if path:
            paths.append(path)
    state = []
    for path in paths:
        try:
            st = os.stat(path)
            state.append((path, st.st_mtime_ns, st.st_size, st.st_ino))
        except OSError:
            state.append((path, None))
    return state


def hide_from_pydevd(name: str) -> None:
    """pydevd treats a file of this name as its own: never traced, so never the place of a stop or a step."""
    try:
        from _pydevd_bundle import pydevd_dont_trace_files as files

        files.DONT_TRACE[name] = files.PYDEV_FILE
    except (ImportError, AttributeError):
        pass


def skip_start_wait(pydevd) -> None:
    """pydevd sleeps 100 ms once its reader and writer threads are started ("to give them time to start"), on the
    program's main thread, before its first line. They need no head start (a message waits in the socket or the
    writer's queue until they run), so that one sleep is skipped; every other sleep in pydevd is left alone."""
    import threading
    import time

    starting = threading.local()
    initialize_network = pydevd.PyDB.initialize_network

    class Clock:
        """pydevd's `time` module, except for sleeps inside PyDB.initialize_network on this thread."""

        def __getattr__(self, name):
            return getattr(time, name)

        def sleep(self, seconds):
            if not getattr(starting, "network", False):
                time.sleep(seconds)

    def without_wait(self, *args, **kwargs):
        starting.network = True
        try:
            return initialize_network(self, *args, **kwargs)
        finally:
            starting.network = False

    if getattr(pydevd, "time", None) is time:  # another pydevd: leave it as it is
        pydevd.time = Clock()
        pydevd.PyDB.initialize_network = without_wait


def load_test_hook() -> None:
    """A test run (PAIRDBG_TEST_HOOK names the runner) gets the runner's failure hook, testhook.py beside this file,
    as module `pairdbg_testhook` (pytest loads it as a plugin by that name). The variable is not passed on: a child
    process that runs tests is not this run."""
    runner = os.environ.pop("PAIRDBG_TEST_HOOK", None)
    if not runner:
        return
    import importlib.util

    try:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testhook.py")
        spec = importlib.util.spec_from_file_location("pairdbg_testhook", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        module.install(runner)
    except Exception as exc:  # the tests still run; they just do not stop where they fail
        sys.modules.pop("pairdbg_testhook", None)
        sys.stderr.write(f"pairdbg: the {runner} failure hook could not be loaded ({exc!r}); tests run without it\n")


def include_files_with_breakpoints() -> None:
    """justMyCode keeps library files (an installed package, the stdlib) out of tracing, and debugpy then reports a
    breakpoint set in one as "excluded by filters": it never hits. A breakpoint someone sets on purpose must hit, so
    its file gets an include rule the moment the breakpoint arrives; stepping still skips other library code.
    Best effort: on a pydevd without these internals the breakpoint stays reported as excluded."""
    try:
        import pydevd_file_utils
        from _pydevd_bundle.pydevd_api import PyDevdAPI
        from _pydevd_bundle.pydevd_filtering import ExcludeFilter
    except ImportError:
        return
    original = PyDevdAPI.add_breakpoint

    def add_breakpoint(self, py_db, original_filename, *args, **kwargs):
        try:
            path = pydevd_file_utils.absolute_path(pydevd_file_utils.map_file_to_server(original_filename))
            if py_db.is_files_filter_enabled and py_db.apply_files_filter(self._DummyFrame(path), path, False):
                rules = py_db._files_filtering._exclude_filters
                py_db.set_exclude_filters([ExcludeFilter(path, False, True), *rules])
        except Exception:
            pass
        return original(self, py_db, original_filename, *args, **kwargs)

    PyDevdAPI.add_breakpoint = add_breakpoint


main()
