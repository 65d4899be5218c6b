"""Writes to watched values (tests/dap/test_data_breakpoints.py): a plain class, a __slots__ class, jinja2's
Environment (a pinned PyPI library's object), collections.UserDict through update, and values that cannot be watched."""

import collections
import dataclasses
import pickle

import jinja2

LIMIT = 3  # a module global


class Cart:
    def __init__(self):
        self.total = 0.0
        self.items = []


class Point:
    __slots__ = ("x", "y")

    def __init__(self):
        self.x = 0
        self.y = 0


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: int = 1


def add(cart, price):
    cart.total = round(cart.total + price, 2)  # writes total


def main():
    cart, other = Cart(), Cart()
    point = Point()
    env = jinja2.Environment()
    config = collections.UserDict({"host": "localhost"})
    plain = {"host": "localhost"}
    frozen = Frozen()
    print("ready", flush=True)  # stop here
    for price in (7.25, 3.72, -20.0):
        add(cart, price)
        other.total = price  # another instance: never reported
    point.x = 5  # writes point.x
    env.extend(undefined_note="set by extend")  # jinja2 sets it with setattr in its own code
    config.update({"host": "db.internal", "port": 5432})  # writes host through update
    plain["host"] = "x"
    assert type(cart) is Cart and isinstance(cart, Cart) and pickle.loads(pickle.dumps(cart)).total == cart.total
    print("done", cart.total, point.x, config["host"], frozen.a, flush=True)


main()
