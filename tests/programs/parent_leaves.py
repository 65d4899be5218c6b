"""Starts a Python child that runs for a while, then exits at once: the child outlives its parent."""

import subprocess
import sys

code = "import time\nfor i in range(200):\n    time.sleep(0.1)  # child loop\n"
child = subprocess.Popen([sys.executable, "-c", code])
print("parent leaves, child", child.pid, flush=True)
