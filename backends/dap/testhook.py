"""PYTEST_DONT_REWRITE (pytest imports this module as a plugin after pydevd_boot.py loaded it; it cannot be rewritten)

The debuggee's side of debugging a test run: a test runner catches the exception that fails a test and reports it,
so the debugger never sees it as unhandled. The runner's own hook for a failure (pytest's `pytest_exception_interact`,
the one `pytest --pdb` uses; unittest's `TestResult.addFailure`/`addError`/`addSubTest`) calls `stop()`, which makes
pydevd stop post-mortem in the deepest frame of the user's code that the exception went through, with the exception,
before the runner moves on. An exception a test expects (`pytest.raises`, `assertRaises`, xfail, expectedFailure)
never reaches those hooks, so it never stops. Since those stops need no tracer, the run's main thread is untraced
until something does need it (a breakpoint, a pause, a step: _untrace_test_run): a 501-test run takes about half
the CPU time it took traced (scripts/bench_tests.py).

Loaded by pydevd_boot.py by path as module `pairdbg_testhook` when pairdbg starts a test run (PAIRDBG_TEST_HOOK
names the runner). Runs on whatever Python the tests need: standard library and pydevd only.
"""

import os
import sys
import threading

#: What the current stop is about, read by pairdbg with an evaluate (see TEST_FAILURE in python.py): the runner, the
#: test's id, the phase that failed and how deep the stack was where the exception was raised.
failing = None
#: Exit codes by which a runner reports failed tests: its SystemExit then is how it ends, not something to stop at.
RUNNER_EXIT_CODES = {"pytest": {1, 2, 5}, "unittest": {1, 5}}  # (unittest exits with True: equal to 1)


def install(runner):
    """Called before the debugger is set up: pytest loads the plugin itself (pairdbg passes `-p pairdbg_testhook`)."""
    if runner == "unittest":
        _hook_unittest()
        sys.meta_path.insert(0, _UntraceWhenRunnerLoads(runner, ("unittest.__main__",)))
    elif runner == "pytest":
        sys.meta_path.insert(0, _UntraceWhenRunnerLoads(runner, ("pytest", "_pytest")))


def _ignore_runner_exit(runner):
    """The runner's SystemExit after failed tests is not a stop (pydevd stops at one raised through user code, e.g.
    the `pytest` script's `sys.exit(console_main())`)."""
    db = _debugger()
    if db is not None and getattr(db, "_break_on_system_exit", None) is None:
        db.set_ignore_system_exit_codes(set(db._ignore_system_exit_codes) | RUNNER_EXIT_CODES[runner])


def _debugger():
    pydevd = sys.modules.get("pydevd")
    return pydevd.get_global_debugger() if pydevd is not None else None


def stop(exc_info, runner, test, phase=None):
    """Stop the debugger post-mortem at the deepest user frame of `exc_info`'s traceback (blocks until resumed)."""
    global failing
    db = _debugger()
    tb = exc_info[2]
    if db is None or tb is None:
        return
    frames = []
    while tb is not None:
        if not _debugger_frame(db, tb.tb_frame):  # at the recursion limit pydevd's tracer is where it was raised
            frames.append(tb.tb_frame)
        tb = tb.tb_next
    if not frames:
        return
    _ignore_runner_exit(runner)
    frame = _deepest_user_frame(db, frames)
    failing = {
        "runner": runner,
        "test": test,
        "phase": phase,
        "depth": _depth(frames[-1]),
        "repeats": sum(f.f_code is frame.f_code for f in frames),  # a recursion's calls of the function stopped in
    }
    thread = threading.current_thread()
    info = db.set_additional_thread_info(thread)
    # As pydevd's own post-mortem does: this thread is not traced while it is stopped (with sys.monitoring, on
    # Python 3.12+, its events would otherwise reach pydevd in the middle of the stop).
    monitoring = _monitoring()
    saved = monitoring.suspend_current_thread_tracing() if monitoring is not None else False
    info.is_tracing += 1
    try:
        db.do_stop_on_unhandled_exception(thread, frame, {id(f): f for f in frames}, exc_info)
    finally:
        info.is_tracing -= 1
        if saved:
            monitoring.resume_current_thread_tracing()
        failing = None
    _keep_tracer(db)


def _keep_tracer(db):
    """A RecursionError raised inside pydevd's tracer (at the recursion limit) makes CPython drop this thread's trace
    function: breakpoints in the tests after it would never hit. Where this thread should be traced, it is again."""
    lazy = _untraced
    if lazy is _UNTIL_TESTS_RUN or (lazy is not None and not lazy.done):
        return  # untraced on purpose
    if _monitoring() is None and getattr(db, "frame_eval_func", None) is None and sys.gettrace() is None:
        db.enable_tracing()
        db.set_trace_for_frame_and_parents(threading.get_ident(), sys._getframe())


def _monitoring():
    """pydevd's sys.monitoring backend, when it is the one tracing (Python 3.12+), else None."""
    constants = sys.modules.get("_pydevd_bundle.pydevd_constants")
    monitoring = getattr(sys.modules.get("pydevd"), "pydevd_sys_monitoring", None)
    used = getattr(constants, "PYDEVD_USE_SYS_MONITORING", False)
    return monitoring if used and hasattr(monitoring, "suspend_current_thread_tracing") else None


def _debugger_frame(db, frame):
    return frame.f_code.co_filename.endswith(".pyx") or db.get_file_type(frame) == db.PYDEV_FILE


def _deepest_user_frame(db, frames):
    """The innermost frame justMyCode shows (the failing assertion, or the user's line that called into a library);
    the innermost frame of all when every one is library code."""
    for frame in reversed(frames):
        if not (db.is_files_filter_enabled and db.apply_files_filter(frame, frame.f_code.co_filename, False)):
            return frame
    return frames[-1]


def _depth(frame):
    """How many frames the stack held where the exception was raised (a RecursionError's depth)."""
    depth = 0
    seen = frame
    while seen is not None:
        depth += 1
        seen = seen.f_back
    return depth


# ----- both runners: untraced until something needs the tracer -----------------------------------------------------


def _tracing_needed(db, lines=True):
    """Whether something set now needs pydevd's tracer: a line breakpoint (unless `lines` is false), a function
    breakpoint, or an exception filter that stops where an exception is raised or leaves the user's code
    (user-unhandled, raised)."""
    if (lines and db.breakpoints) or db.function_breakpoint_name_to_breakpoint or db.break_on_caught_exceptions:
        return True
    return bool(getattr(db, "break_on_user_uncaught_exceptions", None))


def _untrace_test_run(runner):
    """pytest's imports, collection and passing tests (and unittest's) need no tracer: a failure stops through the
    runner's hook (stop(), post-mortem), not through tracing. Traced (sys.settrace, before Python 3.12) they took up
    to twice as long. So the main thread runs untraced from the runner's import on; tracing comes back for good
    (_LazyTracing) the moment something needs it: the first code of a file with a line breakpoint runs (its module is
    imported), a breakpoint or an exception filter that needs tracing is set, the program is paused, or a stop is
    left with a step. A function breakpoint or such a filter set at the start keeps the run traced; so does a line
    breakpoint in a module already imported. Where pydevd cannot turn the tracer back on from its own thread (no
    helper library), a pytest run is untraced only without breakpoints and until its test loop starts, and a unittest
    run stays traced."""
    db = _debugger()
    if db is None or _monitoring() is not None or getattr(db, "frame_eval_func", None) is not None:
        return None
    if _tracing_needed(db, lines=False):
        return None
    if not _LazyTracing.possible():
        if db.breakpoints or runner != "pytest":
            return None
        db.disable_tracing()
        return _UNTIL_TESTS_RUN
    files = set(db.breakpoints)
    if files and _loaded(files):
        return None
    db.disable_tracing()
    return _LazyTracing(db, files)


def _canonical(path):
    import pydevd_file_utils

    return pydevd_file_utils.canonical_normalized_path(path)


def _loaded(files):
    """Whether a module of one of these files (pydevd's canonical paths) is imported already."""
    names = {os.path.basename(f) for f in files}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and os.path.basename(path) in names and _canonical(path) in files:
            return True
    return False


_UNTIL_TESTS_RUN = "until the test loop"
#: None (traced), _UNTIL_TESTS_RUN, or the _LazyTracing that turns the tracer back on.
_untraced = None


class _LazyTracing:
    """The main thread, untraced until something needs the tracer (see _untrace_test_run)."""

    def __init__(self, db, files):
        self.db = db
        self.thread = threading.get_ident()
        self.lock = threading.Lock()
        self.stopped = 0  # how many stops of the main thread are waiting (do_wait_suspend) right now
        self.done = False
        self._wrap(db)
        if files:
            self._watch(files)

    def _watch(self, files):
        """Trace again when code of one of `files` (with line breakpoints) is about to run: the audit event `exec`
        comes before a module's code runs, on the thread importing it. (An audit hook stays for the process's life;
        once tracing is back it returns at once.)"""
        names = {os.path.basename(f) for f in files}

        def on_audit(event, args):
            if event != "exec" or self.done:
                return
            try:
                path = args[0].co_filename
                if os.path.basename(path) in names and _canonical(path) in files:
                    self.here() if threading.get_ident() == self.thread else self.from_other_thread()
            except Exception:
                pass

        sys.addaudithook(on_audit)

    @staticmethod
    def possible():
        try:
            import pydevd_tracing

            return pydevd_tracing._load_python_helper_lib() is not None and hasattr(
                pydevd_tracing, "set_trace_to_threads"
            )
        except Exception:
            return False

    def _wrap(self, db):
        # Instance attributes: pydevd calls these as methods of its one PyDB object, so only it is changed.
        changed, suspend, wait = db.on_breakpoints_changed, db.set_suspend, db.do_wait_suspend

        def on_breakpoints_changed(*args, **kwargs):
            if not self.done and _tracing_needed(db):
                self.from_other_thread()
            return changed(*args, **kwargs)

        def set_suspend(thread, *args, **kwargs):
            if not self.done and (kwargs.get("is_pause") or (len(args) >= 3 and args[2])):
                self.from_other_thread()  # a pause: the main thread must reach the tracer to stop
            return suspend(thread, *args, **kwargs)

        def do_wait_suspend(thread, *args, **kwargs):
            main = threading.get_ident() == self.thread
            self.stopped += main
            try:
                return wait(thread, *args, **kwargs)
            finally:
                self.stopped -= main
                if main and not self.done:
                    info = db.set_additional_thread_info(thread)
                    if _tracing_needed(db) or getattr(info, "pydev_step_cmd", -1) != -1:
                        self.here()

        db.on_breakpoints_changed, db.set_suspend, db.do_wait_suspend = (
            on_breakpoints_changed,
            set_suspend,
            do_wait_suspend,
        )

    def here(self):
        """On the main thread: trace it again, the frames running now included."""
        with self.lock:
            if self.done:
                return
            self.done = True
        self.db.enable_tracing()
        self.db.set_trace_for_frame_and_parents(self.thread, sys._getframe().f_back)

    def from_other_thread(self):
        """From pydevd's reader thread: give the main thread pydevd's tracer (pydevd sets the running frames' trace
        functions itself, after this). While the main thread waits in a stop, it does so itself when resumed."""
        if self.stopped:
            return
        with self.lock:
            if self.done:
                return
            self.done = True
        import pydevd_tracing

        pydevd_tracing.set_trace_to_threads(self.db.trace_dispatch, thread_idents=[self.thread])


class _UntraceWhenRunnerLoads:
    """A meta path finder that finds nothing: it notices the program importing the runner (pytest, or unittest's
    `-m` entry point) while the debugger traces it, turns tracing off if nothing needs it (_untrace_test_run) and
    steps aside. (sys.monitoring, Python 3.12+, leaves sys.gettrace() empty: it never acts there, as
    _untrace_test_run would not.)"""

    def __init__(self, runner, names):
        self.runner = runner
        self.names = names

    def find_spec(self, name, path=None, target=None):
        global _untraced
        # (debugpy looks the runner up before it starts tracing: only an import made while traced counts)
        if sys.gettrace() is not None and (name in self.names or name.partition(".")[0] in self.names):
            sys.meta_path[:] = [f for f in sys.meta_path if f is not self]
            _untraced = _untrace_test_run(self.runner)
        return None


# ----- pytest: a plugin (pairdbg passes `-p pairdbg_testhook`) ------------------------------------------------------


def pytest_configure(config):
    _ignore_runner_exit("pytest")


def pytest_runtestloop(session):
    """Where pydevd could not trace the main thread again later, tracing comes back as the first test is about to
    run (see _untrace_test_run)."""
    global _untraced
    if _untraced is _UNTIL_TESTS_RUN:
        _untraced = None
        db = _debugger()
        if db is not None:
            db.enable_tracing()
            db.set_trace_for_frame_and_parents(threading.get_ident(), sys._getframe())


def pytest_exception_interact(node, call, report):
    """pytest calls this for each failed setup, call or teardown of a test and each failed collection, never for an
    expected exception (pytest.raises), a skip or an xfail (what `--pdb` stops at)."""
    excinfo = getattr(call, "excinfo", None)
    if excinfo is None:
        return
    phase = getattr(report, "when", None)
    stop((excinfo.type, excinfo.value, excinfo.tb), "pytest", node.nodeid, None if phase == "call" else phase)


# ----- unittest: TestResult's failure methods, wrapped --------------------------------------------------------------


def _hook_unittest():
    import unittest.result

    result = unittest.result.TestResult
    add_error, add_failure, add_subtest = result.addError, result.addFailure, result.addSubTest

    def addError(self, test, err):
        stop(err, "unittest", _test_id(test))
        add_error(self, test, err)

    def addFailure(self, test, err):
        stop(err, "unittest", _test_id(test))
        add_failure(self, test, err)

    def addSubTest(self, test, subtest, err):
        if err is not None:
            stop(err, "unittest", _test_id(subtest))
        add_subtest(self, test, subtest, err)

    result.addError, result.addFailure, result.addSubTest = addError, addFailure, addSubTest

    import unittest.main  # the module: the name `unittest.main` is its TestProgram class

    program = sys.modules["unittest.main"].TestProgram
    run_tests = program.runTests

    def runTests(self, *args, **kwargs):
        _ignore_runner_exit("unittest")
        return run_tests(self, *args, **kwargs)

    program.runTests = runTests


def _test_id(test):
    try:
        return test.id()
    except Exception:
        return str(test)
