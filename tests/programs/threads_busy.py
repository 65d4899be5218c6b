import threading

release = threading.Event()
started = threading.Event()


def spin():
    turns = 0
    started.set()
    while not release.is_set():
        turns += 1  # the worker runs Python here when the main thread stops


worker = threading.Thread(target=spin, name="spinner")
worker.start()
started.wait(10)
total = 7
release.set()  # breakpoint here: the spinner is suspended in Python code
worker.join()
