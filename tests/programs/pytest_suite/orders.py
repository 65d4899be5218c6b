"""Code under test: a small order calculator with a bug in discount()."""


def total(prices):
    return sum(prices)


def discount(price, percent):
    cut = price * percent / 100
    return price + cut  # the bug: adds the cut


def parse_quantity(text):
    if not text.isdigit():
        raise ValueError(f"not a quantity: {text!r}")
    return int(text)


def unit_price(total_price, count):
    return total_price / count


def depth(n):
    return depth(n + 1)  # no base case
