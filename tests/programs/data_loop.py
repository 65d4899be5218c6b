"""Writes a watched attribute 200 times, 10 ms apart (tests/dap/test_data_breakpoints.py: changes while it runs)."""

import time


class Counter:
    pass


def main():
    counter = Counter()
    counter.value = 0
    print("ready", flush=True)  # stop here
    for i in range(1, 201):
        counter.value = i  # writes value
        time.sleep(0.01)
    print("done", counter.value, flush=True)


main()
