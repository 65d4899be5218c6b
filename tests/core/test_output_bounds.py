"""A session's output is capped by bytes as well as entries, and ended sessions share one budget (issue 13)."""

from __future__ import annotations

import pytest
from support import until

from pairdbg.backends.limits import Limits
from pairdbg.backends.output import OutputRing

CAP = 256 * 1024
ENDED_CAP = 300 * 1024
# 64 KB lines, 4 MB in all: far past the byte cap, yet far under the entry cap
LOUD = """\
import sys
for n in range(64):
    sys.stdout.write(f"chunk {n:03d} " + "y" * 65_000 + "\\n")
    sys.stdout.flush()
print("the end marker")
"""


@pytest.fixture
def limits():
    return Limits(output_bytes=CAP, ended_output_bytes=ENDED_CAP)


async def run_loud(registry, hub, tmp_path, name: str) -> str:
    path = tmp_path / name
    path.write_text(LOUD)
    reply = await registry.run("start_debugging", {"program": str(path), "wait_s": 30}, "human")
    sid = reply.data["session_id"]
    await until(lambda: hub.get(sid).phase.ended, "the loud program ends", timeout=60)
    await until(lambda: "the end marker" in hub.get(sid).output.tail_text(0, 3)[-1], "its last line arrives")
    return sid


@pytest.mark.asyncio
async def test_a_program_printing_far_past_the_cap_keeps_the_newest_output_within_it(registry, hub, tmp_path):
    sid = await run_loud(registry, hub, tmp_path, "loud.py")
    ring = hub.get(sid).output
    assert ring.size <= CAP, ring.size
    page = await registry.run("get_output", {"session_id": sid, "since": 0, "limit": 1000}, "agent:test")
    assert page.data["dropped"] > 0 and "older entries were dropped" in page.text, page.text[:300]
    kept = "".join(e["text"] for e in page.data["entries"])
    while page.data["has_more"]:
        page = await registry.run("get_output", {"session_id": sid, "since": page.data["next_since"]}, "agent:test")
        kept += "".join(e["text"] for e in page.data["entries"])
    assert "the end marker" in kept
    assert "chunk 063" in kept and "chunk 000" not in kept


@pytest.mark.asyncio
async def test_ended_sessions_share_one_output_budget(registry, hub, tmp_path):
    first = await run_loud(registry, hub, tmp_path, "loud1.py")
    second = await run_loud(registry, hub, tmp_path, "loud2.py")
    sizes = [hub.get(first).output.size, hub.get(second).output.size]
    assert sum(sizes) <= ENDED_CAP, sizes
    assert sizes[1] > sizes[0], "the newest ended session keeps the most"
    page = await registry.run("get_output", {"session_id": first, "since": 0}, "agent:test")
    assert page.data["dropped"] > 0


def test_the_ring_counts_bytes_and_cuts_a_single_huge_chunk():
    ring = OutputRing(capacity=100, max_bytes=1000)
    for n in range(10):
        ring.append("stdout", f"{n}" * 300)
    assert ring.size <= 1000 and len(ring) == 3 and ring.dropped == 7
    entries, _, _, dropped = ring.read(since=0)
    assert dropped == 7 and entries[0].text.startswith("7")
    ring.append("stdout", "é" * 5000)  # 10,000 bytes in one chunk
    assert ring.size <= 1000 and "characters cut" in ring.read(since=0)[0][-1].text
