"""Starts a second Python program with subprocess and waits for it."""

import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
done = subprocess.run([sys.executable, os.path.join(here, "child_task.py"), "7"], check=False)
print("child exited", done.returncode, flush=True)  # parent after child
