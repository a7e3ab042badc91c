"""The derived numbers on the good fixture (its rules: fixtures/make_good.py)."""

import unittest

import numpy as np

from helpers import GOOD, raw_values
import derive
import resultdir

RD = resultdir.load_result_dir(GOOD)
ROWS = RD.ok_rows
VCPUS = (1, 2, 4)
KERNELS = ("classic", "preempt", "tree", "tree-preempt")
BASE = {"classic": 1, "preempt": 10, "tree": 2, "tree-preempt": 5}
EFFECT = {1: 0, 2: 10, 3: 5}


def raw_median(**match: str) -> float:
    return float(np.median(raw_values(**match)))


class ReadSide(unittest.TestCase):
    def test_per_boot_and_median(self) -> None:
        for k in KERNELS:
            for v in VCPUS:
                boots = derive.read_boots(ROWS, k, v)
                self.assertEqual(boots, {r: float(BASE[k] + v + e) for r, e in EFFECT.items()})
                e = derive.cell_estimate(derive.read_boots, ROWS, k, v)
                self.assertEqual(e.value, raw_median(test="read", kernel=k, vcpus=str(v),
                                                     readers=str(v), nest="1",
                                                     metric="ns_per_pair"))
                self.assertEqual(e.n, 3)

    def test_barrier_cost_is_paired(self) -> None:
        """preempt: per-boot differences 30, 0, 60 -> median 30; the difference
        of the medians (unpaired) would be 25."""
        for v in VCPUS:
            e = derive.cell_estimate(derive.barrier_boots, ROWS, "preempt", v)
            self.assertEqual(e.value, 30.0)
            self.assertEqual(sorted(e.points), [0.0, 30.0, 60.0])
            m = dict(test="read_mb", kernel="preempt", vcpus=str(v), readers=str(v), nest="1",
                     metric="ns_per_pair")
            unpaired = raw_median(**m) - raw_median(**dict(m, test="read"))
            self.assertEqual(unpaired, 25.0)
            self.assertNotEqual(e.value, unpaired)

    def test_negative_not_clamped(self) -> None:
        for v in VCPUS:
            e = derive.cell_estimate(derive.barrier_boots, ROWS, "tree", v)
            self.assertEqual(e.value, -2.0)
            self.assertLess(e.high, 0.0)


class GracePeriods(unittest.TestCase):
    def test_boot_median_of_samples(self) -> None:
        for ki, k in enumerate(KERNELS):
            boots = derive.gp_boots(ROWS, k, 2)
            self.assertEqual(boots, {r: 3e6 * (ki + 1) + 1e5 * r for r in EFFECT})
            ticks = derive.gp_boots(ROWS, k, 2, metric="latency_ticks")
            for r in EFFECT:
                self.assertAlmostEqual(ticks[r], boots[r] * 250 / 1e9)

    def test_cdf_monotone_and_complete(self) -> None:
        samples = derive.gp_samples(ROWS, "preempt", 2, "readers")
        self.assertEqual(samples.size, 15)  # 5 samples x 3 boots
        xs, ys = derive.cdf(samples)
        self.assertTrue(np.all(np.diff(xs) >= 0))
        self.assertAlmostEqual(ys[-1], 1.0)

    def test_stage_kernels(self) -> None:
        self.assertEqual(derive.stage_kernels(ROWS), ["preempt"])
        t = derive.gp_stage_times(ROWS, "preempt", 4, "idle")
        self.assertEqual(t["waitmb"].value, 420.0)


class CallRcu(unittest.TestCase):
    def test_failed_cell_leaves_two_boots(self) -> None:
        self.assertEqual(sorted(derive.capacity_boots(ROWS, "tree", 4)), [1, 3])
        self.assertEqual(len(RD.failed_rows), 1)

    def test_cost(self) -> None:
        e = derive.cell_estimate(derive.callrcu_cost_boots, ROWS, "preempt", 1)
        self.assertEqual(e.value, 200 + 1 + 2)


class Refscale(unittest.TestCase):
    def test_agreement_and_flag(self) -> None:
        table = {(a.kernel, a.vcpus): a for a in derive.refscale_agreement(ROWS)}
        self.assertEqual(len(table), 6)
        for (k, v), a in table.items():
            ratio = 1.5 if (k, v) == ("tree-preempt", 4) else 1.05
            self.assertAlmostEqual(a.ratio.value, 1 / ratio, places=3)
            self.assertEqual(a.flagged, ratio == 1.5)
            # Boots differ by 10 ns and the kernels are resampled independently:
            # the interval of tree-preempt's 1/1.5 reaches past 0.9.
            self.assertLess(a.ratio.low, 1 / 1.5)
            self.assertGreater(a.ratio.high, 0.9)
            self.assertFalse(a.resolved)

    def test_per_boot_table(self) -> None:
        table = derive.agreement_per_boot(ROWS)
        self.assertEqual(len(table), 2 * 3 * 3)
        for t in table:
            self.assertAlmostEqual(float(t["ratio"]), 1 / (1.5 if (t["kernel"], t["vcpus"]) ==
                                                            ("tree-preempt", "4") else 1.05),
                                   places=3)


class BootsRecord(unittest.TestCase):
    def test_overcommitted_and_flagged(self) -> None:
        self.assertEqual(RD.host_cpus, 2)
        self.assertFalse(RD.overcommitted("classic", 1))
        self.assertTrue(RD.overcommitted("classic", 2))
        self.assertFalse(RD.overcommitted("host", 2))
        self.assertEqual(RD.flagged_repeats("preempt", 1), [3])
        self.assertEqual(RD.flagged_repeats("preempt", 2), [])


if __name__ == "__main__":
    unittest.main()
