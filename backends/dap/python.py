"""The Python profile of the DAP backend, on debugpy: launch a program, or attach to `python -m debugpy --listen`."""

from __future__ import annotations

import ast
import json
import asyncio
import contextlib
import importlib.util
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from ..hosts import check_host, resolve_one
from ..tcp import no_delay, tcp_socket
from ..errors import DebugError, ErrorCode
from ..base import (
    DataBreakpointSpec,
    DataWatch,
    BreakpointState,
    ExceptionDetails,
    FunctionBreakpointSpec,
    FunctionLocation,
    LineBreakpointSpec,
    ProgramRuntime,
    RawFrame,
)
from .backend import MAX_LINE, DapBackend
from .datawatch import EVENT as DATA_CHANGE
from .datawatch import DataWatches
from ..models import DataChange
from ..process import run_briefly
from .debugpy_launcher import DebugpyLauncher, launcher_command
from .spare import SpareAdapter, SpareProgram

BOOT = str(Path(__file__).with_name("pydevd_boot.py"))
FUNCTION_FINDER = Path(__file__).with_name("pyfunction.py")  # where a function breakpoint's function is
ADAPTER_BOOT = str(Path(__file__).with_name("adapter_boot.py"))  # debugpy.adapter without the ACK stall
#: debugpy's adapter started ahead of the first Python session, when a front end knows one is coming.
SPARE_ADAPTER = SpareAdapter([sys.executable, ADAPTER_BOOT], MAX_LINE)
SPARE_PROGRAM = SpareProgram(BOOT)


def program_env(env: dict[str, str]) -> dict[str, str]:
    """What a launch adds to pairdbg's environment for its program: `env` (the user's), output unbuffered."""
    return {"PYTHONUNBUFFERED": "1", **env}


def start_spare_program(python: str, cwd: str, keep_ready: bool = False) -> None:
    """Start a debuggee for `python` in `cwd` ahead of a launch with no environment of its own (on the running
    loop); `keep_ready`: another after each launch (a server)."""
    env = {**os.environ, **program_env({})}
    (SPARE_PROGRAM.keep_ready if keep_ready else SPARE_PROGRAM.start)(python, cwd, env)


TEST_HOOK = str(Path(__file__).with_name("testhook.py"))  # a test run's failure hook, loaded by BOOT


def debugpy_available() -> tuple[bool, str]:
    """Whether pairdbg's own interpreter can run the debugpy adapter, and why not."""
    if importlib.util.find_spec("debugpy") is None:
        return False, f"debugpy is not installed for {sys.executable}: run `{sys.executable} -m pip install debugpy`"
    return True, "debugpy adapter available"


def resolve_python(executable: str | None) -> str:
    """The interpreter the user's program runs on: given path or name, else the one running pairdbg."""
    if not executable:
        return sys.executable
    found = shutil.which(executable) if os.sep not in executable else executable
    if found:
        found = os.path.abspath(found)  # a relative path is the caller's folder's, not the program's
    if not found or not os.path.isfile(found) or not os.access(found, os.X_OK):
        raise DebugError(
            ErrorCode.INVALID_PARAMETERS,
            f"Python interpreter {executable!r} was not found or is not executable",
            hint="pass executable_path as the full path of the python your program needs (e.g. .venv/bin/python)",
        )
    return found


# A folder holding one of these is a project's root: the search for its .venv stops there.
PROJECT_MARKERS = (".git", "pyproject.toml", "setup.py", "setup.cfg", ".hg")


def venv_python(folder: str) -> str | None:
    """The interpreter of the virtual environment in `folder`, if there is one."""
    for name in ("bin/python", "bin/python3", "Scripts/python.exe"):
        path = os.path.join(folder, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def project_venv(start: str) -> str | None:
    """A `.venv` in `start` or a folder above it, up to the project's root (or the home folder)."""
    home = os.path.expanduser("~")
    folder = os.path.abspath(start)
    while True:
        found = venv_python(os.path.join(folder, ".venv"))
        if found:
            return found
        parent = os.path.dirname(folder)
        if parent == folder or folder == home or any(os.path.exists(os.path.join(folder, m)) for m in PROJECT_MARKERS):
            return None
        folder = parent


def choose_python(
    executable: str | None, program: str, *, module: bool = False, cwd: str | None = None, env=None
) -> tuple[str, str]:
    """The interpreter a user expects their program to run on, and why it was chosen: the one they named, else
    the active virtualenv ($VIRTUAL_ENV), else a .venv in the program's project, else python3 on PATH (pairdbg's
    own interpreter only when there is none)."""
    env = os.environ if env is None else env
    if executable:
        return resolve_python(executable), "named"
    active = env.get("VIRTUAL_ENV")
    if active:
        found = venv_python(active)
        if found:
            return found, "the active virtualenv ($VIRTUAL_ENV)"
    start = (cwd or os.getcwd()) if module else os.path.dirname(os.path.abspath(program))
    found = project_venv(start)
    if found:
        return found, "the project's .venv"
    found = shutil.which("python3", path=env.get("PATH"))
    if found:
        return found, "python3 on PATH"
    return sys.executable, "pairdbg's own (no python3 on PATH)"


async def check_python(python: str) -> None:
    """Fail fast, with a clear message, when `python` is not a CPython that debugpy's launcher can run."""
    if python == sys.executable:
        return
    probe = "import sys, platform; print(platform.python_implementation(), *sys.version_info[:2])"
    try:
        _, out, _ = await run_briefly([python, "-c", probe], 10)
    except (OSError, TimeoutError):
        out = b""
    parts = out.decode(errors="replace").split()
    if len(parts) != 3 or parts[0] != "CPython" or (int(parts[1]), int(parts[2])) < (3, 8):
        found = " ".join(parts) or "no answer to `-c`"
        raise DebugError(
            ErrorCode.INVALID_PARAMETERS,
            f"{python} is not a CPython 3.8+ interpreter ({found})",
            hint="pass executable_path as the python your program needs; it does not need debugpy installed",
        )


# A local holding a class is a local: pydevd would move it under a "class variables" group, out of reach of
# get_local_variables and set_variable_value.
VARIABLE_PRESENTATION = {"class": "inline"}


def include_rules(*groups: list[str]) -> list[dict[str, Any]]:
    """debugpy `rules` that keep justMyCode from hiding files the person asked for: the program itself and every
    file a breakpoint was set in before the start (an installed library, the stdlib, or pairdbg's own demo when
    pairdbg is installed in site-packages). Without them such breakpoints are "excluded by filters" and never hit."""
    paths = dict.fromkeys(os.path.abspath(p) for group in groups for p in group)
    return [{"path": path, "include": True} for path in paths]


# The file of the Python code calling `{}` runs (a function, method, class's __init__ or callable's __call__); None
# for built-in (C) code, which no step can enter.
CALL_SOURCE = (
    "(lambda i, f: next((i.getsourcefile(g) or '?' for g in (f, getattr(f, '__init__', None), "
    "getattr(type(f), '__call__', None)) if i.isfunction(g) or i.ismethod(g)), None))(__import__('inspect'), {})"
)
DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")

# Run in a child process (no frame needed, it may be running): if justMyCode keeps the file out, an include rule for it,
# as pydevd_boot.py adds in the launched process when a breakpoint arrives (a spawned or subprocess child starts
# through debugpy's own bootstrap, without that hook). True: included now, False: not excluded, None: no filter.
INCLUDE_FILE = (
    "(lambda m, db, path: None if db is None or not db.is_files_filter_enabled else "
    "(db.apply_files_filter(m['_pydevd_bundle.pydevd_api'].PyDevdAPI._DummyFrame(path), path, False) and "
    "[db.set_exclude_filters([m['_pydevd_bundle.pydevd_filtering'].ExcludeFilter(path, False, True), "
    "*db._files_filtering._exclude_filters]), True][1]))"
    "(__import__('sys').modules, __import__('pydevd').get_global_debugger(), "
    "__import__('pydevd_file_utils').absolute_path(__import__('pydevd_file_utils').map_file_to_server({})))"
)

# Where the exception a stopped frame holds (pydevd puts it in the frame as __exception__) was raised: the innermost
# traceback frame's file, line and function, and whether justMyCode really keeps that file out (pydevd's own filter,
# asked in the program; None if pydevd cannot be asked). Decided there, so no local/remote path is compared.
# pydevd's own frames are skipped: at the recursion limit the exception is raised inside its tracer.
RAISE_SITE = (
    "(lambda db: (lambda f, n: (f.f_code.co_filename, n, f.f_code.co_name, bool(db.is_files_filter_enabled and "
    "db.apply_files_filter(f, f.f_code.co_filename, False)) if db is not None else None))"
    "(*[t for t in __import__('traceback').walk_tb(__exception__[2]) if not t[0].f_code.co_filename.endswith('.pyx') "
    "and (db is None or db.get_file_type(t[0]) is None)][-1]))"
    "(getattr(__import__('sys').modules.get('pydevd'), 'get_global_debugger', lambda: None)())"
)
# What a test run's hook (testhook.py) stopped for: runner, test id, phase, depth; None if it did not stop this one.
TEST_FAILURE = "getattr(__import__('sys').modules.get('pairdbg_testhook'), 'failing', None)"
# pydevd's description of an exception whose str() is empty (a bare MemoryError).
NO_DESCRIPTION = "exception: no description"


# Run in the stopped program: the stop's frames as pydevd keeps them (the same list its stackTrace filters), each as
# (frame id on the wire, function, file, line, kind, module); kind is "debugger" for pydevd's own frames, "library"
# for those justMyCode hides, else "shown". pydevd keeps every frame of the stop, so a hidden one's id works in
# scopes, variables and evaluate like a shown one's. At an exception, the frames it unwound on its way to the top
# frame (its traceback past that frame: where it was raised) come first, innermost first, as "unwound": pydevd is
# given them the way it takes a chained exception's frames, so they are read like the others; where that cannot be
# done they are left out (the stop's "Raised in" line still says where it was raised).
WHOLE_STACK = """
def walk(top):
    import sys
    import pydevd_file_utils
    from _pydevd_bundle._debug_adapter.pydevd_base_schema import BaseSchema
    db = sys.modules["pydevd"].get_global_debugger()
    manager = db.suspended_frames_manager
    top_id = BaseSchema._translate_id_from_dap(top)
    thread = manager.get_thread_id_for_variable_reference(top_id)
    frames = manager.get_frames_list(thread) if thread is not None else None
    if frames is None:
        return None

    def kind_of(f):
        path = pydevd_file_utils.get_abs_path_real_path_and_base_from_frame(f)
        if db.get_file_type(f, path) == db.PYDEV_FILE:
            return "debugger", path[0]
        if db.is_files_filter_enabled and db.apply_files_filter(f, path[0], False):
            return "library", path[0]
        return "shown", path[0]

    def entry(f, line, kind, path):
        name = f.f_globals.get("__name__")
        return (BaseSchema._translate_id_to_dap(id(f)), f.f_code.co_name, path, line, kind,
                name if isinstance(name, str) else "")

    out = [entry(f, frames.frame_id_to_lineno.get(id(f), f.f_lineno), *kind_of(f))
           for f in frames if f.f_code is not None][:1000]
    return unwound(manager, thread, top_id, kind_of, entry) + out


def unwound(manager, thread, top_id, kind_of, entry):
    try:
        tracker = manager._get_tracker_for_variable_reference(top_id)
        top = tracker.find_frame(thread, top_id)
        raised = top.f_locals.get("__exception__") if top is not None else None
        tb = raised[2] if isinstance(raised, tuple) and len(raised) == 3 else None
        past, seen = [], False
        while tb is not None and len(past) < 200:
            if seen:
                past.append((tb.tb_frame, tb.tb_lineno))
            seen = seen or tb.tb_frame is top
            tb = tb.tb_next
        from _pydevd_bundle.pydevd_suspended_frames import _FrameVariable
        out = []
        for f, line in reversed(past):
            kind, path = kind_of(f)
            if kind == "debugger":
                continue
            frame_id = id(f)
            if frame_id not in tracker._frame_id_to_frame:
                tracker._frame_id_to_frame[frame_id] = f
                _FrameVariable(tracker.py_db, f, tracker._register_variable)
                manager._variable_reference_to_frames_tracker[frame_id] = tracker
                tracker._thread_id_to_frame_ids.setdefault(thread, []).append(frame_id)
                tracker._frame_id_to_main_thread_id[frame_id] = thread
            out.append(entry(f, line, "unwound", path))
        return out
    except Exception:
        return []
"""
# JSON text, not the list itself: pydevd shows a long list's repr cut with "..." (a pytest run's 50+ frames).
WHOLE_STACK_EXPRESSION = "(lambda ns: (exec({source!r}, ns), __import__('json').dumps(ns['walk']({top})))[1])({{}})"


def frame_package(module: str, file: str) -> str:
    """What a library frame belongs to: its module's top-level package (jinja2), else its file's name (<template>)."""
    if module and module != "__main__":
        return module.split(".", 1)[0]
    return os.path.basename(file) or file


TRACKER = "multiprocessing resource tracker"


def process_kind(pid: int) -> str | None:
    """What a child process of this machine is, from its command line: a multiprocessing worker or resource
    tracker (both `python -c ...`), or the script a subprocess runs (pydevd's `--file`). None if unknown (a fork
    has its parent's command line)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            args = [a.decode(errors="replace") for a in fh.read().split(b"\0")]
    except OSError:
        return None
    line = " ".join(args)
    if "multiprocessing.resource_tracker" in line:
        return TRACKER
    if "multiprocessing.spawn" in line or "multiprocessing.forkserver" in line:
        return "multiprocessing worker"
    if "--file" in args[:-1]:
        return os.path.basename(args[args.index("--file") + 1])
    return None


class DebugpyChildren(DapBackend):
    """What every debugpy session shares: a further process of its program (a multiprocessing worker, fork or spawn,
    a `subprocess` Python) is announced by debugpy's adapter with a `debugpyAttach` event carrying the configuration
    to attach to it with. Until a client attaches, that process waits; so it becomes a session of its own at once, or,
    if that is impossible, the session says so in its output rather than leave a process hanging unexplained."""

    language = "python"
    adapter_id = "debugpy"
    allowed_hosts: list[str] = []
    just_my_code = True
    #: The program runs on this machine (launched, or a child of one): its pids are ours to look up in /proc.
    local = False

    def __init__(self) -> None:
        super().__init__()
        self._releases: set[asyncio.Future[None]] = set()  # children let go undebugged (TRACKER)
        self.data_watches = DataWatches(self.evaluate)

    def _on_event(self, event: str, body: dict[str, Any]) -> None:
        if event == "debugpyAttach":
            self._child_announced(body)
            return
        if event == DATA_CHANGE:
            line = self.data_watches.on_change(body)
            if self.listener is not None:
                self.listener.on_output("changes", line, DataChange.of(body))
                if body.get("ended"):  # a local's frame returned: the watch is gone from the program
                    state = BreakpointState(False, message=str(body.get("note") or "ended"), backend_id=body.get("id"))
                    self.listener.on_breakpoint_changed(str(body.get("id")), state)
            return
        if event == "stopped":
            body = self.data_watches.annotate_stop(body)
        super()._on_event(event, body)

    async def set_data_breakpoint(self, spec: DataBreakpointSpec, frame_id: int) -> DataWatch:
        return await self.data_watches.arm(spec, frame_id)

    async def clear_data_breakpoint(self, bp_id: str) -> None:
        await self.data_watches.clear(bp_id)

    async def update_data_breakpoint(self, bp_id: str, enabled: bool | None, condition: str | None) -> None:
        await self.data_watches.update(bp_id, enabled, condition)

    def _child_announced(self, config: dict[str, Any]) -> None:
        pid = config.get("subProcessId")
        listener = self.listener
        if listener is None:
            return
        try:
            child = PythonChild(config, self.allowed_hosts, local=self.local)
            what = (process_kind(pid) if self.local and isinstance(pid, int) else None) or (
                f"{os.path.basename(self.program or 'python')} child"
            )
            if what == TRACKER:  # never user code: let it go undebugged rather than take up a session
                release = asyncio.ensure_future(child.close(terminate=False))
                self._releases.add(release)
                release.add_done_callback(self._releases.discard)
                listener.on_output("console", f"pairdbg: {what} {pid} runs undebugged (it never runs your code)\n")
                return
            listener.on_child(child, f"{what} {pid}")
        except DebugError as exc:
            listener.on_output(
                "important",
                f"pairdbg: child process {pid} cannot be debugged ({exc.message}); it waits for a debugger "
                "until its parent ends\n",
            )

    async def loaded_sources(self) -> list[str]:
        return [path for path in await super().loaded_sources() if path != BOOT]  # pairdbg's own, not the program's

    def _keep_frame(self, frame: dict[str, Any]) -> bool:
        return (frame.get("source") or {}).get("path") not in (BOOT, TEST_HOOK)

    async def stack_with_library(self, thread_id: int, top_frame_id: int) -> list[RawFrame] | None:
        """With justMyCode on, the frames it hides, read from pydevd in the program (None with it off: none hidden)."""
        if not self.just_my_code:
            return None
        expression = WHOLE_STACK_EXPRESSION.format(source=WHOLE_STACK, top=int(top_frame_id))
        try:
            # "clipboard": the whole string; other contexts cut a long one
            raw = await self.evaluate(expression, top_frame_id, context="clipboard")
            text = ast.literal_eval(raw.value)
            walked = json.loads(text) if isinstance(text, str) else None
        except (DebugError, ValueError, SyntaxError):
            return None  # a pydevd without these internals: the stack says nothing it cannot know
        if not isinstance(walked, list):
            return None
        frames = []
        for frame_id, name, file, line, kind, module in walked:
            if kind == "debugger" or os.path.abspath(file) == BOOT:
                continue
            hidden = kind in ("library", "unwound")
            frames.append(
                RawFrame(
                    frame_id,
                    name,
                    self._local_path(file),
                    line,
                    library=hidden,
                    package=frame_package(module, file) if hidden else None,
                    unwound=kind == "unwound",
                )
            )
        return frames

    @property
    def skipped_code_hint(self) -> str | None:  # type: ignore[override]
        if not self.just_my_code:
            return None
        return (
            "justMyCode steps over library code (installed packages, the stdlib); to step into it, start again "
            "with just_my_code=false, or set a breakpoint in that file"
        )

    set_variable_fails_silently = True  # pydevd logs a failed setVariable and answers with the old value

    async def check_value(self, value: str, frame_id: int | None, run: bool = False) -> None:
        # Parsed as a lambda's body, it is compiled in the program but not run: no side effect happens twice.
        expression = value if run else f"(lambda: (\n{value}\n))"
        await self.evaluate(expression, frame_id, context="watch" if run else "hover")

    async def call_source(self, frame_id: int, callee: str) -> str | None:
        # Only a plain (dotted) name is looked up: evaluating any other callee text would run the user's code.
        if not DOTTED_NAME.fullmatch(callee):
            return None
        with contextlib.suppress(DebugError, ValueError, SyntaxError):
            raw = await self.evaluate(CALL_SOURCE.format(callee), frame_id, context="hover")
            found = ast.literal_eval(raw.value)
            return found if isinstance(found, str) else ""
        return None

    async def function_location(self, name: str) -> FunctionLocation | None:
        """A qualified name (module.function, module.Class.method) binds as a line breakpoint on the function's first
        body line, found in the program (before it starts: by its interpreter, on its path); so it stops in library
        code too, as line breakpoints there do. A bare name stays debugpy's own function breakpoint, which matches any
        function of that name in the code debugpy traces."""
        if "." not in name.strip():
            return None
        answer = await self._find_function(name)
        if answer is None:
            return None
        if answer[0] != "ok":
            return FunctionLocation(
                problem=f"cannot find {name}: {answer[1]}",
                hint="name it as module.function or module.Class.method (as imported), or set a line breakpoint in "
                "the function",
            )
        _, file, line, _how = answer
        return FunctionLocation(file=self._local_path(file), line=int(line))

    async def set_function_breakpoints(self, specs: list[FunctionBreakpointSpec]) -> list[BreakpointState]:
        """debugpy's own function breakpoints (bare names): each says what it matches, since "verified" there only
        means the name was taken."""
        states = await super().set_function_breakpoints(specs)
        for spec, state in zip(specs, states, strict=False):
            if state.verified and not state.message:
                where = "your code and files with breakpoints" if self.just_my_code else "any Python code"
                state.message = (
                    f"stops in any function named {spec.name} in {where}; for a library function give "
                    "module.function (it then binds to that function's first line)"
                )
        return states

    async def _find_function(self, name: str) -> tuple | None:
        """pyfunction.resolve(name) run in the program, or None when it cannot be asked (not started, an attach)."""
        source = FUNCTION_FINDER.read_text()
        if self.client is None or self.client.closed:
            return None
        expression = (
            f"(lambda ns: (exec({source!r}, ns), ns['resolve']({name!r}))[1])({{'__name__': 'pairdbg_function'}})"
        )
        try:
            raw = await self.evaluate(expression, None, context="hover")
            answer = ast.literal_eval(raw.value)
        except (DebugError, ValueError, SyntaxError):
            return None
        return answer if isinstance(answer, tuple) and answer else None

    def _local_path(self, path: str) -> str:
        return path

    async def exception_details(self, thread_id: int) -> ExceptionDetails | None:
        """debugpy's answer, plus where the exception was raised when justMyCode hides that frame (an exception
        raised inside a library stops at the caller's line, and debugpy's own trace leaves the library out)."""
        details = await super().exception_details(thread_id)
        if details is not None and details.message == NO_DESCRIPTION:
            details.message = None
        if details is None or not self.just_my_code:
            return details
        with contextlib.suppress(DebugError, ValueError, SyntaxError):
            frames, _ = await self.stack(thread_id, 0, 1)
            if not frames:
                return details
            raw = await self.evaluate(RAISE_SITE, frames[0].id, context="hover")
            file, line, function, excluded = ast.literal_eval(raw.value)
            if excluded:  # the raise is in a file justMyCode keeps out, so the stop is at the caller's line
                details.raised_at = (
                    f"in {os.path.basename(file)}:{line} in {function} ({file}), library code that justMyCode "
                    "keeps out of the stack (its unwound frames are read with get_call_stack(include_library=true)); "
                    "to stop there before it raises, set a breakpoint in that file or start with just_my_code=false"
                )
        return details


class PythonLaunch(DebugpyChildren):
    """debugpy's adapter on stdio, which starts the program through its launcher.

    The adapter runs on pairdbg's interpreter; the program runs on `python` (any CPython debugpy supports,
    with or without debugpy installed there), because the launcher brings debugpy's code along by path.
    """

    launched = True
    local = True
    runs_in_terminal = True  # debugpy hands pairdbg its launcher's command line (console below)
    exception_filters = {"none": [], "uncaught": ["uncaught"], "all": ["raised", "uncaught"]}

    def __init__(
        self,
        program: str,
        args: list[str] | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        python: str | None = None,
        stop_on_entry: bool = False,
        just_my_code: bool = True,
        module: bool = False,
        test_runner: str | None = None,
        python_chosen_by: str = "named",
    ) -> None:
        super().__init__()
        self.program = program
        self.args = list(args or [])
        self.cwd = cwd
        self.env = dict(env or {})
        self.python = python or sys.executable
        self.python_chosen_by = python_chosen_by  # said with the interpreter wherever it is named
        self.stop_on_entry = stop_on_entry
        self.just_my_code = just_my_code
        self.module = module
        #: "pytest" or "unittest" when the program is that runner: its failure hook stops where a test fails.
        self.test_runner = test_runner

    async def exception_details(self, thread_id: int) -> ExceptionDetails | None:
        """In a test run, a stop made by the runner's failure hook also names the test (and the depth)."""
        details = await super().exception_details(thread_id)
        if details is None or self.test_runner is None:
            return details
        with contextlib.suppress(DebugError, ValueError, SyntaxError):
            frames, _ = await self.stack(thread_id, 0, 1)
            raw = await self.evaluate(TEST_FAILURE, frames[0].id if frames else None, context="hover")
            failing = ast.literal_eval(raw.value)
            if isinstance(failing, dict) and failing.get("test"):
                details.test = failing
                details.break_mode = None  # the runner caught it: "unhandled" would not be true
        return details

    async def _find_function(self, name: str) -> tuple | None:
        """Before the program starts, its interpreter reads the source on the program's path (nothing is imported)."""
        if self.client is not None:
            return await super()._find_function(name)
        cwd = self.cwd or os.path.dirname(os.path.abspath(self.program))
        first = cwd if self.module else os.path.dirname(os.path.abspath(self.program))
        try:
            _, out, _ = await run_briefly(
                [self.python, str(FUNCTION_FINDER), first, name], 10, cwd=cwd, env={**os.environ, **self.env}
            )
        except (OSError, TimeoutError):
            return None
        with contextlib.suppress(ValueError, SyntaxError):
            answer = ast.literal_eval(out.decode(errors="replace").strip())
            return answer if isinstance(answer, tuple) and answer else None
        return None

    async def _run_in_terminal(self, args: dict[str, Any]) -> dict[str, Any]:
        """debugpy's launcher command is not run: pairdbg plays the launcher and starts the program itself."""
        found = launcher_command(args.get("args") or [])
        if found is None:
            return await super()._run_in_terminal(args)
        self._check_first_start()
        launcher = self.terminal = DebugpyLauncher(args, found, self._program_output, self.leftovers, SPARE_PROGRAM)
        return {"processId": await launcher.open()}

    def module_runtime(self) -> ProgramRuntime | None:
        program_dir = None if self.module else os.path.dirname(os.path.abspath(self.program))
        cwd = self.cwd or program_dir
        return ProgramRuntime("python", self.python, program_dir, cwd, program_env(self.env))

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        ok, why = debugpy_available()
        if not ok:
            raise DebugError(ErrorCode.CONNECTION_FAILED, why, hint="install debugpy, then start again")
        await check_python(self.python)
        await self._spawn_adapter([sys.executable, ADAPTER_BOOT], spare=SPARE_ADAPTER)
        assert self.proc is not None and self.proc.stdout is not None and self.proc.stdin is not None
        return self.proc.stdout, self.proc.stdin  # type: ignore[return-value]

    def _start_request(self) -> tuple[str, dict[str, Any]]:
        env = program_env(self.env)
        program_args = self.args
        if self.test_runner is not None:
            env["PAIRDBG_TEST_HOOK"] = self.test_runner  # pydevd_boot.py loads testhook.py for it
            if self.test_runner == "pytest":
                program_args = ["-p", "pairdbg_testhook", *program_args]
        args: dict[str, Any] = {
            "name": "pairdbg",
            "type": "python",
            "request": "launch",
            "args": program_args,
            # pairdbg starts debugpy's launcher itself (runInTerminal) with its own pipes, and the program's output
            # is read from them: nothing captures it to send as `output` events (redirectOutput off).
            "console": "integratedTerminal",
            "cwd": self.cwd or os.path.dirname(os.path.abspath(self.program)),
            "env": env,
            "justMyCode": self.just_my_code,
            "variablePresentation": VARIABLE_PRESENTATION,
            "stopOnEntry": self.stop_on_entry,
            "python": [self.python],
            "pythonArgs": ["-X", "frozen_modules=off", BOOT],
            "redirectOutput": False,
            "showReturnValue": True,
            "subProcess": True,  # children announce themselves (debugpyAttach) and become sessions
        }
        args["module" if self.module else "program"] = self.program
        if self.just_my_code:
            args["rules"] = include_rules([] if self.module else [self.program], self.breakpoint_files)
            if self.test_runner is not None:  # pairdbg's hook is not the user's code: steps never stop in it
                args["rules"].append({"path": TEST_HOOK, "include": False})
        return "launch", args


async def open_debug_server(
    host: str, port: int, allowed: list[str], failure: str, hint: str = ""
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A TCP connection to a debugpy server at the address the allow-list passed, Nagle off; `failure` (with
    {where}) says what it means when refused."""
    address = await resolve_one(host, port, allowed, "debug servers")
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(address, port), 5)
    except (OSError, TimeoutError) as exc:
        message = failure.format(where=f"{host}:{port}") + f" ({exc.__class__.__name__})"
        raise DebugError(ErrorCode.CONNECTION_FAILED, message, hint=hint) from None
    no_delay(tcp_socket(writer))
    return reader, writer


class PythonAttach(DebugpyChildren):
    """Attach to a program started as `python -m debugpy --listen HOST:PORT [--wait-for-client] prog.py`."""

    owns_debuggee = False  # debugpy ends it on disconnect(terminateDebuggee); pairdbg never signals it itself

    def __init__(
        self,
        host: str,
        port: int,
        just_my_code: bool = True,
        allowed_hosts: list[str] | None = None,
        path_mappings: list[tuple[str, str]] | None = None,
    ) -> None:
        check_host(host, allowed_hosts or [], "debug servers")  # before anything connects
        super().__init__()
        self.host = host
        self.port = port
        self.just_my_code = just_my_code
        self.allowed_hosts = list(allowed_hosts or [])
        # Where the program's files are here and where it runs: debugpy maps breakpoint paths there and stack
        # paths back, so every path pairdbg sees is local.
        self.path_mappings = [{"localRoot": local, "remoteRoot": remote} for local, remote in path_mappings or []]
        self.program = f"{host}:{port}"

    def _local_path(self, path: str) -> str:
        """A path in the attached program as this machine knows it (its path mappings, as debugpy maps stacks)."""
        for mapping in self.path_mappings:
            remote = mapping["remoteRoot"].rstrip("/")
            if path == remote or path.startswith(remote + "/"):
                return mapping["localRoot"].rstrip("/") + path[len(remote) :]
        return path

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await open_debug_server(
            self.host,
            self.port,
            self.allowed_hosts,
            "nothing is listening for a debugger at {where}",
            f"start the program with `python -m debugpy --listen {self.host}:{self.port} --wait-for-client "
            "your_program.py`, then attach again",
        )

    def _start_request(self) -> tuple[str, dict[str, Any]]:
        return "attach", {
            "name": "pairdbg",
            "type": "python",
            "request": "attach",
            "connect": {"host": self.host, "port": self.port},
            "justMyCode": self.just_my_code,
            "variablePresentation": VARIABLE_PRESENTATION,
            **({"rules": include_rules([], self.breakpoint_files)} if self.just_my_code else {}),
            **({"pathMappings": self.path_mappings} if self.path_mappings else {}),
        }


class PythonChild(DebugpyChildren):
    """A further process of a debugpy session, attached through the same adapter with the configuration its
    `debugpyAttach` event gave. debugpy owns the process: ending the session asks the adapter to end it."""

    owns_debuggee = False

    def __init__(self, config: dict[str, Any], allowed_hosts: list[str] | None = None, local: bool = False) -> None:
        connect = config.get("connect") or {}
        host, port = connect.get("host"), connect.get("port")
        if not host or not isinstance(port, int):
            raise DebugError(
                ErrorCode.PROTOCOL_ERROR, f"debugpy announced a child process without an address: {connect}"
            )
        check_host(host, allowed_hosts or [], "debug servers")
        super().__init__()
        self.config = {**config, "request": "attach"}
        self.host, self.port = host, port
        self.allowed_hosts = list(allowed_hosts or [])
        self.pid = config.get("subProcessId")
        self.local = local
        self.just_my_code = bool(config.get("justMyCode", True))
        self.program = config.get("program") or config.get("module") or f"process {self.pid}"
        self._included: set[str] = set()  # library files included for their breakpoints (INCLUDE_FILE)
        self.excluded_advice = (
            "this file is library code that justMyCode excludes in this child process, and pairdbg could not "
            "include it; start the program again with just_my_code=false to stop in it"
        )

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await open_debug_server(self.host, self.port, self.allowed_hosts, "debugpy's adapter at {where} is gone")

    def _start_request(self) -> tuple[str, dict[str, Any]]:
        config = dict(self.config)
        if config.get("console") == "integratedTerminal":
            # The child writes to its parent's pipes, which pairdbg reads as the parent's output; its session shows
            # what it printed too, as it did when debugpy's launcher captured the output.
            config["redirectOutput"] = True
        if self.just_my_code:
            config["rules"] = include_rules(
                [r["path"] for r in config.get("rules") or [] if r.get("include")], self.breakpoint_files
            )
        return "attach", config

    async def close(self, terminate: bool = True) -> None:
        """A child that never became a session (no room for one) still waits for a debugger: attach and let it go
        at once, so it runs on undebugged instead of hanging its parent."""
        if self.client is None and not terminate and not self._closing:
            with contextlib.suppress(DebugError, OSError, TimeoutError):
                await asyncio.wait_for(self.start({}, "none"), 10)
        await super().close(terminate)

    async def set_line_breakpoints(self, file: str, specs: list[LineBreakpointSpec]) -> list[BreakpointState]:
        """A breakpoint set in a library file binds here too: the file is included in the child first."""
        if specs and self.just_my_code and file not in self._included:
            with contextlib.suppress(DebugError):
                await self.evaluate(INCLUDE_FILE.format(repr(file)), None, context="hover")
                self._included.add(file)
        return await super().set_line_breakpoints(file, specs)

    def _on_event(self, event: str, body: dict[str, Any]) -> None:
        if event == "process" and body.get("name"):
            # The child's own program (a subprocess runs another file); `python -c code` is named "-c" by debugpy.
            self.program = "python -c" if body["name"] == "-c" else body["name"]
        super()._on_event(event, body)
