"""Lines a step_into walks through: user calls, a return with no call, a tuple, a built-in and a library call."""

import json


def add(a, b):
    return (a + b)  # return without a call


def noop():
    pass


def main():
    x = add(1, 2)  # first line
    y = (x, x)  # a tuple, no call
    noop()  # a user call
    print("x", x)  # a built-in call
    text = json.dumps(y)  # a library call
    return text  # last line


main()
