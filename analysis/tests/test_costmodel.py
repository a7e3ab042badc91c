"""analysis/costmodel.py (the cost model) on fixtures/counts (see
make_counts.py): the expected numbers are derived here from the fixture's
rows, read with plain csv."""

import csv
import statistics
import unittest
from collections import defaultdict

from helpers import FIXTURES
import costmodel
import resultdir
import summary
import units

FIXTURE = FIXTURES / "counts"
# The decomposition of costmodel.py's doc: metric -> (calib op, instructions it covers).
SPECIAL = {"locked": ("locked_add", 1), "fences": ("mfence", 1), "cli": ("cli", 1),
           "sti": ("sti", 1), "pushf": ("pushf_pop", 2), "popf": ("push_popf", 2),
           "percpu": ("gs_inc", 1), "calls": ("call_ret", 1)}


def raw_rows() -> list[dict[str, str]]:
    with open(FIXTURE / "csv" / "results.csv", newline="") as fh:
        out = []
        for row in csv.DictReader(fh):
            row["p"] = dict(kv.split("=", 1) for kv in row["params"].split(";") if kv)
            out.append(row)
        return out


def raw_counts(test: str, kernel: str, vcpus: int) -> dict[str, float]:
    values = defaultdict(list)
    for r in raw_rows():
        if (r["test"], r["kernel"], r["vcpus"]) == (test, kernel, str(vcpus)):
            values[r["metric"]].append(float(r["value"]))
    return {m: statistics.median(v) for m, v in values.items()}


def raw_cost(op: str, end: str) -> float:
    """The low (min of ns_per_op_low) or high (max of ns_per_op_high) cost."""
    vals = [float(r["value"]) for r in raw_rows()
            if r["test"] == "calib" and r["p"]["op"] == op and r["metric"] == f"ns_per_op_{end}"]
    return min(vals) if end == "low" else max(vals)


def raw_read_ns(c: dict[str, float], end: str) -> float:
    plain = c["insns"] - sum(c[m] * width for m, (_, width) in SPECIAL.items()) - c["rets"]
    return plain * raw_cost("alu", end) + sum(c[m] * raw_cost(op, end)
                                              for m, (op, _) in SPECIAL.items() if c[m])


def raw_gp_machine_ns(g: dict[str, float], end: str) -> float:
    plain = g["core_insns_gp_machine"] - g["core_locked"] - g["core_fences"]
    return (plain * raw_cost("alu", end) + g["core_locked"] * raw_cost("locked_add", end)
            + g["core_fences"] * raw_cost("mfence", end))


class Counts(unittest.TestCase):
    def setUp(self) -> None:
        self.rd = resultdir.load_result_dir(FIXTURE)
        self.rows = self.rd.ok_rows

    def test_costs_span_repeats(self) -> None:
        cost = costmodel.costs(self.rows)
        for op in ("alu", "locked_add", "mfence", "cli"):
            self.assertAlmostEqual(cost[op].low, raw_cost(op, "low"))
            self.assertAlmostEqual(cost[op].high, raw_cost(op, "high"))

    def test_read_pair_counts_are_medians(self) -> None:
        got = costmodel.counts(self.rows, "count_read", "preempt", 2, costmodel.READ_PARAMS)
        self.assertEqual(got["insns"], raw_counts("count_read", "preempt", 2)["insns"])

    def test_read_model(self) -> None:
        cost = costmodel.costs(self.rows)
        for kernel in ("preempt", "classic"):
            c = raw_counts("count_read", kernel, 1)
            m = costmodel.read_model(costmodel.counts(self.rows, "count_read", kernel, 1,
                                                costmodel.READ_PARAMS), cost)
            self.assertAlmostEqual(m.ns.low, raw_read_ns(c, "low"))
            self.assertAlmostEqual(m.ns.high, raw_read_ns(c, "high"))
            self.assertLess(m.ns.low, m.ns.high)

    def test_break_even(self) -> None:
        b = costmodel.balance(self.rows, "preempt", 1, costmodel.costs(self.rows))
        mb, rd, g = (raw_counts(t, "preempt", 1) for t in ("count_read_mb", "count_read", "count_gp"))
        section_barriers = mb["locked"] + mb["fences"] - rd["locked"] - rd["fences"]
        self.assertEqual(b.section_barriers, section_barriers)
        self.assertEqual(b.gp_barriers, g["core_locked"] + g["core_fences"])
        self.assertEqual(costmodel.even_counts(b),
                         units.sig((g["core_locked"] + g["core_fences"]) / section_barriers))
        delta = {m: mb[m] - rd[m] for m in mb if not m.startswith("base_")}
        self.assertAlmostEqual(b.gp.ns.high, raw_gp_machine_ns(g, "high"))
        low = raw_gp_machine_ns(g, "low") / raw_read_ns(delta, "high")
        high = raw_gp_machine_ns(g, "high") / raw_read_ns(delta, "low")
        self.assertEqual(costmodel.ratio_range(b.gp.ns, b.section.ns),
                         f"[{units.sig(low)}, {units.sig(high)}]")
        text = costmodel.barrier_balance_section(self.rows)
        self.assertIn(f"break-even (modelled ns): [{units.sig(low)}, {units.sig(high)}]", text)
        # The fixture's classic has count_read_mb rows too, but its readers
        # need no barriers in any design: no row (preempt's are the only ones).
        self.assertIn("kernel: preempt;", text)
        self.assertNotIn("classic", text.split("\n\n", 2)[2])

    def test_count_section(self) -> None:
        text = costmodel.count_section(self.rows)
        c = raw_counts("count_read", "preempt", 2)
        # No read fences or locked instructions and only the idle GP load in
        # this fixture: said once above the table, not in every row.
        self.assertIn("Same in every row: fences: 0; locked: 0; GP load: idle.", text)
        self.assertIn(f"| preempt | 2 | {int(c['insns'])} | {int(c['irqflag'])} |", text)
        self.assertIn("modelled", text)
        self.assertNotIn(costmodel.NA, text)
        # kernel_gps_per_sync sits after the modelled read pair: 2 stages per sync on preempt.
        self.assertRegex(text, r"\| preempt \| 2 \|.* modelled \| 2 \| 18\.0 k \| 4 \| 30 \|")
        # A sweep without the kernel's own GP count has no such column.
        old_sweep = [r for r in self.rows if r.metric != "kernel_gps_per_sync"]
        self.assertNotIn("kernel GPs", costmodel.count_section(old_sweep))
        self.assertNotIn(costmodel.NA, costmodel.count_section(old_sweep))

    def test_missing_calib_is_na(self) -> None:
        no_calib = [r for r in self.rows if r.test != "calib"]
        text = costmodel.count_section(no_calib)
        self.assertIn("n/a (no calib cost for", text)
        self.assertIn("No calib rows", text)
        self.assertIn("n/a (no calib cost for", costmodel.barrier_balance_section(no_calib))

    def test_missing_published_cli_only_where_counted(self) -> None:
        rows = [r for r in self.rows if r.params.get("op") != "cli"]
        text = costmodel.count_section(rows)
        self.assertIn("n/a (no calib cost for cli)", text)
        classic = [line for line in text.splitlines() if line.startswith("| classic | 1 |")]
        self.assertIn("modelled", classic[0])

    def test_missing_counts(self) -> None:
        no_gp = [r for r in self.rows if r.test != "count_gp"]
        self.assertIn("n/a (no count_gp rows)", costmodel.count_section(no_gp))
        self.assertIn("No count_read / count_gp rows", costmodel.count_section([]))
        self.assertIn("No count_read_mb / count_gp rows", costmodel.barrier_balance_section([]))
        classic_only = [r for r in self.rows if r.kernel != "preempt"]
        self.assertIn("of a kernel whose readers rely on amortised barriers",
                      costmodel.barrier_balance_section(classic_only))

    def test_summary_hooks(self) -> None:
        lines = summary.pair_section(self.rd, "preempt", "classic")
        text = "\n".join(lines)
        # 2 vCPUs reach the fixture host's 2 CPUs: the summary takes 1.
        insns = int(raw_counts("count_read", "preempt", 1)["insns"])
        self.assertIn(f"- **Read side, counted**: at 1 vCPU, a read pair executes {insns} ", text)
        self.assertIn("- **Amortised barriers, balance**: on preempt", text)
        section = costmodel.report_section(self.rd, ["preempt", "classic"])
        self.assertTrue(section[0].startswith("## Executed instructions"))


if __name__ == "__main__":
    unittest.main()
