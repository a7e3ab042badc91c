"""What preemptible RCU buys: scheduling latency behind long readers.

The latency test (rcubench test=latency) gives per boot and reader length
the wakeup latency summaries of a SCHED_FIFO kthread on the readers' CPU
(quartiles, p99, max over its samples; older sweeps had p99.9, which at
100 samples is the max) and the synchronize_rcu() median meanwhile.

The emulator's floor: under TCG the host's scheduling of QEMU's threads
delays some wakeups by milliseconds on every kernel (p99 and worst behind
10 µs readers reach 1.6-4.5 ms), which no reader caused.  Behind
non-preemptible readers of L µs a wakeup waits at most about L for the
reader to end, plus the wakeup's own cost; so a statistic larger than
FLOOR_FACTOR x L + F, F the cell's floor (the smallest median wakeup of any
kernel at that vCPU count and reader length: a kernel whose readers are
preemptible, which no reader delays), is the emulator's floor, not the
readers' doing (is_floor()).  Such table cells carry FLOOR_MARK and the
plots draw those points hollow.

As everywhere in the report, the unit is the boot: a cell's figure is the median over boots with a 95% bootstrap interval
(derive.per_boot, derive.estimate).  Latencies are never divided by a CPU
cost; the headline puts the two kernels' figures side by side.

Call points (analysis/summary.py, report.py):
  headline(rd, kernel, base) -> list[str]      one summary bullet
  report_section(rd, kernels) -> list[str]     table and log-log plots
  latency_section(rows, outdir) -> str         the same section from rows
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend choice)

import numpy as np  # noqa: E402

import charts  # noqa: E402
import derive  # noqa: E402
import units  # noqa: E402
from resultdir import ResultDir, Row  # noqa: E402
from stats import Estimate  # noqa: E402
from tables import mark, section, table  # noqa: E402

TEST = "latency"
TITLE = "Scheduling latency behind readers"
TABLE_METRICS = ("wakeup_p25_ns", "wakeup_median_ns", "wakeup_p75_ns", "wakeup_p99_ns",
                 "wakeup_max_ns", "gp_median_ns")
WAKEUP_METRICS = TABLE_METRICS[:-1]
FLOOR_FACTOR = 2.0
FLOOR_MARK = "‡"
# Worst case and p99 are what a real-time task cares about; the median is
# kept beside them because under TCG the host's scheduling of the vCPU
# threads sets the tail on every kernel, while the median still shows the
# readers (a non-preemptible 10 ms reader delays most wakeups by ms).
PLOT_METRICS = (("wakeup_max_ns", "worst case"), ("wakeup_p99_ns", "p99"),
                ("wakeup_median_ns", "median"))
HEADLINE_METRICS = (("wakeup_median_ns", "median"), ("wakeup_p99_ns", "p99"),
                    ("wakeup_max_ns", "worst"))
PLOT_NAME = "latency_wakeup"
INTRO = ("A SCHED_FIFO kthread woken by an hrtimer on the CPU of a normal-priority "
         "reader that holds rcu_read_lock() for reader µs at a time; each expiry is drawn "
         "on a fixed grid, uniform over more than one reader period, independent of the "
         "readers' boundaries, so behind non-preemptible readers the delays spread over "
         "[0, reader µs] (quartiles near 1/4, 1/2, 3/4 of it); wakeup latency = actual − "
         "expected wake time, summarised per boot (quartiles, p99, max over its samples); "
         "GP median = synchronize_rcu() meanwhile.  Each cell: median over boots [95% "
         "bootstrap interval].  Under TCG the host's own scheduling adds to every wakeup, "
         f"most of all to p99 and the maxima: {FLOOR_MARK} marks a statistic above "
         f"{FLOOR_FACTOR:g} × reader length + the cell's floor (the smallest median wakeup "
         "of any kernel there), which the readers cannot explain: the emulator's floor, "
         "not the readers (hollow points in the plots).")


def reader_lengths(rows: list[Row]) -> list[int]:
    """The reader_us values (µs) with latency rows, ascending."""
    return sorted({int(r.params["reader_us"]) for r in rows
                   if r.ok and r.test == TEST and "reader_us" in r.params})


def latency_estimate(rows: list[Row], metric: str, kernel: str, vcpus: int,
                     reader_us: int) -> Estimate | None:
    """A per-boot summary metric of one cell: median over boots with its interval."""
    return derive.estimate(derive.per_boot(
        derive.select(rows, TEST, metric, kernel, vcpus, reader_us=reader_us)))


Floors = dict[tuple[int, int], float]  # (vcpus, reader_us) -> ns


def floors(rows: list[Row]) -> Floors:
    """The wakeup floor of each cell: the smallest median wakeup (median over
    boots) of any kernel at that vCPU count and reader length (a preemptible
    kernel's, whose readers do not delay the measurer)."""
    boots: dict[tuple[str, int, int], list[float]] = {}
    for r in derive.select(rows, TEST, "wakeup_median_ns"):
        if "reader_us" in r.params and r.value is not None:
            boots.setdefault((r.kernel, r.vcpus, int(r.params["reader_us"])), []).append(r.value)
    out: Floors = {}
    for (_, v, us), values in boots.items():
        out[(v, us)] = min(out.get((v, us), float("inf")), float(np.median(values)))
    return out


def floor_ns(rows: list[Row], vcpus: int, reader_us: int) -> float | None:
    return floors(rows).get((vcpus, reader_us))


def is_floor(fl: Floors, value_ns: float, vcpus: int, reader_us: int) -> bool:
    """True when a wakeup statistic exceeds what readers of reader_us can
    cause (FLOOR_FACTOR x reader length + the cell's floor, fl from
    floors()): it shows the emulator's floor, not the readers."""
    floor = fl.get((vcpus, reader_us))
    return floor is not None and value_ns > FLOOR_FACTOR * reader_us * 1e3 + floor


def floor_cell(fl: Floors, e: Estimate | None, metric: str, vcpus: int, reader_us: int) -> str:
    """A table cell, marked when the statistic is the emulator's floor."""
    text = units.cell(e, "ns")
    if e is not None and metric in WAKEUP_METRICS and is_floor(fl, e.value, vcpus, reader_us):
        return f"{text} {FLOOR_MARK}"
    return text


def curve(rows: list[Row], metric: str, kernel: str, vcpus: int) -> list[tuple[int, Estimate]]:
    """(reader_us, estimate) points of one kernel at one vCPU count."""
    points = [(us, latency_estimate(rows, metric, kernel, vcpus, us))
              for us in reader_lengths(rows)]
    return [(us, e) for us, e in points if e is not None]


def table_lines(rows: list[Row], kernels: list[str], mark=None) -> list[str]:
    """One table row per kernel x vCPUs x reader length; mark(kernel, vcpus) -> str."""
    body, fl = [], floors(rows)
    for k in kernels:
        for v in derive.vcpus_of(rows, TEST, k):
            for us in reader_lengths(rows):
                cells = [latency_estimate(rows, m, k, v, us) for m in TABLE_METRICS]
                if any(cells):
                    body.append([k, str(v), str(us)]
                                + [floor_cell(fl, e, m, v, us)
                                   for e, m in zip(cells, TABLE_METRICS)]
                                + ([mark(k, v)] if mark else []))
    header = ["kernel", "vCPUs", "reader µs", "wakeup p25", "wakeup median", "wakeup p75",
              "wakeup p99", "wakeup max", "GP median"] + (["cell"] if mark else [])
    return table(header, body)


def render_plot(rows: list[Row], kernels: list[str], vcpus: int, outdir: Path,
                overcommitted: bool = False) -> list[Path]:
    """Worst-case and p99 wakeup latency vs reader length, log-log, one line per kernel;
    error bars are the 95% intervals over boots."""
    fig, axes = plt.subplots(1, len(PLOT_METRICS), figsize=(5.5 * len(PLOT_METRICS), 4.2), squeeze=False)
    drawn, fl = False, floors(rows)
    for ax, (metric, label) in zip(axes[0], PLOT_METRICS):
        hollow = False
        for k in kernels:
            pts = curve(rows, metric, k, vcpus)
            if not pts:
                continue
            drawn = True
            x = [us for us, _ in pts]
            y = [e.value / 1e3 for _, e in pts]
            err = [[max(e.value - e.low, 0) / 1e3 if e.bounded else 0 for _, e in pts],
                   [max(e.high - e.value, 0) / 1e3 if e.bounded else 0 for _, e in pts]]
            line = ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=k)[0]
            floor = [(us, yy) for (us, e), yy in zip(pts, y) if is_floor(fl, e.value, vcpus, us)]
            if floor:  # The emulator's floor, not the readers: hollow.
                hollow = True
                ax.plot([f[0] for f in floor], [f[1] for f in floor], "o", mfc="white",
                        color=line.get_color())
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{label} wakeup latency, {vcpus} vCPU{'s' if vcpus > 1 else ''}"
                     + (" (overcommitted)" if overcommitted else "")
                     + ("\nhollow: emulator's floor, not readers" if hollow else ""))
        ax.set_xlabel("read-side section length (µs)")
        ax.set_ylabel("wakeup latency (µs)")
        ax.grid(True, which="both", alpha=0.3)
        if ax.lines:
            ax.legend(fontsize="small")
    if not drawn:
        plt.close(fig)
        return []
    outdir.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    paths = [outdir / f"{PLOT_NAME}_{vcpus}.{ext}" for ext in ("png", "svg")]
    charts.save(fig, paths)
    return paths


def plot_lines(rows: list[Row], kernels: list[str], outdir: Path,
               overcommitted: Callable[[int], bool] = lambda v: False) -> list[str]:
    """One plot per vCPU count (PNG+SVG in outdir), as Markdown image lines;
    overcommitted(vcpus) says which plots to mark."""
    lines = []
    for v in derive.vcpus_of(rows, TEST):
        lines += [f"![{p.stem}]({outdir.name}/{p.name})" for p in
                  render_plot(rows, kernels, v, outdir, overcommitted(v))
                  if p.suffix == ".png"] + [""]
    return lines


def report_section(rd: ResultDir, kernels: list[str]) -> list[str]:
    """The report's section; writes plots/latency_wakeup_<vcpus>.png|svg under rd.path."""
    rows = rd.ok_rows
    if not reader_lengths(rows):
        return section(TITLE, "No latency rows in this sweep.", [])
    plots = plot_lines(rows, kernels, rd.path / "plots",
                       lambda v: any(rd.overcommitted(k, v) for k in kernels))
    return section(TITLE, INTRO, plots + table_lines(rows, kernels,
                                                    lambda k, v: mark(rd, k, v)))


def latency_section(rows: list[Row], outdir: Path) -> str:
    """The section as Markdown from rows alone (no boots record: no cell marks);
    the plots go to outdir, linked relative to its parent."""
    kernels = derive.kernels_of(rows, TEST)
    if not kernels:
        return "\n".join(section(TITLE, "No latency rows.", []))
    return "\n".join(section(TITLE, INTRO, plot_lines(rows, kernels, Path(outdir))
                             + table_lines(rows, kernels)))


@dataclass(frozen=True)
class Wakeups:
    """The headline cell of kernel against base: behind the longest readers
    (reader_us), at the largest vCPU count both measured below the host's
    CPUs; figure[(kernel, metric)] for each of HEADLINE_METRICS."""

    vcpus: int
    reader_us: int
    figure: dict[tuple[str, str], Estimate]


def both_measured(rd: ResultDir, kernel: str, base: str) -> bool:
    rows = rd.ok_rows
    return bool(reader_lengths(rows) and derive.vcpus_of(rows, TEST, kernel)
                and derive.vcpus_of(rows, TEST, base))


def headline_vcpus(rd: ResultDir, kernel: str, base: str) -> int | None:
    """The largest vCPU count both kernels measured below the host's CPUs."""
    rows = rd.ok_rows
    have = [set(derive.vcpus_of(rows, TEST, k)) for k in (kernel, base)]
    usable = sorted(v for v in have[0] & have[1]
                    if not (rd.overcommitted(kernel, v) or rd.overcommitted(base, v)))
    return usable[-1] if usable else None


def headline_wakeups(rd: ResultDir, kernel: str, base: str) -> Wakeups | None:
    """None when the two kernels have no common latency cell below the host's CPUs."""
    rows = rd.ok_rows
    v = headline_vcpus(rd, kernel, base) if both_measured(rd, kernel, base) else None
    if v is None:
        return None
    us = reader_lengths(rows)[-1]
    fig = {(k, m): latency_estimate(rows, m, k, v, us)
           for k in (kernel, base) for m, _ in HEADLINE_METRICS}
    if None in fig.values():
        return None
    return Wakeups(v, us, fig)


def headline(rd: ResultDir, kernel: str, base: str) -> list[str]:
    """The summary bullet for kernel against base: worst and p99 wakeup latency behind
    the longest readers, at the largest vCPU count both measured below the host's CPUs."""
    if not both_measured(rd, kernel, base):
        return []
    if headline_vcpus(rd, kernel, base) is None:
        return [f"- **Latency under readers**: no cell below the host's "
                f"{rd.host_cpus or '?'} CPUs has both kernels' latency rows (see the table)."]
    w = headline_wakeups(rd, kernel, base)
    if w is None:
        return []
    v, us, fig = w.vcpus, w.reader_us, w.figure
    fl = floors(rd.ok_rows)

    def said(k: str, m: str) -> str:
        floor = is_floor(fl, fig[(k, m)].value, v, us)
        return units.interval(fig[(k, m)], "ns") + (" (the emulator's floor)" if floor else "")

    parts = [f"{label} {said(kernel, m)} against {said(base, m)}"
             for m, label in HEADLINE_METRICS]
    return [f"- **Latency under readers**: at {v} vCPU{'s' if v > 1 else ''}, behind "
            f"readers that hold rcu_read_lock() for {units.value(us * 1e3, 'ns')}, a "
            f"SCHED_FIFO task on their CPU wakes late by {kernel} against {base}: "
            + "; ".join(parts) + " (median over boots [95% CI])."]
