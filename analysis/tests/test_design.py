"""Issue 21's labels on synthetic rows: the capacity is CPU-bound only when
the backlog never reached its limit, memory held at a fixed rate, lone and
back-to-back grace periods apart with the designs' predictions, and the
emulator's floor in the latency cells."""

import unittest

import derive
import figures
import gpdesign
import latency
from resultdir import Row


def row(kernel: str, test: str, repeat: int, params: str, metric: str, value: float,
        vcpus: int = 1, unit: str = "count") -> Row:
    return Row("synthetic", 0, 2, "abc", "tcg", kernel, vcpus, test, repeat,
               dict(kv.split("=", 1) for kv in params.split(";") if kv), metric,
               float(value), unit, "rcubench", "ok")


def capacity(kernel: str, repeat: int, rate: float, peak: float, limit: int,
             reached: float | None) -> list[Row]:
    p = f"writers=1;duration_ms=200;max_backlog={limit}"
    rows = [row(kernel, "callrcu_capacity", repeat, p, "invoked_per_s", rate, unit="1/s"),
            row(kernel, "callrcu_capacity", repeat, p, "peak_outstanding", peak)]
    if reached is not None:
        rows.append(row(kernel, "callrcu_capacity", repeat, p, "limit_reached", reached))
    return rows


class Capacity(unittest.TestCase):
    def test_limit_reached_row_decides(self) -> None:
        rows = (capacity("preempt", 1, 3e6, 4e5, 2000000, 0) +
                capacity("preempt", 2, 7e5, 2000000, 2000000, 1))
        self.assertEqual(derive.backlog_bound_boots(rows, "preempt", 1), {1: 0.0, 2: 1.0})
        self.assertEqual(derive.cpu_capacity_boots(rows, "preempt", 1), {1: 3e6})
        self.assertEqual(derive.backlog_rate_boots(rows, "preempt", 1), {2: 7e5})

    def test_older_sweep_by_peak(self) -> None:
        """No limit_reached row: a peak of 9,922 of 10,000 is backlog-bound."""
        rows = capacity("classic", 1, 2.5e6, 9922, 10000, None)
        self.assertEqual(derive.backlog_bound_boots(rows, "classic", 1), {1: 1.0})
        self.assertEqual(derive.cpu_capacity_boots(rows, "classic", 1), {})
        rows = capacity("classic", 1, 2.5e6, 500, 10000, None)
        self.assertEqual(derive.cpu_capacity_boots(rows, "classic", 1), {1: 2.5e6})


    def test_instructions_per_callback(self) -> None:
        rows = [row("preempt", "count_callrcu", 1, "calls=2000", "insns_per_cb", 13.0)]
        self.assertEqual(derive.insns_per_callback(rows, "preempt", 1), 13.0)
        self.assertIsNone(derive.insns_per_callback(rows, "classic", 1))


class Memory(unittest.TestCase):
    def test_selected_by_rate(self) -> None:
        rows = [row("preempt", "callrcu_memory", r, f"writers=1;rate={rate}", "bytes_mean",
                    rate * r, unit="bytes") for r in (1, 2) for rate in (1000, 10000)]
        self.assertEqual(derive.memory_rates(rows), [1000, 10000])
        self.assertEqual(derive.memory_boots(rows, "preempt", 1), {1: 1000.0, 2: 2000.0})
        self.assertEqual(derive.memory_boots(rows, "preempt", 1, rate=10000),
                         {1: 10000.0, 2: 20000.0})


def gp(kernel: str, spacing: str | None, ticks: list[float], repeat: int = 1) -> list[Row]:
    base = "load=idle;" + (f"spacing={spacing};" if spacing else "") + "samples=3;hz=1000"
    return [row(kernel, "gp", repeat, f"{base};sample={i}", "latency_ticks", t, unit="ticks")
            for i, t in enumerate(ticks)]


class GracePeriods(unittest.TestCase):
    def test_spacings_kept_apart(self) -> None:
        rows = gp("preempt", "lone", [8.2, 8.5, 8.9]) + gp("preempt", "back_to_back",
                                                            [11.9, 12, 11.95]) + \
            gp("preempt", None, [10.5, 10.2, 10.7])
        self.assertEqual(derive.gp_spacings(rows), ["lone", "back_to_back", "unspecified"])
        ticks = {s: derive.gp_boots(rows, "preempt", 1, metric="latency_ticks", spacing=s)
                 for s in derive.gp_spacings(rows)}
        self.assertEqual(ticks, {"lone": {1: 8.5}, "back_to_back": {1: 11.95},
                                 "unspecified": {1: 10.5}})

    def test_predictions(self) -> None:
        p = gpdesign.prediction
        self.assertEqual(p("rcupreempt", "lone", 2), gpdesign.Prediction(8, 9, 8.5))
        self.assertEqual(p("rcupreempt", "back_to_back", 2).median, 12)
        self.assertEqual(p("rcupreempt", "lone", 4).median, 16.5)
        self.assertEqual(p("classic", "lone", None), gpdesign.Prediction(2, 3, 2.5))
        self.assertEqual(p("classic", "back_to_back", None).median, 3)
        self.assertIsNone(p("rcupreempt", "lone", None))  # stages unknown
        self.assertIsNone(p("tree", "lone", None))

    def test_verdict(self) -> None:
        pred = gpdesign.Prediction(8, 9, 8.5)
        self.assertTrue(gpdesign.verdict(9.4, pred).startswith("agrees"))
        self.assertIn("**", gpdesign.verdict(10.6, pred))

    def test_section_uses_stages_row(self) -> None:
        rows = gp("preempt", "lone", [8.2, 8.5, 8.9]) + [
            row("preempt", "gp_stages", 1, "load=idle", "stages", 2)]
        self.assertEqual(derive.stage_count(rows, "preempt", 1), 2)
        self.assertIsNone(derive.stage_count(rows, "classic", 1))


class StagesInTicks(unittest.TestCase):
    """gp_stages_preempt in ticks per stage in each state (issue 21, item 8)."""

    def rows(self, hz: bool = True) -> list[Row]:
        out = [row("preempt", "gp", r, "load=idle;spacing=lone;samples=3" + (";hz=250" if hz
                                                                          else ""),
                   "latency_ticks", 8.5, unit="ticks") for r in (1, 2, 3)]
        for r in (1, 2, 3):
            out.append(row("preempt", "gp_stages", r, "load=idle", "stages", 2))
            # 2 stages of 4 states at HZ=250: 4 ms per state per stage is 1 tick.
            for state, ms in (("idle", 8), ("waitack", 8), ("waitzero", 16), ("waitmb", 8)):
                out.append(row("preempt", "gp_stages", r, "load=idle", f"{state}_ns",
                               ms * 1e6, unit="ns"))
        return out

    def test_ticks_per_stage(self) -> None:
        (chart,) = figures.gp_stages_figure(self.rows(), "preempt").charts
        self.assertEqual(chart.ylabel, "ticks per stage (HZ=250)")
        got = {s.label: s.y for s in chart.series}
        self.assertEqual(got, {"idle": [1.0], "waitack": [1.0], "waitzero": [2.0],
                               "waitmb": [1.0]})

    def test_without_hz_in_time(self) -> None:
        (chart,) = figures.gp_stages_figure(self.rows(hz=False), "preempt").charts
        self.assertEqual(chart.ylabel, "µs per grace period")
        self.assertEqual([s.y for s in chart.series if s.label == "waitzero"], [[16000.0]])

    def test_gp_latency_log_axis(self) -> None:
        charts = figures.gp_figure(self.rows(), ["preempt"], "latency_ticks").charts
        self.assertTrue(charts)
        self.assertTrue(all(c.logy for c in charts))


def lat(kernel: str, reader_us: int, metric: str, ns: float) -> Row:
    return row(kernel, "latency", 1, f"reader_us={reader_us};readers=1;samples=100", metric,
               ns, unit="ns")


class EmulatorFloor(unittest.TestCase):
    ROWS = [lat("preempt", 10, "wakeup_median_ns", 50e3),
            lat("classic", 10, "wakeup_median_ns", 60e3),
            lat("classic", 10, "wakeup_p99_ns", 1.6e6),
            lat("preempt", 10000, "wakeup_median_ns", 55e3),
            lat("classic", 10000, "wakeup_median_ns", 5e6),
            lat("classic", 10000, "wakeup_max_ns", 10.05e6)]

    def test_floor_is_the_smallest_median(self) -> None:
        self.assertEqual(latency.floor_ns(self.ROWS, 1, 10), 50e3)
        self.assertEqual(latency.floor_ns(self.ROWS, 1, 10000), 55e3)

    def test_rule(self) -> None:
        """10 µs readers: 2 x 10 µs + 50 µs = 70 µs; 10 ms readers: 20.055 ms."""
        fl = latency.floors(self.ROWS)
        self.assertTrue(latency.is_floor(fl, 1.6e6, 1, 10))
        self.assertFalse(latency.is_floor(fl, 69e3, 1, 10))
        self.assertFalse(latency.is_floor(fl, 10.05e6, 1, 10000))
        self.assertTrue(latency.is_floor(fl, 21e6, 1, 10000))

    def test_marked_in_the_table(self) -> None:
        body = "\n".join(latency.table_lines(self.ROWS, ["classic", "preempt"]))

        def row(kernel: str, reader_us: str) -> str:
            # By cells: the vCPUs column, the same in every row, is said above the table.
            return next(line for line in body.splitlines()
                        if [c.strip() for c in line.strip("|").split("|")][:1] == [kernel]
                        and reader_us in [c.strip() for c in line.strip("|").split("|")][1:3])
        self.assertIn(latency.FLOOR_MARK, row("classic", "10"))
        self.assertNotIn(latency.FLOOR_MARK, row("classic", "10000"))


if __name__ == "__main__":
    unittest.main()
