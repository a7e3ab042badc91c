"""analysis/scale.py (the report's "Across vCPU counts" section) on
fixtures/scale (see make_scale.py): two kernels x vCPUs 1, 2, 4 x 3 boots,
every expected number worked out by hand from the fixture's values."""

import math
import re
import shutil
import subprocess
import sys
import unittest
from dataclasses import replace
from pathlib import Path

from helpers import ANALYSIS, FIXTURES, copy_fixture, rmtree
import resultdir
import scale
import units
from costmodel import Range

FIXTURE = FIXTURES / "scale"
KERNELS = ["classic", "preempt"]
CELL = re.compile(r"^([\d.]+) \[([\d.]+)–([\d.]+)\] ?(k?) \(n=(\d+)\)$")


def parse_cell(cell: str) -> tuple[float, float, float, int]:
    """'1.60 [1.58–1.65] k (n=3)' -> (1600, 1580, 1650, 3)."""
    m = CELL.match(cell)
    assert m, cell
    factor = 1e3 if m.group(4) == "k" else 1.0
    return (float(m.group(1)) * factor, float(m.group(2)) * factor,
            float(m.group(3)) * factor, int(m.group(5)))


def table_after(lines: list[str], marker: str) -> dict[str, dict[str, str]]:
    """The first table after the line `marker`: vCPUs -> column -> cell."""
    start = lines.index(marker)
    rows = []
    for line in lines[start + 1:]:
        if line.startswith("| "):
            rows.append([c.strip() for c in line.strip("|").split("|")])
        elif rows:
            break
    header, body = rows[0], rows[2:]
    return {r[0]: dict(zip(header, r)) for r in body}


def run_report(resultdir_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ANALYSIS / "report.py"), "--no-terminal-plot",
                           str(resultdir_path)], capture_output=True, text=True, timeout=300)


def with_rows(rd: resultdir.ResultDir, keep) -> resultdir.ResultDir:
    return replace(rd, rows=[r for r in rd.rows if keep(r)])


class Numbers(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.rd = resultdir.load_result_dir(FIXTURE)
        cls.rows = cls.rd.ok_rows

    def test_medians_and_ranges(self) -> None:
        s = scale.gp_spread(self.rows, "classic", 2, "idle", "core_insns")
        self.assertEqual((s.median, s.low, s.high, s.n), (800, 790, 820, 3))
        s = scale.gp_spread(self.rows, "preempt", 4, "idle", "core_transfers")
        self.assertEqual((s.median, s.low, s.high), (40, 36, 41))
        s = scale.gp_spread(self.rows, "preempt", 2, "idle", "irqoff_core_insns_max")
        self.assertEqual((s.median, s.low, s.high), (1000, 980, 1100))

    def test_hottest_line_per_gp(self) -> None:
        """line_transfers (per GP per CPU) x cpus: classic at 4 vCPUs boots
        6.0, 5.5, 7.0 -> 24, 22, 28 transfers per grace period."""
        h = scale.hot_line(self.rows, "classic", 4, "idle")
        self.assertEqual((h.line, h.boots_named), ("rcu_ctrlblk", 3))
        self.assertEqual((h.transfers.median, h.transfers.low, h.transfers.high), (24, 22, 28))
        # preempt at 2: rcu_ctrlblk in two boots (4.0, 5.0), percpu:rcu_flipctr
        # in the third (4.5): per GP 8, 10, 9 whichever line it was.
        h = scale.hot_line(self.rows, "preempt", 2, "idle")
        self.assertEqual((h.line, h.boots_named), ("rcu_ctrlblk", 2))
        self.assertEqual((h.transfers.median, h.transfers.low, h.transfers.high), (9, 8, 10))
        self.assertEqual(scale.hot_line_name(h), "rcu_ctrlblk (2 of 3 boots)")
        self.assertIsNone(scale.hot_line(self.rows, "classic", 1, "idle"))

    def test_hottest_rcu_line(self) -> None:
        """A timekeeping line ranked above RCU's: the RCU column takes the
        best-ranked rcu_* line (classic at 4 vCPUs: percpu:rcu_data, 1.0
        per GP per CPU x 4 = 4 transfers per grace period)."""
        def hpet_first(r: resultdir.Row) -> resultdir.Row:
            if (r.kernel, r.vcpus, r.metric, r.params.get("rank")) != ("classic", 4, "line_transfers", "1"):
                return r
            return replace(r, params={**r.params, "line": "hpet"})
        rows = [hpet_first(r) for r in self.rows]
        self.assertEqual(scale.hot_line(rows, "classic", 4, "idle").line, "hpet")
        h = scale.hot_line(rows, "classic", 4, "idle", rcu_only=True)
        self.assertEqual((h.line, h.boots_named), ("percpu:rcu_data", 3))
        self.assertEqual((h.transfers.median, h.transfers.low, h.transfers.high), (4, 4, 4))
        self.assertEqual(scale.hot_line_medians(rows, "classic", "idle"), {1: 0.0, 2: 6.0, 4: 4.0})
        self.assertFalse(scale.is_rcu_line("jiffies_64"))
        self.assertTrue(scale.is_rcu_line("percpu:rcu_flip_flag+0x8"))

    def test_growth(self) -> None:
        """Fitted over 2 and 4 vCPUs: the slope of two points."""
        g = scale.growth(scale.core_insns_medians(self.rows, "classic", "idle"))
        self.assertEqual((g.first, g.last, g.fitted), ((1, 600), (4, 1600), (2, 4)))
        self.assertAlmostEqual(g.factor, 1600 / 600)
        self.assertAlmostEqual(g.exponent, 1.0)  # 800 -> 1600
        g = scale.growth(scale.core_insns_medians(self.rows, "preempt", "idle"))
        self.assertAlmostEqual(g.exponent, math.log2(3000 / 2000))
        g = scale.growth(scale.hot_line_medians(self.rows, "classic", "idle"))
        # 0 at 1 vCPU (transfers 0, no line ranked): the ends are 2 and 4.
        self.assertEqual((g.first, g.last, g.zero_below), ((2, 6), (4, 24), (1,)))
        self.assertAlmostEqual(g.exponent, 2.0)  # 6 -> 24
        g = scale.growth(scale.hot_line_medians(self.rows, "preempt", "idle"))
        self.assertAlmostEqual(g.exponent, 1.0)  # 9 -> 18

    def test_exponent_needs_two_counts(self) -> None:
        self.assertEqual(scale.exponent({1: 5.0, 2: 7.0}), (None, (2,)))
        self.assertEqual(scale.exponent({2: 0.0, 4: 3.0, 8: 6.0})[1], (4, 8))
        k, fitted = scale.exponent({2: 1.0, 4: 4.0, 8: 16.0, 16: 64.0})
        self.assertAlmostEqual(k, 2.0)

    def test_modelled_range(self) -> None:
        """classic, 4 vCPUs: core_insns 1600, core_locked 16, core_fences 0,
        core_transfers 24 (medians).  locked 16 x [9, 12] + plain 1584 x
        [0.4, 0.5] = [777.6, 984]; transfers 24 x [23, 110] = [552, 2640];
        at this host's [400, 600]: [9600, 14400]."""
        cost = scale.costmodel.costs(self.rows)
        counts = scale.model_counts(self.rows, "classic", 4, "idle")
        self.assertEqual(counts, {"core_insns": 1600, "core_locked": 16, "core_fences": 0,
                                  "core_transfers": 24})
        m = scale.modelled(counts, cost, scale.PUBLISHED_TRANSFER)
        self.assertAlmostEqual(m.ns.low, 1329.6)
        self.assertAlmostEqual(m.ns.high, 3624.0)
        m = scale.modelled(counts, cost, cost["line_transfer"])
        self.assertAlmostEqual(m.ns.low, 10377.6)
        self.assertAlmostEqual(m.ns.high, 15384.0)
        # preempt, 4: locked 40 x [9, 12] + fences 4 x [30, 45] + plain 2956 x
        # [0.4, 0.5] + 40 transfers x [23, 110].
        m = scale.modelled(scale.model_counts(self.rows, "preempt", 4, "idle"), cost,
                           scale.PUBLISHED_TRANSFER)
        self.assertAlmostEqual(m.ns.low, 360 + 120 + 1182.4 + 920)
        self.assertAlmostEqual(m.ns.high, 480 + 180 + 1478 + 4400)

    def test_no_transfer_counts_no_model(self) -> None:
        m = scale.modelled({"core_insns": 10, "core_locked": 0, "core_fences": 0},
                           {"alu": Range(1, 1)}, scale.PUBLISHED_TRANSFER)
        self.assertIsNone(m.ns)
        self.assertIn("core_transfers", m.reason)


class Section(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.rd = resultdir.load_result_dir(FIXTURE)
        cls.lines = scale.report_section(cls.rd, KERNELS)
        cls.text = "\n".join(cls.lines)

    def test_heading_and_sentences(self) -> None:
        self.assertEqual(self.lines[0], "## Across vCPU counts (exact counts)")
        self.assertIn("Headline load=idle:", self.lines)
        classic = next(x for x in self.lines if x.startswith("- **classic** (load=idle)"))
        self.assertIn("go from 600 at 1 vCPU to 1.60 k at 4 vCPUs (×2.67), growing about as "
                      "N^1.00 (log-log fit over 2, 4 vCPUs)", classic)
        self.assertIn("(rcu_ctrlblk at 4 vCPUs) go from 6.00 at 2 vCPUs (0 at 1 vCPU) to 24.0 "
                      "at 4 vCPUs (×4.00), growing about as N^2.00", classic)
        preempt = next(x for x in self.lines if x.startswith("- **preempt** (load=idle)"))
        self.assertIn("(×1.25), growing about as N^0.58", preempt)  # log2(3000 / 2000)
        # The tick's worst episode: medians 300, 320, 400 (classic) and 900,
        # 1000, 1200 (preempt); fitted over 2 and 4 vCPUs: log2(1.25), log2(1.2).
        self.assertIn("the tick's worst interrupts-off RCU episode (instructions) goes from "
                      "300 at 1 vCPU to 400 at 4 vCPUs (×1.33), growing about as N^0.32", classic)
        self.assertIn("goes from 900 at 1 vCPU to 1.20 k at 4 vCPUs (×1.33), growing about as "
                      "N^0.26", preempt)
        self.assertTrue(classic.endswith(")."), classic)

    def test_exponent_number(self) -> None:
        self.assertEqual(scale.exponent_number(math.log2(1.5)), "0.58")
        self.assertEqual(scale.exponent_number(-0.0043), "0.00")
        self.assertEqual(scale.exponent_number(-0.28), "−0.28")

    def test_readers_second(self) -> None:
        """preempt alone has load=readers rows: its sentence and table, after idle."""
        self.assertIn("With load=readers:", self.lines)
        self.assertLess(self.lines.index("Headline load=idle:"),
                        self.lines.index("With load=readers:"))
        self.assertIn("- **preempt** (load=readers): the RCU core's instructions per grace "
                      "period per CPU go from 2.50 k at 1 vCPU to 5.20 k at 4 vCPUs (×2.08)",
                      self.text)
        self.assertNotIn("**classic** (load=readers)", self.text)
        self.assertEqual(self.lines.count("load=readers:"), 1)

    def test_table(self) -> None:
        classic = self.lines[self.lines.index("### classic"):]
        t = table_after(classic, "load=idle (the headline):")
        self.assertEqual(list(t), ["1", "2", "4"])
        self.assertEqual(parse_cell(t["2"]["GP insns/CPU"]), (800, 790, 820, 3))
        self.assertEqual(parse_cell(t["4"]["GP insns/CPU"]), (1600, 1580, 1650, 3))
        self.assertEqual(parse_cell(t["4"]["locked/CPU"]), (16, 15, 17, 3))
        self.assertEqual(parse_cell(t["4"]["transfers/CPU"]), (45, 40, 50, 3))
        self.assertEqual(parse_cell(t["4"]["core transfers/CPU"]), (24, 22, 30, 3))
        self.assertEqual(t["4"]["hottest line"], "rcu_ctrlblk")
        self.assertEqual(parse_cell(t["4"]["its transfers/GP"]), (24, 22, 28, 3))
        self.assertEqual(t["4"]["hottest RCU line"], "rcu_ctrlblk")
        self.assertEqual(parse_cell(t["4"]["RCU line's transfers/GP"]), (24, 22, 28, 3))
        self.assertEqual(t["1"]["hottest line"], units.NONE)
        self.assertEqual(parse_cell(t["4"]["irq-off tick insns, max"]), (400, 380, 420, 3))
        self.assertEqual(parse_cell(t["4"]["irq-off tick insns, mean"]), (170, 170, 170, 3))
        self.assertEqual(t["4"]["modelled ns/GP/CPU (Milan transfer)"], "[1.33, 3.62] µs modelled")
        self.assertEqual(t["4"]["modelled ns/GP/CPU (this host's transfer)"],
                         "[10.4, 15.4] µs modelled")
        preempt = self.lines[self.lines.index("### preempt"):]
        t = table_after(preempt, "load=idle (the headline):")
        self.assertEqual(t["2"]["hottest line"], "rcu_ctrlblk (2 of 3 boots)")
        self.assertEqual(parse_cell(t["2"]["its transfers/GP"]), (9, 8, 10, 3))
        self.assertEqual(parse_cell(t["2"]["irq-off tick insns, max"]), (1000, 980, 1100, 3))

    def test_callrcu_table(self) -> None:
        """insns_per_cb of classic: boots 40, 42, 41 x vCPUs."""
        t = table_after(self.lines, "call_rcu() on classic (count_callrcu):")
        self.assertEqual(parse_cell(t["4"]["insns per callback"]), (164, 160, 168, 3))

    def test_notes(self) -> None:
        self.assertIn("depend on how the vCPUs interleave", self.text)
        self.assertIn("a read pair's count (count_read), by contrast, is exact", self.text)
        self.assertIn("nviennot/core-to-core-latency", self.text)
        self.assertIn("about 23 ns within a core complex and about 110 ns across", self.text)
        self.assertIn("calib op=line_transfer [400, 600] ns", self.text)
        self.assertIn("in ns: alu [0.400, 0.500], locked_add [9.00, 12.0], mfence [30.0, 45.0])",
                      self.text)

    def test_absent_with_one_vcpu_count(self) -> None:
        one = with_rows(self.rd, lambda r: r.vcpus == 1)
        self.assertEqual(scale.report_section(one, KERNELS), [])
        self.assertEqual(scale.figures(one.ok_rows, KERNELS), [])
        none = with_rows(self.rd, lambda r: r.test != "count_gp")
        self.assertEqual(scale.report_section(none, KERNELS), [])

    def test_no_calib_no_model(self) -> None:
        bare = with_rows(self.rd, lambda r: r.test != "calib")
        lines = scale.report_section(bare, KERNELS)
        self.assertNotIn("modelled", "\n".join(line for line in lines if line.startswith("| ")))
        self.assertTrue(any(line.startswith("No calib rows in this directory") for line in lines))

    def test_no_host_transfer_published_only(self) -> None:
        rd = with_rows(self.rd, lambda r: r.params.get("op") != "line_transfer")
        text = "\n".join(scale.report_section(rd, KERNELS))
        self.assertIn("modelled ns/GP/CPU (Milan transfer)", text)
        self.assertNotIn("this host's transfer)", text)
        self.assertIn("no calib op=line_transfer row", text)


class Figures(unittest.TestCase):
    def test_series(self) -> None:
        rows = resultdir.load_result_dir(FIXTURE).ok_rows
        figs = {f.name: f for f in scale.figures(rows, KERNELS)}
        self.assertEqual(sorted(figs), sorted(scale.FIGURE_NAMES))
        insns = figs["scale_gp_cost"].charts[0]
        self.assertTrue(insns.logx2 and insns.logy)
        classic = insns.series[0]
        self.assertEqual((classic.label, classic.x, classic.y), ("classic", [1, 2, 4],
                                                                 [600, 800, 1600]))
        self.assertEqual((classic.low, classic.high), ([600, 790, 1580], [600, 820, 1650]))
        self.assertEqual(len(classic.points), 9)
        hot = figs["scale_transfers"].charts[1].series[0]
        # No 0 on a log axis: 1 vCPU (no transfer) is left out.
        self.assertEqual((hot.x, hot.y), ([2, 4], [6, 24]))


class Report(unittest.TestCase):
    """report.py on the fixture: the section, its plots and gnuplot scripts."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.dir = copy_fixture("scale")
        cls.proc = run_report(cls.dir)

    @classmethod
    def tearDownClass(cls) -> None:
        rmtree(cls.dir)

    def test_report(self) -> None:
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)
        md = (self.dir / "report.md").read_text()
        self.assertEqual(md.count("## Across vCPU counts (exact counts)"), 1)
        for name in scale.FIGURE_NAMES:
            self.assertIn(f"![{name}](plots/{name}.png)", md)
            png = self.dir / "plots" / f"{name}.png"
            self.assertTrue(png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), name)
            proc = subprocess.run(["gnuplot", "-e", "set terminal dumb size 80,24", f"{name}.gp"],
                                  cwd=self.dir / "gnuplot", capture_output=True, text=True,
                                  timeout=60)
            self.assertEqual((proc.returncode, proc.stderr.strip()), (0, ""), name)
            self.assertIn("set logscale x 2", (self.dir / "gnuplot" / f"{name}.gp").read_text())


class ScaleSubdir(unittest.TestCase):
    """A full sweep's scale run is a results directory of its own, scale/:
    the report takes the section's counts and plots from it."""

    def setUp(self) -> None:
        self.dir = copy_fixture("good")
        shutil.copytree(FIXTURE, self.dir / "scale")

    def tearDown(self) -> None:
        rmtree(self.dir)  # helpers.rmtree removes the copy's scratch parent

    def test_section_from_subdir(self) -> None:
        self.assertEqual(len({r.vcpus for r in resultdir.load_result_dir(self.dir).rows
                              if r.test == "count_gp"}), 0, "the parent must have no scale data")
        proc = run_report(self.dir)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        md = (self.dir / "report.md").read_text()
        self.assertEqual(md.count("## Across vCPU counts (exact counts)"), 1)
        self.assertIn("1.60 [1.58–1.65] k (n=3)", md)
        self.assertIn("Counts from `scale/`, a results directory of its own", md)
        for name in scale.FIGURE_NAMES:
            self.assertTrue((self.dir / "plots" / f"{name}.png").exists(), name)

    def test_variant_kernel_shown(self) -> None:
        """A scale run of a boot variant (make scale KERNELS=preempt-fast-advance)
        has its section: the variant is not in suite.conf's KERNELS."""
        results = self.dir / "scale" / "csv" / "results.csv"
        results.write_text(results.read_text().replace(",preempt,", ",preempt-fast-advance,"))
        proc = run_report(self.dir)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        md = (self.dir / "report.md").read_text()
        self.assertIn("### preempt-fast-advance", md)
        self.assertIn("- **preempt-fast-advance** (load=", md)
        self.assertNotIn("### preempt\n", md)

    def test_broken_subdir_is_an_error(self) -> None:
        (self.dir / "report.md").write_text("kept\n")
        (self.dir / "scale" / "metadata.json").write_text("{")
        proc = run_report(self.dir)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("scale", proc.stderr)
        self.assertEqual((self.dir / "report.md").read_text(), "kept\n")



def migrate_row(kernel: str, vcpus: int, repeat: int, move: int, metric: str,
                value: float) -> resultdir.Row:
    return resultdir.Row(file="t", line=0, schema_version=2, commit="c", accel="tcg",
                         kernel=kernel, vcpus=vcpus, test="count_migrate", repeat=repeat,
                         params={"move": str(move)}, metric=metric, value=value, unit="count",
                         source="tcg-plugin", status="ok")


class Migrate(unittest.TestCase):
    """count_migrate's table: preempt at 2 vCPUs over 3 boots, moved pair
    transfers 8, 7, 10 -> 8 [7–10]; staying 0 in each; classic has staying
    pairs only, so its moved cells are dashes."""

    def test_migrate_table(self) -> None:
        rows = [migrate_row("preempt", 2, rep, 1, "transfers", t) for rep, t in ((1, 8), (2, 7), (3, 10))]
        rows += [migrate_row("preempt", 2, rep, 0, "transfers", 0) for rep in (1, 2, 3)]
        rows += [migrate_row("classic", 2, 1, 0, "transfers", 0)]
        rows += [migrate_row("classic", 4, 1, 0, "transfers", 1)]
        lines = scale.migrate_table(rows, ["classic", "preempt"])
        grid = [[c.strip() for c in line.strip("|").split("|")] for line in lines if line.startswith("| ")]
        header, body = grid[0], {(r[0], r[1]): dict(zip(grid[0], r)) for r in grid[2:]}
        self.assertEqual(header[:2], ["kernel", "vCPUs"])
        self.assertEqual(parse_cell(body[("preempt", "2")]["moved: transfers"]), (8, 7, 10, 3))
        self.assertEqual(parse_cell(body[("preempt", "2")]["staying: transfers"]), (0, 0, 0, 3))
        self.assertEqual(body[("classic", "2")]["moved: transfers"], units.NONE)
        self.assertEqual(parse_cell(body[("classic", "4")]["staying: transfers"]), (1, 1, 1, 1))
        self.assertEqual(scale.migrate_table([], ["preempt"]), [])


if __name__ == "__main__":
    unittest.main()
