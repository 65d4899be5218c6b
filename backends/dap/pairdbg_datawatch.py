"""Data breakpoints in a debugpy program: pairdbg's helper, run inside the debuggee (standard library and pydevd only).

pairdbg sends this file's source with an evaluate the first time a data breakpoint is set and keeps it as module
`pairdbg_datawatch`. CPython has no hook on every write, so each kind of place is watched by the one mechanism that
sees all the writes Python code makes to it, or refused with the reason:
- an attribute of an instance of a class written in Python: the class's `__setattr__`/`__delattr__` are wrapped by
  functions that let every other instance through at once (one dict lookup) and compare the watched attribute's value
  before and after. `type(obj)`, `isinstance`, pickling and `__slots__` are untouched; removing the last watch on a
  class puts its own methods back.
- an item of a container class written in Python whose every base but `object` is too (a `MutableMapping` such as
  requests' `CaseInsensitiveDict`): its `__setitem__`/`__delitem__` are wrapped the same way, so `update`, `pop`,
  `setdefault` and `+=` (which go through them) are caught.
- an item of a built-in dict and a module global (its module's dict), on Python 3.12+: CPython's dict watchers
  (`PyDict_Watch`, through ctypes) call back at every change to a watched dict, C code's included, in the writing
  thread before the change lands; the stop comes at the writing frame's next instruction, once the value is stored
  (sys.monitoring INSTRUCTION events on that one code object), or as that frame exits when the call that wrote
  raised. Python 3.11 has no dict watchers: refused. An
  object's own __dict__ on 3.13+ is refused too: its attributes are written past the dict.
- a local of a live frame: only that frame's code writes it, so only that frame is traced (3.11: its own f_trace,
  chained before pydevd's; 3.12+: sys.monitoring LINE events on its code), checked after each line that stores the
  name. The stop is at the next line of the writing frame; the watch ends when the frame returns.
Everything else (a list, a frozen dataclass, a C type, a local shared with an inner function) is refused with the
reason, never armed for writes it would miss. What an armed watch still cannot see is said when it is set.

A change with its condition true stops the program in the frame that wrote it (pydevd suspends with that frame on
top, so this file's frames are never shown; a library frame is hidden by justMyCode and named in the stop report)
after sending a `pairdbgDataChange` event that names it; a log-only watch sends the event and goes on. This file is
in pydevd's DONT_TRACE list: steps never enter it.
"""

import dataclasses
import sys
import threading
import time
from sys import _getframe
from threading import get_ident

EVENT = "pairdbgDataChange"
HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement (or a C extension's heap type)
VALUE_CHARS = 120  # like the stop report's locals
MAX_EVENTS = 10_000  # per watch: later changes are counted, not sent (a hot loop would flood the connection)
MISSED = "writes through object.__setattr__, obj.__dict__ or vars(obj), C code and ctypes"
MISSED_DICT = "writes to the dict's memory through ctypes (every write through CPython's dict functions is caught)"
MISSED_LOCAL = (
    "writes made through the frame's f_locals from another frame (a debugger setting the value) and ctypes; the stop "
    "comes at the writing frame's next line"
)
DICT_WATCHERS = sys.version_info >= (3, 12)  # PyDict_AddWatcher / PyDict_Watch
MONITORING = sys.version_info >= (3, 12)  # sys.monitoring
GENERATOR_FLAGS = 0x20 | 0x80 | 0x200  # CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR
UNSET = object()
HERE = _getframe(0).f_code.co_filename  # the name pairdbg compiled this file under (its path)

#: id -> Watch, every armed watch.
watches = {}
#: class -> Wrapping, every class whose methods are wrapped now.
_wrapped = {}


class Refused(Exception):
    """Why this expression cannot be watched (said to the person or agent as it is)."""


class Watch:
    def __init__(self, bp_id, target, kind, key, expression, condition, log_only, scope):
        self.id = bp_id
        self.target = target  # held: the object stays alive (and its id unique) while watched
        self.kind = kind  # "attr", "item" (a Python container), "dict" (a built-in dict's key) or "local" (of a frame)
        self.key = key
        self.expression = expression
        self.test = _condition(condition, scope)
        self.scope = scope  # the globals of the frame it was set in: the condition's names beside value and old
        self.log_only = log_only
        self.changes = 0
        self.sent = 0
        self.enabled = True

    def read(self):
        try:
            if self.kind == "attr":
                return getattr(self.target, self.key)
            if self.kind == "local":
                return self.target.f_locals.get(self.key, UNSET)
            if self.kind == "dict":
                return dict.get(self.target, self.key, UNSET)
            return self.target[self.key]
        except Exception:  # unset, deleted, or a getter that fails: said as "<unset>"
            return UNSET


class Wrapping:
    """One class's wrapped methods: watched instances by id, each with its watches by key."""

    def __init__(self, cls, names):
        self.cls = cls
        self.names = names  # the two method names wrapped
        self.saved = {name: cls.__dict__.get(name, UNSET) for name in names}
        self.by_object = {}  # id(obj) -> {key: [Watch]}

    def install(self):
        cls, by_object = self.cls, self.by_object
        write_name, delete_name = self.names
        original_write = _next_method(cls, write_name, self.saved[write_name])
        original_delete = _next_method(cls, delete_name, self.saved[delete_name])

        if write_name == "__setattr__":
            # The hot path: every write to every instance of the class comes through here, under pydevd's tracer.
            # One dict lookup lets other instances through; the watched one pays two reads and a compare, inline.

            def watched_write(obj, name, value):
                keys = by_object.get(id(obj))
                if keys is None or name not in keys:
                    return original_write(obj, name, value)
                try:
                    old = getattr(obj, name)
                except Exception:
                    old = UNSET
                original_write(obj, name, value)
                try:
                    new = getattr(obj, name)
                except Exception:
                    new = UNSET
                if new is not old:
                    # The condition is tried here, not in _changed: a write it rejects costs one call (the
                    # condition's) on top of this one; under 3.11's settrace each call costs ~1 µs of pydevd's.
                    for w in keys[name]:
                        test, tested = w.test, False
                        if test is not None and w.enabled:
                            try:
                                if not test(None if new is UNSET else new, None if old is UNSET else old):
                                    continue
                                tested = True
                            except Exception:
                                pass  # _changed tries it again and logs what it raised
                        _changed((w,), old, new, _getframe(1), tested=tested)

            def watched_delete(obj, name):
                keys = by_object.get(id(obj))
                if keys is None or name not in keys:
                    return original_delete(obj, name)
                try:
                    old = getattr(obj, name)
                except Exception:
                    old = UNSET
                original_delete(obj, name)
                _changed(keys[name], old, UNSET, _getframe(1))

        else:  # items: any key may alias the watched one (a case-insensitive mapping), so every write is compared

            def watched_write(obj, key, value):
                keys = by_object.get(id(obj))
                if keys is None:
                    return original_write(obj, key, value)
                return _write_items(keys, original_write, obj, key, value)

            def watched_delete(obj, key):
                keys = by_object.get(id(obj))
                if keys is None:
                    return original_delete(obj, key)
                return _write_items(keys, original_delete, obj, key)

        watched_write.__name__, watched_delete.__name__ = write_name, delete_name
        watched_write.__qualname__ = f"{cls.__qualname__}.{write_name}"
        watched_delete.__qualname__ = f"{cls.__qualname__}.{delete_name}"
        setattr(cls, write_name, watched_write)
        try:
            setattr(cls, delete_name, watched_delete)
        except Exception:
            self.uninstall()
            raise

    def uninstall(self):
        for name, method in self.saved.items():
            if method is UNSET:
                if name in self.cls.__dict__:
                    delattr(self.cls, name)
            else:
                setattr(self.cls, name, method)


def _next_method(cls, name, own):
    """What a write did before the wrap: the class's own method, else the one it inherits (object's, a C slot, for
    most classes: called directly, no Python frame in between). Only instances of `cls` itself are ever watched
    through it, so a base class wrapped later needs no say here."""
    if own is not UNSET:
        return own
    for base in cls.__mro__[1:]:
        if name in base.__dict__:
            return base.__dict__[name]
    return getattr(object, name)


def _write_items(keys, original, obj, *args):
    ws = [w for group in keys.values() for w in group]
    olds = [w.read() for w in ws]
    result = original(obj, *args)
    frame = _getframe(2)  # the writer: above this and the wrapped method
    for w, old in zip(ws, olds):  # noqa: B905 (the program may run on Python < 3.10)
        new = w.read()
        if new is not old:
            _changed((w,), old, new, frame)
    return result


def _changed(ws, old, new, frame, line=None, suspend=None, tested=False):
    """Report a change `frame` made (at `line` when the frame has moved past it) to each watch in `ws` whose
    condition holds (`tested`: it was found true already); a stopping one suspends the thread (now, or by `suspend`:
    once the write has landed)."""
    stopping = False
    for w in ws:
        if not w.enabled or w.id not in watches:
            continue
        try:
            if new == old and type(new) is type(old):
                continue
        except Exception:
            pass
        if w.test is not None and not tested:
            try:
                if not w.test(None if new is UNSET else new, None if old is UNSET else old):
                    continue
            except Exception as exc:
                _send(w, old, new, frame, line, stop=False, note=f"condition raised {type(exc).__name__}: {exc}")
                continue
        w.changes += 1
        if w.log_only:
            _send(w, old, new, frame, line, stop=False)
        elif _stopped_here():  # an evaluation made during a stop wrote it: said, not stopped in the middle of it
            _send(w, old, new, frame, line, stop=False, note="written by an evaluation while stopped")
        else:
            _send(w, old, new, frame, line, stop=True, note="stopped once the value was stored" if suspend else None)
            stopping = True
    if stopping:
        (suspend or _suspend)(frame)


def _stopped_here():
    info = getattr(threading.current_thread(), "additional_info", None)
    return getattr(info, "pydev_state", None) == 2  # pydevd's STATE_SUSPEND: this thread is in a stop


def _condition(text, scope):
    """`value < 0` as a function of (value, old), made once: no compile or eval per write. Compiled under this file's
    name, so pydevd neither traces nor shows it."""
    if not text:
        return None
    return eval(compile(f"lambda value, old: (\n{text}\n)", HERE, "eval"), scope)


def _shown_frame(frame):
    db = _debugger()
    if db is None:
        return frame
    f = frame
    while f is not None:
        try:
            hidden = db.get_file_type(f) == db.PYDEV_FILE or (
                db.is_files_filter_enabled and db.apply_files_filter(f, f.f_code.co_filename, False)
            )
        except Exception:
            return frame
        if not hidden:
            return f
        f = f.f_back
    return frame


def _debugger():
    pydevd = sys.modules.get("pydevd")
    return pydevd.get_global_debugger() if pydevd is not None else None


def _show(value):
    if value is UNSET:
        return "<unset>"
    try:
        text = repr(value)
    except Exception as exc:
        text = f"<repr raised {type(exc).__name__}>"
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"


def _send(w, old, new, frame, line, stop, note=None, ended=False):
    if w.sent >= MAX_EVENTS and not stop and not ended:
        return
    w.sent += 1
    body = {
        "id": w.id,
        "expression": w.expression,
        "old": _show(old),
        "new": _show(new),
        "time": time.time(),
        "thread": threading.current_thread().name,
        "file": frame.f_code.co_filename if frame else None,
        "line": line or (frame.f_lineno if frame else None),
        "function": frame.f_code.co_name if frame else None,
        "stop": stop,
        "changes": w.changes,
    }
    if (line is not None and frame is not None and line != frame.f_lineno) or (stop and note):
        body["after_write"] = True  # the stop comes once the write is done: at a later line, maybe
    shown = _shown_frame(frame) if frame is not None else None
    if shown is not frame:  # library code justMyCode hides wrote it: said so, with the shown caller
        body["library"] = True
        body["caller"] = f"{shown.f_code.co_filename}:{shown.f_lineno}"
    if note:
        body["note"] = note
    if ended:
        body["ended"] = True
    if w.sent == MAX_EVENTS and not stop:
        body["note"] = f"{MAX_EVENTS} changes logged; later ones are counted, not logged"
    db = _debugger()
    if db is None or getattr(db, "writer", None) is None:
        return
    from _pydevd_bundle.pydevd_comm_constants import CMD_WRITE_TO_CONSOLE
    from _pydevd_bundle.pydevd_net_command import NetCommand

    db.writer.add_command(NetCommand(CMD_WRITE_TO_CONSOLE, 0, {"type": "event", "event": EVENT, "body": body}, True))


def _suspend(frame):
    """Stop this thread as a breakpoint does, with the writing frame on top (blocks until resumed or stepped)."""
    db = _debugger()
    if db is None:
        return
    from _pydevd_bundle.pydevd_comm_constants import CMD_SET_BREAK

    thread = threading.current_thread()
    info = db.set_additional_thread_info(thread)
    # As pydevd's own stops do: no trace events of this thread reach it while it waits (with sys.monitoring, on
    # Python 3.12+, the evaluations made during the stop would otherwise reach pydevd in the middle of it).
    monitoring = _monitoring()
    saved = monitoring.suspend_current_thread_tracing() if monitoring is not None else False
    info.is_tracing += 1
    try:
        db.set_suspend(thread, CMD_SET_BREAK, suspend_other_threads=True)
        db.do_wait_suspend(thread, frame, "line", None)
    finally:
        info.is_tracing -= 1
        if saved:
            monitoring.resume_current_thread_tracing()


def _monitoring():
    """pydevd's sys.monitoring backend, when it is the one tracing (Python 3.12+), else None."""
    constants = sys.modules.get("_pydevd_bundle.pydevd_constants")
    monitoring = getattr(sys.modules.get("pydevd"), "pydevd_sys_monitoring", None)
    used = getattr(constants, "PYDEVD_USE_SYS_MONITORING", False)
    return monitoring if used and hasattr(monitoring, "suspend_current_thread_tracing") else None


# ----- built-in dicts and module globals (Python 3.12+: CPython's dict watchers) --------------------------------------

ADDED, MODIFIED, DELETED, CLONED, CLEARED, DEALLOCATED = range(6)  # PyDict_WatchEvent


class DictWatcher:
    """One dict watcher for every watched dict: CPython calls `_event` before each change to one of them, in the
    writing thread, with the writer's frame the nearest Python frame."""

    def __init__(self):
        import ctypes

        self.ctypes = ctypes
        self.by_dict = {}  # id(dict) -> [Watch]
        callback_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
        self.callback = callback_type(self._event)  # kept: CPython holds only its address
        api = ctypes.pythonapi
        self.add = api.PyDict_Watch
        self.remove = api.PyDict_Unwatch
        for f in (self.add, self.remove):
            f.argtypes, f.restype = (ctypes.c_int, ctypes.py_object), ctypes.c_int
        api.PyDict_AddWatcher.argtypes, api.PyDict_AddWatcher.restype = (callback_type,), ctypes.c_int
        self.id = api.PyDict_AddWatcher(self.callback)  # raises when CPython's watchers are all taken
        # Cleared before the interpreter tears down: a watched dict freed at exit must not call into ctypes then.
        clear = api.PyDict_ClearWatcher
        clear.argtypes, clear.restype = (ctypes.c_int,), ctypes.c_int
        import atexit

        atexit.register(clear, self.id)

    def watch(self, w):
        group = self.by_dict.setdefault(id(w.target), [])
        if not group:
            self.add(self.id, w.target)
        group.append(w)

    def unwatch(self, w):
        group = self.by_dict.get(id(w.target), [])
        if w in group:
            group.remove(w)
        if not group:
            self.by_dict.pop(id(w.target), None)
            self.remove(self.id, w.target)

    def _event(self, event, address, key, new):
        group = self.by_dict.get(address)
        if group is None or event == DEALLOCATED:
            return 0
        try:
            as_object = self._object
            if event <= DELETED:  # ADDED, MODIFIED, DELETED: of one key, often the very object watched (no conversion)
                hit = [w for w in group if w.key_address == key]
                if not hit:
                    k = as_object(key)
                    hit = [w for w in group if _same_key(w.key, k)]
                    if not hit:
                        return 0
                after = UNSET if event == DELETED else as_object(new)
                changes = [(w, after) for w in hit]
            elif event == CLONED:  # the empty dict becomes a copy of the one passed as `key`
                source = as_object(key)
                changes = [(w, dict.get(source, w.key, UNSET)) for w in group]
            else:  # CLEARED
                changes = [(w, UNSET) for w in group]
            try:
                frame = _getframe(1)
            except ValueError:  # C code with no Python frame on its thread: logged, never stopped
                frame = None
            for w, after in changes:
                before = dict.get(w.target, w.key, UNSET)
                if after is before:
                    continue
                test, tested = w.test, False
                if test is not None and w.enabled:  # tried here: a change it rejects costs no further call
                    try:
                        if not test(None if after is UNSET else after, None if before is UNSET else before):
                            continue
                        tested = True
                    except Exception:
                        pass  # _changed tries it again and logs what it raised
                if frame is None:
                    if w.enabled and w.id in watches:
                        w.changes += 1
                        _send(w, before, after, None, None, stop=False, note="written by C code outside Python")
                    continue
                _changed((w,), before, after, frame, suspend=_suspend_after_write, tested=tested)
        except Exception:  # never let the program's write fail because of a watch
            pass
        return 0

    def _object(self, address):
        return self.ctypes.cast(address, self.ctypes.py_object).value


def _same_key(a, b):
    try:
        return hash(a) == hash(b) and a == b
    except Exception:
        return False


_dict_watcher = None


def _dicts():
    global _dict_watcher
    if _dict_watcher is None:
        try:
            _dict_watcher = DictWatcher()
        except Exception as exc:
            raise Refused(f"CPython's dict watchers cannot be used here ({exc})") from None
    return _dict_watcher


#: thread ident -> the frames to stop in at their next instruction (the write each made has landed by then)
_stops_after = {}


def _suspend_after_write(frame):
    # Several frames may wait on one thread: a write inside a C call (dict.update) can run Python code that writes
    # another watched dict before the first frame's next instruction.
    pending = _stops_after.setdefault(get_ident(), [])
    if any(f is frame for f in pending):  # one write changed several watches: one stop
        return
    pending.append(frame)
    m = _monitor()
    m.add(frame.f_code, sys.monitoring.events.INSTRUCTION)
    m.unwinding(True)  # the C call that wrote may raise: the frame has no next instruction then, it stops as it exits


# ----- sys.monitoring (Python 3.12+): events on the few code objects a watch needs --------------------------------


class Monitor:
    """pairdbg's own sys.monitoring tool (pydevd has the debugger's): local events turned on per code object, counted
    so that each watch turns off only what it turned on."""

    def __init__(self):
        m = sys.monitoring
        for tool in (4, 3):
            if m.get_tool(tool) is None:
                m.use_tool_id(tool, "pairdbg data breakpoints")
                break
        else:
            raise Refused("sys.monitoring has no free tool id (other tools took ids 3 and 4)")
        self.tool = tool
        self.counts = {}  # (code, event) -> how many watches need it
        self.unwinds = 0
        e = m.events
        m.register_callback(tool, e.INSTRUCTION, self._instruction)
        m.register_callback(tool, e.LINE, self._line)
        m.register_callback(tool, e.PY_RETURN, self._return)
        m.register_callback(tool, e.PY_UNWIND, self._unwind)

    def add(self, code, event):
        n = self.counts.get((code, event), 0)
        self.counts[(code, event)] = n + 1
        if n == 0:
            m = sys.monitoring
            m.set_local_events(self.tool, code, m.get_local_events(self.tool, code) | event)

    def remove(self, code, event):
        n = self.counts.get((code, event), 0) - 1
        if n > 0:
            self.counts[(code, event)] = n
            return
        self.counts.pop((code, event), None)
        m = sys.monitoring
        m.set_local_events(self.tool, code, m.get_local_events(self.tool, code) & ~event)

    def unwinding(self, on):  # PY_UNWIND is a global event: on while a local is watched or a stop waits for a frame
        self.unwinds += 1 if on else -1
        sys.monitoring.set_events(self.tool, sys.monitoring.events.PY_UNWIND if self.unwinds else 0)

    # An exception leaving a sys.monitoring callback would be raised in the program's code: each one keeps its own.

    def _instruction(self, code, offset):
        try:
            self._stop_after_write(_getframe(1))
        except Exception:
            pass

    def _stop_after_write(self, frame):
        """Stop in `frame` if a write it made waits for its next instruction (or for it to exit by an exception)."""
        pending = _stops_after.get(get_ident())
        if pending and any(f is frame for f in pending):
            pending[:] = [f for f in pending if f is not frame]
            self.remove(frame.f_code, sys.monitoring.events.INSTRUCTION)
            self.unwinding(False)
            _suspend(frame)

    def _line(self, code, line):
        try:
            frame = _getframe(1)
            tracer = _frames.get(id(frame))
            if tracer is not None and tracer.frame is frame:
                tracer.check(frame, line, now=False)
        except Exception:
            pass

    def _return(self, code, offset, value):
        self._ended(_getframe(1), "the frame returned")

    def _unwind(self, code, offset, exc):
        frame = _getframe(1)
        try:
            self._stop_after_write(frame)
        except Exception:
            pass
        self._ended(frame, "the frame ended by an exception")

    def _ended(self, frame, why):
        try:
            tracer = _frames.get(id(frame))
            if tracer is not None and tracer.frame is frame:
                tracer.check(frame, frame.f_lineno)  # the last line may have stored first
                tracer.end(why)
        except Exception:
            pass


_the_monitor = None


def _monitor():
    global _the_monitor
    if _the_monitor is None:
        _the_monitor = Monitor()
    return _the_monitor


# ----- locals of a live frame ---------------------------------------------------------------------------------------

#: id(frame) -> FrameTracer, frames with watched locals
_frames = {}


class FrameTracer:
    """A frame whose locals are watched: after each line that stores one of them, its value is compared with the
    last one seen. Python 3.11: the frame's own f_trace, run before pydevd's (kept in `then`; pydevd re-setting it
    is undone after its set_trace_for_frame_and_parents). Python 3.12+: LINE and PY_RETURN events of its code."""

    def __init__(self, frame):
        self.frame = frame
        self.watches = []
        self.last = frame.f_lineno  # the line about to run: its store, if any, is checked at the next line
        if MONITORING:
            m = _monitor()
            m.add(frame.f_code, sys.monitoring.events.LINE)
            m.add(frame.f_code, sys.monitoring.events.PY_RETURN)
            m.unwinding(True)
        else:
            self.then = frame.f_trace
            frame.f_trace = self
            _keep_chained()

    def __call__(self, frame, event, arg):  # Python 3.11: the frame's trace function
        stopped = False
        try:  # an exception out of a trace function would turn tracing off in this thread, pydevd's too
            if event == "line":
                stopped = self.check(frame, frame.f_lineno)
            elif event == "return":
                stopped = self.check(frame, frame.f_lineno)
                self.end("the frame returned")
        except Exception:
            pass
        then = self.then
        if stopped and event == "line":
            # pydevd had this stop: a step started from it goes on from here, it must not see this line again
            return self if self.watches else then
        if then is not None:
            result = then(frame, event, arg)
            current = frame.f_trace
            if current is not self:  # pydevd set the frame's tracer itself (or cleared it)
                self.then = current
            elif result is not None:
                self.then = result
        return self if self.watches else self.then

    def check(self, frame, line, now=True):
        """Compare the locals the last line stored; True when the program stopped (or, `now` false, will stop once
        every tool has seen this line event: at its first instruction, so pydevd never sees it after the stop)."""
        last, self.last = self.last, line
        stopped = []
        for w in list(self.watches):
            if last in w.writes:
                new, old = w.read(), w.value
                if new is not old:
                    w.value = new
                    _changed((w,), old, new, frame, line=last, suspend=stopped.append)
        if stopped:
            (_suspend if now else _suspend_after_write)(frame)
        return bool(stopped)

    def end(self, why):
        for w in list(self.watches):
            watches.pop(w.id, None)
            _send(w, w.value, w.value, self.frame, None, stop=False, note=f"ended: {why}", ended=True)
        self.watches.clear()
        self.release()

    def release(self):
        _frames.pop(id(self.frame), None)
        if MONITORING:
            m = _monitor()
            m.remove(self.frame.f_code, sys.monitoring.events.LINE)
            m.remove(self.frame.f_code, sys.monitoring.events.PY_RETURN)
            m.unwinding(False)
        elif self.frame.f_trace is self:
            self.frame.f_trace = self.then


def _keep_chained():
    """pydevd sets frames' f_trace to its own when breakpoints change or a step starts: put the watched frames'
    tracers back in front of it each time (Python 3.11)."""
    db = _debugger()
    if db is None or "set_trace_for_frame_and_parents" in db.__dict__:
        return
    original = db.set_trace_for_frame_and_parents

    def set_trace_for_frame_and_parents(*args, **kwargs):
        result = original(*args, **kwargs)
        for tracer in list(_frames.values()):
            current = tracer.frame.f_trace
            if current is not tracer:
                tracer.then, tracer.frame.f_trace = current, tracer
        return result

    db.set_trace_for_frame_and_parents = set_trace_for_frame_and_parents


def _store_lines(code, name):
    """The lines of `code` that store or delete local `name`."""
    import dis

    lines, line = set(), None
    for ins in dis.get_instructions(code):
        if getattr(ins, "line_number", None) is not None:  # 3.13+
            line = ins.line_number
        elif ins.starts_line is not None and not isinstance(ins.starts_line, bool):
            line = ins.starts_line
        if "STORE_FAST" in ins.opname or "DELETE_FAST" in ins.opname:
            names = ins.argval if isinstance(ins.argval, tuple) else (ins.argval,)
            if name in names:
                lines.add(line)
    return lines


def _frame_of(frame_id):
    db = _debugger()
    manager = getattr(db, "suspended_frames_manager", None)
    if manager is None:
        raise Refused("the debugger's frames cannot be read here")
    try:  # the DAP frame id pairdbg holds -> pydevd's own
        from _pydevd_bundle._debug_adapter.pydevd_base_schema import BaseSchema

        frame_id = BaseSchema._translate_id_from_dap(frame_id)
    except (ImportError, KeyError):
        pass
    thread_id = manager.get_thread_id_for_variable_reference(frame_id)
    frame = manager.find_frame(thread_id, frame_id) if thread_id is not None else None
    if frame is None:
        raise Refused("the frame is no longer live (the program went on since this stop)")
    return frame


def _watch_name(bp_id, name, expression, condition, log_only, frame_id):
    """A bare name: a local of the selected frame, else a global of its module."""
    frame = _frame_of(frame_id)
    code = frame.f_code
    is_function = frame.f_globals is not frame.f_locals if sys.version_info < (3, 13) else code.co_name != "<module>"
    if is_function and (name in code.co_varnames or name in code.co_cellvars or name in code.co_freevars):
        if name in code.co_cellvars or name in code.co_freevars:
            raise Refused(
                f"{name} is shared with an inner function (a closure cell), whose own frames can write it; "
                "watch it from a frame of the function that holds it as a plain local"
            )
        if code.co_flags & GENERATOR_FLAGS:
            raise Refused(
                f"{name} is a local of a generator or coroutine, whose frame is left and resumed at every yield"
            )
        if not MONITORING and _in_trace_call(frame):
            raise Refused(
                f"{name} is a local of the frame the program is stopped in: on Python 3.11 debugpy's tracer sets that "
                "frame's trace function again as the program goes on, so a watch set from here would miss its "
                "writes; stop in a function it calls and watch it there (frame @f1…), or run the program on Python "
                "3.12+"
            )
        w = Watch(bp_id, frame, "local", name, expression, condition, log_only, frame.f_globals)
        w.writes = _store_lines(code, name)
        w.value = w.read()
        tracer = _frames.get(id(frame))
        if tracer is None:
            tracer = _frames[id(frame)] = FrameTracer(frame)
        tracer.watches.append(w)
        return w, f"local {name!r} of {code.co_name} (frame at {id(frame):#x}; ends when it returns)", MISSED_LOCAL
    if name not in frame.f_globals:
        raise Refused(f"{name} is neither a local of this frame nor a global of its module")
    return _watch_dict(bp_id, frame.f_globals, name, expression, condition, log_only, "global", frame.f_globals)


def _in_trace_call(frame):
    """Whether `frame` is in the middle of a call to its trace function (pydevd's, stopped in it): what that call
    returns becomes the frame's f_trace when it ends (Python 3.11)."""
    db = _debugger()
    child = _getframe(1)
    while child is not None and child.f_back is not frame:
        child = child.f_back
    if child is None or db is None:
        return False
    try:
        return db.get_file_type(child) == db.PYDEV_FILE
    except Exception:
        return True


def _shares_an_objects_values(d):
    """Whether `d` is a split dict (its values kept apart from its keys: an instance's __dict__, whose values
    Python 3.13+ embeds in the object and writes there without the dict seeing it). ma_values is PyDictObject's last
    field; conservative: any split dict is said to."""
    import ctypes

    return ctypes.c_void_p.from_address(id(d) + dict.__basicsize__ - ctypes.sizeof(ctypes.c_void_p)).value is not None


def _watch_dict(bp_id, target, key, expression, condition, log_only, what, scope):
    if not DICT_WATCHERS:
        raise Refused(
            f"a {what} is stored in a built-in dict, which Python {sys.version_info[0]}.{sys.version_info[1]} writes "
            "without running any code a watch could catch (CPython's dict watchers arrived in 3.12: run the program "
            "on Python 3.12+ to watch it)"
        )
    if sys.version_info >= (3, 13) and _shares_an_objects_values(target):
        raise Refused(
            "this dict is an object's __dict__: Python 3.13+ writes the object's attributes into the object's own "
            "storage without the dict seeing them; watch the attribute (obj.name) instead"
        )
    w = Watch(bp_id, target, "dict", key, expression, condition, log_only, scope)
    w.key_address = id(key)  # the watch holds the key: its address stays its own
    _dicts().watch(w)
    if what == "global":
        name = scope.get("__name__", "?")
        return w, f"global {key!r} of module {name} (its dict at {id(target):#x})", MISSED_DICT
    return (
        w,
        f"item {key!r} of {type(target).__module__}.{type(target).__qualname__} object at {id(target):#x}",
        (MISSED_DICT),
    )


# ----- what pairdbg calls (by evaluate) ----------------------------------------------------------------------------


def setup():
    """Keep steps and pydevd's tracing out of this file (its frames are debugger frames, like pydevd's own)."""
    try:
        from _pydevd_bundle import pydevd_dont_trace_files

        pydevd_dont_trace_files.DONT_TRACE["pairdbg_datawatch.py"] = pydevd_dont_trace_files.PYDEV_FILE
    except ImportError:
        pass
    import os

    if hasattr(os, "register_at_fork"):
        # A forked child is a session of its own, which set none of these: its copy of the parent's objects must
        # not report (or stop) under the parent's ids.
        os.register_at_fork(after_in_child=_forget_all)


def _forget_all():
    for bp_id in list(watches):
        try:
            unwatch(bp_id)
        except Exception:
            watches.pop(bp_id, None)


def watch(bp_id, target, kind, key, expression, condition=None, log_only=False, frame_id=None):
    """Arm a watch; a dict saying what is watched and what it misses, or {"refused": reason}. `kind` is "attr",
    "item" or "name" (a bare name: a local of frame `frame_id`, else a global of its module)."""
    try:
        scope = _getframe(1).f_globals
        if kind == "name":
            w, watching, missed = _watch_name(bp_id, key, expression, condition, log_only, frame_id)
        elif kind == "item" and isinstance(target, dict) and (DICT_WATCHERS or type(target) is dict):
            w, watching, missed = _watch_dict(bp_id, target, key, expression, condition, log_only, "dict item", scope)
        elif kind == "attr" and isinstance(target, type(sys)):
            w, watching, missed = _watch_dict(
                bp_id, target.__dict__, key, expression, condition, log_only, "global", target.__dict__
            )
        else:
            w = None
    except Refused as exc:
        return {"refused": str(exc)}
    except SyntaxError as exc:
        return {"refused": f"the condition is not a Python expression ({exc.msg})"}
    if w is not None:
        watches[bp_id] = w
        return {"watching": watching, "value": _show(w.read()), "missed": missed}
    try:
        cls = _check(target, kind, key)
        w = Watch(bp_id, target, kind, key, expression, condition, log_only, scope)
    except Refused as exc:
        return {"refused": str(exc)}
    except SyntaxError as exc:
        return {"refused": f"the condition is not a Python expression ({exc.msg})"}
    names = ("__setattr__", "__delattr__") if kind == "attr" else ("__setitem__", "__delitem__")
    wrapping = _wrapped.get(cls)
    if wrapping is None:
        wrapping = Wrapping(cls, names)
        try:
            wrapping.install()
        except Exception as exc:  # e.g. an immutable type a C extension made
            return {"refused": f"{cls.__qualname__}'s {names[0]} cannot be replaced ({exc})"}
        _wrapped[cls] = wrapping
    wrapping.by_object.setdefault(id(target), {}).setdefault(key, []).append(w)
    watches[bp_id] = w
    missed = (
        MISSED
        if kind == "attr"
        else f"writes {cls.__qualname__}'s own methods make to its storage without {names[0]}/{names[1]}, and {MISSED}"
    )
    return {
        "watching": f"{kind} {key!r} of {cls.__module__}.{cls.__qualname__} object at {id(target):#x}",
        "value": _show(w.read()),
        "missed": missed,
    }


def _check(target, kind, key):
    cls = type(target)
    if isinstance(target, type):
        raise Refused(
            f"{target.__qualname__} is a class: a class attribute is written into the class's own "
            "dict without Python code to catch it; watch an instance's attribute"
        )
    if isinstance(target, list) and kind == "item":
        raise Refused(
            "a list's items are written by CPython's list code (append, slice assignment, sort, +=, del) and "
            "CPython offers no hook on a list's writes; watch an attribute or a dict item that holds the value"
        )
    if not cls.__flags__ & HEAP_TYPE:
        raise Refused(
            f"a {cls.__qualname__} is a built-in type: CPython writes its "
            f"{'items' if kind == 'item' else 'attributes'} without running Python code, so no write to "
            "it can be caught; watch an attribute of an object of a class written in Python"
        )
    if kind == "attr":
        if dataclasses.is_dataclass(target) and target.__dataclass_params__.frozen:
            raise Refused(
                f"{cls.__qualname__} is a frozen dataclass: its fields are written once by "
                "object.__setattr__ in __init__ and cannot change after"
            )
        for base in cls.__mro__:
            descriptor = base.__dict__.get(key)
            if descriptor is not None and not base.__flags__ & HEAP_TYPE and hasattr(descriptor, "__set__"):
                raise Refused(
                    f"{key} is a field of the built-in type {base.__qualname__}, which its C code writes directly"
                )
        return cls
    for base in cls.__mro__[:-1]:
        if not base.__flags__ & HEAP_TYPE:
            raise Refused(
                f"{cls.__qualname__} is built on the built-in {base.__qualname__}, whose own methods "
                "(update, setdefault, …) write items without calling __setitem__"
            )
    write = getattr(cls, "__setitem__", None)
    if write is None:
        raise Refused(f"a {cls.__qualname__} has no __setitem__: its items are not written by assignment")
    return cls


def unwatch(bp_id):
    w = watches.pop(bp_id, None)
    if w is None:
        return False
    if w.kind == "dict":
        _dicts().unwatch(w)
        return True
    if w.kind == "local":
        tracer = _frames.get(id(w.target))
        if tracer is not None and w in tracer.watches:
            tracer.watches.remove(w)
            if not tracer.watches:
                tracer.release()
        return True
    cls = type(w.target)
    wrapping = _wrapped.get(cls)
    if wrapping is not None:
        keys = wrapping.by_object.get(id(w.target), {})
        group = keys.get(w.key, [])
        if w in group:
            group.remove(w)
        if not group:
            keys.pop(w.key, None)
        if not keys:
            wrapping.by_object.pop(id(w.target), None)
        if not wrapping.by_object:
            wrapping.uninstall()
            del _wrapped[cls]
    return True


def update(bp_id, enabled=None, condition=None):
    w = watches.get(bp_id)
    if w is None:
        return {"refused": f"{bp_id} is not armed in the program"}
    if condition is not None:
        try:
            w.test = _condition(condition, w.scope)
        except SyntaxError as exc:
            return {"refused": f"the condition is not a Python expression ({exc.msg})"}
    if enabled is not None:
        w.enabled = enabled
    return {"ok": True}


setup()
