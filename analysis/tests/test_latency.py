"""The latency section on fixtures/latency: its numbers against an
independent reading of the CSV, the headline, the plot files, no data."""

import csv
import shutil
import tempfile
import unittest
from pathlib import Path

from helpers import FIXTURES, mean_std
import latency
import results

FIXTURE = FIXTURES / "latency"
ROWS = results.load_result_dir(FIXTURE).ok_rows
KERNELS = ["classic", "preempt", "classic-preempt"]


def raw(kernel: str, vcpus: int, reader_us: int, metric: str) -> list[float]:
    """Values of one latency cell, read with plain csv."""
    out = []
    with open(FIXTURE / "csv" / "results.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            if (row["test"], row["kernel"], row["vcpus"], row["metric"]) == \
                    ("latency", kernel, str(vcpus), metric) and \
                    f"reader_us={reader_us};" in row["params"] + ";":
                out.append(float(row["value"]))
    return out


class Numbers(unittest.TestCase):
    def test_reader_lengths(self) -> None:
        self.assertEqual(latency.reader_lengths(ROWS), [10, 10000])

    def test_stat_over_repeats(self) -> None:
        for k in KERNELS:
            for m in latency.TABLE_METRICS:
                s = latency.latency_stat(ROWS, m, k, 1, 10000)
                mean, std = mean_std(raw(k, 1, 10000, m))
                self.assertAlmostEqual(s.mean, mean)
                self.assertAlmostEqual(s.std, std)

    def test_samples_pooled(self) -> None:
        self.assertEqual(latency.samples_of(ROWS, "preempt", 2, 10),
                         int(sum(raw("preempt", 2, 10, "samples"))))

    def test_table_has_every_cell(self) -> None:
        body = [line for line in latency.latency_table(ROWS, KERNELS)[2:] if line]
        self.assertEqual(len(body), len(KERNELS) * 2 * 2)

    def test_plot_vcpus_leaves_out_overcommitted(self) -> None:
        self.assertEqual(latency.plot_vcpus(ROWS, 2), [1])
        self.assertEqual(latency.plot_vcpus(ROWS, None), [1, 2])


class Headline(unittest.TestCase):
    def test_cost_next_to_benefit(self) -> None:
        text = latency.headline(ROWS, 1)
        worst_p = mean_std(raw("preempt", 1, 10000, "wakeup_max_ns"))[0]
        worst_c = mean_std(raw("classic-preempt", 1, 10000, "wakeup_max_ns"))[0]
        self.assertIn("preempt against classic-preempt", text)
        self.assertIn("ns per pair", text)
        self.assertIn("grace period", text)
        self.assertIn(f"{worst_c / worst_p:.2f}× lower", text)

    def test_no_headline_without_the_pair(self) -> None:
        only = [r for r in ROWS if r.kernel != "classic-preempt"]
        self.assertEqual(latency.headline(only, 1), "")


class Section(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="rb-latency-"))

    def tearDown(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_plots_written_and_linked(self) -> None:
        lines = latency.latency_section(ROWS, KERNELS, self.tmp, 2)
        self.assertTrue((self.tmp / "plots" / "latency_wakeup_1.png").stat().st_size > 0)
        self.assertTrue((self.tmp / "plots" / "latency_wakeup_1.svg").exists())
        self.assertFalse((self.tmp / "plots" / "latency_wakeup_2.png").exists())
        self.assertIn("![latency_wakeup_1](plots/latency_wakeup_1.png)", lines)

    def test_no_latency_rows(self) -> None:
        other = [r for r in ROWS if r.test != "latency"]
        lines = latency.latency_section(other, KERNELS, self.tmp, 2)
        self.assertIn("No latency rows.", lines)
        self.assertFalse((self.tmp / "plots").exists())


if __name__ == "__main__":
    unittest.main()
