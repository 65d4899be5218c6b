"""Child processes pairdbg owns: each starts in a process group of its own and is ended as a group, TERM then KILL,
then reaped, so nothing it started outlives pairdbg (ARCHITECTURE.md invariant 9).

A process group is not enough: a program's child that calls setsid() and forks again (a daemon) leaves the group,
and one that clears its environment loses pairdbg's mark. So on Linux pairdbg and every process it starts are child
subreapers (PR_SET_CHILD_SUBREAPER): an orphan is re-parented to the nearest of them instead of to init, and stays in
the tree. `Lineage` remembers every process seen under each started process (read from /proc when a session
closes, when the process is ended and every WATCH_S while it runs; and, when the process exits, the daemons it
orphaned onto pairdbg at that moment, and the setsid()'d processes it left, which may orphan a daemon only later),
and ending a started process ends what was seen under it too.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

PR_SET_CHILD_SUBREAPER = 36
WATCH_S = 0.5  # how often the trees of running started processes are read (one /proc scan, ~3 ms)
ORPHAN_GRACE_S = 30.0  # how long an exited started process may still claim what it orphaned (via a middle process)


def _load_prctl() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()
log = logging.getLogger(__name__)

# cgroup.procs of pairdbg's own cgroup (see Reaper) while it has one: every process `spawn` starts joins it before
# it execs, so whatever it forks is in it too, whatever it does to its session or environment.
_cgroup_procs: bytes | None = None
# pairdbg's own children in sessions of their own not started by `spawn` (the Reaper's watchdog): never a middle.
_OWN_HELPERS: set[int] = set()


def become_subreaper() -> bool:
    """Make this process the child subreaper of its descendants (Linux): an orphan is re-parented here instead of
    to init, so a daemonising grandchild stays findable in this process's tree. False where that is not possible."""
    return _PRCTL is not None and _PRCTL(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def _subreaper_then_exec() -> None:
    # Runs in the child between fork and exec; the attribute survives exec, so the adapter or runtime keeps what
    # its program's children orphan inside its own tree for as long as it runs.
    if _PRCTL is not None:
        _PRCTL(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    procs = _cgroup_procs
    if procs is not None:  # joined before exec, so before the child can fork anything
        try:
            fd = os.open(procs, os.O_WRONLY)
            try:
                os.write(fd, str(os.getpid()).encode())
            finally:
                os.close(fd)
        except OSError:
            pass  # removed meanwhile (pairdbg is stopping): the mark and the subreaper still hold


def cgroup_parent() -> str | None:
    """The directory of this process's own cgroup in a hierarchy where pairdbg can count processes: the cgroup v1
    `pids` hierarchy, else the cgroup v2 unified one. None where there is neither (not Linux, no cgroupfs mounted).
    Whether a child cgroup may be made there is another matter (see `make_cgroup`)."""
    try:
        with open("/proc/self/cgroup") as fh:
            own = [line.rstrip("\n").split(":", 2) for line in fh]
        with open("/proc/self/mountinfo") as fh:
            mounts = [line.split() for line in fh]
    except OSError:
        return None
    paths = {
        ("cgroup2" if hier == "0" and not ctl else "pids"): path
        for hier, ctl, path in own
        if (hier == "0" and not ctl) or "pids" in ctl.split(",")
    }
    found: dict[str, tuple[str, str]] = {}
    for fields in mounts:
        if "-" not in fields:
            continue
        after = fields[fields.index("-") + 1 :]
        if len(after) < 3:
            continue
        if after[0] == "cgroup2":
            found.setdefault("cgroup2", (fields[3], fields[4]))
        elif after[0] == "cgroup" and "pids" in after[2].split(","):
            found.setdefault("pids", (fields[3], fields[4]))
    for kind in ("pids", "cgroup2"):  # v1 pids first: where both exist, v2 is usually the hybrid's empty one
        if kind in paths and kind in found:
            root, mountpoint = found[kind]
            path = paths[kind]
            if root != "/" and (path == root or path.startswith(root + "/")):
                path = path[len(root) :]
            elif root != "/":
                continue  # this process's cgroup is outside what is mounted here
            return os.path.join(mountpoint, path.lstrip("/"))
    return None


def make_cgroup(name: str) -> str | None:
    """A child cgroup `name` of this process's own (see `cgroup_parent`), if one may be made and joined; else None
    (non-root, read-only, no cgroupfs), and pairdbg relies on its mark and on being the subreaper alone."""
    parent = cgroup_parent()
    if parent is None:
        log.debug("no pids or unified cgroup hierarchy: started processes are not put in a cgroup")
        return None
    path = os.path.join(parent, name)
    try:
        os.mkdir(path)
    except OSError as e:
        log.debug("cannot make cgroup %s (%s): started processes are not put in one", path, e.strerror)
        return None
    # Joining needs write access to both ends of the move (cgroup v2 checks the common ancestor, here the parent).
    if not (
        os.access(os.path.join(path, "cgroup.procs"), os.W_OK)
        and os.access(os.path.join(parent, "cgroup.procs"), os.W_OK)
    ):
        log.debug("cgroup %s cannot be joined: started processes are not put in it", path)
        remove_cgroup(path)
        return None
    return path


def remove_cgroup(path: str) -> None:
    """Remove an emptied cgroup (a process just killed may still be leaving it: retried briefly)."""
    for _ in range(40):
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.025)
    log.debug("cgroup %s could not be removed", path)


@dataclass(frozen=True)
class ProcInfo:
    ppid: int
    pgrp: int
    start: int  # clock ticks after boot: with the pid, names one process even after the pid is reused
    state: bytes


def proc_info(pid: int) -> ProcInfo | None:
    """One process's parent, group, start time and state, from /proc (None when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        # After the command name: state, ppid, pgrp, session, ... starttime is field 22 (index 19 here).
        return ProcInfo(int(fields[1]), int(fields[2]), int(fields[19]), fields[0])
    except (OSError, IndexError, ValueError):
        return None


def process_table() -> dict[int, ProcInfo]:
    """Every process this one can see, from /proc (empty where there is no /proc)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return {}
    table = {int(entry): proc_info(int(entry)) for entry in entries if entry.isdigit()}
    return {pid: info for pid, info in table.items() if info is not None}


def descendants(root: int | list[int], table: dict[int, ProcInfo]) -> list[int]:
    """Every process under `root` (or under each of several) in `table` (children, their children, ...)."""
    children: dict[int, list[int]] = {}
    for pid, info in table.items():
        children.setdefault(info.ppid, []).append(pid)
    found, todo = [], [kid for top in (root if isinstance(root, list) else [root]) for kid in children.get(top, [])]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


@dataclass
class _Root:
    start: int
    seen: dict[int, int] = field(default_factory=dict)  # pid seen under it -> its start time
    exited_at: float | None = None  # monotonic time it was first found gone
    held: bool = False  # a Leftovers keeps what it leaves: tracked until that ends it, whenever the process exits
    # Processes in sessions of their own that came to pairdbg when it exited (see `_claim_orphans`) -> start time.
    middles: dict[int, int] = field(default_factory=dict)


STARTS_DONE_S = 2.0  # how long a release waits for starts in flight (each takes milliseconds)


class Lineage:
    """What has been seen under each process pairdbg started, kept until that process is ended."""

    def __init__(self) -> None:
        self._roots: dict[int, _Root] = {}
        self._children: set[int] = set()  # pairdbg's own children at the last look
        self._watch: asyncio.Task[None] | None = None
        self._exits: set[asyncio.Task[None]] = set()
        self._spawns = 0  # processes being started: forked, not yet added
        #: pairdbg's new children in a session of their own, seen while a start was in flight: pid -> (start, the
        #: roots that had just exited). Judged at the first look with no start in flight.
        self._undecided: dict[int, tuple[int, list[_Root]]] = {}

    @contextlib.contextmanager
    def spawning(self) -> Iterator[None]:
        """While a process is being started it is pairdbg's child but not yet a root: a look then would take it
        for a middle of a program that just exited, and end it with that program's session. Such a child is judged
        once no start is in flight (the started one is a root by then); the rest of every look happens as usual."""
        self._spawns += 1
        try:
            yield
        finally:
            self._spawns -= 1

    async def look_after_starts(self, timeout_s: float = STARTS_DONE_S) -> None:
        """A look once no process is being started (waiting at most `timeout_s`), for a release: every new child is
        judged by then, a middle among them included."""
        deadline = time.monotonic() + timeout_s
        while self._spawns and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        self.observe()

    async def judge_undecided(self) -> None:
        """Before a release that made no look of its own: the children seen during a start judged (a look once the
        starts are done); nothing when there are none."""
        if self._spawns or self._undecided:
            await self.look_after_starts()

    def add(self, proc: asyncio.subprocess.Process) -> None:
        info = proc_info(proc.pid)
        self._roots[proc.pid] = _Root(info.start if info else -1)
        loop = asyncio.get_running_loop()
        if self._watch is None or self._watch.done() or self._watch.get_loop() is not loop:
            self._watch = loop.create_task(self._watching(), name="process-lineage")
        task = loop.create_task(self._on_exit(proc), name="process-lineage-exit")
        self._exits.add(task)
        task.add_done_callback(self._exits.discard)

    async def _on_exit(self, proc: asyncio.subprocess.Process) -> None:
        await proc.wait()
        self.observe()  # at once: what it orphaned is re-parented to pairdbg now, and is claimed for it

    def observe(self) -> None:
        """Read /proc once: note what runs under each started process, claim for those that have exited the
        daemons they orphaned onto pairdbg, and reap adopted orphans that have exited."""
        if not self._roots:
            self._undecided.clear()
            return
        if self._undecided and not self._spawns:
            for pid, (start, roots) in self._undecided.items():
                if pid not in self._roots:  # not a process pairdbg started: the exited one's middle after all
                    for root in roots:
                        root.middles[pid] = start
            self._undecided.clear()
        table = process_table()
        me = os.getpid()
        exited, just_exited = [], []
        for pid, root in list(self._roots.items()):
            info = table.get(pid)
            if info is None or info.start != root.start or info.state in (b"Z", b"X"):
                now = time.monotonic()
                if root.exited_at is None:
                    root.exited_at = now
                    just_exited.append(root)
                alive = [p for p, start in root.seen.items() if (i := table.get(p)) and i.start == start]
                if not root.held and not alive and now - root.exited_at > ORPHAN_GRACE_S:
                    del self._roots[pid]  # gone with everything under it, and never ended by stop_group
                    continue
                # What it left runs on (re-parented to pairdbg): what those start is its too.
                for found in descendants(alive, table) if alive else ():
                    root.seen.setdefault(found, table[found].start)
                exited.append(root)
                continue
            for found in descendants(pid, table):
                root.seen.setdefault(found, table[found].start)
        if exited:
            self._claim_orphans(exited, just_exited, table)
        for pid, info in table.items():
            if info.ppid == me and info.state == b"Z" and pid not in self._roots and self._seen(pid, info.start):
                _reap(pid)  # an orphan re-parented to pairdbg that exited: nobody else will wait for it
        self._children = {pid for pid, info in table.items() if info.ppid == me}

    def _claim_orphans(self, exited: list[_Root], just_exited: list[_Root], table: dict[int, ProcInfo]) -> None:
        """What an exited process orphaned is re-parented to pairdbg (at once, or when the process in between
        exits): pairdbg's children new since the last look are claimed for each exited process started before them.
        Only a daemon's shape is claimed (in a session that is neither pairdbg's nor its own: it forked after
        setsid), which pairdbg's own code never starts; a started process that still runs keeps its orphans itself
        (it is a subreaper).

        A process in a session of its own is the shape of everything pairdbg starts, so it is not claimed: but one
        that came to pairdbg in the very look that found a started process gone (the daemon's parent, between its
        setsid() and its exit) is noted as that process's middle, and ended with it. Until it exits, the daemon it
        forked is under it, not yet pairdbg's; when it exits after that, the daemon is re-parented to pairdbg after
        the session may have ended the process it came from."""
        me, own_session = os.getpid(), os.getsid(0)
        for pid, info in table.items():
            if info.ppid != me or pid in self._children or pid in self._roots or self._seen(pid, info.start):
                continue
            try:
                session = os.getsid(pid)
            except OSError:
                continue
            if session == own_session or pid in _OWN_HELPERS:
                continue
            if session == pid:
                roots = [root for root in just_exited if root.start <= info.start]
                if self._spawns:  # maybe the process being started, not yet a root: judged at a later look
                    self._undecided[pid] = (info.start, roots)
                    continue
                for root in roots:
                    root.middles[pid] = info.start
                continue
            for root in exited:
                if root.start <= info.start:
                    for claimed in (pid, *descendants(pid, table)):
                        root.seen.setdefault(claimed, table[claimed].start)

    def _seen(self, pid: int, start: int) -> bool:
        return any(root.seen.get(pid) == start for root in self._roots.values())

    def release(self, pid: int) -> dict[int, int]:
        """Stop tracking the started process `pid`; what was seen under it, and the middles it left (a process
        pairdbg started meanwhile, noted as one in the instant they shared, is left out)."""
        root = self._roots.pop(pid, None)
        if root is None:
            return {}
        return {**{p: start for p, start in root.middles.items() if p not in self._roots}, **root.seen}

    def hold(self, pid: int) -> None:
        """Keep tracking what `pid` leaves after it exits or is ended, until `release`."""
        if (root := self._roots.get(pid)) is not None:
            root.held = True

    def held(self, pid: int) -> bool:
        return (root := self._roots.get(pid)) is not None and root.held

    async def _watching(self) -> None:
        while self._roots:
            self.observe()
            await asyncio.sleep(WATCH_S)


LINEAGE = Lineage()


class Leftovers:
    """What the programs a session started leave running after they end (a child that outlives its parent, a daemon
    that left its group): its lifetime is the session's, not the program's. Each program `keep`s its process here;
    when it exits or is ended, what was seen under it (its group, its session, what those start later) stays
    tracked by LINEAGE, and `end` ends all of it when the session closes. pairdbg's exit closes every session; if
    pairdbg is killed, the Reaper ends it (it is all under pairdbg, the subreaper)."""

    def __init__(self) -> None:
        self._pids: set[int] = set()

    def keep(self, proc: asyncio.subprocess.Process) -> None:
        """`proc` (started by `spawn`) leaves its leftovers here."""
        LINEAGE.hold(proc.pid)
        self._pids.add(proc.pid)

    async def end(self, grace_s: float = 2.0) -> int:
        """KILL everything seen under the kept processes that still runs; how many outlived that. (Not their
        groups by number: an exited program's pid, and so its group's, may belong to another process by now; what
        stayed in its group was seen under it, or claimed when it exited.)"""
        pids, self._pids = self._pids, set()
        if not pids:
            return 0
        await LINEAGE.look_after_starts()  # what was started since the last look
        seen: dict[int, int] = {}
        for pid in pids:
            seen.update(LINEAGE.release(pid))
        return await end_seen(seen, grace_s)


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)


async def end_seen(seen: dict[int, int], grace_s: float = 2.0) -> int:
    """SIGKILL every process in `seen` that still runs (the same process: pid and start time) and everything now
    under it; reap those re-parented to pairdbg. Returns how many were ended."""
    table = process_table()
    targets = {pid for pid, start in seen.items() if (info := table.get(pid)) and info.start == start}
    for pid in list(targets):
        targets.update(descendants(pid, table))
    targets = {pid for pid in targets if table.get(pid) is not None and table[pid].state not in (b"Z", b"X")}
    for pid in targets:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace_s
    me = os.getpid()
    while targets:
        table = process_table()
        for pid in list(targets):
            info = table.get(pid)
            if info is not None and info.ppid == me:
                _reap(pid)
            elif info is None or info.state in (b"Z", b"X"):
                targets.discard(pid)
        if not targets or loop.time() > deadline:
            break
        await asyncio.sleep(0.02)
    return len(targets)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def spawn(
    argv: Sequence[str],
    *,
    env: dict[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    stdin: Any = asyncio.subprocess.DEVNULL,
    stdout: Any = asyncio.subprocess.PIPE,
    stderr: Any = asyncio.subprocess.PIPE,
    limit: int | None = None,
    pass_fds: Sequence[int] = (),
) -> asyncio.subprocess.Process:
    """Start `argv` in a new session (so a process group of its own, pgid == pid), stdin closed by default.

    With pipes (the default) the caller must keep reading stdout and stderr, or the process blocks once they fill.
    """
    extra: dict[str, Any] = {"limit": limit} if limit is not None else {}
    if pass_fds:
        extra["pass_fds"] = tuple(pass_fds)
    if _PRCTL is not None:
        become_subreaper()  # what leaves the started process's tree comes to pairdbg, not to init
        extra["preexec_fn"] = _subreaper_then_exec
    with LINEAGE.spawning():
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=stdin, stdout=stdout, stderr=stderr, env=env, cwd=cwd, start_new_session=True, **extra
        )
        LINEAGE.add(proc)
    return proc


async def run_briefly(
    argv: Sequence[str], timeout: float, *, cwd: str | None = None, env: dict[str, str] | None = None
) -> tuple[int, bytes, bytes]:
    """A short probe (an interpreter asked one question), started like everything pairdbg starts: its exit code,
    stdout and stderr. OSError when it cannot start; TimeoutError, its group ended, when it does not finish in time."""
    proc = await spawn(argv, env=env, cwd=cwd)
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        signal_group(proc.pid, signal.SIGKILL)
        await proc.wait()
        raise
    return proc.returncode or 0, out, err


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes in process group `pgid`."""
    return [pid for pid, info in process_table().items() if info.pgrp == pgid and info.state not in (b"Z", b"X")]


def signal_group(pgid: int, sig: int) -> None:
    """Signal every process in group `pgid`; a group already gone (or not ours) is not an error."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def _wait_group_gone(pgid: int, timeout: float) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while group_members(pgid):
        if loop.time() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def stop_group(
    proc: asyncio.subprocess.Process,
    grace_s: float,
    *,
    term: bool = True,
    sweep: bool = True,
    wait_group: bool = False,
    escapees: bool = True,
) -> None:
    """End `proc` (a group leader: see `spawn`) and its group, and reap it. Safe to call twice.

    `term`: send TERM to the group first; False when `proc` was asked to exit by its protocol and gets `grace_s`
    to do so. KILL follows for the group if `proc` is still there after `grace_s`. `sweep`: KILL whatever is left
    in the group after `proc` exited (False when a detached program may share the group and must live on).
    `wait_group`: also wait up to `grace_s` for every member to be gone (browsers' helper processes) before KILL.
    `escapees`: then KILL every process ever seen under `proc` that still runs, in whatever group or session it
    went to (False when a program detached from must live on). A process kept by a `Leftovers` stays tracked
    then: what it left is ended with them.
    """
    pgid = proc.pid
    LINEAGE.observe()  # the tree as it is now, before ending it orphans anything
    if proc.returncode is None or wait_group:
        if term:
            signal_group(pgid, signal.SIGTERM)
        gone = False
        try:
            await asyncio.wait_for(proc.wait(), grace_s)
            gone = await _wait_group_gone(pgid, grace_s) if wait_group else True
        except TimeoutError:
            pass
        if not gone:
            signal_group(pgid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), grace_s)
            if wait_group:
                await _wait_group_gone(pgid, grace_s)
    if sweep:
        signal_group(pgid, signal.SIGKILL)
    if escapees:
        await LINEAGE.judge_undecided()
        await end_seen(LINEAGE.release(pgid), grace_s)
    elif not LINEAGE.held(pgid):
        LINEAGE.release(pgid)


OWNER_VAR = "PAIRDBG_OWNER"  # inherited by every process pairdbg starts, and by theirs

# The reaper's whole program (run with `python -S -c`). Every WATCH_S it notes every process under pairdbg (pairdbg is
# a subreaper, so daemons that left their group and cleared their environment are still under it). At EOF on stdin,
# which comes when pairdbg exits in any way (its end of the pipe closes with it, even on SIGKILL), it SIGKILLs every
# process still carrying the mark, every noted process still running (same pid, same start time), and, when pairdbg
# is still alive (an orderly exit waits for the reaper), everything under pairdbg as it is now; and, where pairdbg has
# a cgroup for what it starts (argv[4], else ""), every process in it, whatever it did since the last look, then
# removes the emptied cgroup.
REAPER = r"""
import os, select, signal, sys, time
mark = ("PAIRDBG_OWNER=" + sys.argv[1]).encode()
owner, interval, me = int(sys.argv[2]), float(sys.argv[3]), os.getpid()
group = sys.argv[4] if len(sys.argv) > 4 else ""
def table():
    found = {}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open("/proc/%s/stat" % pid, "rb") as fh:
                    f = fh.read().rsplit(b")", 1)[1].split()
                found[int(pid)] = (int(f[1]), int(f[19]), f[0])
            except (OSError, IndexError, ValueError):
                pass
    return found
def under(root, tab):
    kids = {}
    for pid, (ppid, _, _) in tab.items():
        kids.setdefault(ppid, []).append(pid)
    out, todo = {}, list(kids.get(root, []))
    while todo:
        pid = todo.pop()
        if pid != me:
            out[pid] = tab[pid][1]
            todo.extend(kids.get(pid, []))
    return out
def marked():
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != me:
            try:
                with open("/proc/%s/environ" % pid, "rb") as fh:
                    if mark in fh.read().split(b"\0"):
                        yield int(pid)
            except OSError:
                pass
def in_group():
    try:
        with open(os.path.join(group, "cgroup.procs"), "rb") as fh:
            return {int(p) for p in fh.read().split()} - {me, owner}
    except (OSError, ValueError):
        return set()
noted = {}
while not select.select([sys.stdin], [], [], interval)[0]:
    noted.update(under(owner, table()))
sys.stdin.buffer.read()
if os.getppid() == owner:
    noted.update(under(owner, table()))
for _ in range(40):
    tab = table()
    found = {p for p, start in noted.items() if p in tab and tab[p][1] == start and tab[p][2] not in (b"Z", b"X")}
    found.update(marked())
    if group:
        found.update(in_group())
    if not found:
        break
    for pid in found:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    time.sleep(0.05)
for _ in range(40 if group else 0):
    try:
        os.rmdir(group)
        break
    except FileNotFoundError:
        break
    except OSError:
        time.sleep(0.025)
"""


class Reaper:
    """Makes sure nothing pairdbg started outlives it, even when pairdbg is killed (SIGKILL, a crash) and cannot
    close its sessions: a tiny watchdog process holds the read end of a pipe from pairdbg and, when it reads EOF,
    kills every process carrying pairdbg's mark in its environment — debug adapters, runtimes, the programs they
    started and those programs' children alike (a process group or a parent-death signal would miss grandchildren
    that debugpy's launcher or js-debug start in groups of their own) — and every process it saw under pairdbg, which
    finds a daemon that cleared its environment too (pairdbg is their subreaper, so they stay under it). After a
    SIGKILL, one that escaped in the last WATCH_S without the mark is missed — unless pairdbg could make a cgroup of
    its own (cgroup v1 `pids` or v2, where writable): then every process `spawn` starts joins it before it execs, so
    all they fork is in it, and the watchdog kills everything listed in it too, then removes it. Linux only (/proc)."""

    def __init__(self) -> None:
        self.mark = f"{os.getpid()}-{os.urandom(6).hex()}"
        self._proc: subprocess.Popen[bytes] | None = None
        self.cgroup: str | None = None

    def start(self) -> None:
        if not os.path.isdir("/proc") or self._proc is not None:
            return
        env = {k: v for k, v in os.environ.items() if k != OWNER_VAR}
        os.environ[OWNER_VAR] = self.mark  # from now on every child inherits it
        become_subreaper()
        self.cgroup = make_cgroup(f"pairdbg-{self.mark}")
        self._proc = subprocess.Popen(
            [sys.executable, "-S", "-c", REAPER, self.mark, str(os.getpid()), str(WATCH_S), self.cgroup or ""],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # a Ctrl+C to pairdbg's terminal must not end the watchdog first
        )
        _OWN_HELPERS.add(self._proc.pid)
        if self.cgroup is not None:
            global _cgroup_procs
            _cgroup_procs = os.path.join(self.cgroup, "cgroup.procs").encode()

    def stop(self) -> None:
        """After an orderly shutdown: let the watchdog sweep (finding nothing, normally) and go."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        _OWN_HELPERS.discard(proc.pid)
        with contextlib.suppress(OSError):
            proc.stdin.close()  # type: ignore[union-attr]
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(3)
        group, self.cgroup = self.cgroup, None
        if group is not None:
            global _cgroup_procs
            if _cgroup_procs == os.path.join(group, "cgroup.procs").encode():  # not a later Reaper's
                _cgroup_procs = None
            remove_cgroup(group)  # the watchdog removed it, normally; not if it was slow or gone
        if os.environ.get(OWNER_VAR) == self.mark:
            del os.environ[OWNER_VAR]
