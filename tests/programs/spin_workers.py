"""Starts one worker process (argv[1]: fork or spawn) that spins until it is stopped; the parent waits for it."""

import multiprocessing
import sys


def spin():
    print("spinning", flush=True)
    n = 0
    while True:
        n += 1  # spin line


if __name__ == "__main__":
    worker = multiprocessing.get_context(sys.argv[1] if len(sys.argv) > 1 else "fork").Process(target=spin)
    worker.start()
    print("worker", worker.pid, flush=True)
    worker.join()
