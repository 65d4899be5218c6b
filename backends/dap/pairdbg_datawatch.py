"""Data breakpoints in a debugpy program: pairdbg's helper, run inside the debuggee (standard library and pydevd only).

pairdbg sends this file's source with an evaluate the first time a data breakpoint is set and keeps it as module
`pairdbg_datawatch`. CPython has no hook on a plain write, so a watch catches only writes that run Python code it can
wrap:
- an attribute of an instance of a class written in Python: the class's `__setattr__`/`__delattr__` are wrapped by
  functions that let every other instance through at once (one dict lookup) and compare the watched attribute's value
  before and after. `type(obj)`, `isinstance`, pickling and `__slots__` are untouched; removing the last watch on a
  class puts its own methods back.
- an item of a container class written in Python whose every base but `object` is too (a `MutableMapping` such as
  requests' `CaseInsensitiveDict`): its `__setitem__`/`__delitem__` are wrapped the same way, so `update`, `pop`,
  `setdefault` and `+=` (which go through them) are caught.
Everything else (a built-in dict or list, a module global, a local, a frozen dataclass, a C type) is refused with the
reason, never armed for writes it would miss. What an armed watch still cannot see is said when it is set: writes
through `object.__setattr__`, `obj.__dict__`/`vars(obj)`, C code and ctypes.

A change with its condition true stops the program in the frame that wrote it (pydevd suspends with that frame on
top, so this file's frames are never shown) after sending a `pairdbgDataChange` event that names it; a log-only
watch sends the event and goes on. This file is in pydevd's DONT_TRACE list: steps never enter it.
"""

import dataclasses
import sys
import threading
import time
from sys import _getframe

EVENT = "pairdbgDataChange"
HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement (or a C extension's heap type)
VALUE_CHARS = 120  # like the stop report's locals
MAX_EVENTS = 10_000  # per watch: later changes are counted, not sent (a hot loop would flood the connection)
MISSED = "writes through object.__setattr__, obj.__dict__ or vars(obj), C code and ctypes"
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
        self.kind = kind  # "attr" or "item"
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
                    _changed(keys[name], old, new, _getframe(1))

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


def _changed(ws, old, new, frame):
    for w in ws:
        if not w.enabled or w.id not in watches:
            continue
        try:
            if new == old and type(new) is type(old):
                continue
        except Exception:
            pass
        if w.test is not None:
            try:
                if not w.test(None if new is UNSET else new, None if old is UNSET else old):
                    continue
            except Exception as exc:
                _send(
                    w, old, new, _shown_frame(frame), stop=False, note=f"condition raised {type(exc).__name__}: {exc}"
                )
                continue
        # The writer may be a library method called from the user's code (update() calling __setitem__): the stop
        # and the log name the frame pydevd shows, the nearest one it does not hide.
        shown = _shown_frame(frame)
        w.changes += 1
        _send(w, old, new, shown, stop=not w.log_only)
        if not w.log_only:
            _suspend(shown)


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


def _send(w, old, new, frame, stop, note=None):
    if w.sent >= MAX_EVENTS and not stop:
        return
    w.sent += 1
    body = {
        "id": w.id,
        "expression": w.expression,
        "old": _show(old),
        "new": _show(new),
        "time": time.time(),
        "thread": threading.current_thread().name,
        "file": frame.f_code.co_filename,
        "line": frame.f_lineno,
        "function": frame.f_code.co_name,
        "stop": stop,
        "changes": w.changes,
    }
    if note:
        body["note"] = note
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


# ----- what pairdbg calls (by evaluate) ----------------------------------------------------------------------------


def setup():
    """Keep steps and pydevd's tracing out of this file (its frames are debugger frames, like pydevd's own)."""
    try:
        from _pydevd_bundle import pydevd_dont_trace_files

        pydevd_dont_trace_files.DONT_TRACE["pairdbg_datawatch.py"] = pydevd_dont_trace_files.PYDEV_FILE
    except ImportError:
        pass


def watch(bp_id, target, kind, key, expression, condition=None, log_only=False):
    """Arm a watch; a dict saying what is watched and what it misses, or {"refused": reason}."""
    try:
        cls = _check(target, kind, key)
        w = Watch(bp_id, target, kind, key, expression, condition, log_only, _getframe(1).f_globals)
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
    if type(target).__name__ == "module" and isinstance(target, type(sys)):
        raise Refused(
            "a module global is written straight into the module's dict (by `global` assignments and "
            "imports), which runs no Python code to catch it"
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
