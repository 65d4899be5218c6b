"""React Native backend benchmarks (figures against targets, not pass/fail).

Spawns `pairdbg --mcp` (stdio) with WS_PORT set to a free port, connects a Python adapter speaking wire protocol
v1 (backends/rn/testing.py) to it, and measures:
  1. ingest: events/s sustained (batches of 64 with small RFC 6902 patches), and the server's RSS before/after a
     flood far larger than its rings (memory must stay bounded);                        target >= 5,000 events/s
  2. debug_query_events(limit=200) and debug_get_state_path (fresh from the app over req/res) p50 through MCP
     stdio;                                                                                       target <= 5 ms
  3. debug_diff_snapshots on a ~1 MB Redux state: states sharing structure (snapshot + patches) and two independent
     1 MB snapshots;                                                                             target <= 50 ms
Run: .venv/bin/python scripts/bench_rn.py [--events 100000] [--runs 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import sys
import time
from pathlib import Path

from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # support.*: the test suite's rigs (fake adapter, browser launchers)

from support.rn_adapter import FakeAdapter  # noqa: E402

TOKEN = "bench-token-0123456789"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_pid() -> int | None:
    """The spawned `pairdbg --mcp` (a child of this process)."""
    me = str(os.getpid())
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                ppid = fh.read().rsplit(")", 1)[1].split()[1]
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read()
        except OSError:
            continue
        if ppid == me and b"--mcp" in cmd:
            return int(entry)
    return None


def rss_mb(pid: int | None) -> float:
    if pid is None:
        return float("nan")
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def p50(xs: list[float]) -> str:
    return f"p50 {statistics.median(xs):.2f} ms, p95 {sorted(xs)[int(len(xs) * 0.95) - 1]:.2f} ms (n={len(xs)})"


async def call(client: Client, name: str, args: dict) -> dict:
    r = await client.call_tool(name, args)
    if r.is_error:
        raise RuntimeError(r.content[0].text)
    return r.structured_content


async def wait_seq(client: Client, stream: str, seq: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        streams = {s["name"]: s for s in (await call(client, "debug_list_streams", {}))["streams"]}
        if streams.get(stream, {}).get("latestSeq", 0) >= seq:
            return
        await asyncio.sleep(0.01)
    raise TimeoutError(f"{stream} never reached seq {seq}")


async def ingest(client: Client, a: FakeAdapter, n: int, pid: int | None) -> None:
    rss0 = rss_mb(pid)
    start_seq = a.seq["redux"]
    t0 = time.perf_counter()
    batch = []
    for i in range(n):
        batch.append(a.event("redux", "action", {"action": {"type": "counter/inc", "payload": {"i": i}},
                                                 "changedKeys": ["counter"]},
                             [{"op": "add", "path": "/counter", "value": i}]))
        if len(batch) == 64:
            await a.push(*batch)
            batch = []
    await a.push(*batch)
    sent = time.perf_counter() - t0
    await wait_seq(client, "redux", start_seq + n)
    total = time.perf_counter() - t0
    rss1 = rss_mb(pid)
    print(f"ingest: {n} events in {total:.2f}s -> {n / total:,.0f} events/s (sender alone {n / sent:,.0f}/s); "
          f"target >= 5,000")
    print(f"memory: server RSS {rss0:.1f} MB before, {rss1:.1f} MB after {n} events (ring bounded at 5,000/stream)")
    return rss1


async def latency(client: Client, runs: int) -> None:
    for _ in range(10):  # warm up
        await call(client, "debug_query_events", {"stream": "redux", "limit": 200})
    q = []
    for _ in range(runs):
        t = time.perf_counter()
        r = await call(client, "debug_query_events", {"stream": "redux", "limit": 200, "since_seq": 100})
        q.append((time.perf_counter() - t) * 1000)
    assert len(r["events"]) == 200
    print(f"debug_query_events(limit=200) via MCP stdio: {p50(q)}; target <= 5 ms")
    g = []
    for _ in range(runs):
        t = time.perf_counter()
        r = await call(client, "debug_get_state_path", {"path": "auth.user.role"})
        g.append((time.perf_counter() - t) * 1000)
    assert r["value"] == "admin" and r["source"] == "app"
    print(f"debug_get_state_path (fresh from the app) via MCP stdio: {p50(g)}; target <= 5 ms")


def big_state(n_items: int) -> dict:
    return {"auth": {"user": {"id": 7, "name": "Ada", "role": "admin"}, "status": "ok"},
            "catalog": {"items": [{"id": i, "title": f"Product {i}", "price": i * 1.25, "tags": ["a", "b", "c"],
                                   "desc": "lorem ipsum dolor sit amet " * 3} for i in range(n_items)]},
            "counter": 0}


async def diff_big(client: Client, a: FakeAdapter, runs: int) -> None:
    state = big_state(5200)
    size = len(json.dumps(state))
    a.states["redux"] = state
    base = a.seq["redux"]
    await a.send_snapshot("redux")
    for i in range(50):
        await a.dispatch("catalog/edit", [{"op": "replace", "path": f"/catalog/items/{i * 100}/price", "value": -i},
                                          {"op": "add", "path": "/catalog/items/-", "value": {"id": -i}}])
    target = a.seq["redux"]
    await wait_seq(client, "redux", target)
    shared = []
    for _ in range(max(5, runs // 10)):
        t = time.perf_counter()
        r = await call(client, "debug_diff_snapshots", {"stream": "redux", "base_seq": base, "target_seq": target})
        shared.append((time.perf_counter() - t) * 1000)
    print(f"debug_diff_snapshots on a {size / 1e6:.2f} MB state, seq {base}->{target} (snapshot + patches, "
          f"{r['totalChanges']} changes): {p50(shared)}; target <= 50 ms")
    # A second full snapshot: parsed separately, so nothing is shared and the diff walks both 1 MB trees.
    await a.send_snapshot("redux")
    await asyncio.sleep(0.5)
    full = []
    for _ in range(max(5, runs // 20)):
        t = time.perf_counter()
        r = await call(client, "debug_diff_snapshots", {"stream": "redux", "base_seq": base, "target_seq": target})
        full.append((time.perf_counter() - t) * 1000)
    print(f"debug_diff_snapshots, two independent 1 MB snapshots ({r['totalChanges']} changes): {p50(full)}")


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()
    port = free_port()
    env = {**os.environ, "WS_PORT": str(port), "RN_DEBUG_TOKEN": TOKEN, "MAX_PAYLOAD_SIZE": str(4 * 1024 * 1024),
           "LOG_LEVEL": "warn"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "pairdbg", "--mcp"], cwd=str(ROOT), env=env)
    async with Client(params, read_timeout_seconds=120) as client:
        pid = server_pid()
        a = FakeAdapter(f"ws://127.0.0.1:{port}/adapter", TOKEN, ring=1000)
        for _ in range(100):  # the server starts its listener right after the MCP handshake
            try:
                await a.connect()
                break
            except OSError:
                await asyncio.sleep(0.05)
        await a.dispatch("auth/loginOk", [{"op": "replace", "path": "/auth/user",
                                           "value": {"id": 7, "name": "Ada", "role": "admin"}}])
        await ingest(client, a, 20_000, pid)  # warm-up run: fills the ring
        await ingest(client, a, args.events, pid)
        await latency(client, args.runs)
        await diff_big(client, a, args.runs)
        await a.close()
    print("server process gone:", pid is None or not os.path.exists(f"/proc/{pid}"))


if __name__ == "__main__":
    asyncio.run(main())
