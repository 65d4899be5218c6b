"""Writes to built-in containers, module globals and locals (tests/dap/test_data_breakpoints.py): what Python 3.11
watches (a local of a live frame) and what it refuses with the reason (dict items, module globals, list items)."""

LIMIT = 3  # a module global


def count(n):
    total = 0
    print("counting", flush=True)  # stop in count
    for i in range(n):
        total += i  # writes total
    label = "done"
    return total, label


def main():
    config = {"db": {"host": "localhost"}}
    orders = [1, 2, 3, 4]
    print("ready", flush=True)  # stop here
    config["db"]["host"] = "db.internal"
    orders[3] = 40
    first = count(4)
    second = count(3)
    print("done", first, second, config["db"]["host"], orders[3], LIMIT, flush=True)


main()
