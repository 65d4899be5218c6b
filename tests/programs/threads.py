import threading

ready = threading.Event()
release = threading.Event()


def worker():
    ready.set()
    release.wait(60)


t = threading.Thread(target=worker, name="worker-1")
t.start()
ready.wait(10)
print("both running")  # breakpoint here: two threads alive
release.set()
t.join()
