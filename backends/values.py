"""Values of a session: the ValueInspector (locals, evaluate, children, set variable) and the WatchList."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .base import RawScope, RawValue
from .errors import DebugError, ErrorCode, check_length, program_exception
from .handles import VarRef
from .models import Phase, VariableView, WatchView
from .stops import cap_text

if TYPE_CHECKING:
    from .base import Backend, Debugger
    from .handles import Handles
    from .limits import Limits

EVALUATE_CHARS = 4000  # of an evaluated value's text; the reply says the whole length when it is cut
WATCH_TIMEOUT_S = 1.0  # per watch, when a stop report is built
WATCH_BUDGET_S = 2.0  # for all watches of one stop report


@dataclass
class Watch:
    id: str
    expression: str
    last: str | None = None
    added_by: str = "human"  # the actor who added it: the person's and agents' watches are one list


class ValueInspector:
    """Frames and values of the current stop through the session's handles: what an actor reads and changes."""

    def __init__(
        self,
        backend: Backend,
        handles: Handles,
        limits: Limits,
        phase: Callable[[], Phase],
        require_paused: Callable[[], None],
        require_live: Callable[[], None],
    ) -> None:
        self.backend = backend
        self.handles = handles
        self.limits = limits
        # The session's phase and its guards (they raise NOT_PAUSED or the "has ended" error).
        self._phase = phase
        self._require_paused = require_paused
        self._require_live = require_live

    def value_view(self, raw: RawValue, parent_ref: int, frame_id: int | None, cap: int | None = None) -> VariableView:
        cap = cap or self.limits.value_chars
        value = raw.value
        truncated = len(value) > cap
        if truncated:
            value = value[: cap - 1] + "…"
        handle = None
        if raw.ref:
            handle = self.handles.var(VarRef(raw.ref, raw.name, parent_ref, raw.evaluate_name, frame_id))
        return VariableView(handle=handle, name=raw.name, type=raw.type, value=value, truncated=truncated)

    async def frame_locals(
        self, frame_id: int, limit: int, include_special: bool = False, scopes: list[RawScope] | None = None
    ) -> tuple[list[VariableView], int]:
        """The first scope's values of a frame (its scopes fetched unless given, e.g. from the stop's snapshot)."""
        debugger = self.backend.debugger("has no frames")
        scopes = await debugger.scopes(frame_id) if scopes is None else scopes
        if not scopes:
            return [], 0
        scope = scopes[0]
        raws = await debugger.variables(scope.ref)
        raws = [r for r in raws if include_special or not (r.special or _is_special(r.name))]
        return [self.value_view(r, scope.ref, frame_id) for r in raws[:limit]], len(raws)

    async def evaluate(self, expression: str, frame: str | None, by_value: bool = False) -> VariableView:
        """In a frame of the paused program; or globally (frame="global", or any time the program runs) where the
        backend can. Values evaluated while the program runs get no handle: it could not outlive the next pause."""
        check_length("expression", expression, self.limits.max_expression)
        global_ok = self.backend.features.global_evaluate
        if frame == "global" or (self._phase() == Phase.RUNNING and global_ok and frame is None):
            if not global_ok:
                raise self.backend.unsupported("cannot evaluate globally", hint="pause first and evaluate in a frame")
            self._require_live()
            frame_id = None
        else:
            self._require_paused()
            frame_id = self.handles.frame_id(frame)
        try:
            raw = await self.backend.evaluate(expression, frame_id, context="repl", by_value=by_value)
        except DebugError as exc:
            if exc.code == ErrorCode.PROTOCOL_ERROR:
                raised = raised_exception(exc.message)
                data = {"raised": raised} if raised else {}
                raise DebugError(
                    ErrorCode.PROTOCOL_ERROR,
                    f"evaluating {expression!r} failed: {_last_line(exc.message)}",
                    hint="the debugger could not run the expression; get_call_stack shows the frames it can use",
                    detail=exc.message,
                    **data,
                ) from None
            raise
        if self._phase() != Phase.PAUSED:
            raw.ref = 0
        if raw.ref and raw.type in _NESTABLE and _CUT_NESTING.search(raw.value):
            raw.value = await self._one_level_deeper(raw, EVALUATE_CHARS) or raw.value
        view = self.value_view(raw, 0, frame_id, cap=EVALUATE_CHARS)
        if view.truncated:
            view.length = len(raw.value)
        return view

    async def _one_level_deeper(self, raw: RawValue, cap: int) -> str | None:
        """debugpy writes containers nested past two levels as [...]/{...}; its children's own texts go a level
        further. Joined back, within `cap` (None when it does not fit or is not a plain container)."""
        children = await self.backend.debugger("has no values to expand").variables(raw.ref)
        if any(c.name in ("more", "Unable to handle:") for c in children):
            return None
        items = [c for c in children if c.name not in _NOT_ITEMS]
        if raw.type == "dict":
            parts = [f"{c.name}: {c.value}" for c in items]
            text = "{" + ", ".join(parts) + "}"
        elif raw.type == "list":
            text = "[" + ", ".join(c.value for c in items) + "]"
        else:
            text = "(" + ", ".join(c.value for c in items) + ("," if len(items) == 1 else "") + ")"
        return text if len(text) <= cap else None

    async def children(
        self, handle: str, start: int, count: int, names: list[str] | None
    ) -> tuple[list[VariableView], int]:
        """Children of a @vN, paged. A sized container (debugpy's "len()" child) pages through its real items,
        also past what debugpy lists (500 dict entries, 100 list items): those pages are evaluated as slices."""
        self._require_paused()
        ref = self.handles.variable(handle)
        if not ref.ref:
            raise DebugError(ErrorCode.INVALID_PARAMETERS, f"{handle} ({ref.name}) has no children to list")
        raws = await self.backend.debugger("has no values to expand").variables(ref.ref)
        size = _container_size(raws)
        if size is None:  # not a sized container: debugpy's children as they are
            if names:
                raws = _pick(raws, names)
            return [self.value_view(r, ref.ref, ref.frame_id) for r in raws[start : start + count]], len(raws)
        listed = [r for r in raws if r.name not in _NOT_ITEMS and not (r.name == "more" and _is_bucket(r))]
        if names:
            picked = _pick(listed, names)
            if len(picked) < len(set(names)) and len(listed) < size and ref.evaluate_name:
                picked += await self._lookup(ref, [n for n in names if not _pick(picked, [n])])
            return [self.value_view(r, ref.ref, ref.frame_id) for r in picked[start : start + count]], len(picked)
        end = min(start + count, size)
        if end <= len(listed):
            return [self.value_view(r, ref.ref, ref.frame_id) for r in listed[start:end]], size
        if not ref.evaluate_name:
            raise DebugError(
                ErrorCode.CAPABILITY_UNSUPPORTED,
                f"{handle} ({ref.name}) has {size} items but the debugger lists only the first {len(listed)}, and "
                "it has no expression to page the rest by",
                hint=f"pass start < {len(listed)}, or evaluate_expression a slice of the value",
            )
        views: list[VariableView] = []
        for lo in range(start, end, _PAGE_CHUNK):
            views += await self._slice(ref, lo, min(lo + _PAGE_CHUNK, end), size)
        return views, size

    async def _slice(self, ref: VarRef, lo: int, hi: int, size: int) -> list[VariableView]:
        """Items lo..hi of a container past debugpy's listing, named as debugpy names them in the whole."""
        container = ref.evaluate_name
        expr = (
            "(lambda o, s, e: dict(__import__('itertools').islice(o.items(), s, e)) if isinstance(o, dict) "
            f"else list(__import__('itertools').islice(iter(o), s, e)))({container}, {lo}, {hi})"
        )
        page = await self.backend.evaluate(expr, ref.frame_id, context="watch")
        if not page.ref:
            return []
        raws = await self.backend.debugger("has no values to expand").variables(page.ref)
        items = [r for r in raws if r.name not in _NOT_ITEMS and not (r.name == "more" and _is_bucket(r))]
        width = len(str(size - 1))
        for i, raw in enumerate(items):
            if page.type != "dict":  # a list's item: its index in the whole, as debugpy writes it
                raw.name = f"{lo + i:0{width}d}"
                raw.evaluate_name = f"({container})[{lo + i}]"
            elif raw.evaluate_name and raw.evaluate_name.startswith(expr):
                raw.evaluate_name = f"({container})" + raw.evaluate_name[len(expr) :]
        return [self.value_view(r, page.ref, ref.frame_id) for r in items]

    async def _lookup(self, ref: VarRef, names: list[str]) -> list[RawValue]:
        """Keys (plain or as reprs) of a mapping too big for debugpy to list, looked up in the program."""
        keys = sorted({repr(k) for n in names for k in _key_candidates(n)})
        expr = (
            f"(lambda o: {{k: o[k] for k in ({', '.join(keys)},) if k in o}} if isinstance(o, dict) else {{}})"
            f"({ref.evaluate_name})"
        )
        page = await self.backend.evaluate(expr, ref.frame_id, context="watch")
        if not page.ref:
            return []
        raws = await self.backend.debugger("has no values to expand").variables(page.ref)
        found = [r for r in raws if r.name not in _NOT_ITEMS and not (r.name == "more" and _is_bucket(r))]
        for raw in found:
            if raw.evaluate_name and raw.evaluate_name.startswith(expr):
                raw.evaluate_name = f"({ref.evaluate_name})" + raw.evaluate_name[len(expr) :]
        return found

    async def full_text(self, container: str, name: str) -> tuple[str, str | None]:
        """The whole text of child `name` of a @vN container (a scope or an object), as the debugger writes it for
        copying, and the expression that reads it (None when the debugger gives none)."""
        raw, ref = await self._child(container, name)
        if raw.evaluate_name:
            with contextlib.suppress(DebugError):  # the listed text is the answer when this fails
                whole = await self.backend.evaluate(raw.evaluate_name, ref.frame_id, context="clipboard")
                return whole.value, raw.evaluate_name
        return raw.value, raw.evaluate_name

    async def expression_of(self, container: str, name: str) -> str | None:
        """The expression that reads child `name` of a @vN container (`cart.total`), without reading its value;
        None when the debugger gives none."""
        raw, _ = await self._child(container, name)
        return raw.evaluate_name

    async def _child(self, container: str, name: str) -> tuple[RawValue, VarRef]:
        self._require_paused()
        ref = self.handles.variable(container)
        if not ref.ref:
            raise DebugError(ErrorCode.INVALID_PARAMETERS, f"{container} ({ref.name}) has no children")
        raws = await self.backend.debugger("has no values to read").variables(ref.ref)
        raw = next((r for r in raws if r.name == name), None)
        if raw is None:
            raise DebugError(ErrorCode.PATH_NOT_FOUND, f"no {name!r} in {container} ({ref.name}) any more")
        return raw, ref

    async def set_variable(self, name: str, value: str, ref_handle: str | None, frame: str | None) -> VariableView:
        check_length("value", value, self.limits.max_expression)
        self._require_paused()
        debugger = self.backend.debugger("cannot set variables")
        if not debugger.features.set_variable:
            raise debugger.unsupported("cannot set variables")
        if ref_handle:
            container = self.handles.variable(ref_handle)
            if not container.ref:
                raise DebugError(
                    ErrorCode.INVALID_PARAMETERS, f"{ref_handle} is not a container; pass the frame instead"
                )
            parent, frame_id = container.ref, container.frame_id
        else:
            frame_id = self.handles.frame_id(frame)
            parent = 0
            for scope in await debugger.scopes(frame_id):
                if any(v.name == name for v in await debugger.variables(scope.ref)):
                    parent = scope.ref
                    break
            if not parent:
                raise DebugError(
                    ErrorCode.PATH_NOT_FOUND,
                    f"no variable {name!r} in frame {frame or '@f0'}",
                    hint="call get_local_variables to see the names",
                )
        before = None
        if debugger.set_variable_fails_silently:
            await self._check_value(debugger, name, value, frame_id)
            before = next((r.value for r in await debugger.variables(parent) if r.name == name), None)
        try:
            raw = await debugger.set_variable(parent, name, value)
        except DebugError as exc:
            if exc.code == ErrorCode.PROTOCOL_ERROR:
                raise DebugError(
                    ErrorCode.INVALID_PARAMETERS, f"could not set {name}: {_last_line(exc.message)}"
                ) from None
            raise
        if before is not None and raw.value == before:
            # Unchanged: either the value was the same, or the debugger kept the old one because the new one raised.
            await self._check_value(debugger, name, value, frame_id, run=True)
        return self.value_view(raw, parent, frame_id)

    async def _check_value(
        self, debugger: Debugger, name: str, value: str, frame_id: int | None, run: bool = False
    ) -> None:
        """For a debugger that keeps the old value when the new one fails (debugpy): does `value` parse (not
        run), or with `run`, evaluate it; its exception becomes this set's error."""
        try:
            await debugger.check_value(value, frame_id, run)
        except DebugError as exc:
            if exc.code != ErrorCode.PROTOCOL_ERROR:
                raise
            raised = raised_exception(exc.message) or _last_line(exc.message)
            raised = re.sub(r" \(<string>, line \d+\)$", "", raised)  # a line of pairdbg's wrapping, not theirs
            raise DebugError(
                ErrorCode.INVALID_PARAMETERS,
                f"could not set {name}: {raised}",
                hint="give a value the program's language can evaluate in that frame",
                raised=raised,
            ) from None


class WatchList(Mapping[str, Watch]):
    """A session's watch expressions by id, each evaluated at every stop (within a time budget)."""

    def __init__(self, backend: Backend, limits: Limits) -> None:
        self.backend = backend
        self.limits = limits
        self._by_id: dict[str, Watch] = {}
        self._seq = 0

    def __getitem__(self, watch_id: str) -> Watch:
        return self._by_id[watch_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def add(self, expression: str, added_by: str = "human") -> Watch:
        check_length("expression", expression, self.limits.max_expression)
        if not expression.strip():
            raise DebugError(ErrorCode.INVALID_PARAMETERS, "a watch needs an expression", hint="e.g. len(items)")
        if len(self._by_id) >= self.limits.max_watches:
            raise DebugError(ErrorCode.LIMIT_EXCEEDED, f"at most {self.limits.max_watches} watches")
        self._seq += 1
        watch = Watch(f"W{self._seq}", expression.strip(), added_by=added_by)
        self._by_id[watch.id] = watch
        return watch

    def carry(self, previous: WatchList) -> None:
        """A restarted program's watches: the same ids, expressions and authors, evaluated afresh at its first stop."""
        self._seq = previous._seq
        self._by_id = {w.id: Watch(w.id, w.expression, added_by=w.added_by) for w in previous.values()}

    def get_watch(self, watch_id: str) -> Watch:
        watch = self._by_id.get(watch_id.strip().upper())
        if watch is None:
            raise DebugError(
                ErrorCode.PATH_NOT_FOUND,
                f"no watch {watch_id} (have: {', '.join(self._by_id) or 'none'})",
                hint="list_watches shows them",
            )
        return watch

    def edit(self, watch_id: str, expression: str) -> Watch:
        """Change a watch's expression; it keeps its id and place, and its changed marker starts over."""
        check_length("expression", expression, self.limits.max_expression)
        if not expression.strip():
            raise DebugError(ErrorCode.INVALID_PARAMETERS, "a watch needs an expression", hint="remove_watch drops one")
        watch = self.get_watch(watch_id)
        watch.expression, watch.last = expression.strip(), None
        return watch

    def remove(self, watch_id: str) -> Watch:
        watch = self.get_watch(watch_id)
        del self._by_id[watch.id]
        return watch

    async def evaluate_all(self, frame_id: int | None) -> list[WatchView]:
        """Watches for a stop report, within a time budget: a slow watch must not hold the stop back."""
        views = []
        deadline = asyncio.get_running_loop().time() + WATCH_BUDGET_S
        for watch in self._by_id.values():
            left = deadline - asyncio.get_running_loop().time()
            views.append(await self.evaluate(watch, frame_id, max(0.05, min(WATCH_TIMEOUT_S, left))))
        return views

    async def evaluate(
        self, watch: Watch, frame_id: int | None, timeout: float = 10.0, remember: bool = True
    ) -> WatchView:
        """A watch's value in a frame. `remember` (a stop's own evaluation, in its top frame) makes it the value the
        next stop's is compared with; a look from another frame compares without changing it."""
        error = False
        try:
            raw = await asyncio.wait_for(self.backend.evaluate(watch.expression, frame_id, context="watch"), timeout)
            value = raw.value
        except TimeoutError:
            value, error = f"(not evaluated: took over {timeout:.1f}s)", True
        except DebugError as exc:
            value = program_exception(exc) or raised_exception(exc.message) or _first_line(exc.message)
            error = True
        if len(value) > self.limits.value_chars:
            value = value[: self.limits.value_chars - 1] + "…"
        changed = remember and watch.last is not None and value != watch.last
        if remember:
            watch.last = value
        return WatchView(
            id=watch.id,
            expression=cap_text(watch.expression, 120),
            value=value,
            changed=changed,
            error=error,
            added_by=watch.added_by,
        )


# debugpy's children of a container that are not its items: groups, its size, and the "too many" markers.
_NOT_ITEMS = frozenset({"special variables", "function variables", "class variables", "len()", "Unable to handle:"})
_PAGE_CHUNK = 100  # debugpy lists at most 100 items of an evaluated list slice
_NESTABLE = ("dict", "list", "tuple")
_CUT_NESTING = re.compile(r"\[\.\.\.\]|\{\.\.\.\}|\(\.\.\.\)")  # debugpy's mark for a level it did not write


def _container_size(raws: list[RawValue]) -> int | None:
    """A container's real size from debugpy's "len()" child (None for anything else)."""
    for raw in raws:
        if raw.name == "len()" and raw.value.isdigit():
            return int(raw.value)
    return None


def _is_bucket(raw: RawValue) -> bool:
    return (raw.type or "").startswith("MoreItems")


def _key_candidates(name: str) -> list[object]:
    """What a name given for a child may mean: the plain key ("key5") or a repr ("'key5'", "5")."""
    out: list[object] = [name]
    with contextlib.suppress(ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        value = ast.literal_eval(name)
        if isinstance(value, str | int | float | bool | bytes | tuple) or value is None:
            out.append(value)
    return out


def _pick(raws: list[RawValue], names: list[str]) -> list[RawValue]:
    """Children named by their shown name or by the plain key it is the repr of, in the order listed."""
    wanted = set(names) | {repr(n) for n in names}
    return [r for r in raws if r.name in wanted]


def _is_special(name: str) -> bool:
    return (name.startswith("__") and name.endswith("__")) or name in ("special variables", "function variables")


# The last line of a Python traceback or the first of a JavaScript error: `ZeroDivisionError: division by zero`.
_RAISED = re.compile(
    r"^(?:Uncaught )?([A-Za-z_$][\w.$]*(?:Error|Exception|Warning|Exit|Interrupt|Iteration)|Error)(?::\s?(.*))?$"
)


def raised_exception(message: str) -> str | None:
    """The exception an evaluation raised in the program (`NameError: name 'x' is not defined`), when the
    debugger's failure message is one (a traceback or a JavaScript error line); None for any other failure."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    candidates = lines[-1:] if lines and lines[0].startswith("Traceback") else lines[:1]
    for line in candidates:
        if _RAISED.match(line):
            return line
    return None


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else text
