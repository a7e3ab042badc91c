"""The report's figures, as charts.Figure descriptions built from derive.

Every errorbars chart draws the median over boots with its 95% bootstrap
interval as the error bar, and each boot's own figure as a dot beside it
(but scale.py's counts across vCPUs: their range, min–max, as the bar).
"""

from charts import Chart, Figure, Series
import derive
import scale
from resultdir import Row
from stats import Estimate

NUDGE = 0.08  # sideways shift of each kernel's per-boot dots, in x units


def estimate_series(label: str, points: list[tuple[int, Estimate]], nudge: float = 0.0,
                    scale: float = 1.0) -> Series:
    """Medians with their intervals, and the per-boot dots shifted by nudge."""
    return Series(label, [x for x, _ in points], [e.value / scale for _, e in points],
                  [e.low / scale for _, e in points], [e.high / scale for _, e in points],
                  [(x + nudge, p / scale) for x, e in points for p in e.points])


def _nonempty(series: list[Series]) -> list[Series]:
    return [s for s in series if s.x]


def per_kernel(fn: derive.CellFn, rows: list[Row], test: str, kernels: list[str],
               scale: float = 1.0) -> list[Series]:
    """One series per kernel of fn's estimate vs vCPUs."""
    mid = (len(kernels) - 1) / 2
    return _nonempty([estimate_series(k, derive.series(fn, rows, test, k), (i - mid) * NUDGE,
                                      scale) for i, k in enumerate(kernels)])


def read_figure(rows: list[Row], kernels: list[str], nest: int) -> Figure:
    """Read-side ns per lock/unlock pair vs vCPUs (one reader per vCPU)."""
    fn = lambda rs, k, v: derive.read_boots(rs, k, v, nest)  # noqa: E731
    return Figure(f"read_nest{nest}", [Chart(
        f"rcu_read_lock/unlock, nest={nest}, readers = vCPUs (TCG)", "vCPUs",
        "ns per pair (median, 95% CI; dots: boots)", per_kernel(fn, rows, "read", kernels))])


def barrier_figure(rows: list[Row], kernels: list[str]) -> Figure:
    """read_mb − read per section, paired within each boot."""
    return Figure("read_barriers", [Chart(
        "read_mb − read (TCG; 1 vCPU: no host fence emitted)", "vCPUs",
        "ns per section (median, 95% CI; dots: boots)",
        per_kernel(derive.barrier_boots, rows, "read_mb", kernels))])


def callrcu_figure(rows: list[Row], kernels: list[str]) -> Figure:
    return Figure("callrcu", [c for c in (
        Chart("call_rcu() cost, writers = vCPUs", "vCPUs", "ns per call",
              per_kernel(derive.callrcu_cost_boots, rows, "callrcu_cost", kernels)),
        Chart("call_rcu() capacity (CPU-bound boots), writers = vCPUs", "vCPUs",
              "callbacks invoked per s",
              per_kernel(derive.cpu_capacity_boots, rows, "callrcu_capacity", kernels)),
        Chart("Memory held by callbacks at a fixed call rate", "vCPUs", "bytes (mean)",
              per_kernel(derive.memory_boots, rows, "callrcu_memory", kernels)),
    ) if c.series])


def gp_figure(rows: list[Row], kernels: list[str], metric: str) -> Figure:
    """Median GP latency vs vCPUs (ms or ticks), one panel per load."""
    unit, scale = ("ms", 1e6) if metric == "latency_ns" else ("ticks", 1.0)
    charts = []
    for load in derive.gp_loads(rows):
        fn = lambda rs, k, v, ld=load: derive.gp_boots(rs, k, v, ld, metric)  # noqa: E731
        charts.append(Chart(f"lone synchronize_rcu(), load={load}", "vCPUs",
                            f"{unit} (median, 95% CI; dots: boots; log scale)",
                            per_kernel(fn, rows, "gp", kernels, scale=scale), logy=True))
    return Figure(f"gp_latency_{unit}", [c for c in charts if c.series])


def gp_cdf_figure(rows: list[Row], kernels: list[str], vcpus: int) -> Figure:
    """The distribution of all samples (boots pooled): one panel per load."""
    charts = []
    for load in derive.gp_loads(rows):
        series = []
        for k in kernels:
            xs, ys = derive.cdf(derive.gp_samples(rows, k, vcpus, load))
            series.append(Series(k, [x / 1e6 for x in xs], list(ys)))
        charts.append(Chart(f"lone synchronize_rcu() latency, {vcpus} vCPUs, load={load}",
                            "latency (ms)", "fraction of grace periods",
                            _nonempty(series), kind="steps"))
    return Figure(f"gp_cdf_{vcpus}vcpu", [c for c in charts if c.series])


def gp_stages_figure(rows: list[Row], kernel: str) -> Figure:
    """Stacked median ticks per stage in each state, per (vCPUs, load): the
    design advances one state per tick, so at 1 CPU each state is 1 tick of
    the 4 a stage takes (analysis/gpdesign.py).  In µs per grace period when
    the rows give no HZ or no stage count."""
    cells = [(v, load) for v in derive.vcpus_of(rows, "gp_stages", kernel)
             for load in derive.gp_loads(rows, "gp_stages")]
    times = {c: derive.gp_stage_times(rows, kernel, *c) for c in cells}
    cells = [c for c in cells if times[c]]
    hz = derive.kernel_hz(rows, kernel)
    stages = {v: derive.stage_count(rows, kernel, v) for v, _ in cells}
    in_ticks = hz is not None and all(stages.values())
    # ns per grace period -> ticks per stage, or µs per grace period.
    scale = {c: (hz / 1e9 / stages[c[0]] if in_ticks else 1e-3) for c in cells}
    series = []
    for stage in derive.GP_STAGES:
        if any(stage in times[c] for c in cells):
            st = [(times[c].get(stage), scale[c]) for c in cells]
            series.append(Series(stage, list(range(len(cells))),
                                 [e.value * k if e else 0.0 for e, k in st],
                                 [e.low * k if e else 0.0 for e, k in st],
                                 [e.high * k if e else 0.0 for e, k in st]))
    title, ylabel = ((f"{kernel}: ticks per stage in each state (median, 95% CI; design "
                      "at 1 CPU: 1 each)", f"ticks per stage (HZ={hz})") if in_ticks else
                     (f"{kernel}: time per grace period by stage (median, 95% CI)",
                      "µs per grace period"))
    return Figure(f"gp_stages_{kernel}", [Chart(
        title, "vCPUs, load", ylabel, series, kind="stacked",
        categories=[f"{v} vCPU {load}" for v, load in cells])])


def urcu_figure(rows: list[Row]) -> Figure:
    """Native liburcu read-side cost per flavour vs reader threads."""
    series = []
    for f in derive.urcu_flavours(rows):
        points = [(n, derive.estimate(derive.urcu_boots(rows, f, n)))
                  for n in derive.vcpus_of(rows, "urcu")]
        series.append(estimate_series(f"urcu-{f}", [(n, e) for n, e in points if e]))
    return Figure("urcu_native", [Chart("liburcu on the host (native)", "reader threads",
                                        "ns per pair", _nonempty(series), logy=True)])


def mark_overcommitted(figs: list[Figure], host_cpus: int | None) -> None:
    """Shade the vCPU counts that reach the host's CPUs in the guest charts."""
    for fig in figs:
        for chart in fig.charts:
            if chart.xlabel == "vCPUs":
                chart.overcommitted_from = host_cpus or 1


def all_figures(rows: list[Row], kernels: list[str], host_cpus: int | None,
                scale_rows: list[Row] | None = None,
                scale_kernels: list[str] | None = None) -> list[Figure]:
    """Every figure of the report; scale_rows: the scale run's rows when it
    has a results directory of its own (a full sweep's scale/), else rows,
    of scale_kernels (default: kernels)."""
    figs = [read_figure(rows, kernels, 1), read_figure(rows, kernels, 2),
            barrier_figure(rows, kernels), callrcu_figure(rows, kernels),
            gp_figure(rows, kernels, "latency_ns"), gp_figure(rows, kernels, "latency_ticks")]
    mark_overcommitted(figs, host_cpus)
    figs += [gp_cdf_figure(rows, kernels, v) for v in derive.vcpus_of(rows, "gp")]
    figs += [gp_stages_figure(rows, k) for k in derive.stage_kernels(rows)]
    # Counts under single-threaded TCG: overcommitting changes none, so no shading.
    figs += scale.figures(rows if scale_rows is None else scale_rows,
                          kernels if scale_kernels is None else scale_kernels)
    figs.append(urcu_figure(rows))
    return [f for f in figs if f.charts and not f.empty]
