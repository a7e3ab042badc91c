"""The derived numbers on the good fixture (its rules: fixtures/make_good.py)."""

import math
import unittest

import numpy as np

from helpers import GOOD, mean_std, raw_values
import derive
import results

ROWS = results.load_result_dir(GOOD).ok_rows
VCPUS = (1, 2, 4)


class Statistics(unittest.TestCase):
    def test_stat_is_mean_and_sample_stddev(self) -> None:
        s = derive.stat([10.0, 12.0, 17.0])
        self.assertAlmostEqual(s.mean, 13.0)
        self.assertAlmostEqual(s.std, math.sqrt(((3**2) + 1 + 4**2) / 2))
        self.assertEqual(derive.stat([5.0]).std, 0.0)
        self.assertIsNone(derive.stat([]))

    def test_read_cost_over_repeats(self) -> None:
        for v in VCPUS:
            s = derive.read_cost(ROWS, "preempt", v, nest=1)
            m, sd = mean_std(raw_values(test="read", kernel="preempt", vcpus=str(v),
                                        metric="ns_per_pair", nest="1", readers=str(v)))
            self.assertAlmostEqual(s.mean, m)
            self.assertAlmostEqual(s.std, sd)
            self.assertAlmostEqual(s.std, math.sqrt(2))  # repeats differ by 2 ns
            self.assertEqual(s.n, 2)


class AmortisedBarrierSavings(unittest.TestCase):
    def test_saved_is_the_fixture_difference(self) -> None:
        for load in ("idle", "readers"):
            sv = derive.savings(ROWS, "preempt", load)
            self.assertEqual([s.vcpus for s in sv], list(VCPUS))
            for s in sv:
                self.assertAlmostEqual(s.saved_ns.mean, 20 + 10 * s.vcpus)
                self.assertAlmostEqual(s.saved_ns.std, 2.0)  # hypot(sqrt 2, sqrt 2)

    def test_break_even(self) -> None:
        factor = {"idle": 50, "readers": 100}
        for load, f in factor.items():
            for s in derive.savings(ROWS, "preempt", load):
                saved = 20 + 10 * s.vcpus
                waitmb = f * saved + 5  # repeats add 0 and 10 ns
                self.assertAlmostEqual(s.waitmb_ns.mean, waitmb)
                self.assertAlmostEqual(s.break_even.mean, waitmb / saved)
                rel = math.hypot(s.waitmb_ns.std / waitmb, 2.0 / saved)
                self.assertAlmostEqual(s.break_even.std, waitmb / saved * rel)

    def test_only_stage_kernels(self) -> None:
        self.assertEqual(derive.stage_kernels(ROWS), ["preempt"])


class GracePeriods(unittest.TestCase):
    def test_cdf_monotone_and_complete(self) -> None:
        for k in ("classic", "preempt", "tree", "tree-preempt"):
            for load in ("idle", "readers"):
                samples = derive.gp_samples(ROWS, k, 2, load)
                self.assertEqual(samples.size, 10)  # 5 samples x 2 repeats
                xs, ys = derive.cdf(samples)
                self.assertTrue(np.all(np.diff(xs) >= 0))
                self.assertTrue(np.all(np.diff(ys) > 0))
                self.assertAlmostEqual(ys[-1], 1.0)
                self.assertEqual(sorted(xs), sorted(raw_values(
                    test="gp", kernel=k, vcpus="2", load=load, metric="latency_ns")))

    def test_median(self) -> None:
        s = derive.gp_median(ROWS, "preempt", 4, "idle")
        self.assertAlmostEqual(s.mean, 6050.0)  # 3rd of 1..5 x 2000, + 0/100


class Refscale(unittest.TestCase):
    def test_agreement_and_flag(self) -> None:
        table = {(a.kernel, a.vcpus): a for a in derive.refscale_agreement(ROWS)}
        self.assertEqual(len(table), 6)
        for (k, v), a in table.items():
            ratio = 1.5 if (k, v) == ("tree-preempt", 4) else 1.05
            self.assertAlmostEqual(a.diff_pct, (1 / ratio - 1) * 100, places=3)
            self.assertEqual(a.flagged, ratio == 1.5)


class Summary(unittest.TestCase):
    def test_failed_cell_leaves_one_repeat(self) -> None:
        s = derive.callrcu_rate(ROWS, "tree", 4)
        self.assertEqual(s.n, 1)
        self.assertAlmostEqual(s.mean, 100000 * 4 * 3)


if __name__ == "__main__":
    unittest.main()
