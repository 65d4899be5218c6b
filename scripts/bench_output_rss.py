"""pairdbg's RSS while a real Node program prints far more than a session keeps (a figure, not pass/fail).

Starts the program through the action registry in process (inspector backend), waits for it to end, and prints the
process's peak and current RSS and what the session holds. Run: .venv/bin/python scripts/bench_output_rss.py [--mb 400]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pairdbg.backends.hub import Hub  # noqa: E402
from pairdbg.runtime import build_registry  # noqa: E402

PROGRAM = """\
const line = "z".repeat(1023) + "\\n";
const block = line.repeat(64);  // 64 KB per write
let left = {blocks};
function more() {{
  while (left > 0) {{
    left--;
    if (!process.stdout.write(block)) return process.stdout.once("drain", more);
  }}
  console.log("done");
}}
more();
"""


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


async def main(mb: int) -> None:
    hub = Hub()
    registry = build_registry(hub)
    gc.collect()
    before = rss_mb()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "loud.js"
        path.write_text(PROGRAM.format(blocks=mb * 16))
        began = time.monotonic()
        reply = await registry.run("start_debugging", {"program": str(path), "wait_s": 5}, "human")
        session = hub.get(reply.data["session_id"])
        while not session.phase.ended:
            await asyncio.sleep(0.2)
        await asyncio.sleep(0.5)
        took = time.monotonic() - began
        gc.collect()
        after = rss_mb()
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"printed {mb} MB in {took:.1f} s; RSS before {before:.0f} MB, after {after:.0f} MB, peak {peak:.0f} MB")
        kept = sum(len(e.text) for e in session.output.read(0, limit=10**9, max_chars=10**12)[0])
        print(f"the session keeps {kept / 1e6:.2f} MB of output")
    await hub.shutdown()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=400)
    asyncio.run(main(parser.parse_args().mb))
