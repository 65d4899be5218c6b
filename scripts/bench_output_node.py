"""How long a Node program that prints a lot takes under pairdbg (js-debug, or with --inspector the inspector backend)
against on its own, and pairdbg's peak RSS (issue 20: goal <= 1.2x the program's own time, peak <= 100 MiB). Figures,
not pass/fail. The program prints --lines lines of 100 characters (1M: 100 MB) with console.log (or
process.stdout.write with --write) and times its own loop, reporting it on stderr as it exits ("done SECONDS").
"alone" is `node loud.js | cat`; "under pairdbg" starts it with start_debugging(backend="dap" or "inspector") through
the action registry in a fresh process each time (so its peak RSS is its own) and times until the session has ended
holding the program's last line. As in bench_output.py, the figure the goal is read on is the loop timed inside the
program, under pairdbg against alone; runs alternate so load on the machine falls on both alike.
Run: .venv/bin/python scripts/bench_output_node.py [--lines 1000000] [--runs 3] [--write] [--inspector]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
from pathlib import Path

import bench_output

PROGRAM = """\
const began = process.hrtime.bigint();
const line = "z".repeat(99);
const write = process.argv[2] === "write";
for (let i = 0; i < {lines}; i++) {{
  if (write) process.stdout.write(line + "\\n");
  else console.log(line);
}}
process.on("exit", () => process.stderr.write(`done ${{Number(process.hrtime.bigint() - began) / 1e9}}\\n`));
"""


def node() -> str:
    from pairdbg.backends.runtimes import find_node

    return find_node()


async def under_pairdbg(backend: str, path: Path, args: list[str]) -> dict:
    return await bench_output.under_pairdbg(path, args, {"language": "javascript", "backend": backend})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="process.stdout.write instead of console.log")
    parser.add_argument("--inspector", action="store_true", help="Node's inspector backend instead of js-debug")
    parser.add_argument("--one", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(asyncio.run(under_pairdbg(args.one[1], Path(args.one[0]), args.one[2:]))))
        return
    how = ["write"] if args.write else []
    backend = "inspector" if args.inspector else "dap"
    before = " ".join(f"{v:.2f}" for v in os.getloadavg())
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "loud.js"
        path.write_text(PROGRAM.format(lines=args.lines))
        own, own_inside, runs = [], [], []
        for _ in range(args.runs):  # alternating, so load on the machine falls on both alike
            took, inside = bench_output.alone([node(), str(path), *how])
            own.append(took)
            own_inside.append(inside)
            runs.append(bench_output.one_run(path, backend, *how, script=__file__, timeout=900))
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    way = "process.stdout.write" if args.write else "console.log"
    print(f"a Node program printing {args.lines} lines of 100 characters with {way}, median of {args.runs}", end="")
    print(f", under {'the inspector backend' if args.inspector else 'js-debug'}")
    print(f"  load average before: {before}, after: {load}")
    print(f"  alone (stdout a pipe to cat)          {statistics.median(own):7.2f} s")
    print(f"  session under pairdbg, start to end   {statistics.median(r['seconds'] for r in runs):7.2f} s")
    if all(r["own"] is not None for r in runs):
        inside, under = statistics.median(own_inside), statistics.median(r["own"] for r in runs)
        print(f"  its loop, timed inside it: alone {inside:.2f} s, under pairdbg {under:.2f} s", end="")
        print(f"   {under / inside:5.2f}x (target <= 1.2x)")
    else:
        print("  WARNING: a session did not hold the program's last line")
    print(f"  pairdbg peak RSS        {max(r['peak_mib'] for r in runs):7.0f} MiB (target <= 100 MiB)")


if __name__ == "__main__":
    main()
