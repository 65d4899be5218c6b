import sys
import threading
import time

ready = threading.Event()
release = threading.Event()


def main_is_blocked() -> bool:
    """True once the main thread sits inside Event.wait (native lock acquire), where no tracer can suspend it."""
    frame = sys._current_frames().get(threading.main_thread().ident)
    return frame is not None and frame.f_code.co_name == "wait"


def worker():
    while not main_is_blocked():
        time.sleep(0.005)
    time.sleep(0.05)
    ready.set()
    release.wait(60)


t = threading.Thread(target=worker, name="worker-1")
t.start()
ready.wait(10)
print("both running")  # breakpoint here: two threads alive
release.set()
t.join()
