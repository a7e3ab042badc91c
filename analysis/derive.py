"""The numbers of the report, derived from validated rows.

Every figure and table is built from these functions, so the tests check
the numbers here and the plots/tables only format them.  A statistic over
repeats is mean +- sample standard deviation (ddof=1; 0 for one repeat).
"""

import math
from dataclasses import dataclass
from typing import Iterable

import numpy as np

from results import Row

# The grace-period stages of the flip-counter preemptible RCU, in GP order.
GP_STAGES = ("idle", "waitack", "waitzero", "waitmb")
REFSCALE_TOLERANCE_PCT = 10.0


@dataclass(frozen=True)
class Stat:
    mean: float
    std: float
    n: int


def stat(values: Iterable[float]) -> Stat | None:
    """mean +- sample stddev, None when there is no value."""
    arr = np.asarray(list(values), dtype=float)
    if arr.size == 0:
        return None
    std = float(arr.std(ddof=1)) if arr.size > 1 else 0.0
    return Stat(float(arr.mean()), std, int(arr.size))


def select(rows: Iterable[Row], test: str, metric: str, kernel: str | None = None,
           vcpus: int | None = None, **params: object) -> list[Row]:
    """The ok rows of test/metric (and kernel, vcpus) whose params include params."""
    wanted = {k: str(v) for k, v in params.items()}
    return [r for r in rows
            if r.ok and r.test == test and r.metric == metric
            and (kernel is None or r.kernel == kernel)
            and (vcpus is None or r.vcpus == vcpus)
            and all(r.params.get(k) == v for k, v in wanted.items())]


def values(rows: Iterable[Row]) -> list[float]:
    return [r.value for r in rows if r.value is not None]


def kernels_of(rows: Iterable[Row], test: str) -> list[str]:
    """Kernels with ok rows of test, in first-seen order."""
    return list(dict.fromkeys(r.kernel for r in rows if r.ok and r.test == test))


def vcpus_of(rows: Iterable[Row], test: str, kernel: str | None = None) -> list[int]:
    return sorted({r.vcpus for r in rows
                   if r.ok and r.test == test and (kernel is None or r.kernel == kernel)})


def read_cost(rows: list[Row], kernel: str, vcpus: int, nest: int = 1,
              test: str = "read") -> Stat | None:
    """ns per lock/unlock pair with one reader per vCPU."""
    return stat(values(select(rows, test, "ns_per_pair", kernel, vcpus,
                              readers=vcpus, nest=nest)))


def series(rows: list[Row], test: str, kernel: str, cost) -> list[tuple[int, Stat]]:
    """(vcpus, cost(rows, kernel, vcpus)) for each vCPU count with a value."""
    points = [(v, cost(rows, kernel, v)) for v in vcpus_of(rows, test, kernel)]
    return [(v, s) for v, s in points if s is not None]


def callrcu_rate(rows: list[Row], kernel: str, vcpus: int) -> Stat | None:
    """call_rcu callbacks invoked per second, one writer per vCPU."""
    return stat(values(select(rows, "callrcu", "invoked_per_s", kernel, vcpus, writers=vcpus)))


def gp_samples(rows: list[Row], kernel: str, vcpus: int, load: str) -> np.ndarray:
    """All grace-period latency samples (ns) of the cell, repeats pooled."""
    return np.asarray(values(select(rows, "gp", "latency_ns", kernel, vcpus, load=load)))


def gp_median(rows: list[Row], kernel: str, vcpus: int, load: str = "idle") -> Stat | None:
    """Median GP latency: the module's median_ns per repeat, else of the samples."""
    per_repeat = stat(values(select(rows, "gp", "median_ns", kernel, vcpus, load=load)))
    if per_repeat is not None:
        return per_repeat
    samples = gp_samples(rows, kernel, vcpus, load)
    return Stat(float(np.median(samples)), 0.0, 1) if samples.size else None


def cdf(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Empirical CDF: sorted samples and the fraction at or below each."""
    xs = np.sort(samples)
    return xs, np.arange(1, xs.size + 1) / xs.size


def gp_loads(rows: list[Row], test: str = "gp") -> list[str]:
    """The load= values of test's rows, in first-seen order."""
    return list(dict.fromkeys(r.params["load"] for r in rows
                              if r.ok and r.test == test and "load" in r.params))


def gp_stage_times(rows: list[Row], kernel: str, vcpus: int, load: str) -> dict[str, Stat]:
    """Mean time per grace period in each stage (stages with data only)."""
    stages = {s: stat(values(select(rows, "gp_stages", f"{s}_ns", kernel, vcpus, load=load)))
              for s in GP_STAGES}
    return {s: v for s, v in stages.items() if v is not None}


def stage_kernels(rows: list[Row]) -> list[str]:
    """Kernels exposing per-stage GP statistics: the amortised-barrier design."""
    return kernels_of(rows, "gp_stages")


def _difference(a: Stat, b: Stat) -> Stat:
    return Stat(a.mean - b.mean, math.hypot(a.std, b.std), min(a.n, b.n))


def _ratio(a: Stat, b: Stat) -> Stat | None:
    if b.mean <= 0:
        return None
    value = a.mean / b.mean
    rel = math.hypot(a.std / a.mean if a.mean else 0.0, b.std / b.mean)
    return Stat(value, abs(value) * rel, min(a.n, b.n))


@dataclass(frozen=True)
class Savings:
    """What the amortised barriers buy at one vCPU count."""

    vcpus: int
    load: str
    saved_ns: Stat            # read_mb - read, per read-side section
    waitmb_ns: Stat | None    # extra GP time of the waitmb stage, per GP
    break_even: Stat | None   # read sections per GP at which both balance


def savings(rows: list[Row], kernel: str, load: str) -> list[Savings]:
    """Per vCPU count: barrier cost saved per section vs waitmb time per GP
    (the GP stage times measured while the gp test ran under load)."""
    out = []
    for v in vcpus_of(rows, "read_mb", kernel):
        with_mb = read_cost(rows, kernel, v, test="read_mb")
        plain = read_cost(rows, kernel, v)
        if with_mb is None or plain is None:
            continue
        saved = _difference(with_mb, plain)
        waitmb = gp_stage_times(rows, kernel, v, load).get("waitmb")
        even = _ratio(waitmb, saved) if waitmb is not None else None
        out.append(Savings(v, load, saved, waitmb, even))
    return out


@dataclass(frozen=True)
class Agreement:
    kernel: str
    vcpus: int
    readers: int
    ours: Stat
    refscale: Stat

    @property
    def diff_pct(self) -> float:
        return (self.ours.mean - self.refscale.mean) / self.refscale.mean * 100.0

    @property
    def flagged(self) -> bool:
        return abs(self.diff_pct) > REFSCALE_TOLERANCE_PCT


def read_with_loop(rows: list[Row], kernel: str, vcpus: int, readers: int) -> Stat | None:
    """Our read cost per section including the loop (ns_per_pair + baseline_ns
    of the same repeat): what refscale times, as it subtracts no empty loop."""
    def per_repeat(metric: str) -> dict[int, float]:
        return {r.repeat: r.value for r in select(rows, "read", metric, kernel, vcpus,
                                                  readers=readers, nest=1)}
    pair, base = per_repeat("ns_per_pair"), per_repeat("baseline_ns")
    return stat(pair[rep] + base[rep] for rep in sorted(pair) if rep in base)


def refscale_agreement(rows: list[Row]) -> list[Agreement]:
    """Our read ns/section against refscale's for the same kernel and readers."""
    out = []
    for k in kernels_of(rows, "refscale"):
        for v in vcpus_of(rows, "refscale", k):
            ref_rows = select(rows, "refscale", "ns_per_pair", k, v)
            for n in sorted({r.param_int("readers") or v for r in ref_rows}):
                ref = stat(r.value for r in ref_rows if (r.param_int("readers") or v) == n)
                ours = read_with_loop(rows, k, v, n)
                if ours is not None and ref is not None and ref.mean > 0:
                    out.append(Agreement(k, v, n, ours, ref))
    return out


@dataclass(frozen=True)
class KernelSummary:
    kernel: str
    vcpus: int
    read_ns: Stat | None
    callbacks_per_s: Stat | None
    gp_median_ns: Stat | None


def summary(rows: list[Row], kernels: list[str], vcpus_list: list[int]) -> list[KernelSummary]:
    return [KernelSummary(k, v, read_cost(rows, k, v), callrcu_rate(rows, k, v),
                          gp_median(rows, k, v))
            for k in kernels for v in vcpus_list]


def urcu_cost(rows: list[Row], flavour: str, readers: int) -> Stat | None:
    return stat(values(select(rows, "urcu", "ns_per_pair", "host", readers,
                              flavour=flavour, readers=readers)))


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
