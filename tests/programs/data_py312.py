"""Writes that only Python 3.12+ lets a data breakpoint catch (tests/dap/test_data_breakpoints_py312.py): a built-in
dict's item through each of its mutating methods (one that raises after writing too) and from another thread, a
module global through a `global` statement and through globals(), and a local of a live frame."""

import threading

LIMIT = 3  # a module global


class Box:
    def __init__(self):
        self.size = 1


def bump():
    global LIMIT
    LIMIT = LIMIT + 1  # writes LIMIT by global
    return LIMIT


def count(n):
    total = 0
    for i in range(n):
        total += i  # writes total
    return total  # count returns


def fill(config):
    config.update([("host", "e"), ("port",)])  # writes host, then raises


def from_thread(config):
    config["host"] = "thread"  # writes from a thread


def main():
    config = {"host": "localhost", "port": 1}
    box = Box()
    print("ready", flush=True)  # stop here
    config.update(host="a", port=2)  # writes by update
    config["host"] = "b"  # writes by setitem
    config.pop("host")  # writes by pop
    config.setdefault("host", "c")  # writes by setdefault
    del config["host"]  # writes by del
    config["host"] = "d"  # writes by setitem again
    try:
        fill(config)
    except ValueError:
        pass
    config.clear()  # writes by clear
    config.update({"host": "z", "port": 3})  # writes by a copy into the empty dict
    worker = threading.Thread(target=from_thread, args=(config,), name="writer")
    worker.start()
    worker.join()
    bump()
    globals()["LIMIT"] = 10  # writes LIMIT by globals
    first = count(4)
    box.size = 2
    print("done", config, LIMIT, first, box.size, flush=True)


main()
