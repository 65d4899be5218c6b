"""A small order report with a bug in it: the bulk discount is applied to the wrong quantity.

`pairdbg demo` opens this file stopped at the first line of main(). Try: F10 to step, F9 to set a
breakpoint on the `total =` line, F5 to run to it, and watch `price` and `qty` in the variables pane.
"""

BULK_QTY = 10


def apply_discount(price, qty):
    if qty > BULK_QTY:  # the bug: an order of exactly BULK_QTY items should get the discount too
        price = price * 0.9
    total = price * qty
    return round(total, 2)


def line_total(item):
    return apply_discount(item["price"], item["qty"])


def build_report(orders):
    lines = []
    grand = 0.0
    for name, items in orders.items():
        subtotal = sum(line_total(item) for item in items)
        grand += subtotal
        lines.append(f"{name:<10} {len(items)} items  subtotal {subtotal:8.2f}")
    lines.append(f"{'TOTAL':<10} {grand:24.2f}")
    return lines


def main():
    orders = {
        "bakery": [{"name": "bread", "price": 2.5, "qty": 4}, {"name": "rolls", "price": 0.45, "qty": 10}],
        "grocer": [{"name": "apples", "price": 0.3, "qty": 25}],
    }
    for line in build_report(orders):
        print(line)
    expected = 10.0 + 4.05 + 6.75
    assert abs(sum(line_total(i) for items in orders.values() for i in items) - expected) < 1e-9, "totals are off"


if __name__ == "__main__":
    main()
