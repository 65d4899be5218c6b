import pytest

from orders import depth, discount, parse_quantity, total, unit_price


def test_total_passes():
    assert total([1, 2, 3]) == 6


def test_discount_fails():
    price = discount(200, 10)
    assert price == 180, "ten percent off 200"


def test_expected_error_passes():
    with pytest.raises(ValueError, match="not a quantity"):
        parse_quantity("many")


def test_caught_inside_passes():
    try:
        parse_quantity("x")
    except ValueError:
        pass


def test_error_in_code_fails():
    count = 0
    assert unit_price(30, count) == 10


@pytest.mark.xfail(raises=ZeroDivisionError, strict=True)
def test_known_bug_is_xfail():
    unit_price(1, 0)


def test_deep_recursion_fails():
    depth(0)


def test_memory_fails():
    bytearray(1 << 62)
