"""The numbers of the report, derived from validated rows.

Every figure, table and summary sentence is built from these functions, so
the tests check the numbers here and the rest only formats them.  The unit
of a statistic is the boot: each boot of a (kernel, vcpus) cell gives one
figure (the median of its rows when it has several, e.g. GP samples), and
a cell's estimate is the median over boots with a bootstrap interval
(stats.py).  Differences are taken within a boot (paired), never between
medians.  Nothing is clamped: a negative difference stays negative.
"""

from dataclasses import dataclass
from typing import Callable, Iterable

import numpy as np

from resultdir import Row
from stats import Estimate, difference_ci, median_ci, paired, ratio_ci

# The grace-period stages of the flip-counter preemptible RCU, in GP order.
GP_STAGES = ("idle", "waitack", "waitzero", "waitmb")
REFSCALE_TOLERANCE_PCT = 10.0

PerBoot = dict[int, float]  # repeat -> the boot's figure
CellFn = Callable[[list[Row], str, int], PerBoot]  # (rows, kernel, vcpus) -> per boot


def select(rows: Iterable[Row], test: str, metric: str, kernel: str | None = None,
           vcpus: int | None = None, **params: object) -> list[Row]:
    """The ok rows of test/metric (and kernel, vcpus) whose params include params."""
    wanted = {k: str(v) for k, v in params.items()}
    return [r for r in rows
            if r.ok and r.test == test and r.metric == metric
            and (kernel is None or r.kernel == kernel)
            and (vcpus is None or r.vcpus == vcpus)
            and all(r.params.get(k) == v for k, v in wanted.items())]


def per_boot(rows: Iterable[Row]) -> PerBoot:
    """repeat -> median of the boot's values (one value: itself)."""
    by_boot: dict[int, list[float]] = {}
    for r in rows:
        if r.value is not None:
            by_boot.setdefault(r.repeat, []).append(r.value)
    return {rep: float(np.median(v)) for rep, v in sorted(by_boot.items())}


def estimate(boots: PerBoot) -> Estimate | None:
    return median_ci(boots.values())


def kernels_of(rows: Iterable[Row], test: str) -> list[str]:
    """Kernels with ok rows of test, in first-seen order."""
    return list(dict.fromkeys(r.kernel for r in rows if r.ok and r.test == test))


def vcpus_of(rows: Iterable[Row], test: str, kernel: str | None = None) -> list[int]:
    return sorted({r.vcpus for r in rows
                   if r.ok and r.test == test and (kernel is None or r.kernel == kernel)})


def gp_loads(rows: list[Row], test: str = "gp") -> list[str]:
    """The load= values of test's rows, in first-seen order."""
    return list(dict.fromkeys(r.params["load"] for r in rows
                              if r.ok and r.test == test and "load" in r.params))


# ---- per-boot figures of each measurement (readers/writers = vCPUs) ----

def read_boots(rows: list[Row], kernel: str, vcpus: int, nest: int = 1,
               test: str = "read") -> PerBoot:
    """ns per lock/unlock pair (empty loop subtracted in the guest)."""
    return per_boot(select(rows, test, "ns_per_pair", kernel, vcpus, readers=vcpus, nest=nest))


def barrier_boots(rows: list[Row], kernel: str, vcpus: int) -> PerBoot:
    """read_mb − read per boot: what smp_mb() after lock and before unlock
    adds to a section, paired within the boot (same kernel, vcpus, readers, nest)."""
    with_mb = read_boots(rows, kernel, vcpus, test="read_mb")
    plain = read_boots(rows, kernel, vcpus)
    return dict(zip(sorted(k for k in with_mb if k in plain), paired(with_mb, plain)))


# gp rows without spacing= (sweeps before it existed) started 1-2 ticks
# after the previous sample: neither lone nor back to back.
GP_SPACING_UNSPECIFIED = "unspecified"
GP_SPACINGS = ("lone", "back_to_back")


def gp_spacing(row: Row) -> str:
    return row.params.get("spacing", GP_SPACING_UNSPECIFIED)


def gp_spacings(rows: list[Row]) -> list[str]:
    """The spacings with gp rows: lone, back_to_back, then unspecified."""
    have = {gp_spacing(r) for r in rows if r.ok and r.test == "gp"}
    return [s for s in GP_SPACINGS + (GP_SPACING_UNSPECIFIED,) if s in have]


def _gp_rows(rows: Iterable[Row], metric: str, kernel: str, vcpus: int, load: str,
             spacing: str) -> list[Row]:
    return [r for r in select(rows, "gp", metric, kernel, vcpus, load=load)
            if gp_spacing(r) == spacing]


def gp_boots(rows: list[Row], kernel: str, vcpus: int, load: str = "idle",
             metric: str = "latency_ns", spacing: str = "lone") -> PerBoot:
    """Median synchronize_rcu() latency of each boot's samples (ns or ticks)
    of one spacing (lone by default: the headline)."""
    return per_boot(_gp_rows(rows, metric, kernel, vcpus, load, spacing))


def callrcu_cost_boots(rows: list[Row], kernel: str, vcpus: int) -> PerBoot:
    return per_boot(select(rows, "callrcu_cost", "ns_per_call", kernel, vcpus, writers=vcpus))


def capacity_boots(rows: list[Row], kernel: str, vcpus: int,
                   metric: str = "invoked_per_s") -> PerBoot:
    """A callrcu_capacity metric per boot, whatever bound the rate."""
    return per_boot(select(rows, "callrcu_capacity", metric, kernel, vcpus, writers=vcpus))


# An older sweep has no limit_reached row: its backlog counts as having
# reached the limit when the peak came this close to max_backlog.
LIMIT_REACHED_RATIO = 0.95


def backlog_bound_boots(rows: list[Row], kernel: str, vcpus: int) -> PerBoot:
    """repeat -> 1.0 when a writer of the boot found its backlog full (the
    rate is then max_backlog / callback latency, not a capacity), else 0.0."""
    reached = capacity_boots(rows, kernel, vcpus, "limit_reached")
    legacy = {r.repeat: r for r in select(rows, "callrcu_capacity", "peak_outstanding", kernel,
                                          vcpus, writers=vcpus) if r.repeat not in reached}
    for rep, r in legacy.items():
        limit = r.param_int("max_backlog")
        if limit and r.value is not None:
            reached[rep] = float(r.value >= LIMIT_REACHED_RATIO * limit)
    return dict(sorted(reached.items()))


def cpu_capacity_boots(rows: list[Row], kernel: str, vcpus: int) -> PerBoot:
    """Callbacks invoked per second of the boots whose backlog never reached
    its limit: a CPU-bound capacity (boots bound by the backlog left out)."""
    bound = backlog_bound_boots(rows, kernel, vcpus)
    return {rep: v for rep, v in capacity_boots(rows, kernel, vcpus).items()
            if bound.get(rep) == 0.0}


def backlog_rate_boots(rows: list[Row], kernel: str, vcpus: int) -> PerBoot:
    """Callbacks invoked per second of the boots whose backlog reached its
    limit: max_backlog / callback latency, a restated latency."""
    bound = backlog_bound_boots(rows, kernel, vcpus)
    return {rep: v for rep, v in capacity_boots(rows, kernel, vcpus).items()
            if bound.get(rep) == 1.0}


def insns_per_callback(rows: list[Row], kernel: str, vcpus: int) -> float | None:
    """Instructions the RCU core executes per callback invoked (count_callrcu
    insns_per_cb of the plugin boot: exact, the same in every boot)."""
    values = [r.value for r in select(rows, "count_callrcu", "insns_per_cb", kernel, vcpus)
              if r.value is not None]
    return float(np.median(values)) if values else None


def memory_rates(rows: list[Row]) -> list[int]:
    """The rate= values (calls per second per writer) of callrcu_memory rows."""
    return sorted({int(r.params["rate"]) for r in rows
                   if r.ok and r.test == "callrcu_memory" and "rate" in r.params})


def memory_boots(rows: list[Row], kernel: str, vcpus: int, metric: str = "bytes_mean",
                 rate: int | None = None) -> PerBoot:
    """A callrcu_memory metric per boot at one rate (default: the lowest)."""
    rates = memory_rates(rows)
    if rate is None and not rates:
        return {}
    return per_boot(select(rows, "callrcu_memory", metric, kernel, vcpus,
                           rate=rates[0] if rate is None else rate))


def stage_boots(rows: list[Row], kernel: str, vcpus: int, load: str, stage: str) -> PerBoot:
    return per_boot(select(rows, "gp_stages", f"{stage}_ns", kernel, vcpus, load=load))


def kernel_hz(rows: list[Row], kernel: str) -> int | None:
    """The scheduler-tick rate kernel's gp rows were taken at (param hz);
    None when no row says or the rows disagree."""
    values = {r.param_int("hz") for r in rows if r.ok and r.test == "gp" and r.kernel == kernel}
    values.discard(None)
    return values.pop() if len(values) == 1 else None


def stage_count(rows: list[Row], kernel: str, vcpus: int) -> int | None:
    """rcupreempt.gp_stages as the guest read it (gp_stages rows, metric
    stages); None when there is no such row or the boots disagree."""
    values = {r.value for r in select(rows, "gp_stages", "stages", kernel, vcpus)}
    return int(values.pop()) if len(values) == 1 else None


def variant_on(rows: list[Row], kernel: str, vcpus: int, variant: str) -> bool:
    """Whether the design variant (gp_stages rows, metric fast_advance or
    idle_skip: 1 on) was on in every boot of the cell; False without rows."""
    values = {r.value for r in select(rows, "gp_stages", variant, kernel, vcpus)}
    return values == {1.0}


# ---- estimates ----

def cell_estimate(fn: CellFn, rows: list[Row], kernel: str, vcpus: int) -> Estimate | None:
    return estimate(fn(rows, kernel, vcpus))


def ratio(fn: CellFn, rows: list[Row], kernel: str, base: str, vcpus: int) -> Estimate | None:
    """median(kernel) / median(base) of one cell figure, boots of each
    kernel resampled independently."""
    return ratio_ci(fn(rows, kernel, vcpus).values(), fn(rows, base, vcpus).values())


def difference(fn: CellFn, rows: list[Row], kernel: str, base: str,
               vcpus: int) -> Estimate | None:
    """median(kernel) − median(base) of one cell figure (boots resampled
    per kernel): used where base's figure is indistinguishable from zero."""
    return difference_ci(fn(rows, kernel, vcpus).values(), fn(rows, base, vcpus).values())


def series(fn: CellFn, rows: list[Row], test: str, kernel: str) -> list[tuple[int, Estimate]]:
    """(vcpus, estimate) for each vCPU count of test with a value."""
    points = [(v, cell_estimate(fn, rows, kernel, v)) for v in vcpus_of(rows, test, kernel)]
    return [(v, e) for v, e in points if e is not None]


def gp_samples(rows: list[Row], kernel: str, vcpus: int, load: str,
               spacing: str = "lone", metric: str = "latency_ns") -> np.ndarray:
    """All grace-period latency samples of the cell, boots pooled (for the CDF)."""
    return np.asarray([r.value for r in _gp_rows(rows, metric, kernel, vcpus, load, spacing)])


def cdf(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Empirical CDF: sorted samples and the fraction at or below each."""
    xs = np.sort(samples)
    return xs, np.arange(1, xs.size + 1) / xs.size


def gp_stage_times(rows: list[Row], kernel: str, vcpus: int, load: str) -> dict[str, Estimate]:
    """Median time per grace period in each stage (stages with data only)."""
    out = {s: estimate(stage_boots(rows, kernel, vcpus, load, s)) for s in GP_STAGES}
    return {s: e for s, e in out.items() if e is not None}


def stage_kernels(rows: list[Row]) -> list[str]:
    """Kernels exposing per-stage GP statistics: the amortised-barrier design."""
    return kernels_of(rows, "gp_stages")


# ---- refscale agreement (also csv/agreement.csv, written by sweep.py finish and report.py) ----

def with_loop_boots(rows: list[Row], kernel: str, vcpus: int, readers: int) -> PerBoot:
    """Our read cost per section including the loop (ns_per_pair + baseline_ns
    of the same boot): what refscale times, as it subtracts no empty loop."""
    pair = per_boot(select(rows, "read", "ns_per_pair", kernel, vcpus, readers=readers, nest=1))
    base = per_boot(select(rows, "read", "baseline_ns", kernel, vcpus, readers=readers, nest=1))
    return {rep: pair[rep] + base[rep] for rep in pair if rep in base}


def refscale_boots(rows: list[Row], kernel: str, vcpus: int, readers: int) -> PerBoot:
    return per_boot(r for r in select(rows, "refscale", "ns_per_pair", kernel, vcpus)
                    if (r.param_int("readers") or vcpus) == readers)


@dataclass(frozen=True)
class Agreement:
    kernel: str
    vcpus: int
    readers: int
    ours: Estimate
    refscale: Estimate
    ratio: Estimate

    @property
    def diff_pct(self) -> float:
        return (self.ratio.value - 1.0) * 100.0

    @property
    def flagged(self) -> bool:
        """The median ratio is off 1 by more than the tolerance."""
        return abs(self.diff_pct) > REFSCALE_TOLERANCE_PCT

    @property
    def resolved(self) -> bool:
        """...and so is the whole interval: not just the noise of few boots."""
        tol = REFSCALE_TOLERANCE_PCT / 100.0
        return self.flagged and (self.ratio.low > 1 + tol or self.ratio.high < 1 - tol)


def _refscale_cells(rows: list[Row]) -> list[tuple[str, int, int]]:
    return [(k, v, n) for k in kernels_of(rows, "refscale") for v in vcpus_of(rows, "refscale", k)
            for n in sorted({r.param_int("readers") or v
                             for r in select(rows, "refscale", "ns_per_pair", k, v)})]


def refscale_agreement(rows: list[Row]) -> list[Agreement]:
    """Our read ns/section against refscale's for the same kernel and readers."""
    out = []
    for k, v, n in _refscale_cells(rows):
        ours, ref = with_loop_boots(rows, k, v, n), refscale_boots(rows, k, v, n)
        r = ratio_ci(ours.values(), ref.values())
        if r is not None:
            out.append(Agreement(k, v, n, estimate(ours), estimate(ref), r))
    return out


def agreement_per_boot(rows: list[Row]) -> list[dict[str, str]]:
    """csv/agreement.csv: per boot, our ns per section (with and without
    the loop) beside refscale's."""
    out = []
    for k, v, n in _refscale_cells(rows):
        pair = read_boots(rows, k, v) if n == v else {}
        ours, ref = with_loop_boots(rows, k, v, n), refscale_boots(rows, k, v, n)
        for rep in sorted(set(ours) & set(ref)):
            out.append({"kernel": k, "vcpus": str(v), "repeat": str(rep),
                        "rcubench_ns_per_pair": f"{pair[rep]:.3f}" if rep in pair else "",
                        "rcubench_with_loop_ns": f"{ours[rep]:.3f}",
                        "refscale_ns": f"{ref[rep]:.3f}",
                        "ratio": f"{ours[rep] / ref[rep]:.3f}" if ref[rep] > 0 else ""})
    return out


# ---- native liburcu anchor ----

def urcu_boots(rows: list[Row], flavour: str, readers: int) -> PerBoot:
    return per_boot(select(rows, "urcu", "ns_per_pair", "host", readers,
                           flavour=flavour, readers=readers))


def urcu_flavours(rows: list[Row]) -> list[str]:
    return list(dict.fromkeys(r.params.get("flavour", "?") for r in rows
                              if r.ok and r.test == "urcu"))


def membarrier_used(rows: list[Row]) -> dict[str, set[str]]:
    """flavour -> the membarrier= values its rows recorded."""
    out: dict[str, set[str]] = {}
    for r in rows:
        if r.ok and r.test == "urcu" and "membarrier" in r.params:
            out.setdefault(r.params.get("flavour", "?"), set()).add(r.params["membarrier"])
    return out
