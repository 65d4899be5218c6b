"""A Pool worker (argv[1]: fork or spawn) that calls into the stdlib's json: library code its session can stop in."""

import json
import multiprocessing
import sys


def work(n):
    a = n + 1  # worker line
    return json.dumps({"n": a})


if __name__ == "__main__":
    with multiprocessing.get_context(sys.argv[1]).Pool(1) as pool:
        print(pool.map(work, range(2)), flush=True)
