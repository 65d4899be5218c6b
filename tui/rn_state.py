"""The state of a stream right after a given seq, built from the two tools the agent also has: one snapshot
(`debug_get_snapshot`, cached per stream because the state at a seq never changes) and the diff from the snapshot's
seq to the chosen one (`debug_diff_snapshots`), applied as RFC 6902 operations. No widget code here."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pairdbg.backends.errors import DebugError, ErrorCode
from pairdbg.backends.rn.jsondoc import PatchError, apply_patch, parse_path, pointer

Runner = Callable[[str, dict[str, Any]], Awaitable[Any]]
OP = {"added": "add", "removed": "remove", "changed": "replace"}


def has_marker(value: Any) -> bool:
    """True when a value carries a `$trunc` preview somewhere (the diff tool caps big values)."""
    if isinstance(value, dict):
        return "$trunc" in value or any(has_marker(v) for v in value.values())
    if isinstance(value, list):
        return any(has_marker(v) for v in value)
    return False


def apply_changes(state: Any, changes: list[dict[str, Any]]) -> Any:
    """The state after the diff tool's changes (path in dots/brackets, type added/removed/changed)."""
    ops = []
    for c in changes:
        op: dict[str, Any] = {"op": OP[c["type"]], "path": pointer(parse_path(c.get("path") or ""))}
        if op["op"] != "remove":
            op["value"] = c.get("newValue")
        ops.append(op)
    return apply_patch(state, ops)


class StateBuilder:
    def __init__(self, run: Runner) -> None:
        self.run = run
        self.bases: dict[str, tuple[int, Any]] = {}  # stream → (seq, state) of the last snapshot fetched

    def forget(self) -> None:
        self.bases.clear()

    async def _snapshot(self, stream: str) -> tuple[int, Any]:
        try:
            data = (await self.run("debug_get_snapshot", {"stream": stream})).data
        except DebugError as exc:
            # The app left: no state of the app now, but its last one (kept under `stale`) is still the state at its
            # seq, a base for the history the mirror keeps.
            stale = exc.data.get("stale") if exc.code == ErrorCode.NOT_CONNECTED else None
            if not isinstance(stale, dict) or "data" not in stale:
                raise
            data = stale
        if not isinstance(data.get("seq"), int):
            raise DebugError(
                ErrorCode.STREAM_UNAVAILABLE,
                f"the {stream} snapshot has no seq",
                hint="wait for the app's next snapshot",
            )
        self.bases[stream] = (data["seq"], data["data"])
        return self.bases[stream]

    async def state_at(self, stream: str, seq: int) -> tuple[Any, str | None]:
        """(state, note): note says when the state is partial. Raises DebugError with the tools' codes."""
        cached = stream in self.bases
        base_seq, base = self.bases[stream] if cached else await self._snapshot(stream)
        if seq == base_seq:
            return base, None
        try:
            diff = await self._diff(stream, base_seq, seq)
        except DebugError as exc:
            if not cached or exc.code != ErrorCode.SNAPSHOT_NOT_FOUND:
                raise
            base_seq, base = await self._snapshot(stream)  # the cached base left the mirror: take a fresh one
            if seq == base_seq:
                return base, None
            diff = await self._diff(stream, base_seq, seq)
        if diff.get("truncated") and cached:
            fresh_seq, fresh = await self._snapshot(stream)  # a newer base may be much closer to the seq
            if fresh_seq != base_seq:
                base_seq, base = fresh_seq, fresh
                if seq == base_seq:
                    return base, None
                diff = await self._diff(stream, base_seq, seq)
        try:
            state = apply_changes(base, diff.get("changes", []))
        except (PatchError, KeyError, ValueError) as exc:
            raise DebugError(
                ErrorCode.SNAPSHOT_NOT_FOUND,
                f"could not rebuild the state at seq {seq}: {exc}",
                hint="use the diff (b/t) to see what changed instead",
            ) from None
        notes = []
        if diff.get("truncated"):
            notes.append(
                f"partial: {len(diff.get('changes', []))} of {diff.get('totalChanges')} changes from "
                f"seq {base_seq} applied"
            )
        if has_marker(state):
            notes.append("some large values are previews ($trunc)")
        return state, "; ".join(notes) or None

    async def _diff(self, stream: str, base_seq: int, seq: int) -> dict[str, Any]:
        reply = await self.run("debug_diff_snapshots", {"stream": stream, "base_seq": base_seq, "target_seq": seq})
        return reply.data
