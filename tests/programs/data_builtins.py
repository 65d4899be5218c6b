"""Writes to built-in containers, module globals and locals (tests/dap/test_data_breakpoints.py): what Python 3.11
watches (a local of a live frame below the stopped one) and what it refuses with the reason (dict items, module
globals, list items, a local of the frame it is stopped in)."""

LIMIT = 3  # a module global


def start(n):
    steps = n  # a local of the stopped frame
    print("counting", flush=True)  # stop in start
    return steps


def count(n):
    total = 0
    start(n)
    for i in range(n):  # the line after the write
        total += i  # writes total
    label = "done"
    return total, label


def main():
    config = {"db": {"host": "localhost"}}
    orders = [1, 2, 3, 4]
    config["db"]["host"] = "db.internal"
    orders[3] = 40
    first = count(4)
    second = count(3)
    print("done", first, second, config["db"]["host"], orders[3], LIMIT, flush=True)


main()
