"""units.py: 3 significant digits and humanised units."""

import unittest

from helpers import ANALYSIS  # noqa: F401  (puts analysis/ on the import path)
import units
from stats import Estimate


class Units(unittest.TestCase):
    def test_significant_digits(self) -> None:
        self.assertEqual(units.sig(4059.0), "4060")
        self.assertEqual(units.sig(12.345), "12.3")
        self.assertEqual(units.sig(0.012), "0.0120")
        self.assertEqual(units.sig(-2.0), "−2.00")

    def test_humanised(self) -> None:
        self.assertEqual(units.value(8999440, "ns"), "9.00 ms")
        self.assertEqual(units.value(1500, "ns"), "1.50 µs")
        self.assertEqual(units.value(2210000, "1/s"), "2.21 M/s")
        self.assertEqual(units.interval(Estimate(8999440, 8e6, 9.1e6, (1.0,)), "ns"),
                         "9.00 [8.00, 9.10] ms")
        self.assertEqual(units.cell(Estimate(-2.0, -3.0, -1.0, (1.0, 2.0, 3.0)), "ns"),
                         "−2.00 [−3.00, −1.00] ns (n=3)")

    def test_span(self) -> None:
        """A median with its min–max, both ends in the median's unit."""
        self.assertEqual(units.span(1600, 1580, 1650, "count"), "1.60 [1.58–1.65] k")
        self.assertEqual(units.span(800, 790, 1200, "count"), "800 [790–1200]")
        self.assertEqual(units.span(0, 0, 0, "count"), "0 [0–0]")
        self.assertEqual(units.span(1500, 900, 2000, "ns"), "1.50 [0.900–2.00] µs")


if __name__ == "__main__":
    unittest.main()
