"""Leaves a daemon behind, the way daemons start: fork, setsid() in the child, fork again, the middle process exits,
and the grandchild execs a long sleep with an empty environment (so it carries no mark of whoever started it).
The daemon's pid goes to argv[1]; with argv[2] == "stay" the program then keeps running, else it exits."""

import os
import sys
import time


def daemonize(pidfile: str) -> None:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open(pidfile + ".tmp", "w") as fh:
                fh.write(str(os.getpid()))
            os.rename(pidfile + ".tmp", pidfile)
            os.execve("/bin/sleep", ["sleep", "600"], {})
        os._exit(0)
    os.wait()


daemonize(sys.argv[1])
while not os.path.exists(sys.argv[1]):
    time.sleep(0.01)
print("daemon started", flush=True)
while len(sys.argv) > 2 and sys.argv[2] == "stay":
    time.sleep(0.05)  # the program runs on
