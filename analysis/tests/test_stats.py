"""stats.py: medians and bootstrap intervals on samples whose answer is known."""

import math
import unittest

import numpy as np

from helpers import ANALYSIS  # noqa: F401  (puts analysis/ on the import path)
import stats


class MedianInterval(unittest.TestCase):
    def test_known_sample(self) -> None:
        """A normal sample of 400: median near 10, and the interval's half
        width near the asymptotic 1.96 x sqrt(pi/2) x sigma / sqrt(n)."""
        sigma, n = 2.0, 400
        sample = np.random.default_rng(1).normal(10.0, sigma, n)
        e = stats.median_ci(sample)
        self.assertAlmostEqual(e.value, float(np.median(sample)))
        self.assertLess(e.low, e.value)
        self.assertGreater(e.high, e.value)
        self.assertTrue(e.low < 10.0 < e.high)
        want = 1.96 * math.sqrt(math.pi / 2) * sigma / math.sqrt(n)
        self.assertAlmostEqual((e.high - e.low) / 2, want, delta=0.3 * want)
        self.assertEqual(e.n, n)

    def test_small_sample_exact(self) -> None:
        """Three boots: resampled medians can only be the three values, so the
        2.5/97.5 percentiles are the smallest and largest boot."""
        e = stats.median_ci([3.0, 1.0, 2.0])
        self.assertEqual((e.value, e.low, e.high), (2.0, 1.0, 3.0))
        one = stats.median_ci([5.0])
        self.assertEqual((one.value, one.low, one.high), (5.0, 5.0, 5.0))
        self.assertIsNone(stats.median_ci([]))

    def test_seeded(self) -> None:
        sample = list(np.random.default_rng(2).normal(0, 1, 30))
        self.assertEqual(stats.median_ci(sample), stats.median_ci(sample))

    def test_negative_stays_negative(self) -> None:
        e = stats.median_ci([-3.0, -1.0, -2.0, -2.5])
        self.assertLess(e.value, 0)
        self.assertLess(e.high, 0)
        self.assertTrue(e.excludes(0.0))


class RatioInterval(unittest.TestCase):
    def test_ratio_of_medians(self) -> None:
        rng = np.random.default_rng(3)
        a, b = rng.normal(30, 1, 200), rng.normal(10, 0.5, 200)
        r = stats.ratio_ci(a, b)
        self.assertAlmostEqual(r.value, np.median(a) / np.median(b))
        self.assertTrue(r.low < 3.0 < r.high)
        self.assertLess(r.high - r.low, 0.2)
        self.assertTrue(r.excludes(1.0))

    def test_undefined(self) -> None:
        self.assertIsNone(stats.ratio_ci([1.0], []))
        self.assertIsNone(stats.ratio_ci([1.0], [-1.0, 0.0, -2.0]))
        r = stats.ratio_ci([1.0, 2.0], [-1.0, 5.0, 6.0])  # a resample can have median -1
        self.assertFalse(r.bounded)

    def test_paired(self) -> None:
        self.assertEqual(stats.paired({1: 10.0, 2: 20.0, 3: 5.0}, {1: 1.0, 3: 2.0, 4: 9.0}),
                         [9.0, 3.0])


if __name__ == "__main__":
    unittest.main()
