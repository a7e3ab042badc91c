"""Chart descriptions and their two renderings: matplotlib (PNG + SVG in
RESULTDIR/plots/) and gnuplot (.dat + .gp in RESULTDIR/gnuplot/, so a user
can replot).  Both draw from the same Figure, so they show the same data.
"""

from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend choice)

KINDS = ("errorbars", "steps", "stacked")


@dataclass
class Series:
    """y (a median) vs x; low/high: its 95% interval; points: the per-boot
    figures (x, y) drawn beside it."""

    label: str
    x: list[float]
    y: list[float]
    low: list[float] | None = None
    high: list[float] | None = None
    points: list[tuple[float, float]] = field(default_factory=list)

    @property
    def yerr(self) -> list[list[float]] | None:
        """matplotlib's asymmetric error bars: distances below and above y."""
        if self.low is None or self.high is None:
            return None
        return [[y - lo for y, lo in zip(self.y, self.low)],
                [hi - y for y, hi in zip(self.y, self.high)]]


@dataclass
class Chart:
    """One panel.  kind errorbars: y with its interval vs x; steps: a CDF; stacked:
    bars per category (categories[i] at x=i), one series per layer."""

    title: str
    xlabel: str
    ylabel: str
    series: list[Series]
    kind: str = "errorbars"
    logy: bool = False
    categories: list[str] = field(default_factory=list)
    overcommitted_from: float | None = None  # x (vCPUs) from which cells are overcommitted

    def __post_init__(self) -> None:
        assert self.kind in KINDS, self.kind


@dataclass
class Figure:
    name: str
    charts: list[Chart]

    @property
    def empty(self) -> bool:
        return not any(s.x for c in self.charts for s in c.series)


def _draw_points(ax, s: Series, colour: str) -> None:
    """The per-boot figures, nudged sideways per series so they stay apart."""
    if s.points:
        xs, ys = zip(*s.points)
        ax.plot(xs, ys, linestyle="none", marker=".", markersize=5, alpha=0.45, color=colour)


def _draw(ax, chart: Chart) -> None:
    if chart.kind == "stacked":
        bottom = [0.0] * len(chart.categories)
        for s in chart.series:
            ax.bar(s.x, s.y, bottom=bottom, label=s.label, capsize=3,
                   yerr=s.yerr)
            bottom = [b + y for b, y in zip(bottom, s.y)]
        ax.set_xticks(range(len(chart.categories)), chart.categories, rotation=30, ha="right")
    for s in chart.series if chart.kind != "stacked" else []:
        if chart.kind == "steps":
            ax.step(s.x, s.y, where="post", label=s.label)
        else:
            line = ax.errorbar(s.x, s.y, yerr=s.yerr, marker="o", capsize=3, label=s.label)
            _draw_points(ax, s, line.lines[0].get_color())
    if chart.kind == "errorbars" and chart.overcommitted_from is not None:
        xs = [x for s in chart.series for x in s.x]
        if xs and max(xs) >= chart.overcommitted_from:
            ax.axvspan(chart.overcommitted_from - 0.2, max(xs) + 0.4, color="grey", alpha=0.12,
                       label="overcommitted (no headline)")
    if chart.kind == "errorbars":
        xs = sorted({x for s in chart.series for x in s.x})
        if all(float(x).is_integer() for x in xs):
            ax.set_xticks(xs)  # vCPU and thread counts: no 1.5 vCPUs
    if chart.logy:
        ax.set_yscale("log")
    elif any(y < 0 for s in chart.series for y in s.y + [p[1] for p in s.points]):
        ax.axhline(0.0, color="black", linewidth=0.8)  # negative estimates stay visible
    ax.set_title(chart.title, fontsize=10)
    ax.set_xlabel(chart.xlabel)
    ax.set_ylabel(chart.ylabel)
    ax.grid(True, alpha=0.3)
    if chart.series:
        ax.legend(fontsize=8)


def render_matplotlib(fig_spec: Figure, outdir: Path) -> list[Path]:
    """plots/<name>.png and .svg; returns the paths written."""
    n = len(fig_spec.charts)
    fig, axes = plt.subplots(1, n, figsize=(5.5 * n, 4.2), squeeze=False)
    for ax, chart in zip(axes[0], fig_spec.charts):
        _draw(ax, chart)
    fig.tight_layout()
    outdir.mkdir(parents=True, exist_ok=True)
    paths = [outdir / f"{fig_spec.name}.{ext}" for ext in ("png", "svg")]
    for path in paths:
        fig.savefig(path, dpi=100)
    plt.close(fig)
    return paths


def _quote(text: str) -> str:
    return '"' + text.replace('"', "'") + '"'


def _dat_block(chart: Chart, s: Series) -> list[str]:
    """x y [low high]: the median and its 95% interval."""
    lines = [f"# {chart.title}: {s.label}"]
    for i, (x, y) in enumerate(zip(s.x, s.y)):
        err = f" {s.low[i]:g} {s.high[i]:g}" if s.low and s.high else ""
        lines.append(f"{x:g} {y:g}{err}")
    return lines + ["", ""]  # two blank lines end a gnuplot index block


def _points_block(chart: Chart, s: Series) -> list[str]:
    lines = [f"# {chart.title}: {s.label}, per boot"]
    return lines + [f"{x:g} {y:g}" for x, y in s.points] + ["", ""]


def _plot_clause(dat: str, index: int, chart: Chart, s: Series) -> str:
    if chart.kind == "steps":
        style = "using 1:2 with steps"
    elif chart.kind == "stacked":
        style = "using 1:2 with boxes"
    elif s.low and s.high:
        style = "using @err_using with @style_err"
    else:
        style = "using 1:2 with linespoints"
    return f"{_quote(dat)} index {index} {style} title {_quote(s.label)}"


def _stacked_series(chart: Chart) -> list[Series]:
    """Stacked layers as cumulative tops, drawn tallest first (gnuplot boxes)."""
    tops, total = [], [0.0] * len(chart.categories)
    for s in chart.series:
        total = [t + y for t, y in zip(total, s.y)]
        tops.append(Series(s.label, s.x, list(total)))
    return tops[::-1]


def _chart_commands(chart: Chart, dat: str, first_index: int) -> tuple[list[str], int]:
    series = _stacked_series(chart) if chart.kind == "stacked" else chart.series
    cmds = [f"set title {_quote(chart.title)}", f"set xlabel {_quote(chart.xlabel)}",
            f"set ylabel {_quote(chart.ylabel)}",
            "set logscale y" if chart.logy else "unset logscale y"]
    if chart.kind == "stacked":
        ticks = ", ".join(f"{_quote(c)} {i}" for i, c in enumerate(chart.categories))
        cmds += ["set style fill solid 0.8", "set boxwidth 0.6", f"set xtics ({ticks})",
                 f"set xrange [-0.5:{len(chart.categories) - 0.5}]"]
    else:
        xs = sorted({x for s in chart.series for x in s.x})
        integral = chart.kind == "errorbars" and all(float(x).is_integer() for x in xs)
        cmds += [f"set xtics ({', '.join(f'{x:g}' for x in xs)})" if integral else
                 "set xtics autofreq", "set autoscale x"]
    clauses = [_plot_clause(dat, first_index + i, chart, s) for i, s in enumerate(series)]
    index = first_index + len(series)
    for s in (x for x in series if x.points):
        clauses.append(f"{_quote(dat)} index {index} using 1:(show_boots ? $2 : 1/0) "
                       f"with points pt 7 ps 0.4 "
                       f"title (show_boots ? {_quote(s.label + ' per boot')} : \"\")")
        index += 1
    return cmds + ["plot " + ", \\\n     ".join(clauses)], index


def render_gnuplot(fig_spec: Figure, outdir: Path) -> Path:
    """gnuplot/<name>.dat and <name>.gp; the script sets no terminal, so
    `cd gnuplot && gnuplot -e "set terminal svg; set output 'x.svg'" <name>.gp`
    (or -p for a window, or "set terminal dumb") replots it."""
    outdir.mkdir(parents=True, exist_ok=True)
    dat = f"{fig_spec.name}.dat"
    blocks, script, index = [], [f"# {fig_spec.name}: run from this directory (data in {dat})",
                                 "set key left top", "set grid",
                                 "# -e \"style_err='lines'; show_boots=0\" drops the error bars "
                                 "and the per-boot dots (dumb terminal)",
                                 "if (!exists(\"style_err\")) style_err = \"yerrorlines\"",
                                 "if (!exists(\"show_boots\")) show_boots = 1",
                                 "err_using = (style_err eq \"yerrorlines\") ? \"1:2:3:4\" : \"1:2\""], 0
    if len(fig_spec.charts) > 1:
        script.append(f"set multiplot layout 1,{len(fig_spec.charts)}")
    for chart in fig_spec.charts:
        series = _stacked_series(chart) if chart.kind == "stacked" else chart.series
        blocks += [line for s in series for line in _dat_block(chart, s)]
        blocks += [line for s in series if s.points for line in _points_block(chart, s)]
        cmds, index = _chart_commands(chart, dat, index)
        script += cmds
    if len(fig_spec.charts) > 1:
        script.append("unset multiplot")
    (outdir / dat).write_text("\n".join(blocks) + "\n")
    gp = outdir / f"{fig_spec.name}.gp"
    gp.write_text("\n".join(script) + "\n")
    return gp
