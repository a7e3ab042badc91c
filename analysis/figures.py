"""The report's figures, as charts.Figure descriptions built from derive."""

from charts import Chart, Figure, Series
import derive
from results import Row


def _stat_series(label: str, points: list[tuple[int, derive.Stat]]) -> Series:
    return Series(label, [p[0] for p in points], [p[1].mean for p in points],
                  [p[1].std for p in points])


def _nonempty(series: list[Series]) -> list[Series]:
    return [s for s in series if s.x]


def read_figure(rows: list[Row], kernels: list[str], nest: int) -> Figure:
    """Read-side ns per lock/unlock pair vs vCPUs (one reader per vCPU)."""
    cost = lambda rs, k, v: derive.read_cost(rs, k, v, nest)  # noqa: E731
    series = _nonempty([_stat_series(k, derive.series(rows, "read", k, cost)) for k in kernels])
    return Figure(f"read_nest{nest}", [Chart(
        f"rcu_read_lock/unlock, nest={nest}, readers = vCPUs", "vCPUs", "ns per pair", series)])


def callrcu_figure(rows: list[Row], kernels: list[str]) -> Figure:
    series = _nonempty([_stat_series(k, derive.series(rows, "callrcu", k, derive.callrcu_rate))
                        for k in kernels])
    return Figure("callrcu", [Chart("call_rcu() throughput, writers = vCPUs", "vCPUs",
                                    "callbacks invoked per s", series)])


def gp_cdf_figure(rows: list[Row], kernels: list[str], vcpus: int) -> Figure:
    """One panel per load, one CDF per kernel."""
    charts = []
    for load in derive.gp_loads(rows):
        series = []
        for k in kernels:
            xs, ys = derive.cdf(derive.gp_samples(rows, k, vcpus, load))
            series.append(Series(k, [x / 1000.0 for x in xs], list(ys)))
        charts.append(Chart(f"synchronize_rcu() latency, {vcpus} vCPUs, load={load}",
                            "latency (us)", "fraction of grace periods",
                            _nonempty(series), kind="steps"))
    return Figure(f"gp_cdf_{vcpus}vcpu", [c for c in charts if c.series])


def gp_stages_figure(rows: list[Row], kernel: str) -> Figure:
    """Stacked mean time per GP in each stage, per (vCPUs, load)."""
    cells = [(v, load) for v in derive.vcpus_of(rows, "gp_stages", kernel)
             for load in derive.gp_loads(rows, "gp_stages")]
    times = {c: derive.gp_stage_times(rows, kernel, *c) for c in cells}
    cells = [c for c in cells if times[c]]
    series = []
    for stage in derive.GP_STAGES:
        if any(stage in times[c] for c in cells):
            st = [times[c].get(stage) for c in cells]
            series.append(Series(stage, list(range(len(cells))),
                                 [s.mean / 1000.0 if s else 0.0 for s in st],
                                 [s.std / 1000.0 if s else 0.0 for s in st]))
    return Figure(f"gp_stages_{kernel}", [Chart(
        f"{kernel}: time per grace period by stage", "vCPUs, load", "us per grace period",
        series, kind="stacked", categories=[f"{v} vCPU {load}" for v, load in cells])])


def savings_figure(rows: list[Row], kernel: str) -> Figure:
    """Barrier cost saved per read section vs the waitmb time per GP it costs,
    and the break-even read sections per GP."""
    by_load = {load: derive.savings(rows, kernel, load) for load in derive.gp_loads(rows, "gp_stages")}
    any_load = next(iter(by_load.values()), None) or derive.savings(rows, kernel, "idle")
    saved = [_stat_series("read_mb - read", [(s.vcpus, s.saved_ns) for s in any_load])]
    waitmb = [_stat_series(f"waitmb, load={load}", [(s.vcpus, s.waitmb_ns) for s in sv if s.waitmb_ns])
              for load, sv in by_load.items()]
    even = [_stat_series(f"load={load}", [(s.vcpus, s.break_even) for s in sv if s.break_even])
            for load, sv in by_load.items()]
    return Figure(f"savings_{kernel}", [c for c in (
        Chart(f"{kernel}: barrier cost saved per read section", "vCPUs", "ns per section",
              _nonempty(saved)),
        Chart(f"{kernel}: extra grace-period time (waitmb stage)", "vCPUs", "ns per grace period",
              _nonempty(waitmb)),
        Chart(f"{kernel}: break-even", "vCPUs", "read sections per grace period",
              _nonempty(even)),
    ) if c.series])


def urcu_figure(rows: list[Row]) -> Figure:
    """Native liburcu read-side cost per flavour vs reader threads."""
    series = []
    for f in derive.urcu_flavours(rows):
        points = [(n, derive.urcu_cost(rows, f, n)) for n in derive.vcpus_of(rows, "urcu")]
        series.append(_stat_series(f"urcu-{f}", [(n, s) for n, s in points if s]))
    return Figure("urcu_native", [Chart("liburcu on the host (native)", "reader threads",
                                        "ns per pair", _nonempty(series), logy=True)])


def all_figures(rows: list[Row], kernels: list[str]) -> list[Figure]:
    figs = [read_figure(rows, kernels, 1), read_figure(rows, kernels, 2),
            callrcu_figure(rows, kernels)]
    figs += [gp_cdf_figure(rows, kernels, v) for v in derive.vcpus_of(rows, "gp")]
    for k in derive.stage_kernels(rows):
        figs += [gp_stages_figure(rows, k), savings_figure(rows, k)]
    figs.append(urcu_figure(rows))
    return [f for f in figs if f.charts and not f.empty]
