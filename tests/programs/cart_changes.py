"""A cart whose total is written five times (tests/tui: the change log tab beside the console)."""


class Cart:
    def __init__(self):
        self.total = 0


def add(cart, price):
    cart.total += price  # writes total


def main():
    cart = Cart()
    print("ready", flush=True)  # stop here
    for price in (3, 4, 5, 6, 7):
        add(cart, price)
    print("total", cart.total, flush=True)  # after the writes


main()
