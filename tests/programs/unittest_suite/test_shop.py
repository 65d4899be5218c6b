import unittest

from shop import add_tax, countdown, split


class ShopTest(unittest.TestCase):
    def test_split_passes(self):
        self.assertEqual(split(10, 2), 5)

    def test_tax_fails(self):
        taxed = add_tax(100, 0.2)
        self.assertEqual(taxed, 120)

    def test_expected_error_passes(self):
        with self.assertRaises(ZeroDivisionError):
            split(1, 0)

    def test_error_in_code_fails(self):
        people = 0
        self.assertEqual(split(9, people), 3)

    @unittest.expectedFailure
    def test_known_bug(self):
        split(1, 0)

    def test_deep_recursion_fails(self):
        countdown(10)


if __name__ == "__main__":
    unittest.main()
