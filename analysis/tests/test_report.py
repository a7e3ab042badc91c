"""report.py end to end: outputs exist, plots are real, report.md numbers
match the fixture, gnuplot scripts replot, bad input is refused cleanly."""

import re
import subprocess
import sys
import unittest
from pathlib import Path
from types import SimpleNamespace

import matplotlib.image
import numpy as np

from helpers import ANALYSIS, copy_fixture, mean_std, raw_values, rmtree

REPORT = ANALYSIS / "report.py"
FIGURES = ("read_nest1", "read_nest2", "callrcu", "gp_cdf_1vcpu", "gp_cdf_2vcpu",
           "gp_cdf_4vcpu", "gp_stages_preempt", "savings_preempt", "urcu_native")


def run_report(resultdir: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPORT), str(resultdir)],
                          capture_output=True, text=True, timeout=300)


def section_rows(md: str, title: str) -> list[list[str]]:
    """The body rows of the table in section '## title'."""
    part = md.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in part.splitlines() if line.startswith("| ")]
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]


def parse_stat(cell: str) -> tuple[float, float]:
    mean, _, std = cell.partition(" ± ")
    return float(mean), float(std or 0)


class GoodReport(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.dir = copy_fixture("good")
        cls.proc = run_report(cls.dir)
        cls.md = (cls.dir / "report.md").read_text() if cls.proc.returncode == 0 else ""

    @classmethod
    def tearDownClass(cls) -> None:
        rmtree(cls.dir)

    def test_exit_ok(self) -> None:
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)

    def test_plots_are_real_images(self) -> None:
        for name in FIGURES:
            png = self.dir / "plots" / f"{name}.png"
            svg = self.dir / "plots" / f"{name}.svg"
            self.assertTrue(png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), name)
            self.assertGreater(png.stat().st_size, 10000, name)
            pixels = matplotlib.image.imread(png)
            self.assertGreater(pixels.shape[0] * pixels.shape[1], 100000, name)
            colours = np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0)
            self.assertGreater(len(colours), 20, f"{name}: next to no content")
            # Not mostly blank: a fair share of the pixels are drawn on.
            self.assertGreater(np.mean(pixels[..., :3].min(axis=-1) < 0.9), 0.01, name)
            self.assertIn("<svg", svg.read_text()[:2000], name)

    def test_summary_matches_fixture_means(self) -> None:
        rows = {(r[0], r[1]): r for r in section_rows(self.md, "Summary")}
        self.assertEqual(len(rows), 8)  # 4 kernels x vCPUs 2 and 4
        for (k, v), r in rows.items():
            read = mean_std(raw_values(test="read", kernel=k, vcpus=v, readers=v, nest="1",
                                       metric="ns_per_pair"))
            cbs = mean_std(raw_values(test="callrcu", kernel=k, vcpus=v, writers=v,
                                      metric="invoked_per_s"))
            gp = mean_std(raw_values(test="gp", kernel=k, vcpus=v, load="idle",
                                     metric="median_ns"))
            for cell, (m, sd) in zip(r[2:], (read, cbs, gp)):
                got_m, got_sd = parse_stat(cell)
                self.assertAlmostEqual(got_m, m, delta=0.006 + abs(m) * 1e-6, msg=(k, v, cell))
                self.assertAlmostEqual(got_sd, sd, delta=0.006 + sd * 1e-3, msg=(k, v, cell))

    def test_savings_table(self) -> None:
        body = section_rows(self.md, "Amortised-barrier savings")
        self.assertEqual(len(body), 6)
        for kernel, v, load, saved, waitmb, even in body:
            self.assertEqual(kernel, "preempt")
            s = 20 + 10 * int(v)
            w = {"idle": 50, "readers": 100}[load] * s + 5
            self.assertEqual(parse_stat(saved), (s, 2.0))
            self.assertAlmostEqual(parse_stat(waitmb)[0], w)
            self.assertAlmostEqual(parse_stat(even)[0], w / s, delta=0.006)

    def test_refscale_flag(self) -> None:
        flagged = [(r[0], r[1]) for r in section_rows(self.md, "Agreement with refscale")
                   if r[-1] != "ok"]
        self.assertEqual(flagged, [("tree-preempt", "4")])

    def test_failed_cell_listed(self) -> None:
        body = section_rows(self.md, "Failed cells")
        self.assertEqual(len(body), 1)
        self.assertEqual(body[0][:4], ["tree", "4", "callrcu", "1"])
        self.assertEqual(body[0][5], "hang after 120s")
        self.assertRegex(body[0][6], r"results\.csv:\d+$")

    def test_gnuplot_scripts_replot(self) -> None:
        gpdir = self.dir / "gnuplot"
        for name in FIGURES:
            proc = subprocess.run(["gnuplot", "-e", "set terminal dumb size 80,24",
                                   f"{name}.gp"], cwd=gpdir, capture_output=True,
                                  text=True, timeout=60)
            self.assertEqual(proc.returncode, 0, f"{name}: {proc.stderr}")
            self.assertEqual(proc.stderr.strip(), "", name)
            self.assertGreater(len(proc.stdout.splitlines()), 20, name)

    def test_gnuplot_data_matches(self) -> None:
        """The .dat beside the script holds the plotted means and stddevs."""
        dat = (self.dir / "gnuplot" / "read_nest1.dat").read_text()
        block = dat.split("# rcu_read_lock/unlock, nest=1, readers = vCPUs: preempt\n")[1]
        points = [tuple(map(float, line.split())) for line in block.split("\n\n")[0].splitlines()]
        want = [(v, *mean_std(raw_values(test="read", kernel="preempt", vcpus=str(v),
                                         readers=str(v), nest="1", metric="ns_per_pair")))
                for v in (1, 2, 4)]
        np.testing.assert_allclose(points, want, rtol=1e-5)

    def test_terminal_plot_printed(self) -> None:
        self.assertIn("rcu_read_lock/unlock, nest=1", self.proc.stdout)
        self.assertIn("vCPUs", self.proc.stdout)


class BadReport(unittest.TestCase):
    def test_refused_keeping_old_outputs(self) -> None:
        for name in ("bad-header", "bad-columns", "bad-value", "truncated", "old-schema",
                     "unknown-kernel"):
            d = copy_fixture(name)
            try:
                (d / "report.md").write_text("earlier report\n")
                before = sorted(p.relative_to(d) for p in d.rglob("*"))
                proc = run_report(d)
                self.assertNotEqual(proc.returncode, 0, name)
                lines = proc.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, f"{name}: {proc.stderr}")
                self.assertRegex(lines[0], r"^rcu-bench: error: .*results\.csv:\d+: ", name)
                self.assertEqual(sorted(p.relative_to(d) for p in d.rglob("*")), before, name)
                self.assertEqual((d / "report.md").read_text(), "earlier report\n", name)
            finally:
                rmtree(d)

    def test_missing_directory(self) -> None:
        proc = run_report(Path("/nonexistent/rb-results"))
        self.assertEqual(proc.returncode, 1)
        self.assertTrue(re.match(r"^rcu-bench: error: /nonexistent/rb-results: ", proc.stderr))


if __name__ == "__main__":
    unittest.main()


class OvercommitNote(unittest.TestCase):
    """The header warns about guests with more vCPUs than the host has CPUs."""

    @staticmethod
    def rows(*cells: tuple[str, int]) -> SimpleNamespace:
        return SimpleNamespace(rows=[SimpleNamespace(accel=a, vcpus=v) for a, v in cells])

    def test_names_only_overcommitted_guest_counts(self) -> None:
        import report
        rd = self.rows(("tcg", 1), ("tcg", 2), ("tcg", 4), ("tcg", 8), ("native", 16))
        note = report.overcommit_note(rd, {"cpus": 2})
        self.assertEqual(len(note), 1)
        self.assertIn("the host has 2 CPUs, so at 4, 8 vCPUs", note[0])
        self.assertIn("inflate by up to vCPUs/2", note[0])

    def test_silent_when_host_is_big_enough_or_unknown(self) -> None:
        import report
        rd = self.rows(("tcg", 1), ("tcg", 4))
        self.assertEqual(report.overcommit_note(rd, {"cpus": 4}), [])
        self.assertEqual(report.overcommit_note(rd, "fixture"), [])
        self.assertEqual(report.overcommit_note(rd, {"cpus": "two"}), [])
