"""The program run_child.py starts: prints a value and exits with 0."""

import os
import sys

value = int(sys.argv[1]) * 6  # child line
print("child", os.getpid(), "value", value, flush=True)
