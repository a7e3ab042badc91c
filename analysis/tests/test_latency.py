"""The latency section on fixtures/latency (two boots per cell, host of 2
CPUs): its numbers against an independent reading of the CSV, the summary
bullet, the plot files, the overcommitted marks, no data."""

import csv
import unittest

import numpy as np

from helpers import FIXTURES, copy_fixture, rmtree
import latency
import resultdir

FIXTURE = FIXTURES / "latency"
KERNELS = ["classic", "preempt", "classic-preempt"]


def raw(kernel: str, vcpus: int, reader_us: int, metric: str) -> list[float]:
    """Per-boot values of one latency cell, read with plain csv."""
    out = []
    with open(FIXTURE / "csv" / "results.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            if (row["test"], row["kernel"], row["vcpus"], row["metric"], row["status"]) == \
                    ("latency", kernel, str(vcpus), metric, "ok") and \
                    f"reader_us={reader_us};" in row["params"] + ";":
                out.append(float(row["value"]))
    return out


class Base(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = copy_fixture("latency")
        self.rd = resultdir.load_result_dir(self.dir)
        self.rows = self.rd.ok_rows

    def tearDown(self) -> None:
        rmtree(self.dir)


class Numbers(Base):
    def test_reader_lengths(self) -> None:
        self.assertEqual(latency.reader_lengths(self.rows), [10, 10000])

    def test_median_over_boots(self) -> None:
        for k in KERNELS:
            for m in latency.TABLE_METRICS:
                e = latency.latency_estimate(self.rows, m, k, 1, 10000)
                self.assertEqual(e.n, len(raw(k, 1, 10000, m)))
                self.assertAlmostEqual(e.value, float(np.median(raw(k, 1, 10000, m))))

    def test_table_has_every_cell(self) -> None:
        body = latency.table_lines(self.rows, KERNELS)[2:-1]
        self.assertEqual(len(body), len(KERNELS) * 2 * 2)


class Headline(Base):
    def test_both_kernels_side_by_side(self) -> None:
        (line,) = latency.headline(self.rd, "preempt", "classic-preempt")
        self.assertTrue(line.startswith("- **Latency under readers**: at 1 vCPU,"))
        self.assertIn("10.0 ms", line)  # the longest reader, 10000 µs
        for k in ("preempt", "classic-preempt"):
            for m, label in latency.HEADLINE_METRICS:
                figure = float(np.median(raw(k, 1, 10000, m)))
                self.assertIn(latency.units.value(figure, "ns").split()[0] + " [", line)
                self.assertIn(f"{label} ", line)
        self.assertNotIn("×", line)  # side by side, no ratio of latencies

    def test_none_without_the_base(self) -> None:
        self.rd.rows = [r for r in self.rd.rows if r.kernel != "classic-preempt"]
        self.assertEqual(latency.headline(self.rd, "preempt", "classic-preempt"), [])

    def test_only_overcommitted_cells(self) -> None:
        self.rd.rows = [r for r in self.rd.rows if r.vcpus == 2]
        (line,) = latency.headline(self.rd, "preempt", "classic-preempt")
        self.assertIn("no cell below the host's 2 CPUs", line)


class Section(Base):
    def test_plots_written_and_linked(self) -> None:
        lines = latency.report_section(self.rd, KERNELS)
        plots = self.dir / "plots"
        for v in (1, 2):
            self.assertGreater((plots / f"latency_wakeup_{v}.png").stat().st_size, 0)
            self.assertTrue((plots / f"latency_wakeup_{v}.svg").exists())
            self.assertIn(f"![latency_wakeup_{v}](plots/latency_wakeup_{v}.png)", lines)
        self.assertIn("overcommitted", (plots / "latency_wakeup_2.svg").read_text())
        self.assertNotIn("overcommitted", (plots / "latency_wakeup_1.svg").read_text())

    def test_overcommitted_rows_marked(self) -> None:
        lines = latency.report_section(self.rd, KERNELS)
        two = [line for line in lines if line.startswith("| preempt | 2 |")]
        self.assertTrue(two and all("overcommitted" in line for line in two))

    def test_latency_section_from_rows(self) -> None:
        text = latency.latency_section(self.rows, self.dir / "figs")
        self.assertTrue(text.startswith("## Scheduling latency behind readers"))
        self.assertIn("![latency_wakeup_1](figs/latency_wakeup_1.png)", text)
        self.assertTrue((self.dir / "figs" / "latency_wakeup_1.svg").exists())

    def test_no_latency_rows(self) -> None:
        self.rd.rows = [r for r in self.rd.rows if r.test != "latency"]
        self.assertIn("No latency rows in this sweep.", latency.report_section(self.rd, KERNELS))
        self.assertFalse((self.dir / "plots").exists())


if __name__ == "__main__":
    unittest.main()
