"""What preemptible RCU buys: scheduling latency behind long readers.

The latency test's per-boot summaries (wakeup median/p99/p99.9/max of a
SCHED_FIFO task on the readers' CPU, synchronize_rcu() median meanwhile)
as a table, a log-log plot of worst-case and p99 wakeup latency against
the read-side section length, and the headline that puts the cost of
preemptible readers (read-side ns per pair, grace-period latency) next to
what they buy (the wakeup latency bound), preempt against classic-preempt.

report.py calls latency_section(rows, kernels, resultdir, host_cpus).
Statistics over repeats are derive.stat: mean +- sample stddev.
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend choice)

import derive  # noqa: E402
from derive import Stat  # noqa: E402
from results import Row  # noqa: E402
from tables import fmt, section, table  # noqa: E402

TEST = "latency"
# The pair that separates the RCU design from the preemption model: both
# are CONFIG_PREEMPT kernels; only the readers' preemptibility differs.
COST_KERNEL, BASE_KERNEL = "preempt", "classic-preempt"
TABLE_METRICS = ("wakeup_median_ns", "wakeup_p99_ns", "wakeup_p999_ns", "wakeup_max_ns",
                 "gp_median_ns")
PLOT_METRICS = (("wakeup_max_ns", "worst case"), ("wakeup_p99_ns", "p99"))
PLOT_NAME = "latency_wakeup"


def reader_lengths(rows: list[Row]) -> list[int]:
    """The reader_us values (µs) with latency rows, ascending."""
    return sorted({int(r.params["reader_us"]) for r in rows
                   if r.ok and r.test == TEST and "reader_us" in r.params})


def latency_stat(rows: list[Row], metric: str, kernel: str, vcpus: int,
                 reader_us: int) -> Stat | None:
    """A per-boot summary metric of one cell, over repeats."""
    return derive.stat(derive.values(derive.select(rows, TEST, metric, kernel, vcpus,
                                                   reader_us=reader_us)))


def samples_of(rows: list[Row], kernel: str, vcpus: int, reader_us: int) -> int:
    """Wakeup samples of the cell, repeats pooled."""
    return int(sum(derive.values(derive.select(rows, TEST, "samples", kernel, vcpus,
                                               reader_us=reader_us))))


def curve(rows: list[Row], metric: str, kernel: str, vcpus: int) -> list[tuple[int, Stat]]:
    """(reader_us, metric) points of one kernel at one vCPU count."""
    points = [(us, latency_stat(rows, metric, kernel, vcpus, us)) for us in reader_lengths(rows)]
    return [(us, s) for us, s in points if s is not None]


def latency_table(rows: list[Row], kernels: list[str]) -> list[str]:
    body = []
    for k in kernels:
        for v in derive.vcpus_of(rows, TEST, k):
            for us in reader_lengths(rows):
                n = samples_of(rows, k, v, us)
                if n:
                    cells = [fmt(latency_stat(rows, m, k, v, us)) for m in TABLE_METRICS]
                    body.append([k, str(v), str(us), str(n)] + cells)
    return table(["kernel", "vCPUs", "reader µs", "samples", "wakeup median ns",
                  "wakeup p99 ns", "wakeup p99.9 ns", "wakeup max ns", "GP median ns"], body)


def plot_vcpus(rows: list[Row], host_cpus: int | None) -> list[int]:
    """vCPU counts to plot: those below the host's CPU count when known."""
    have = derive.vcpus_of(rows, TEST)
    fit = [v for v in have if host_cpus is None or v < host_cpus]
    return fit or have


def render_plot(rows: list[Row], kernels: list[str], vcpus: int, outdir: Path) -> list[Path]:
    """Worst-case and p99 wakeup latency vs reader length, log-log, one line per kernel."""
    fig, axes = plt.subplots(1, len(PLOT_METRICS), figsize=(11, 4.2), squeeze=False)
    drawn = False
    for ax, (metric, label) in zip(axes[0], PLOT_METRICS):
        for k in kernels:
            pts = curve(rows, metric, k, vcpus)
            if not pts:
                continue
            drawn = True
            ax.errorbar([p[0] for p in pts], [p[1].mean / 1000.0 for p in pts],
                        yerr=[p[1].std / 1000.0 for p in pts], marker="o", capsize=3, label=k)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{label} wakeup latency, {vcpus} vCPU(s)")
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
    for p in paths:
        fig.savefig(p)
    plt.close(fig)
    return paths


def _times(a: Stat | None, b: Stat | None) -> str:
    return f"{a.mean / b.mean:.2f}×" if a and b and b.mean > 0 else "n/a"


def headline(rows: list[Row], vcpus: int) -> str:
    """preempt vs classic-preempt at vcpus: cost and benefit side by side, no cross ratio."""
    longest = max(reader_lengths(rows), default=None)
    if longest is None:
        return ""
    read = [derive.read_cost(rows, k, vcpus) for k in (COST_KERNEL, BASE_KERNEL)]
    gp = [derive.gp_median(rows, k, vcpus) for k in (COST_KERNEL, BASE_KERNEL)]
    worst = [latency_stat(rows, "wakeup_max_ns", k, vcpus, longest)
             for k in (COST_KERNEL, BASE_KERNEL)]
    if worst[0] is None or worst[1] is None:
        return ""
    return (f"At {vcpus} vCPU(s), {COST_KERNEL} against {BASE_KERNEL} (both CONFIG_PREEMPT): "
            f"read side {fmt(read[0])} vs {fmt(read[1])} ns per pair ({_times(*read)}), "
            f"idle grace period {fmt(gp[0])} vs {fmt(gp[1])} ns median ({_times(*gp)}); "
            f"in exchange, behind {longest} µs readers the worst wakeup latency of a "
            f"SCHED_FIFO task is {fmt(worst[0])} vs {fmt(worst[1])} ns "
            f"({_times(worst[1], worst[0])} lower).")


def latency_section(rows: list[Row], kernels: list[str], resultdir: Path,
                    host_cpus: int | None) -> list[str]:
    """The report's latency section; writes plots/latency_wakeup_<vcpus>.png|svg."""
    if not reader_lengths(rows):
        return section("Scheduling latency behind readers", "No latency rows.", [])
    lines = []
    vcpus_list = plot_vcpus(rows, host_cpus)
    for v in vcpus_list:
        sentence = headline(rows, v)
        if sentence:
            lines += [sentence, ""]
        for p in render_plot(rows, kernels, v, resultdir / "plots"):
            if p.suffix == ".png":
                lines += [f"![{p.stem}](plots/{p.name})", ""]
    intro = ("A SCHED_FIFO kthread woken by an hrtimer at a random phase on the CPU of a "
             "normal-priority reader that holds rcu_read_lock() for reader µs at a time: "
             "wakeup latency = wake time − expiry; GP median = synchronize_rcu() meanwhile. "
             "Per-boot summaries, mean ± stddev over repeats; samples pooled over repeats. "
             "Under TCG the host's own scheduling adds to every wakeup.")
    return section("Scheduling latency behind readers", intro,
                   lines + latency_table(rows, kernels))
