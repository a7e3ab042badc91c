"""Issue 22's design variants on synthetic rows: the grace-period predictions
of fast_advance and idle_skip (derived by hand in gpdesign.py's text), the
variant flags read from the gp_stages rows, the boot variants paired with
their build, and the boosting table's prediction from the boot arguments."""

import unittest
from pathlib import Path

import tempfile

import helpers  # noqa: F401  (the import path)
import derive
import gpdesign
import spinverdicts
import variants
from resultdir import ResultDir, Row


def row(kernel: str, test: str, repeat: int, params: str, metric: str, value: float,
        vcpus: int = 1, unit: str = "count", source: str = "rcubench") -> Row:
    return Row("synthetic", 0, 2, "abc", "tcg", kernel, vcpus, test, repeat,
               dict(kv.split("=", 1) for kv in params.split(";") if kv), metric,
               float(value), unit, source, "ok")


def boost_rows(kernel: str, gp_ms: list[float], boosts: float | None) -> list[Row]:
    p = "hog_ms=800;samples=3"
    rows = [row(kernel, "boost", rep, p, "gp_median_ns", ms * 1e6, unit="ns")
            for rep, ms in enumerate(gp_ms, 1)]
    rows += [row(kernel, "boost", rep, p, "outstanding_median", ms)
             for rep, ms in enumerate(gp_ms, 1)]
    if boosts is not None:
        rows += [row(kernel, "boost_count", rep, p, "boosts", boosts, source="debugfs")
                 for rep in range(1, len(gp_ms) + 1)]
    return rows


def result_dir(rows: list[Row], boot_args: dict[str, str]) -> ResultDir:
    return ResultDir(Path("synthetic"), rows, {"host_cpus": 2, "kernel_boot_args": boot_args})


class Predictions(unittest.TestCase):
    """Ticks at 1 CPU, G = 2, counted tick by tick in gpdesign.py's text."""

    def check(self, fast: bool, skip: bool, lone: tuple[float, float], b2b: float) -> None:
        p = gpdesign.prediction("rcupreempt", "lone", 2, fast, skip)
        self.assertEqual((p.low, p.high, p.median), (lone[0], lone[1], (lone[0] + lone[1]) / 2))
        q = gpdesign.prediction("rcupreempt", "back_to_back", 2, fast, skip)
        self.assertEqual((q.low, q.high), (b2b, b2b))

    def test_seed(self) -> None:
        self.check(False, False, (8, 9), 12)

    def test_fast_advance(self) -> None:
        """Flips at ticks 1, 3, 5: the third flip delivers."""
        self.check(True, False, (4, 5), 6)

    def test_idle_skip(self) -> None:
        """Stage 2 ends at tick 8 (waitmb -> idle), before the flip at 9."""
        self.check(False, True, (7, 8), 8)

    def test_both(self) -> None:
        """With fast_advance stage 2 ends in the third flip's tick: no tick saved lone."""
        self.check(True, True, (4, 5), 5)

    def test_four_stages(self) -> None:
        self.assertEqual(gpdesign.prediction("rcupreempt", "lone", 4).median, 16.5)
        self.assertEqual(gpdesign.prediction("rcupreempt", "back_to_back", 4).low, 20)


class Flags(unittest.TestCase):
    def test_variant_on_every_boot(self) -> None:
        rows = [row("preempt-idle-skip", "gp_stages", r, "load=idle", "idle_skip", 1, source="sysfs")
                for r in (1, 2)]
        self.assertTrue(derive.variant_on(rows, "preempt-idle-skip", 1, "idle_skip"))
        self.assertFalse(derive.variant_on(rows, "preempt-idle-skip", 1, "fast_advance"))
        rows.append(row("preempt-idle-skip", "gp_stages", 3, "load=idle", "idle_skip", 0, source="sysfs"))
        self.assertFalse(derive.variant_on(rows, "preempt-idle-skip", 1, "idle_skip"))


class Counted(unittest.TestCase):
    def test_counted_ticks_against_the_design(self) -> None:
        """Counted back-to-back ticks (count_gp) of preempt and its fast_advance
        variant against 4(G+1) = 12 and 2(G+1) = 6, flags from the gp_stages rows."""
        rows = []
        for k, ticks, fast in (("preempt", 11.9, 0), ("preempt-fast-advance", 5.85, 1)):
            rows += [row(k, "count_gp", 1, "load=idle;gps=20;cpus=1", "irqoff_episodes_per_gp", ticks,
                         source="tcg-plugin"),
                     row(k, "count_gp", 1, "load=idle;gps=20;cpus=1", "kernel_gps_per_sync", 3,
                         source="tcg-plugin"),
                     row(k, "gp_stages", 1, "load=idle", "stages", 2, source="sysfs"),
                     row(k, "gp_stages", 1, "load=idle", "fast_advance", fast, source="sysfs")]
        rd = result_dir(rows, {"preempt": "", "preempt-fast-advance": "rcupreempt.fast_advance=1"})
        text = "\n".join(variants.counted_ticks_table(rd, [("preempt-fast-advance", "preempt")]))
        self.assertIn("| preempt | 11.9 | about 12.0 ticks | agrees (−0.100 ticks off) |", text)
        self.assertIn("| preempt-fast-advance | 5.85 | about 6.00 ticks | agrees (−0.150 ticks off) |", text)


class Boost(unittest.TestCase):
    def setUp(self) -> None:
        rows = (boost_rows("preempt", [560, 565, 570], 3) + boost_rows("preempt-noboost", [820, 829, 830], 0)
                + boost_rows("classic", [12, 13, 14], None))
        self.rd = result_dir(rows, {"preempt": "", "preempt-noboost": "rcupreempt.boost_delay_ms=0",
                                    "classic": ""})

    def test_pairs_with_build(self) -> None:
        self.assertEqual(variants.variant_pairs(self.rd), [("preempt-noboost", "preempt")])

    def test_predictions_from_boot_arguments(self) -> None:
        self.assertEqual(variants.boost_delay_ms(self.rd, "preempt"), 500)
        self.assertEqual(variants.boost_delay_ms(self.rd, "preempt-noboost"), 0)
        self.assertIsNone(variants.boost_delay_ms(self.rd, "classic"))
        self.assertIn("500 ms", variants.boost_prediction(self.rd, "preempt", 800))
        self.assertIn("800 ms", variants.boost_prediction(self.rd, "preempt-noboost", 800))
        self.assertIn("cannot be preempted", variants.boost_prediction(self.rd, "classic", 800))

    def test_section(self) -> None:
        text = "\n".join(variants.report_section(self.rd))
        self.assertIn("| preempt-noboost vs preempt |", text)
        # Medians over boots: 829 vs 565 ms, their ratio 1.47.
        self.assertIn("829 vs 565 ms: 1.47×", text)
        self.assertIn("| preempt-noboost | rcupreempt.boost_delay_ms=0 | the hog's 800 ms "
                      "(no boosting) | 829 [820, 830] ms (n=3) |", text)
        self.assertIn("0 vs 3.00", text)

    def test_no_variants_no_boost_no_section(self) -> None:
        rd = result_dir([row("preempt", "gp", 1, "load=idle;spacing=lone", "latency_ticks", 9)], {})
        self.assertEqual(variants.report_section(rd), [])


class SpinVerdicts(unittest.TestCase):
    """The "What SPIN settled" table reads its verdicts from verify/configs."""

    def write_configs(self, text: str) -> Path:
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        path = Path(tmp.name) / "configs"
        path.write_text(text)
        return path

    def test_every_question_has_its_run(self) -> None:
        runs = spinverdicts.read_configs()
        for _, answers in spinverdicts.QUESTIONS:
            for name, _ in answers:
                self.assertIn(name, runs, "verify/configs lost a run the report names")
        lines = "\n".join(spinverdicts.report_lines())
        self.assertIn("unsafe at 2 and at 4 stages", lines)
        self.assertIn("| `mut-qq7-3cpu-gp4` | the same, GP_STAGES 4 | full | FAIL: unsafe", lines)
        self.assertIn("| `fast-2cpu-gp2` | the variant | full | PASS: safe", lines)
        self.assertIn("| liveness | PASS: live", lines)

    def test_verdicts_come_from_the_file(self) -> None:
        path = self.write_configs("# c\nmut-qq7-3cpu-gp2 FAIL full -DQQ7\n"
                                  "mut-qq7-3cpu-gp4 PASS full -DQQ7 -DGP_STAGES=4\n")
        lines = "\n".join(spinverdicts.report_lines(path))
        self.assertIn("Quick Quiz 7's runs do not all fail", lines)
        self.assertIn("| `mut-qq7-3cpu-gp4` | the same, GP_STAGES 4 | full | PASS: safe", lines)
        self.assertIn("| `fast-2cpu-gp2` | the variant | – | not in verify/configs |", lines)

    def test_bad_file(self) -> None:
        path = self.write_configs("gp1-2cpu MAYBE full -DX\n")
        with self.assertRaisesRegex(spinverdicts.ConfigsError, ":1: expected NAME EXPECT"):
            spinverdicts.read_configs(path)
        self.assertIn("(no SPIN verdicts:", "\n".join(spinverdicts.report_lines(path)))
        missing = path.parent / "none"
        self.assertIn("cannot read", "\n".join(spinverdicts.report_lines(missing)))


if __name__ == "__main__":
    unittest.main()
