"""The report's "Across vCPU counts" section: how the exact counts of the
grace-period machinery grow with the vCPUs (make scale: count_gp and
count_callrcu at suite.conf VCPUS_SCALE, every boot counted by the rbcount
plugin with its cache-coherence model).

Per kernel: a sentence on how the RCU core's instructions per grace period
per CPU (core_insns) and the transfers per grace period of its hottest
cache line of RCU state grow from the fewest to the most vCPUs (both ends, the factor, and the
exponent k of a log-log fit, "about as N^k"); a table per load (idle first:
the headline) of every vCPU count; a call_rcu() table; and the figures
(figures(), log2 x axis).  At more than one vCPU a count depends on how the
vCPUs interleave, so every figure is the median over boots with its range
(min–max), not a 95% interval: there are few boots and the spread is the
point.

Modelled ns per grace period per CPU: the RCU core's instructions at this
directory's calib costs (costmodel.gp_model) plus its cache-line transfers
(core_transfers: the same code's, so instructions and transfers cover the
same work) at a per-transfer cost: a published range (AMD EPYC Milan,
PUBLISHED_TRANSFER) and, beside it, this host's calib op=line_transfer.

Call points: report_section(rd, kernels) -> Markdown lines (none unless
count_gp rows exist at two or more vCPU counts); figures(rows, kernels) ->
charts.Figure list for report.py (via figures.all_figures).
"""

import re
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable

import numpy as np

import costmodel
import derive
import units
from charts import Chart, Figure, Series
from costmodel import Model, Range
from resultdir import ResultDir, Row
from tables import table
from units import NONE

TITLE = "Across vCPU counts (exact counts)"
GP_TEST = "count_gp"
CALLRCU_TEST = "count_callrcu"
MIGRATE_TEST = "count_migrate"
HEADLINE_LOAD = "idle"
HOT_LINE_METRIC = "line_transfers"
# RCU's own state among the hot lines: its symbols (and per-CPU variables).
RCU_LINE = re.compile(r"(percpu:)?rcu_")
# The transfers the model prices: the RCU core's, the code whose instructions
# core_insns counts (transfers counts all the window's code: the module too).
MODEL_TRANSFERS = "core_transfers"
TRANSFER_OP = "line_transfer"  # calib op: one transfer between two host CPUs
# One cache-line transfer on AMD EPYC 7R13 (Milan), CAS ping-pong: about 23 ns
# within a core complex, about 110 ns across (../shared/ANCHORS.md).
PUBLISHED_TRANSFER = Range(23.0, 110.0)
PUBLISHED_TRANSFER_SOURCE = ("the published core-to-core latencies of an AMD EPYC 7R13 "
                             "(Milan), about 23 ns within a core complex and about 110 ns "
                             "across (nviennot/core-to-core-latency, "
                             "https://github.com/nviennot/core-to-core-latency, its README "
                             "and CSVs)")
# Below 2 vCPUs no line moves and one CPU runs every tick: the fit starts at 2.
FIT_FROM_VCPUS = 2
# The figures' per-kernel dots, shifted sideways by this many log2 units apart.
NUDGE_LOG2 = 0.06


@dataclass(frozen=True)
class Spread:
    """One cell's figure over its boots: the median and the range."""

    median: float
    low: float
    high: float
    points: tuple[float, ...]

    @property
    def n(self) -> int:
        return len(self.points)


@dataclass(frozen=True)
class HotLine:
    """The hottest line of a cell (of RCU state, or of all): each boot's
    best-ranked such line; the one named in most boots (ties: the
    alphabetically first), and the per-GP transfers of each boot's line,
    whichever it was."""

    line: str
    boots_named: int   # boots whose hottest line it is
    transfers: Spread  # line_transfers x cpus: per grace period, all CPUs


@dataclass(frozen=True)
class Growth:
    """A figure's medians from the fewest vCPUs where it is non-zero to the
    most; zero_below: fewer vCPU counts where it was 0."""

    first: tuple[int, float]
    last: tuple[int, float]
    zero_below: tuple[int, ...]
    exponent: float | None
    fitted: tuple[int, ...]  # the vCPU counts the exponent was fitted over

    @property
    def factor(self) -> float:
        return self.last[1] / self.first[1]


# --- the numbers ------------------------------------------------------------

def spread(values: Iterable[float]) -> Spread | None:
    arr = np.asarray(list(values), dtype=float)
    if arr.size == 0:
        return None
    return Spread(float(np.median(arr)), float(arr.min()), float(arr.max()),
                  tuple(arr.tolist()))


def gp_vcpus(rows: list[Row], kernel: str | None = None, load: str | None = None) -> list[int]:
    """The vCPU counts with count_gp rows (of kernel, of load)."""
    return sorted({r.vcpus for r in rows if r.ok and r.test == GP_TEST
                   and (kernel is None or r.kernel == kernel)
                   and (load is None or r.params.get("load") == load)})


def loads(rows: list[Row]) -> list[str]:
    """count_gp's loads, the headline's first."""
    found = derive.gp_loads(rows, GP_TEST)
    return sorted(found, key=lambda ld: ld != HEADLINE_LOAD)


def gp_boots(rows: list[Row], kernel: str, vcpus: int, load: str, metric: str) -> derive.PerBoot:
    """A count_gp metric per boot (not line_transfers: one row per rank)."""
    return derive.per_boot(derive.select(rows, GP_TEST, metric, kernel, vcpus, load=load))


def gp_spread(rows: list[Row], kernel: str, vcpus: int, load: str, metric: str) -> Spread | None:
    return spread(gp_boots(rows, kernel, vcpus, load, metric).values())


def cpus_of(row: Row) -> int:
    """The CPUs a per-CPU figure was divided by (params cpus; else the vCPUs)."""
    return row.param_int("cpus") or row.vcpus


def is_rcu_line(line: str) -> bool:
    """A line of RCU's own state (rcu_ctrlblk, percpu:rcu_flip_flag, rcu_state,
    ...), not of code RCU's windows also run (timekeeping: hpet, jiffies)."""
    return bool(RCU_LINE.match(line))


def hottest_lines(rows: list[Row], kernel: str, vcpus: int, load: str,
                  rcu_only: bool = False) -> dict[int, tuple[str, float]]:
    """repeat -> (the best-ranked line, RCU's own with rcu_only; its
    transfers per grace period on all CPUs).  The plugin names a window's
    RB_COH_TOP hottest lines: a boot whose lines are none of RCU's has none."""
    best: dict[int, tuple[int, str, float]] = {}
    for r in derive.select(rows, GP_TEST, HOT_LINE_METRIC, kernel, vcpus, load=load):
        line, rank = r.params.get("line", "?"), r.param_int("rank")
        if r.value is None or rank is None or (rcu_only and not is_rcu_line(line)):
            continue
        if r.repeat not in best or rank < best[r.repeat][0]:
            best[r.repeat] = (rank, line, r.value * cpus_of(r))
    return {rep: (line, v) for rep, (_, line, v) in sorted(best.items())}


def hot_line(rows: list[Row], kernel: str, vcpus: int, load: str,
             rcu_only: bool = False) -> HotLine | None:
    per_boot = hottest_lines(rows, kernel, vcpus, load, rcu_only)
    if not per_boot:
        return None
    named = Counter(line for line, _ in per_boot.values())
    line, count = min(named.items(), key=lambda kv: (-kv[1], kv[0]))
    return HotLine(line, count, spread(v for _, v in per_boot.values()))


def exponent(medians: dict[int, float]) -> tuple[float | None, tuple[int, ...]]:
    """k of value ~ N^k: the slope of log2(value) against log2(vCPUs) over the
    counts >= FIT_FROM_VCPUS where value > 0 (None: fewer than two such)."""
    fitted = tuple(v for v in sorted(medians) if v >= FIT_FROM_VCPUS and medians[v] > 0)
    if len(fitted) < 2:
        return None, fitted
    x = np.log2(np.asarray(fitted, dtype=float))
    y = np.log2(np.asarray([medians[v] for v in fitted], dtype=float))
    return float(np.polyfit(x, y, 1)[0]), fitted


def growth(medians: dict[int, float]) -> Growth | None:
    """None when the figure is nowhere positive."""
    positive = [v for v in sorted(medians) if medians[v] > 0]
    if not positive:
        return None
    k, fitted = exponent(medians)
    zero_below = tuple(v for v in sorted(medians) if v < positive[0])
    return Growth((positive[0], medians[positive[0]]), (positive[-1], medians[positive[-1]]),
                  zero_below, k, fitted)


def medians_by_vcpus(cell: Callable[[int], Spread | None], vcpus: list[int]) -> dict[int, float]:
    spreads = {v: cell(v) for v in vcpus}
    return {v: s.median for v, s in spreads.items() if s is not None}


def gp_medians(rows: list[Row], kernel: str, load: str, metric: str) -> dict[int, float]:
    """A count_gp figure's median over boots at each vCPU count."""
    return medians_by_vcpus(lambda v: gp_spread(rows, kernel, v, load, metric),
                            gp_vcpus(rows, kernel, load))


def core_insns_medians(rows: list[Row], kernel: str, load: str) -> dict[int, float]:
    return gp_medians(rows, kernel, load, "core_insns")


def hot_line_medians(rows: list[Row], kernel: str, load: str,
                     rcu_only: bool = True) -> dict[int, float]:
    """The hottest (RCU) line's transfers per GP; 0 where the cell counted
    transfers and none moved (no line to rank: 1 vCPU)."""
    def cell(v: int) -> Spread | None:
        h = hot_line(rows, kernel, v, load, rcu_only)
        moved = gp_spread(rows, kernel, v, load, "transfers")
        if h is None and moved is not None and moved.high == 0:
            return Spread(0.0, 0.0, 0.0, moved.points)
        return h.transfers if h else None
    return medians_by_vcpus(cell, gp_vcpus(rows, kernel, load))


# --- the model ----------------------------------------------------------------

def model_counts(rows: list[Row], kernel: str, vcpus: int, load: str) -> dict[str, float]:
    """The medians over boots of the counts the model prices."""
    out = {}
    for metric in (*costmodel.GP_CLASSES, "core_insns", MODEL_TRANSFERS):
        s = gp_spread(rows, kernel, vcpus, load, metric)
        if s is not None:
            out[metric] = s.median
    return out


def modelled(counts: dict[str, float], cost: dict[str, Range], per_transfer: Range) -> Model:
    """ns per grace period per CPU: instructions by class + transfers x per_transfer."""
    insns = costmodel.gp_model(counts, cost)
    if insns.ns is None:
        return insns
    if MODEL_TRANSFERS not in counts:
        return Model(None, f"no {MODEL_TRANSFERS} count: boots without the coherence model")
    return Model(insns.ns + per_transfer.scale(counts[MODEL_TRANSFERS]))


# The calib ops costmodel.gp_model prices count_gp's instructions with.
GP_OPS = {op for op, _ in costmodel.GP_CLASSES.values()} | {costmodel.PLAIN_OP}


def has_instruction_costs(cost: dict[str, Range]) -> bool:
    return any(op in cost for op in GP_OPS)


def transfer_costs(cost: dict[str, Range]) -> dict[str, Range]:
    """Column label -> per-transfer cost: the published range, then this host's."""
    out = {"modelled ns/GP/CPU (Milan transfer)": PUBLISHED_TRANSFER}
    if TRANSFER_OP in cost:
        out["modelled ns/GP/CPU (this host's transfer)"] = cost[TRANSFER_OP]
    return out


# --- formatting ------------------------------------------------------------------

def count_text(x: float) -> str:
    return units.value(x, "count")


def spread_cell(s: Spread | None) -> str:
    """'1.60 [1.58–1.65] k (n=3)': median [min–max] over n boots, or a dash."""
    return NONE if s is None else f"{units.span(s.median, s.low, s.high, 'count')} (n={s.n})"


def hot_line_name(h: HotLine | None) -> str:
    if h is None:
        return NONE
    return h.line if h.boots_named == h.transfers.n else \
        f"{h.line} ({h.boots_named} of {h.transfers.n} boots)"


def vcpus_text(v: int) -> str:
    return f"{v} vCPU{'s' if v != 1 else ''}"


def exponent_number(k: float) -> str:
    """Two decimals (a slope near 0 is 0.00, not 3 digits of noise), the report's minus."""
    text = f"{k:.2f}"
    return "0.00" if text == "-0.00" else text.replace("-", "−")


def exponent_text(g: Growth) -> str:
    if g.exponent is None:
        return f"too few vCPU counts of {FIT_FROM_VCPUS} or more for a growth exponent"
    return (f"growing about as N^{exponent_number(g.exponent)} (log-log fit over "
            f"{', '.join(str(v) for v in g.fitted)} vCPUs)")


def growth_text(g: Growth | None) -> str:
    """'from 600 at 1 vCPU to 1.60 k at 4 vCPUs (×2.67), growing about as N^1.0 (...)'."""
    if g is None:
        return "0 at every vCPU count"
    (v0, x0), (v1, x1) = g.first, g.last
    zero = (f" (0 at {', '.join(str(v) for v in g.zero_below)} vCPU"
            f"{'s' if g.zero_below != (1,) else ''})" if g.zero_below else "")
    if v0 == v1:
        return f"{count_text(x0)} at {vcpus_text(v0)}{zero}, the only count where it is not 0"
    return (f"from {count_text(x0)} at {vcpus_text(v0)}{zero} to {count_text(x1)} at "
            f"{vcpus_text(v1)} (×{units.sig(g.factor)}), {exponent_text(g)}")


def kernel_sentence(rows: list[Row], kernel: str, load: str) -> str:
    """How the grace period's cost per CPU, the hottest line of RCU's state
    and the tick's worst interrupts-off RCU work grow with the vCPUs (the
    last is what a real-time kernel must not let grow as O(N))."""
    insns = core_insns_medians(rows, kernel, load)
    clauses = [f"- **{kernel}** (load={load}): the RCU core's instructions per grace period "
               f"per CPU go {growth_text(growth(insns))}" if insns else
               f"- **{kernel}** (load={load}): no core_insns rows"]
    hot = hot_line_medians(rows, kernel, load)
    ranked = [v for v in sorted(hot) if hot_line(rows, kernel, v, load, rcu_only=True)]
    if ranked:
        widest = hot_line(rows, kernel, ranked[-1], load, rcu_only=True)
        clauses.append(f"its hottest line of RCU state's transfers per grace period "
                       f"({widest.line} at {vcpus_text(ranked[-1])}) go {growth_text(growth(hot))}")
    else:
        clauses.append("no hot line of RCU's state (boots without the coherence model)")
    tick = gp_medians(rows, kernel, load, "irqoff_core_insns_max")
    if tick:
        clauses.append("the tick's worst interrupts-off RCU episode (instructions) goes "
                       + growth_text(growth(tick)))
    return "; ".join(clauses) + "."


def table_row(rows: list[Row], kernel: str, vcpus: int, load: str,
              prices: dict[str, Range], cost: dict[str, Range]) -> list[str]:
    cells = [str(vcpus)] + [spread_cell(gp_spread(rows, kernel, vcpus, load, m))
                            for m in ("core_insns", "core_locked", "transfers",
                                      "core_transfers")]
    for rcu_only in (False, True):
        h = hot_line(rows, kernel, vcpus, load, rcu_only)
        cells += [hot_line_name(h), spread_cell(h.transfers if h else None)]
    cells += [spread_cell(gp_spread(rows, kernel, vcpus, load, m))
              for m in ("irqoff_core_insns_max", "irqoff_core_insns_mean")]
    counts = model_counts(rows, kernel, vcpus, load)
    return cells + [costmodel.ns_range(modelled(counts, cost, price)) for price in prices.values()]


GP_HEADER = ["vCPUs", "GP insns/CPU", "locked/CPU", "transfers/CPU", "core transfers/CPU",
             "hottest line", "its transfers/GP", "hottest RCU line",
             "RCU line's transfers/GP", "irq-off tick insns, max",
             "irq-off tick insns, mean"]


def gp_table(rows: list[Row], kernel: str, load: str, cost: dict[str, Range]) -> list[str]:
    prices = transfer_costs(cost) if has_instruction_costs(cost) else {}
    body = [table_row(rows, kernel, v, load, prices, cost) for v in gp_vcpus(rows, kernel, load)]
    return table(GP_HEADER + list(prices), body) if body else []


def callrcu_table(rows: list[Row], kernel: str) -> list[str]:
    metrics = ("insns_per_call", "insns_per_cb", "transfers_per_cb")
    body = [[str(v)] + [spread_cell(spread(derive.per_boot(
                derive.select(rows, CALLRCU_TEST, m, kernel, v)).values())) for m in metrics]
            for v in derive.vcpus_of(rows, CALLRCU_TEST, kernel)]
    if not body:
        return []
    return [f"call_rcu() on {kernel} (count_callrcu):", ""] + table(
        ["vCPUs", "insns per call", "insns per callback", "transfers per callback"], body)


MIGRATE_COLUMNS = [("0", "insns"), ("0", "transfers"), ("1", "insns"), ("1", "locked"),
                   ("1", "transfers"), ("1", "unlock_transfers")]
MIGRATE_HEADER = ["kernel", "vCPUs", "staying: insns", "staying: transfers", "moved: insns",
                  "moved: locked", "moved: transfers", "moved: the unlock's transfers"]
MIGRATE_NOTE = ("A read pair whose reader moves (count_migrate): per rcu_read_lock()/"
                "rcu_read_unlock() pair, a reader that stays on its CPU against one that the "
                "stopper moves to another CPU between the two (a preemption inside the section: "
                "only preemptible readers can move, so Classic and Tree without preemption have "
                "staying pairs only); each operation in a noinline function of its own (count_read "
                "gives a pair's exact instructions), the median over 8 pairs a boot, then median "
                "[min–max] over boots.  The flip counters are summed over all CPUs so that a "
                "moved unlock decrements its new CPU's counter; Tree RCU counts in the task and "
                "queues a preempted reader on its rcu_node.")


def migrate_table(rows: list[Row], kernels: list[str]) -> list[str]:
    """count_migrate's pairs, staying and moved, per kernel and vCPU count."""
    def cell(k: str, v: int, move: str, metric: str) -> str:
        return spread_cell(spread(derive.per_boot(
            derive.select(rows, MIGRATE_TEST, metric, k, v, move=move)).values()))
    body = [[k, str(v)] + [cell(k, v, m, metric) for m, metric in MIGRATE_COLUMNS]
            for k in kernels for v in derive.vcpus_of(rows, MIGRATE_TEST, k)]
    return [MIGRATE_NOTE, ""] + table(MIGRATE_HEADER, body) if body else []


def model_note(cost: dict[str, Range]) -> str:
    if not has_instruction_costs(cost):
        return ("No calib rows in this directory (workloads/calibrate/run.sh): the modelled "
                "ns per grace period are left out.")
    classes = ", ".join(f"{op} [{units.sig(c.low)}, {units.sig(c.high)}]"
                        for op, c in sorted(cost.items()) if op in GP_OPS)
    host = cost.get(TRANSFER_OP)
    host_text = (f"; beside it, this host's own, calib op={TRANSFER_OP} "
                 f"[{units.sig(host.low)}, {units.sig(host.high)}] ns "
                 "(workloads/calibrate/pingpong.c: half a round trip of a line between two "
                 "host CPUs; the host is a VM, so which cores those are is not known)"
                 if host else f"; this directory has no calib op={TRANSFER_OP} row for "
                 "this host's own")
    return ("**Modelled**, not measured: ns per grace period per CPU = the RCU core's "
            "instructions at this directory's calib costs per instruction class "
            "(analysis/costmodel.py: locked at locked_add, fences at mfence, the rest at alu; "
            f"in ns: {classes}) + its cache-line transfers "
            f"({MODEL_TRANSFERS}, the same code's) × one transfer: "
            f"{PUBLISHED_TRANSFER_SOURCE}, [{units.sig(PUBLISHED_TRANSFER.low)}, "
            f"{units.sig(PUBLISHED_TRANSFER.high)}] ns" + host_text + ".  Medians over boots "
            "of the counts; the range comes from the costs alone.")


INTRO = ("The count tests across vCPU counts (make scale: count_gp, count_callrcu and "
         "count_migrate, the "
         "rbcount plugin's cache-coherence model on).  Per grace period per CPU: the RCU "
         "core's instructions (GP insns) and locked instructions, cache-line transfers (read "
         "misses + invalidations) of all the window's code and of the RCU core's, the "
         "hottest line (of the window's five hottest, the best-ranked, named in most boots) "
         "with its transfers per grace period on all CPUs (line_transfers × CPUs), and the "
         "hottest line of RCU's own state (a symbol rcu_*: the lines a grace period must move; "
         "the hottest of all can be timekeeping's, which the window also runs), and the tick's RCU work with interrupts off "
         "(instructions per hard-interrupt episode: the worst of any vCPU, and the mean).  "
         "Growth: N^k with k the slope of log2(median) against log2(vCPUs), fitted over "
         f"the counts of {FIT_FROM_VCPUS} vCPUs or more where the figure is not 0 "
         "(at 1 vCPU no line moves).")
INTERLEAVE_NOTE = ("At more than one vCPU these counts depend on how the vCPUs interleave "
                   "(which CPU's tick ends a stage, which CPU takes a line first), so every "
                   "figure is the median over boots with its range [min–max] and the number "
                   "of boots; a read pair's count (count_read), by contrast, is exact: the "
                   "same in every boot.")


def kernel_part(rows: list[Row], kernel: str, cost: dict[str, Range]) -> list[str]:
    lines = [f"### {kernel}", ""]
    for load in loads(rows):
        body = gp_table(rows, kernel, load, cost)
        if body:
            lines += [f"load={load}" + (" (the headline)" if load == HEADLINE_LOAD else "")
                      + ":", ""] + body
    return lines + callrcu_table(rows, kernel)


def scale_kernels(rows: list[Row], kernels: list[str]) -> list[str]:
    return [k for k in kernels if gp_vcpus(rows, k)]


def count_rows(rows: list[Row]) -> list[Row]:
    """The rows this section reads but calib: every lookup scans them, and a
    sweep's other tests (latency samples) can be many more."""
    return [r for r in rows if r.ok and r.test in (GP_TEST, CALLRCU_TEST, MIGRATE_TEST)]


def report_section(rd: ResultDir, kernels: list[str]) -> list[str]:
    """The section's Markdown lines; [] unless count_gp rows exist at two or
    more vCPU counts."""
    cost = costmodel.costs(rd.ok_rows)
    rows = count_rows(rd.ok_rows)
    if len(gp_vcpus(rows)) < 2:
        return []
    shown = scale_kernels(rows, kernels)
    lines = [f"## {TITLE}", "", INTRO, ""]
    for i, load in enumerate(loads(rows)):
        lines += [f"{'Headline' if i == 0 else 'With'} load={load}:", ""]
        lines += [kernel_sentence(rows, k, load) for k in shown if gp_vcpus(rows, k, load)]
        lines += [""]
    for k in shown:
        lines += kernel_part(rows, k, cost)
    lines += migrate_table(rows, shown)
    lines += [INTERLEAVE_NOTE, "", model_note(cost), "",
              "Plots (log2 vCPU axis): " + ", ".join(f"`plots/{n}.png`" for n in FIGURE_NAMES)
              + ".", ""]
    return lines


# --- the figures ----------------------------------------------------------------

FIGURE_NAMES = ("scale_gp_cost", "scale_transfers")
YLABEL = "median, min–max over boots; dots: boots"


def spread_series(label: str, points: dict[int, Spread], nudge: float) -> Series:
    """Medians with min–max bars; on a log y axis a 0 cannot be drawn, so the
    cells whose median is 0 (transfers at 1 vCPU) are left out."""
    xs = [v for v in sorted(points) if points[v].median > 0]
    return Series(label, xs, [points[v].median for v in xs], [points[v].low for v in xs],
                  [points[v].high for v in xs],
                  [(v * 2 ** nudge, p) for v in xs for p in points[v].points if p > 0])


def chart(title: str, ylabel: str, rows: list[Row], kernels: list[str], load: str,
          cell: Callable[[str, int], Spread | None]) -> Chart:
    mid = (len(kernels) - 1) / 2
    series = []
    for i, k in enumerate(kernels):
        points = {v: s for v in gp_vcpus(rows, k, load) if (s := cell(k, v)) is not None}
        series.append(spread_series(k, points, (i - mid) * NUDGE_LOG2))
    return Chart(title, "vCPUs", f"{ylabel} ({YLABEL})", [s for s in series if s.x],
                 logy=True, logx2=True)


def figures(rows: list[Row], kernels: list[str]) -> list[Figure]:
    """The section's figures (headline load); [] when it has no section."""
    rows = count_rows(rows)
    if len(gp_vcpus(rows)) < 2:
        return []
    shown = scale_kernels(rows, kernels)
    load = loads(rows)[0]

    def metric(m: str) -> Callable[[str, int], Spread | None]:
        return lambda k, v: gp_spread(rows, k, v, load, m)

    def hottest(k: str, v: int) -> Spread | None:
        h = hot_line(rows, k, v, load, rcu_only=True)
        return h.transfers if h else None

    cost = Figure(FIGURE_NAMES[0], [
        chart(f"RCU core instructions per GP per CPU, load={load}", "instructions",
              rows, shown, load, metric("core_insns")),
        chart(f"Tick's RCU work with interrupts off, worst episode, load={load}",
              "instructions", rows, shown, load, metric("irqoff_core_insns_max"))])
    moves = Figure(FIGURE_NAMES[1], [
        chart(f"Cache-line transfers per GP per CPU, load={load}", "transfers",
              rows, shown, load, metric("transfers")),
        chart(f"Hottest line of RCU state: its transfers per GP (all CPUs), load={load}",
              "transfers",
              rows, shown, load, hottest)])
    for fig in (cost, moves):
        fig.charts = [c for c in fig.charts if c.series]
    return [f for f in (cost, moves) if f.charts]
