"""A multiprocessing job: a Pool of workers squares numbers. argv[1] is the start method (fork or spawn)."""

import multiprocessing
import os
import sys


def square(n):
    result = n * n  # worker line
    return result


def main():
    method = sys.argv[1] if len(sys.argv) > 1 else "fork"
    ctx = multiprocessing.get_context(method)
    with ctx.Pool(2) as pool:
        results = pool.map(square, range(4))
    print("results", results, "parent", os.getpid(), flush=True)  # parent done


if __name__ == "__main__":
    main()
