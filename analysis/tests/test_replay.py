"""analysis/costmodel.py's replay section (rows of test replay, workloads/replay)
on the counts fixture plus replay rows written here; expected numbers come
from the rows as written, not from the code under test."""

import unittest
from dataclasses import replace

from helpers import FIXTURES
import costmodel
import resultdir
import units

FIXTURE = FIXTURES / "counts"
# Per kernel: the replay's per-pair classes and its ns (two repeats).
REPLAY = {
    "preempt": ({"insns": 41, "locked": 0, "fences": 0, "cli": 1, "sti": 1, "pushf": 1,
                 "popf": 1, "percpu": 3, "calls": 2, "rets": 2},
                [(3.0, 2.9, 3.2), (3.4, 3.3, 3.6)]),
    "classic": ({"insns": 8, "locked": 0, "fences": 0, "cli": 0, "sti": 0, "pushf": 0,
                 "popf": 0, "percpu": 1, "calls": 2, "rets": 2},
                [(1.0, 0.9, 1.1), (1.2, 1.1, 1.3)]),
}
PENRYN = {op: {"op": op, "table": "ITJ 2008", "url": "u", "family": "Intel Core 2 (Penryn)"}
          for op in ("cli", "sti")}
ZEN = {op: {**row, "family": "AMD Zen 5"} for op, row in PENRYN.items()}


def replay_rows(template: resultdir.Row) -> list[resultdir.Row]:
    out = []
    for kernel, (classes, timed) in REPLAY.items():
        for rep, (mid, low, high) in enumerate(timed):
            metrics = {"ns_per_pair": mid, "ns_per_pair_low": low, "ns_per_pair_high": high,
                       "baseline_ns": 0.25, "cycle_ns": 0.25 + rep / 10,
                       "cycles_per_pair": mid / (0.25 + rep / 10), **classes}
            for metric, value in metrics.items():
                out.append(replace(template, kernel="host", vcpus=1, test="replay", repeat=rep,
                                   params={"kernel": kernel}, metric=metric, value=float(value),
                                   unit="ns" if "ns" in metric else
                                   ("cycles" if "cycles" in metric else "count"),
                                   source="native-replay", accel="native"))
    return out


class Replay(unittest.TestCase):
    def setUp(self) -> None:
        rows = resultdir.load_result_dir(FIXTURE).ok_rows
        self.rows = rows + replay_rows(rows[0])
        self.cost = costmodel.costs(self.rows)

    def found(self, kernel: str) -> costmodel.Replay:
        return next(r for r in costmodel.replays(self.rows) if r.kernel == kernel)

    def test_medians_over_repeats(self) -> None:
        r = self.found("preempt")
        self.assertAlmostEqual(r.median, 3.2)
        self.assertAlmostEqual(r.ns.low, 3.1)
        self.assertAlmostEqual(r.ns.high, 3.4)

    def test_model_of_the_replayed_instructions(self) -> None:
        classes = {k: float(v) for k, v in REPLAY["preempt"][0].items()}
        want = costmodel.read_model(classes, self.cost).ns
        r = self.found("preempt")
        self.assertEqual(r.model.ns, want)
        cli_sti_low = self.cost["cli"].low + self.cost["sti"].low
        cli_sti_high = self.cost["cli"].high + self.cost["sti"].high
        self.assertAlmostEqual(r.cli_sti.ns.low, cli_sti_low)
        self.assertAlmostEqual(r.cli_sti.ns.high, cli_sti_high)
        rest = costmodel.minus(r.model.ns, r.cli_sti.ns)
        self.assertAlmostEqual(rest.low, want.low - cli_sti_low)

    def test_cycles_at_the_model_cycle_time(self) -> None:
        r = self.found("preempt")
        cycles = (3.0 / 0.25 + 3.4 / 0.35) / 2        # median of the two repeats
        self.assertAlmostEqual(r.cycles, cycles)
        alu = self.cost["alu"]
        self.assertAlmostEqual(r.replayed_ns().low, cycles * alu.low)
        self.assertAlmostEqual(r.replayed_ns().high, cycles * alu.high)
        rest = costmodel.minus(r.model.ns, r.cli_sti.ns)
        want = f"[{units.sig(rest.low / (cycles * alu.low))}, " \
               f"{units.sig(rest.high / (cycles * alu.high))}]"
        self.assertIn(want, costmodel.replay_section(self.rows, "AMD EPYC", PENRYN))

    def test_guest_count_agreement(self) -> None:
        # The fixture's count_read at 1 vCPU: preempt 40 + 1, classic 6 + 1.
        self.assertEqual(self.found("preempt").guest_insns, 41)
        text = costmodel.replay_section(self.rows, "AMD EPYC", PENRYN)
        # The empty loop: baseline 0.25 ns over the median cycle time 0.30 ns.
        self.assertIn("| preempt | 41 (guest: same) | 2 | 3.20 [3.10, 3.40] | 10.9 (empty loop "
                      "0.83) |", text)
        self.assertIn("| classic | 8 (guest: 7!) | 0 |", text)

    def test_anchors_and_no_figure_for_the_host(self) -> None:
        text = costmodel.replay_section(self.rows, "AMD EPYC", PENRYN)
        self.assertIn(costmodel.ANCHORS["preempt"], text)
        self.assertIn("No published CLI/STI figure for this host's CPU (AMD EPYC)", text)
        self.assertIn("Intel Core 2 (Penryn)", text)
        self.assertNotIn("No published CLI/STI figure",
                         costmodel.replay_section(self.rows, "AMD EPYC 9B45", ZEN))

    def test_counted_but_not_replayed(self) -> None:
        rows = [r for r in self.rows if not (r.test == "replay" and r.params["kernel"] == "classic")]
        r = next(x for x in costmodel.replays(rows) if x.kernel == "classic")
        self.assertIsNone(r.ns)
        self.assertEqual(r.counts["insns"], 7)   # the guest's count_read at 1 vCPU
        self.assertIn("| classic | 7 (guest) | 0 | n/a (not replayed) |",
                      costmodel.replay_section(rows, "AMD EPYC", PENRYN))

    def test_without_calib_or_replay_rows(self) -> None:
        no_calib = [r for r in self.rows if r.test != "calib"]
        self.assertIn("n/a (no calib cost for", costmodel.replay_section(no_calib, "", PENRYN))
        self.assertIn("No replay rows", costmodel.replay_section(
            [r for r in self.rows if r.test != "replay"], "", PENRYN))

    def test_shipped_published_csv_has_family(self) -> None:
        pub = costmodel.published_cli_sti()
        self.assertEqual(set(pub), {"cli", "sti"})
        self.assertTrue(all(row.get("family") for row in pub.values()))


if __name__ == "__main__":
    unittest.main()
