"""report.py end to end: outputs exist, plots are real, report.md numbers
match the fixture, gnuplot scripts replot, bad input is refused cleanly."""

import csv
import json
import re
import subprocess
import sys
import unittest
from pathlib import Path

import matplotlib.image
import numpy as np

import tempfile

from helpers import ANALYSIS, copy_fixture, raw_values, rmtree
import series

REPORT = ANALYSIS / "report.py"
FIGURES = ("read_nest1", "read_nest2", "read_barriers", "callrcu", "gp_latency_ms",
           "gp_latency_ticks", "gp_cdf_1vcpu", "gp_cdf_2vcpu", "gp_cdf_4vcpu",
           "gp_stages_preempt", "urcu_native")


def run_report(resultdir: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPORT), str(resultdir)],
                          capture_output=True, text=True, timeout=300)


def section_rows(md: str, title: str) -> list[list[str]]:
    """The body rows of the table in section '## title'."""
    part = md.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in part.splitlines() if line.startswith("| ")]
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]


CELL = re.compile(r"^(−?[\d.]+) \[(−?[\d.]+), (−?[\d.]+)\] (\S+) \(n=(\d+)\)$")


def parse_cell(cell: str) -> tuple[float, float, float, str, int]:
    """'16.0 [11.0, 21.0] ns (n=3)' -> (16.0, 11.0, 21.0, 'ns', 3)."""
    m = CELL.match(cell)
    assert m, cell
    nums = [float(g.replace("−", "-")) for g in m.groups()[:3]]
    return nums[0], nums[1], nums[2], m.group(4), int(m.group(5))


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

    def test_plots_reproducible(self) -> None:
        """A second run on the same data writes the same bytes (a committed
        report regenerated with make report changes only where data do)."""
        again = copy_fixture("good")
        try:
            self.assertEqual(run_report(again).returncode, 0)
            for png in sorted((self.dir / "plots").iterdir()):
                self.assertEqual(png.read_bytes(), (again / "plots" / png.name).read_bytes(),
                                 png.name)
        finally:
            rmtree(again)

    def test_verdict_then_summary_first(self) -> None:
        """The verdict table on the first screen, then the summary; no
        section that only restates them (the former Ratios table)."""
        sections = re.findall(r"^## (.+)$", self.md, re.M)
        self.assertEqual(sections[:2], ["Verdict", "Summary"])
        self.assertNotIn("Ratios", sections)
        self.assertIn("### preempt against classic", self.md)
        screen = first_screen(self.md)
        self.assertIn("| measure |", screen)
        self.assertIn("| call_rcu() cost |", screen)

    def test_read_table_medians(self) -> None:
        """Medians over boots of the fixture's values, n=3, overcommitted marked."""
        body = section_rows(self.md, "Read side")
        self.assertEqual(len(body), 12)
        for k, v, nest1, _, _, diff, mark in body:
            want = float(np.median(raw_values(test="read", kernel=k, vcpus=v, readers=v,
                                              nest="1", metric="ns_per_pair")))
            value, low, high, unit, n = parse_cell(nest1)
            self.assertAlmostEqual(value, want, delta=abs(want) * 0.005)
            self.assertTrue(low <= value <= high)
            self.assertEqual((unit, n), ("ns", 3))
            self.assertEqual("overcommitted" in mark, v != "1", (k, v, mark))
            self.assertEqual("flagged boots 3" in mark, (k, v) == ("preempt", "1"))
            if k == "tree":
                self.assertLess(parse_cell(diff)[0], 0)  # not clamped

    def test_no_raw_nanosecond_latencies(self) -> None:
        # Columns by name: a column the same in every row is said above the table.
        part = self.md.split("## Grace-period latency\n", 1)[1].split("\n## ", 1)[0]
        header = next(line for line in part.splitlines() if line.startswith("| "))
        median = [c.strip() for c in header.strip("|").split("|")].index("median")
        for row in section_rows(self.md, "Grace-period latency"):
            self.assertEqual(parse_cell(row[median])[3], "ms", row)

    def test_refscale_flag(self) -> None:
        flagged = [(r[0], r[1]) for r in section_rows(self.md, "Agreement with refscale")
                   if r[-1] != "ok"]
        self.assertEqual(flagged, [("tree-preempt", "4")])

    def test_agreement_rebuilt(self) -> None:
        """make report rebuilds csv/agreement.csv, as the end of a sweep
        writes it: one row per boot with refscale rows, refscale's figure
        as the fixture has it."""
        with open(self.dir / "csv" / "agreement.csv", newline="") as fh:
            got = {(r["kernel"], r["vcpus"], r["repeat"]): r for r in csv.DictReader(fh)}
        want = {}
        with open(self.dir / "csv" / "results.csv", newline="") as fh:
            for r in csv.DictReader(fh):
                if r["test"] == "refscale" and r["status"] == "ok":
                    want[(r["kernel"], r["vcpus"], r["repeat"])] = float(r["value"])
        self.assertEqual(set(got), set(want))
        for key, value in want.items():
            self.assertEqual(got[key]["refscale_ns"], f"{value:.3f}", key)

    def test_failed_cell_listed(self) -> None:
        body = section_rows(self.md, "Failed cells")
        self.assertEqual(len(body), 1)
        self.assertEqual(body[0][:4], ["tree", "4", "callrcu_capacity", "2"])
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
        """The .dat beside the script holds the plotted medians and intervals."""
        dat = (self.dir / "gnuplot" / "read_nest1.dat").read_text()
        block = dat.split("(TCG): preempt\n")[1]
        points = [tuple(map(float, line.split())) for line in block.split("\n\n")[0].splitlines()]
        self.assertEqual([p[0] for p in points], [1, 2, 4])
        for x, y, low, high in points:
            want = float(np.median(raw_values(test="read", kernel="preempt", vcpus=str(int(x)),
                                              readers=str(int(x)), nest="1",
                                              metric="ns_per_pair")))
            self.assertAlmostEqual(y, want)
            self.assertTrue(low <= y <= high)
        boots = dat.split("(TCG): preempt, per boot\n")[1].split("\n\n")[0].splitlines()
        self.assertEqual(len(boots), 9)  # 3 boots x 3 vCPU counts

    def test_terminal_plot_printed(self) -> None:
        self.assertIn("rcu_read_lock/unlock, nest=1", self.proc.stdout)
        self.assertIn("vCPUs", self.proc.stdout)


# What a terminal shows before scrolling: the header and the verdict table.
FIRST_SCREEN_LINES = 30


def first_screen(md: str) -> str:
    return "\n".join(md.splitlines()[:FIRST_SCREEN_LINES])


def with_series(name: str, recorded: dict | None, kernel_keys: dict | None = None) -> Path:
    """A copy of the good fixture whose metadata.json records the series
    recorded (None: none, as before sweeps recorded it)."""
    d = copy_fixture("good")
    path = d / "metadata.json"
    meta = json.loads(path.read_text())
    if recorded is not None:
        meta["series"] = recorded
        meta["kernel_keys"] = kernel_keys or {k: {"tree": "k1", "built": "k1"}
                                              for k in meta["parameters"]["kernels"]}
    path.write_text(json.dumps(meta, indent=1) + "\n")
    return d


class SeriesOnFirstScreen(unittest.TestCase):
    """The first screen says whether the kernels measured are this tree's."""

    @classmethod
    def setUpClass(cls) -> None:
        tree = series.checkout_series()
        other = {"key": "0123456789abcdef",
                 "patches": [{"file": f"{n:04d}-x.patch", "sha256": "0" * 64} for n in range(9)]}
        cls.tree = tree
        cls.dirs = {"same": with_series("same", tree.as_json()),
                    "other": with_series("other", other),
                    "stale": with_series("stale", tree.as_json(),
                                         {"preempt": {"tree": "k1", "built": "k0"},
                                          "classic": {"tree": "k2", "built": "k2"}}),
                    "none": with_series("none", None)}
        cls.md = {}
        for name, d in cls.dirs.items():
            proc = run_report(d)
            assert proc.returncode == 0, proc.stderr
            cls.md[name] = (d / "report.md").read_text()

    @classmethod
    def tearDownClass(cls) -> None:
        for d in cls.dirs.values():
            rmtree(d)

    def test_other_series_warned(self) -> None:
        screen = first_screen(self.md["other"])
        self.assertIn(f"> Measured with series 0123456789abcdef (9 patches); this tree's series "
                      f"is {self.tree.key} ({len(self.tree.patches)} patches): these numbers "
                      "are not from this tree's kernels.", screen)
        self.assertIn("- patch series: 0123456789abcdef (9 patches), not this tree's", screen)

    def test_same_series_not_warned(self) -> None:
        screen = first_screen(self.md["same"])
        self.assertNotIn("> ", screen)
        self.assertNotIn("not from this tree", self.md["same"])
        self.assertIn(f"- patch series: {self.tree.key} ({len(self.tree.patches)} patches), "
                      "this tree's patches/series", screen)

    def test_out_of_date_kernel_warned(self) -> None:
        screen = first_screen(self.md["stale"])
        self.assertIn("> Kernels preempt were booted as built before", screen)
        self.assertNotIn("classic", screen.split("> Kernels", 1)[1].split("\n")[0])

    def test_unrecorded_series_said(self) -> None:
        screen = first_screen(self.md["none"])
        self.assertIn("> Series not recorded: this directory was measured at commit abc1234",
                      screen)
        self.assertIn(f"This tree's series is {self.tree.key}", screen)


class BadReport(unittest.TestCase):
    def test_refused_keeping_old_outputs(self) -> None:
        for name in ("bad-header", "bad-columns", "bad-value", "truncated", "old-schema",
                     "unknown-kernel"):
            where = r"metadata\.json" if name == "old-schema" else r"results\.csv:\d+"
            d = copy_fixture(name)
            try:
                (d / "report.md").write_text("earlier report\n")
                before = sorted(p.relative_to(d) for p in d.rglob("*"))
                proc = run_report(d)
                self.assertNotEqual(proc.returncode, 0, name)
                lines = proc.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, f"{name}: {proc.stderr}")
                self.assertRegex(lines[0], rf"^rcu-bench: error: .*{where}: ", name)
                self.assertEqual(sorted(p.relative_to(d) for p in d.rglob("*")), before, name)
                self.assertEqual((d / "report.md").read_text(), "earlier report\n", name)
            finally:
                rmtree(d)

    def test_empty_directory(self) -> None:
        d = Path(tempfile.mkdtemp(prefix="rb-empty-"))
        try:
            proc = run_report(d)
            self.assertEqual(proc.returncode, 1)
            self.assertRegex(proc.stderr, r"^rcu-bench: error: .*: no csv/results\.csv: not a "
                             r"result directory \(or an empty one\)\n$")
            self.assertEqual(list(d.iterdir()), [])
        finally:
            d.rmdir()

    def test_missing_directory(self) -> None:
        proc = run_report(Path("/nonexistent/rb-results"))
        self.assertEqual(proc.returncode, 1)
        self.assertTrue(re.match(r"^rcu-bench: error: /nonexistent/rb-results: ", proc.stderr))


if __name__ == "__main__":
    unittest.main()
