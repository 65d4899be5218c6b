"""A test that keeps running until a flag file exists (PAIRDBG_FLAG), then fails: pairdbg's tests set breakpoints
in it and pause it while it runs, after the run went untraced (backends/dap/testhook.py)."""

import os
import time


def tick(rounds):
    time.sleep(0.01)
    return rounds + 1  # tick


def test_runs_until_the_flag_then_fails():
    rounds = 0
    open(os.environ["PAIRDBG_FLAG"] + ".started", "w").close()
    while not os.path.exists(os.environ["PAIRDBG_FLAG"]):
        rounds = tick(rounds)  # loop
    assert rounds < 0, "ran until the flag"
