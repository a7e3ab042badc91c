"""compare.py: the diff of two results directories (fixtures compare-a and
compare-b, whose differences make_compare.py states), of two kernels of
one directory, and its refusal of bad input."""

import csv
import json
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Callable

from helpers import ANALYSIS, FIXTURES, copy_fixture, rmtree
import compare

A = FIXTURES / "compare-a"
B = FIXTURES / "compare-b"
COMPARE = ANALYSIS / "compare.py"
# The CSV's columns, as the task states them (not read from compare.py).
COLUMNS = ("kind,kernel_a,kernel_b,vcpus,measure,unit,a_median,a_low,a_high,a_boots,b_median,"
           "b_low,b_high,b_boots,ratio,ratio_low,ratio_high,difference,changed").split(",")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(COMPARE), *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def diff_of(a: str | Path, b: str | Path, kernels: list[str] | None = None) -> compare.Diff:
    return compare.diff(*compare.load_sides(str(a), str(b)), kernels)


def wall(d: compare.Diff) -> dict[tuple[str, str, int, str], compare.WallRow]:
    return {(r.kernel_a, r.kernel_b, r.vcpus, r.measure.name): r
            for r in d.ratios + d.differences}


def keep_rows(path: Path, keep: Callable[[dict[str, str]], bool]) -> None:
    """Rewrite a fixture CSV with only the rows keep() accepts."""
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        fields, rows = reader.fieldnames, [r for r in reader if keep(r)]
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def table_line(md: str, *cells: str) -> str:
    """The one Markdown table line that starts with these cells."""
    start = "| " + " | ".join(cells) + " |"
    found = [line for line in md.splitlines() if line.startswith(start)]
    assert len(found) == 1, f"{start}: {found}"
    return found[0]


class TwoSweeps(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.diff = diff_of(A, B)
        cls.rows = wall(cls.diff)
        cls.md = compare.markdown(cls.diff)

    def test_doubled_measure_is_flagged(self) -> None:
        """preempt's read boots are exactly 2x A's in B: 2.00x, interval above 1x."""
        r = self.rows[("preempt", "preempt", 1, "read nest=1")]
        self.assertAlmostEqual(r.ratio.value, 2.0)
        self.assertGreater(r.ratio.low, 1.0)
        self.assertTrue(r.changed)
        self.assertEqual((r.a.value, r.b.value, r.a.n, r.b.n), (12.0, 24.0, 3, 3))
        line = table_line(self.md, "yes", "preempt", "1", "read nest=1")
        self.assertIn("| 12.0 [11.0, 13.0] ns (n=3) | 24.0 [22.0, 26.0] ns (n=3) | 2.00× [", line)

    def test_known_ratios(self) -> None:
        self.assertAlmostEqual(self.rows[("preempt", "preempt", 1,
                                          "callrcu_capacity CPU-bound")].ratio.value, 0.6)
        self.assertAlmostEqual(self.rows[("classic-preempt", "classic-preempt", 2,
                                          "callrcu_cost")].ratio.value, 1.25)

    def test_only_changed_measures_are_flagged(self) -> None:
        """Exactly the measures make_compare.py changes are flagged; the
        unchanged ones (gp, read_mb, classic-preempt's read, ...) are not."""
        changed = {k for k, r in self.rows.items() if r.changed}
        want = {(k, k, v, m) for v in (1, 2) for k, m in
                (("preempt", "read nest=1"), ("preempt", "read nest=2"),
                 ("preempt", "callrcu_capacity CPU-bound"), ("preempt", "read_mb − read"),
                 ("classic-preempt", "callrcu_cost"))}
        self.assertEqual(changed, want)
        r = self.rows[("preempt", "preempt", 1, "gp lone idle")]
        self.assertAlmostEqual(r.ratio.value, 1.0)
        self.assertLess(r.ratio.low, 1.0)
        self.assertGreater(r.ratio.high, 1.0)
        self.assertIn(("preempt", "preempt", 2, "gp back_to_back idle (ticks)"), self.rows)
        self.assertIn(("host", "host", 1, "urcu mb"), self.rows)
        table_line(self.md, "–", "preempt", "1", "gp lone idle")

    def test_sorted_by_effect(self) -> None:
        effects = [r.effect for r in self.diff.ratios]
        self.assertEqual(effects, sorted(effects, reverse=True))
        top = [(r.kernel_a, r.vcpus, r.measure.name) for r in self.diff.ratios[:8]]
        self.assertEqual(top, [("preempt", 1, "read nest=1"), ("preempt", 1, "read nest=2"),
                               ("preempt", 2, "read nest=1"), ("preempt", 2, "read nest=2"),
                               ("preempt", 1, "callrcu_capacity CPU-bound"),
                               ("preempt", 2, "callrcu_capacity CPU-bound"),
                               ("classic-preempt", 1, "callrcu_cost"),
                               ("classic-preempt", 2, "callrcu_cost")])
        md = self.md.splitlines()
        first = md.index(table_line(self.md, "yes", "preempt", "1", "read nest=1"))
        cost = md.index(table_line(self.md, "yes", "classic-preempt", "1", "callrcu_cost"))
        self.assertLess(first, cost)

    def test_difference_when_a_is_zero(self) -> None:
        """read_mb − read has median 0 in A: no ratio, B − A with its interval."""
        r = self.rows[("preempt", "preempt", 1, "read_mb − read")]
        self.assertIsNone(r.ratio)
        self.assertEqual((r.a.value, r.b.value, r.difference.value), (0.0, -12.0, -12.0))
        self.assertTrue(r.changed)
        same = self.rows[("classic-preempt", "classic-preempt", 1, "read_mb − read")]
        self.assertIsNone(same.ratio)
        self.assertFalse(same.changed)
        part = self.md.split("## Wall clock without a ratio: B − A\n", 1)[1]
        self.assertIn("| yes | preempt | 1 | −12.0 [−12.0, −12.0] ns (n=3) | −12.0 [", part)
        self.assertNotIn("read_mb − read", self.md.split("## Wall clock without")[0])

    def test_counts(self) -> None:
        """preempt's count_read insns +3, classic-preempt's count_gp core_insns
        −100 per vCPU; the other 36 counts equal (loops= differs: not matched)."""
        got = [(r.kernel_a, r.vcpus, r.test, r.metric, r.a, r.b, r.difference)
               for r in self.diff.counts]
        self.assertEqual(got, [("preempt", 1, "count_read", "insns", 41, 44, 3),
                               ("preempt", 2, "count_read", "insns", 42, 45, 3),
                               ("classic-preempt", 1, "count_gp", "core_insns", 3000, 2900, -100),
                               ("classic-preempt", 2, "count_gp", "core_insns", 6000, 5800, -200)])
        self.assertEqual(self.diff.equal_counts, 36)
        self.assertIn("4 of 40 counts differ, 36 are equal", self.md)
        table_line(self.md, "preempt", "1", "count_read", "readers=1;nest=1;irqs=on", "insns",
                   "41", "44", "+3", "+7.32%")
        counts = self.md.split("## Exact counts", 1)[1]
        self.assertNotIn("| locked |", counts)

    def test_overcommitted_marked_per_side(self) -> None:
        """A's host has 2 CPUs, B's 4: the 2-vCPU cells are overcommitted in A only."""
        r = self.rows[("preempt", "preempt", 2, "read nest=1")]
        self.assertEqual((r.marks_a, r.marks_b), ("overcommitted", "–"))
        r = self.rows[("preempt", "preempt", 1, "read nest=1")]
        self.assertEqual((r.marks_a, r.marks_b), ("–", "flagged boots 3"))
        self.assertTrue(table_line(self.md, "yes", "preempt", "2", "read nest=1")
                        .endswith("| overcommitted | – |"))

    def test_header(self) -> None:
        self.assertIn(f"- **A**: `{A}` (all kernels); commit aaa1111; patch series "
                      "a1a1a1a1a1a1a1a1 (10 patches)", self.md)
        self.assertIn("  - sweep: profile quick, repeats 3, vCPUs 1 2, tests read read_mb "
                      "callrcu_cost callrcu_capacity gp count_read count_gp; host 4 CPUs", self.md)
        self.assertIn("- **The sides were built from different patch series** (A "
                      "a1a1a1a1a1a1a1a1 (10 patches), B b2b2b2b2b2b2b2b2 (11 patches))", self.md)
        self.assertIn("Patches only in B: 0011-fixture.patch.", self.md)

    def test_header_same_series(self) -> None:
        b = copy_fixture("compare-b")
        try:
            meta = json.loads((b / "metadata.json").read_text())
            meta["series"] = json.loads((A / "metadata.json").read_text())["series"]
            (b / "metadata.json").write_text(json.dumps(meta))
            md = compare.markdown(diff_of(A, b))
        finally:
            rmtree(b)
        self.assertIn("- Both sides were built from the same patch series, a1a1a1a1a1a1a1a1.", md)
        self.assertNotIn("different patch series", md)

    def test_one_sided_cells(self) -> None:
        """What only one side measured is listed apart, not compared."""
        b = copy_fixture("compare-b")
        try:
            keep_rows(b / "csv" / "results.csv",
                      lambda r: not (r["test"] == "count_gp" or (r["test"], r["vcpus"]) ==
                                     ("callrcu_cost", "2")))
            d = diff_of(A, b)
        finally:
            rmtree(b)
        self.assertEqual(d.only_b, [])
        self.assertIn(("preempt", 2, "callrcu_cost"), d.only_a)
        self.assertIn(("classic-preempt", 1, "count_gp load=idle;cpus=1 core_insns"), d.only_a)
        self.assertNotIn(("classic-preempt", "classic-preempt", 2, "callrcu_cost"), wall(d))
        self.assertEqual(len(d.counts), 2)
        self.assertIn("- only A has 14: ", compare.markdown(d))


class Kernels(unittest.TestCase):
    def test_two_kernels_of_one_directory(self) -> None:
        """DIR:KERNEL on each side: rows matched by vCPUs and measure."""
        d = diff_of(f"{A}:preempt", f"{A}:classic-preempt")
        self.assertEqual(d.pairs, [("preempt", "classic-preempt")])
        rows = wall(d)
        self.assertEqual({k[:2] for k in rows}, {("preempt", "classic-preempt")})
        self.assertAlmostEqual(rows[("preempt", "classic-preempt", 1, "read nest=1")].ratio.value,
                               0.5)
        self.assertAlmostEqual(rows[("preempt", "classic-preempt", 1, "callrcu_cost")].ratio.value,
                               203 / 103)
        insns = [r for r in d.counts if (r.vcpus, r.test, r.metric) == (1, "count_read", "insns")]
        self.assertEqual([(r.a, r.b) for r in insns], [(41, 21)])
        md = compare.markdown(d)
        self.assertIn("kernel: preempt → classic-preempt", md)
        self.assertIn("- Both sides are the same sweep: the same patch series.", md)

    def test_a_side_without_kernel_takes_the_others(self) -> None:
        self.assertEqual(diff_of(f"{A}:classic-preempt", B).pairs,
                         [("classic-preempt", "classic-preempt")])

    def test_kernels_option(self) -> None:
        d = diff_of(A, B, ["preempt"])
        self.assertEqual(d.pairs, [("preempt", "preempt")])
        self.assertEqual({r.kernel_a for r in d.ratios + d.differences}, {"preempt"})
        self.assertEqual(compare.kernel_list(["preempt classic-preempt"]),
                         ["preempt", "classic-preempt"])


class CommandLine(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="rb-compare-"))
        self.csv = self.tmp / "out" / "diff.csv"
        self.csv.parent.mkdir()
        self.dirs: list[Path] = []

    def tearDown(self) -> None:
        for d in self.dirs:
            rmtree(d)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_csv(self) -> None:
        proc = run(A, B, "--csv", self.csv)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(proc.stdout.startswith("# rcu-bench compare: B against A\n"))
        with open(self.csv, newline="") as fh:
            reader = csv.DictReader(fh)
            self.assertEqual(reader.fieldnames, COLUMNS)
            rows = list(reader)
        read = [r for r in rows if (r["kind"], r["kernel_a"], r["vcpus"], r["measure"])
                == ("wall", "preempt", "1", "read nest=1")]
        self.assertEqual(len(read), 1)
        self.assertEqual((read[0]["a_median"], read[0]["b_median"], read[0]["ratio"],
                          read[0]["a_boots"], read[0]["changed"]), ("12", "24", "2", "3", "1"))
        self.assertGreater(float(read[0]["ratio_low"]), 1.0)
        counts = [r for r in rows if r["kind"] == "count"]
        self.assertEqual([(r["measure"], r["difference"], r["changed"]) for r in counts][0],
                         ("count_read readers=1;nest=1;irqs=on insns", "3", "1"))
        self.assertEqual(len(counts), 4)
        barrier = [r for r in rows if r["measure"] == "read_mb − read"]
        self.assertEqual({r["ratio"] for r in barrier}, {""})

    def bad(self, *args: str | Path) -> str:
        """Run with --csv; the refusal: exit 2, one error line, nothing written."""
        proc = run(*args, "--csv", self.csv)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertEqual(proc.stdout, "")
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertTrue(lines[0].startswith("rcu-bench: error: "), lines[0])
        self.assertEqual(list(self.csv.parent.iterdir()), [])
        return lines[0]

    def test_missing_directory(self) -> None:
        self.assertIn("/nonexistent/rb-results: not a directory",
                      self.bad("/nonexistent/rb-results", B))

    def test_directory_without_results(self) -> None:
        empty = self.tmp / "x" / "empty"
        empty.mkdir(parents=True)
        self.assertIn("B: ", self.bad(A, empty))
        self.assertIn("no csv/results.csv", self.bad(A, empty))

    def test_unknown_kernel(self) -> None:
        line = self.bad(f"{A}:nosuch", f"{A}:preempt")
        self.assertIn("A: unknown kernel 'nosuch' after ':'", line)
        self.assertIn("preempt classic-preempt", line)

    def test_no_measure_in_common(self) -> None:
        a, b = copy_fixture("compare-a"), copy_fixture("compare-b")
        self.dirs += [a, b]
        keep_rows(a / "csv" / "results.csv", lambda r: r["test"] == "read")
        keep_rows(b / "csv" / "results.csv", lambda r: r["test"] == "gp")
        self.assertIn("have no measure in common", self.bad(a, b))

    def test_kernel_and_kernels_option(self) -> None:
        self.assertIn("not both", self.bad(f"{A}:preempt", B, "--kernels", "preempt"))

    def test_unwritable_csv(self) -> None:
        proc = run(A, B, "--csv", self.tmp / "no" / "such" / "dir.csv")
        self.assertEqual(proc.returncode, 2)
        self.assertEqual(proc.stdout, "")
        self.assertRegex(proc.stderr, r"^rcu-bench: error: cannot write ")


if __name__ == "__main__":
    unittest.main()
