"""The verdict table at the top of report.md (verdict.py): its figures are the
summary's, it stays within its line budget, rows without data are left out,
and a row is one line of verdict.ROWS."""

import unittest
from pathlib import Path

from helpers import copy_fixture, rmtree
from test_summary import PAIRS, edit_csv
import latency
import resultdir
import summary
import tables
import verdict


def table_rows(lines: list[str]) -> dict[str, dict[str, str]]:
    """label -> {column: cell} of the verdict table's body rows; a column said
    once above the table ("Same in every row: kind: ...") is in every row."""
    table = [line for line in lines if line.startswith("| ")]
    header, *_ = [[c.strip() for c in line.strip("|").split("|")] for line in table[:1]]
    same = {}
    for line in lines:
        if line.startswith("Same in every row: "):
            for item in line.removeprefix("Same in every row: ").rstrip(".").split("; "):
                name, _, value = item.partition(": ")
                same[name] = value
    rows = {}
    for line in table[2:]:
        cells = dict(zip(header, [c.strip() for c in line.strip("|").split("|")]))
        rows[cells["measure"]] = {**same, **cells}
    return rows


class Verdict(unittest.TestCase):
    def setUp(self) -> None:
        self.dirs: list[Path] = []

    def tearDown(self) -> None:
        for d in self.dirs:
            rmtree(d)

    def load(self, fixture: str, change=None) -> resultdir.ResultDir:
        self.dirs.append(copy_fixture(fixture))
        if change:
            edit_csv(self.dirs[-1] / "csv" / "results.csv", change)
        return resultdir.load_result_dir(self.dirs[-1])

    def test_wall_clock_rows_are_the_summary_figures(self) -> None:
        """The good fixture has no counts and no latency rows: only the wall-clock
        rows, each pair's cell the summary's medians and ratio at 1 vCPU."""
        lines = verdict.verdict(self.load("good"), PAIRS)
        rows = table_rows(lines)
        self.assertEqual(list(rows), ["lone grace period (ticks)", "call_rcu() cost",
                                      "callback capacity (CPU-bound)"])
        gp = rows["lone grace period (ticks)"]
        self.assertEqual(gp["kind"], "TCG wall clock")
        self.assertEqual(gp["preempt vs classic"], "1.55 vs 0.800 ticks: 1.94× [1.85, 2.03]")
        text = "\n".join(summary.summary(self.load("good"), PAIRS))
        self.assertIn("1.55 ticks on preempt against 0.800 ticks on classic (3 and 3 boots): "
                      "1.94× (95% CI 1.85–2.03×)", text)
        self.assertEqual(rows["call_rcu() cost"]["preempt vs classic"],
                         "203 vs 103 ns: 1.97× [1.94, 2.00]")
        self.assertIn("at 1 vCPU, the largest vCPU count below the host's 2 CPUs", "\n".join(lines))
        self.assertEqual(lines[0], "## Verdict")

    def test_counted_rows(self) -> None:
        rows = table_rows(verdict.verdict(self.load("counts"), [("preempt", "classic")]))
        insns, modelled = rows["read pair: instructions"], rows["read pair: ns"]
        self.assertEqual(insns["kind"], "exact count")
        self.assertRegex(insns["preempt vs classic"], r"^\d+ vs \d+$")
        self.assertEqual(modelled["kind"], "model")
        self.assertRegex(modelled["preempt vs classic"],
                         r"^\[[\d.]+, [\d.]+\] vs \[[\d.]+, [\d.]+\] ns$")

    def test_wakeup_rows(self) -> None:
        rd = self.load("latency")
        lines = verdict.verdict(rd, [("preempt", "classic-preempt")])
        rows = table_rows(lines)
        w = latency.headline_wakeups(rd, "preempt", "classic-preempt")
        median = rows["wakeup behind 10.0 ms readers: median"]
        self.assertEqual(median["kind"], "TCG wall clock")
        self.assertEqual(median["preempt vs classic-preempt"], verdict.versus(
            latency.units.interval(w.figure[("preempt", "wakeup_median_ns")], "ns"),
            latency.units.interval(w.figure[("classic-preempt", "wakeup_median_ns")], "ns")))
        self.assertIn("rcu_read_lock() for 10.0 ms at a time", "\n".join(lines))
        self.assertIn("wakeup behind 10.0 ms readers: worst", rows)

    def test_fits_the_first_screen(self) -> None:
        """Every row with data and every pair: at most MAX_LINES table lines."""
        rows = len(verdict.ROWS)
        self.assertLessEqual(2 + rows, verdict.MAX_LINES)
        lines = verdict.verdict(self.load("good"), PAIRS)
        self.assertLessEqual(len([x for x in lines if x.startswith("|")]), verdict.MAX_LINES)

    def test_a_row_is_one_line(self) -> None:
        """A new headline figure: one VerdictRow; a row no pair has is left out."""
        extra = verdict.VerdictRow("memory held", verdict.WALL,
                                   lambda rd, k, b: verdict.Cell(f"{k} vs {b}", 1))
        absent = verdict.VerdictRow("not measured yet", verdict.WALL, lambda rd, k, b: None)
        saved = verdict.ROWS
        verdict.ROWS = saved + (extra, absent)
        try:
            rows = table_rows(verdict.verdict(self.load("good"), PAIRS))
        finally:
            verdict.ROWS = saved
        self.assertEqual(rows["memory held"]["tree-preempt vs tree"], "tree-preempt vs tree")
        self.assertNotIn("not measured yet", rows)

    def test_vcpus_per_cell_when_they_differ(self) -> None:
        odd = verdict.VerdictRow("at 2 vCPUs", verdict.WALL, lambda rd, k, b: verdict.Cell("x", 2))
        saved = verdict.ROWS
        verdict.ROWS = saved + (odd,)
        try:
            lines = verdict.verdict(self.load("good"), PAIRS)
        finally:
            verdict.ROWS = saved
        self.assertEqual(table_rows(lines)["at 2 vCPUs"]["preempt vs classic"], "x (2 vCPUs)")
        self.assertIn("at the vCPU count each cell names", "\n".join(lines))

    def test_difference_when_base_is_zero(self) -> None:
        """classic's call_rcu() cost at 0: no ratio, the difference [95% CI]."""
        def zero(row: dict[str, str]) -> None:
            if (row["test"], row["kernel"]) == ("callrcu_cost", "classic"):
                row["value"] = "0"
        rows = table_rows(verdict.verdict(self.load("good", zero), PAIRS))
        cell = rows["call_rcu() cost"]["preempt vs classic"]
        self.assertNotIn("×", cell)
        self.assertRegex(cell, r"^203 vs 0 ns: 203 \[[\d.]+, [\d.]+\] ns apart$")

    def test_nothing_without_pairs(self) -> None:
        self.assertEqual(verdict.verdict(self.load("good"), [("classic-preempt", "classic")]), [])


class ConstantColumns(unittest.TestCase):
    def test_said_once_above(self) -> None:
        lines = tables.table(["kernel", "load", "ns", "cell"],
                             [["a", "idle", "1", "–"], ["b", "idle", "2", "–"]])
        self.assertEqual(lines[0], "Same in every row: load: idle; cell: –.")
        self.assertEqual(lines[2], "| kernel | ns |")
        self.assertEqual(lines[4:6], ["| a | 1 |", "| b | 2 |"])

    def test_one_row_or_all_constant_kept(self) -> None:
        one = tables.table(["a", "b"], [["1", "2"]])
        self.assertEqual(one[0], "| a | b |")
        same = tables.table(["a", "b"], [["1", "2"], ["1", "2"]])
        self.assertEqual(same[0], "| a | b |")


class P999(unittest.TestCase):
    """No p99.9 column: at 100 samples it is the maximum (rcubench no longer
    reports it; older sweeps' p99.9 rows are not shown)."""

    def setUp(self) -> None:
        self.dir = copy_fixture("latency")

    def tearDown(self) -> None:
        rmtree(self.dir)

    def header(self) -> str:
        rows = resultdir.load_result_dir(self.dir).ok_rows
        return latency.table_lines(rows, ["preempt"])[0]

    def test_dropped(self) -> None:
        self.assertNotIn("p99.9", self.header())
        self.assertIn("wakeup max", self.header())


if __name__ == "__main__":
    unittest.main()
