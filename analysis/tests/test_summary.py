"""The summary at the top of report.md: generated from the data, headline
ratios only from cells below the host's CPU count."""

import csv
import re
import unittest
from pathlib import Path
from typing import Callable

from helpers import copy_fixture, rmtree
import costmodel
import latency
import report
import resultdir
import summary

PAIRS = [("preempt", "classic"), ("tree-preempt", "tree"), ("preempt", "classic-preempt")]


def edit_csv(path: Path, change: Callable[[dict[str, str]], None]) -> None:
    """Rewrite a fixture CSV, change(row) editing each row in place."""
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        fields, rows = reader.fieldnames, list(reader)
    for row in rows:
        change(row)
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def summary_text(d: Path) -> str:
    return "\n".join(summary.summary(resultdir.load_result_dir(d), PAIRS))


def bullet(text: str, title: str, pair: str = "preempt against classic") -> str:
    part = text.split(f"### {pair}\n", 1)[1].split("\n### ", 1)[0]
    return next(line for line in part.splitlines() if line.startswith(f"- **{title}**"))


class Summary(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = copy_fixture("good")

    def tearDown(self) -> None:
        rmtree(self.dir)

    def test_pairs_present_only(self) -> None:
        text = summary_text(self.dir)
        self.assertIn("### preempt against classic", text)
        self.assertIn("### tree-preempt against tree", text)
        self.assertNotIn("classic-preempt", text)  # no rows of that kernel
        self.assertIn("Only 3 boots per cell (quick profile): the intervals are wide", text)

    def test_headline_numbers(self) -> None:
        """1 vCPU (the only cell below the host's 2 CPUs): read medians 16 and
        7 ns; idle GP boot medians 6.2 and 3.2 ms."""
        text = summary_text(self.dir)
        read = bullet(text, "Read side (wall clock under TCG)")
        self.assertIn("At 1 vCPU,", read)
        self.assertIn("16.0 ns on preempt against 7.00 ns on classic (3 and 3 boots): 2.29×", read)
        gp = bullet(text, "Lone grace-period latency")
        self.assertIn("6.20 ms on preempt against 3.20 ms on classic (3 and 3 boots): 1.94×", gp)
        self.assertIn("longer on preempt", gp)
        # read_mb − read at 1 vCPU is no barrier's cost (non-parallel TCG emits
        # no host fence), and tree-preempt's readers need no barriers at all.
        self.assertNotIn("Amortised barriers, read side", text)
        self.assertNotIn("Amortised barriers", text.split("### tree-preempt against tree")[1])

    def test_sentence_follows_the_data(self) -> None:
        """Halving classic's call_rcu() cost at 1 vCPU doubles the ratio in the sentence."""
        path = self.dir / "csv" / "results.csv"
        before = bullet(summary_text(self.dir), "call_rcu() cost")

        def halve(row: dict[str, str]) -> None:
            if (row["test"], row["kernel"], row["vcpus"]) == ("callrcu_cost", "classic", "1"):
                row["value"] = f"{float(row['value']) / 2:g}"
        edit_csv(path, halve)
        after = bullet(summary_text(self.dir), "call_rcu() cost")
        self.assertNotEqual(before, after)
        self.assertIn("203 ns on preempt against 51.5 ns on classic (3 and 3 boots): 3.94×", after)
        self.assertIn("1.97×", before)

    def test_overcommitted_cells_never_headline(self) -> None:
        """Wild values in the 2- and 4-vCPU cells leave the summary unchanged."""
        before = summary_text(self.dir)

        def wild(row: dict[str, str]) -> None:
            if row["vcpus"] != "1" and row["accel"] == "tcg" and row["status"] == "ok":
                row["value"] = f"{float(row['value']) * 7 + 1000:g}"
        edit_csv(self.dir / "csv" / "results.csv", wild)
        self.assertEqual(summary_text(self.dir), before)

    def test_no_ratio_when_every_cell_is_overcommitted(self) -> None:
        def one_cpu(row: dict[str, str]) -> None:
            row["host_cpus"] = "1"
            row["overcommitted"] = "1"
        edit_csv(self.dir / "csv" / "boots.csv", one_cpu)
        meta = self.dir / "metadata.json"
        meta.write_text(meta.read_text().replace('"host_cpus": 2', '"host_cpus": 1'))
        text = summary_text(self.dir)
        self.assertNotRegex(text, r"\d×")
        self.assertIn("no cell with fewer vCPUs than the host's 1 CPUs", text)

    def test_difference_when_base_is_zero(self) -> None:
        """classic's read side at 0 ns: a ratio would be meaningless, the
        sentence gives the difference of the medians instead."""
        def zero(row: dict[str, str]) -> None:
            if (row["test"], row["kernel"], row["vcpus"], row["metric"]) == \
                    ("read", "classic", "1", "ns_per_pair"):
                row["value"] = "0"
        edit_csv(self.dir / "csv" / "results.csv", zero)
        read = bullet(summary_text(self.dir), "Read side (wall clock under TCG)")
        self.assertNotIn("×", read)
        self.assertIn("16.0 ns on preempt against 0 ns on classic (3 and 3 boots): 16.0 ns "
                      "apart (95% CI 11.0 ns to 21.0 ns; no ratio: classic's figure is not "
                      "distinguishable from zero), more expensive on preempt.", read)

    def host_cpus(self, n: int) -> None:
        """Make the fixture's host n CPUs wide: cells below n vCPUs usable."""
        def widen(row: dict[str, str]) -> None:
            row["host_cpus"] = str(n)
            row["overcommitted"] = "1" if int(row["vcpus"]) >= n else "0"
        edit_csv(self.dir / "csv" / "boots.csv", widen)
        meta = self.dir / "metadata.json"
        meta.write_text(meta.read_text().replace('"host_cpus": 2', f'"host_cpus": {n}'))

    def test_barrier_wall_clock_above_one_vcpu(self) -> None:
        """On a 4-CPU host the 2-vCPU cell runs parallel TCG: read_mb − read
        there is reported (preempt only), negative values as measured."""
        self.host_cpus(4)
        text = summary_text(self.dir)
        line = bullet(text, "Amortised barriers, read side (TCG wall clock)")
        self.assertIn("at 2 vCPUs, smp_mb() after lock and before unlock adds 30.0 ns", line)
        self.assertNotIn("Amortised barriers, read side",
                         text.split("### tree-preempt against tree")[1])

        def negative(row: dict[str, str]) -> None:
            if (row["test"], row["kernel"], row["metric"]) == ("read_mb", "preempt",
                                                                "ns_per_pair"):
                row["value"] = f"{float(row['value']) - 100:g}"
        edit_csv(self.dir / "csv" / "results.csv", negative)
        line = bullet(summary_text(self.dir), "Amortised barriers, read side (TCG wall clock)")
        self.assertIn("changes the cost by −70.0 ns", line)
        self.assertTrue(re.search(r"95% CI −100 ns to −40.0 ns", line), line)


class Sections(unittest.TestCase):
    """The sections of the cost model (costmodel.py) and of the latency test
    (latency.py) in the summary and the report, from the fixtures that have
    their rows.  Imported as any module: renaming one of their functions
    breaks these tests instead of dropping a section."""

    def setUp(self) -> None:
        self.dirs: list[Path] = []

    def tearDown(self) -> None:
        for d in self.dirs:
            rmtree(d)

    def load(self, fixture: str) -> resultdir.ResultDir:
        self.dirs.append(copy_fixture(fixture))
        return resultdir.load_result_dir(self.dirs[-1])

    def test_counted_lines(self) -> None:
        rd = self.load("counts")
        text = "\n".join(summary.pair_section(rd, "preempt", "classic"))
        self.assertRegex(text, r"\n- \*\*Read side, counted\*\*: at 1 vCPU, a read pair "
                               r"executes \d+ instructions")
        self.assertIn("- **Amortised barriers, balance**: on preempt at 1 vCPU, per-section "
                      "smp_mb() adds", text)
        for line in costmodel.headline(rd, "preempt", "classic") + \
                costmodel.break_even(rd, "preempt", "classic"):
            self.assertIn(line, text.splitlines())
        # Classic's readers need no barriers in any design: no balance.
        self.assertEqual(costmodel.break_even(rd, "classic", "preempt"), [])

    def test_latency_line(self) -> None:
        rd = self.load("latency")
        lines = summary.pair_section(rd, "preempt", "classic-preempt")
        (line,) = [x for x in lines if x.startswith("- **Latency under readers**")]
        self.assertIn("a SCHED_FIFO task on their CPU wakes late by preempt against "
                      "classic-preempt", line)
        self.assertEqual([line], latency.headline(rd, "preempt", "classic-preempt"))

    def test_report_sections(self) -> None:
        """report.md has the count sections and the latency section, with data."""
        md = report.report_markdown(self.load("counts"), [], PAIRS).splitlines()
        self.assertIn("## Executed instructions (exact counts, TCG plugin) and modelled cost",
                      md)
        self.assertIn("## Amortised barriers: per-section barriers against the grace-period "
                      "side (counts)", md)
        self.assertFalse([x for x in md if x.startswith("No count_read")], md)
        md = report.report_markdown(self.load("latency"), [], PAIRS).splitlines()
        self.assertIn(f"## {latency.TITLE}", md)
        self.assertIn(latency.INTRO, md)


if __name__ == "__main__":
    unittest.main()
