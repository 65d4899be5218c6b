"""Prints a table with tabulate, an installed PyPI package (the tests install a pinned version into a venv)."""

from tabulate import tabulate

rows = [("apples", 3, 1.5), ("pears", 5, 0.75)]
text = tabulate(rows, headers=["fruit", "count", "price"])  # call tabulate
print(text)
