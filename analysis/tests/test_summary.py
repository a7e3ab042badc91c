"""The summary at the top of report.md: generated from the data, headline
ratios only from cells below the host's CPU count."""

import csv
import re
import sys
import types
import unittest
from pathlib import Path
from typing import Callable

from helpers import GOOD, copy_fixture, rmtree
import results
import summary
import tables

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
    return "\n".join(summary.summary(results.load_result_dir(d), PAIRS))


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
        gp = bullet(text, "Grace-period latency")
        self.assertIn("6.20 ms on preempt against 3.20 ms on classic (3 and 3 boots): 1.94×", gp)
        self.assertIn("longer on preempt", gp)
        barrier = bullet(text, "Amortised barriers, read side (wall clock)",
                         "tree-preempt against tree")
        self.assertIn("adds 6.00 ns per section on tree-preempt", barrier)

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

    def test_ratio_table_gives_difference_when_base_is_zero(self) -> None:
        """The report's Ratios table follows the summary: no "× [unbounded]"
        against a base at zero, the difference with its interval instead."""
        def zero(row: dict[str, str]) -> None:
            if (row["test"], row["kernel"], row["metric"]) == ("read", "classic", "ns_per_pair"):
                row["value"] = "0"
        edit_csv(self.dir / "csv" / "results.csv", zero)
        body = "\n".join(tables.ratios(results.load_result_dir(self.dir), PAIRS))
        read = [line for line in body.splitlines()
                if line.startswith("| preempt / classic | Read side (wall clock under TCG) | 1 |")]
        self.assertEqual(len(read), 1, body)
        self.assertNotIn("unbounded", read[0])
        self.assertIn("16.0 [11.0, 21.0] ns apart (classic not distinguishable from zero)", read[0])
        # A base away from zero keeps its ratio.
        self.assertRegex(body, r"\| tree-preempt / tree \| Read side \(wall clock under TCG\) "
                               r"\| 1 \| [\d.]+× \[")

    def test_negative_estimate_reported(self) -> None:
        text = summary_text(self.dir)
        line = bullet(text, "Amortised barriers, read side (wall clock)")
        self.assertIn("adds 30.0 ns", line)

        def negative(row: dict[str, str]) -> None:
            if (row["test"], row["kernel"], row["metric"]) == ("read_mb", "preempt",
                                                                "ns_per_pair"):
                row["value"] = f"{float(row['value']) - 100:g}"
        edit_csv(self.dir / "csv" / "results.csv", negative)
        line = bullet(summary_text(self.dir), "Amortised barriers, read side (wall clock)")
        self.assertIn("changes the cost by −70.0 ns", line)
        self.assertTrue(re.search(r"95% CI −100 ns to −40.0 ns", line), line)


class CallPoints(unittest.TestCase):
    """analysis/counts.py and analysis/latency.py, when present, fill their lines."""

    def setUp(self) -> None:
        counts = types.ModuleType("counts")
        counts.headline = lambda rd, k, b: [f"- **Read side, counted**: {k} vs {b} from counts"]
        counts.break_even = lambda rd, k, b: [f"- **Amortised barriers, balance**: {k} counted"]
        latency = types.ModuleType("latency")
        latency.headline = lambda rd, k, b: [f"- **Latency under readers**: {k} vs {b}"]
        sys.modules.update(counts=counts, latency=latency)

    def tearDown(self) -> None:
        del sys.modules["counts"], sys.modules["latency"]

    def test_modules_called(self) -> None:
        text = "\n".join(summary.summary(results.load_result_dir(GOOD), PAIRS))
        self.assertIn("- **Read side, counted**: preempt vs classic from counts", text)
        self.assertIn("- **Amortised barriers, balance**: tree-preempt counted", text)
        self.assertIn("- **Latency under readers**: preempt vs classic", text)
        self.assertNotIn("not in this tree", text)


if __name__ == "__main__":
    unittest.main()
