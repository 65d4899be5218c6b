"""Code under test for the unittest suite."""


def add_tax(amount, rate):
    return amount * rate  # the bug: forgets the amount itself


def split(amount, people):
    return amount / people


def countdown(n):
    return countdown(n - 1)  # no base case
