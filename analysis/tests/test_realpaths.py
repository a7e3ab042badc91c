"""Real kernel paths: workloads/paths.py turns two rbstat -x, runs into
counts per operation; realpaths.py reports the read side's share, counted
where rcu_read_lock() is a function, estimated where it is inline."""

import importlib.util
import tempfile
import unittest
from pathlib import Path

import realpaths
from resultdir import Row

TOP = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("paths", TOP / "workloads" / "paths.py")
paths = importlib.util.module_from_spec(spec)
spec.loader.exec_module(paths)


def rbstat_csv(insns: int, kernel: int, irqflag: int, lock_entries: int | None,
               lock_insns: int = 0) -> str:
    lines = [f"{insns},,instructions,,100.00,,", f"{insns - kernel},,instructions:u,,100.00,,",
             f"{kernel},,instructions:k,,100.00,,", "7,,rb:locked,,100.00,,",
             f"{irqflag},,rb:irqflag:k,,100.00,,", "9,,rb:calls,,100.00,,",
             "500,,instructions:k:clear_page_erms,,100.00,,"]
    if lock_entries is not None:
        lines += [f"{lock_insns},,instructions:k:__rcu_read_lock,,100.00,,",
                  f"{lock_entries},,rb:entries:__rcu_read_lock,,100.00,,",
                  f"{lock_insns},,instructions:k:__rcu_read_unlock,,100.00,,",
                  f"{lock_entries},,rb:entries:__rcu_read_unlock,,100.00,,"]
    return "\n".join(lines) + "\n"


class PerOperation(unittest.TestCase):
    def test_difference_per_op(self) -> None:
        with tempfile.TemporaryDirectory() as t:
            d = Path(t)
            # 200 -> 2200 stat() calls: +2000 ops; 3 sections of 20+20 instructions each.
            (d / "paths-pathwalk-200.csv").write_text(rbstat_csv(10_000, 9_000, 50, 10, 100))
            (d / "paths-pathwalk-2200.csv").write_text(
                rbstat_csv(10_000 + 2000 * 5800, 9_000 + 2000 * 5780, 50 + 2000 * 20,
                           10 + 2000 * 3, 100 + 2000 * 60))
            rows = paths.rows(d, "preempt", 1, 0, "abc", 2)
        got = {r[8]: float(r[9]) for r in rows}
        self.assertEqual(rows[0][7], "workload=pathwalk;ops=2000")
        self.assertEqual(got["insns_per_op"], 5800)
        self.assertEqual(got["kernel_insns_per_op"], 5780)
        self.assertEqual(got["user_insns_per_op"], 20)
        self.assertEqual(got["irqflag_per_op"], 20)
        self.assertEqual(got["read_sections_per_op"], 3)
        self.assertEqual(got["readside_insns_per_op"], 120)   # lock + unlock, not the top list

    def test_inline_read_side_has_no_sections(self) -> None:
        with tempfile.TemporaryDirectory() as t:
            d = Path(t)
            (d / "paths-pipe-100.csv").write_text(rbstat_csv(1000, 900, 5, None))
            (d / "paths-pipe-2100.csv").write_text(rbstat_csv(3000, 2900, 5, None))
            got = {r[8]: float(r[9]) for r in paths.rows(d, "classic", 1, 0, "abc", 2)}
        self.assertNotIn("read_sections_per_op", got)
        self.assertEqual(got["readside_insns_per_op"], 0)

    def test_no_counts_is_an_error(self) -> None:
        with tempfile.TemporaryDirectory() as t:
            d = Path(t)
            (d / "paths-pipe-100.csv").write_text("rbstat: no rbcount plugin in this guest\n")
            (d / "paths-pipe-2100.csv").write_text("rbstat: no rbcount plugin in this guest\n")
            with self.assertRaisesRegex(paths.PathsError, "no rbstat counts"):
                paths.rows(d, "classic", 1, 0, "abc", 2)
            with self.assertRaisesRegex(paths.PathsError, "no paths"):
                paths.rows(d / "nothing", "classic", 1, 0, "abc", 2)


def row(kernel: str, test: str, params: str, metric: str, value: float) -> Row:
    return Row("synthetic", 0, 2, "abc", "tcg", kernel, 1, test, 1,
               dict(kv.split("=", 1) for kv in params.split(";")), metric, float(value),
               "count", "rbstat", "ok")


class Report(unittest.TestCase):
    ROWS = ([row("preempt", "paths", "workload=pathwalk;ops=2000", m, v) for m, v in (
                ("insns_per_op", 5800), ("kernel_insns_per_op", 5780),
                ("readside_insns_per_op", 116), ("read_sections_per_op", 2.9),
                ("irqflag_per_op", 20))] +
            [row("classic-preempt", "paths", "workload=pathwalk;ops=2000", m, v) for m, v in (
                ("insns_per_op", 5700), ("kernel_insns_per_op", 5680),
                ("readside_insns_per_op", 0), ("irqflag_per_op", 2))] +
            [row("classic-preempt", "count_read", "nest=1;irqs=on;readers=1", "insns", 4)])

    def test_estimate_for_inline_read_side(self) -> None:
        rs, sections, est = realpaths.readside(self.ROWS, "pathwalk", "classic-preempt", 1)
        self.assertTrue(est)
        self.assertEqual(sections, 2.9)             # preempt's, same workload and vCPUs
        self.assertAlmostEqual(rs, 2.9 * 4)         # times classic-preempt's counted pair
        self.assertEqual(realpaths.readside(self.ROWS, "pathwalk", "preempt", 1),
                         (116, 2.9, False))

    def test_sentence(self) -> None:
        self.assertEqual(realpaths.sentence(self.ROWS, "pathwalk", 1),
                         "- pathwalk, 1 vCPU: the read side is 2.01% of the kernel's "
                         "instructions on preempt against 0.20% (est.) on classic-preempt.")
        self.assertIsNone(realpaths.sentence(self.ROWS, "pipe", 1))
