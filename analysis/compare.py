#!/usr/bin/python3
"""compare.py A B: what changed from results A to results B, as Markdown.

The design-review diff of two results directories (or of two kernels of
one directory), printed on stdout.

    analysis/compare.py reports/reference reports/20261206-1200
    analysis/compare.py reports/X:preempt reports/X:classic-preempt
    analysis/compare.py A B --kernels "preempt classic" --csv diff.csv
    make compare A=... B=... [KERNELS="k1 k2"] [CSV=file]

A side is DIR or DIR:KERNEL.  DIR:KERNEL restricts that side to one kernel
and its rows are matched with the other side's by vCPUs and measure, the
kernel name ignored (a side without :KERNEL then takes the other's kernel);
otherwise rows are matched by kernel, vCPUs and measure, --kernels
restricting both sides to the named kernels.

What it prints, in order:
  - a header: for each side its directory, the suite commit, the patch series
    that built its kernels (key and patch count, metadata.json "series", as
    report.md's header says it), the sweep's parameters and host CPUs; then
    one line saying whether both sides were built from the same series (when
    they were not, a difference below may be the patches' doing);
  - wall clock: every (kernel, vCPUs, measure) both sides measured, the
    headline measures of measures.py MEASURES and the other per-boot figures
    of derive.py (read nest 2, read_mb, read_mb − read, grace periods of
    every spacing and load, memory at every rate, wakeup latency, refscale,
    the native liburcu anchor): each side's median over its boots with a 95%
    percentile-bootstrap interval and its boots (n=), then B/A, the ratio of
    the medians, with its interval (each side's boots resampled on their
    own, stats.ratio_ci).  Sorted by effect: largest |log B/A| first.
    "changed" is "yes" when the interval of B/A excludes 1×: the sweeps
    resolve a difference; an unmarked row may still differ, by less than
    its interval's width.  "A"/"B" marks name cells that are overcommitted
    (vCPUs >= the host's CPUs: guest times inflate) or have boots flagged
    for host load, on that side, as report.md's tables do;
  - wall clock without a ratio: measures whose A median is not
    distinguishable from zero (its interval reaches zero; see
    measures.ratio_meaningful), as B − A with its interval (stats.difference_ci,
    as the summary does); "changed" when that interval excludes 0;
  - exact counts (rows of source tcg-plugin, the rbcount plugin: count_read,
    count_read_mb, count_gp, count_callrcu, ...): B − A of each metric per
    (kernel, vCPUs, test, params), the median over boots as costmodel.counts()
    takes it; params that only record the run's size (loops, gps, calls) are
    not matched.  Only the differences are listed, largest |B − A| / |A|
    first, with how many counts were equal.  Region counts are exact: any
    difference is a changed instruction path, overcommitment does not change
    them; count_gp (per grace period over a window of ticks) varies a little
    between sweeps;
  - what only one side has.

--csv FILE writes the rows of the tables (kind wall or count) as CSV:
kind, kernel_a, kernel_b, vcpus, measure, unit, a_median, a_low, a_high,
a_boots, b_median, b_low, b_high, b_boots, ratio, ratio_low, ratio_high,
difference, changed (1/0).  difference is median B − median A; a count's
measure is "test params metric" and its low/high are empty.

Bad input (a missing directory or one without results, an unknown kernel
after ':', no measure in common) is one line "rcu-bench: error: ..." on
stderr and exit status 2, with nothing written.
"""

import argparse
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

import costmodel
import derive
import provenance
import suiteconf
import tables
import units
from measures import MEASURES, ratio_meaningful
from resultdir import HOST_KERNEL, ResultDir, ResultsError, Row, load_result_dir, write_table
from stats import Estimate, difference_ci, median_ci, ratio_ci

EXIT_BAD_INPUT = 2
COUNT_SOURCE = "tcg-plugin"
# Params of count rows that record how long the run was, not what it
# measured (the counts are per iteration, per call, per grace period).
COUNT_SIZE_PARAMS = ("loops", "gps", "calls")
CSV_COLUMNS = ["kind", "kernel_a", "kernel_b", "vcpus", "measure", "unit", "a_median", "a_low",
               "a_high", "a_boots", "b_median", "b_low", "b_high", "b_boots", "ratio", "ratio_low",
               "ratio_high", "difference", "changed"]
ONE_SIDED_SHOWN = 20  # one-sided cells listed by name; the rest counted
# Short names of the headline measures (measures.py titles are sentences).
HEADLINE_NAMES = {"Read side (wall clock under TCG)": "read nest=1",
                  "Lone grace-period latency": "gp lone idle",
                  "Lone grace-period latency in ticks": "gp lone idle (ticks)",
                  "call_rcu() cost": "callrcu_cost",
                  "call_rcu() capacity (CPU-bound)": "callrcu_capacity CPU-bound",
                  "Memory held by callbacks": "callrcu_memory bytes_mean lowest rate"}


class CompareError(Exception):
    """Bad input: one line for stderr."""


# ---- the two sides ----

@dataclass
class Side:
    """One side of the diff: a results directory, maybe one kernel of it."""

    label: str                  # "A" or "B"
    spec: str                   # as given: DIR or DIR:KERNEL
    rd: ResultDir
    kernel: str | None          # the kernel after ':', None without
    _index: dict[tuple[str, str], list[Row]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for r in self.rd.ok_rows:
            self._index.setdefault((r.kernel, r.test), []).append(r)

    @property
    def kernels(self) -> list[str]:
        """The kernels with ok rows, in kernel_order()."""
        have = {k for k, _ in self._index}
        return [k for k in kernel_order() if k in have]

    def rows(self, kernel: str, tests: tuple[str, ...]) -> list[Row]:
        """The ok rows of kernel of the tests (what a cell function reads)."""
        return [r for t in tests for r in self._index.get((kernel, t), [])]

    def all_rows(self) -> list[Row]:
        return [r for rows in self._index.values() for r in rows]

    def count_rows(self, kernel: str) -> list[Row]:
        """kernel's ok rows of the rbcount plugin (exact counts)."""
        return [r for (k, _), rows in self._index.items() if k == kernel
                for r in rows if r.source == COUNT_SOURCE]


def kernel_order() -> list[str]:
    """suite.conf's KERNELS, then the other scenarios (boot variants) by
    name, the host last: every kernel a results row may name."""
    return suiteconf.known_kernels() + [HOST_KERNEL]


def split_spec(spec: str) -> tuple[Path, str | None]:
    """'reports/X:preempt' -> (reports/X, 'preempt'); an existing directory
    whose name has a colon stays whole."""
    head, sep, tail = spec.rpartition(":")
    if Path(spec).is_dir() or not sep or not head or not tail or "/" in tail:
        return Path(spec), None
    return Path(head), tail


def load_sides(spec_a: str, spec_b: str) -> tuple[Side, Side]:
    """Both sides, each directory loaded once; an unknown kernel after ':' refused."""
    loaded: dict[Path, ResultDir] = {}
    sides = []
    for label, spec in (("A", spec_a), ("B", spec_b)):
        path, kernel = split_spec(spec)
        key = path.resolve()
        if key not in loaded:
            try:
                loaded[key] = load_result_dir(path)
            except ResultsError as err:
                raise CompareError(f"{label}: {err}") from None
        side = Side(label, spec, loaded[key], kernel)
        if kernel is not None and kernel not in side.kernels:
            raise CompareError(f"{label}: unknown kernel '{kernel}' after ':': {path} has rows of "
                               f"{' '.join(side.kernels) or 'no kernel'}")
        sides.append(side)
    return sides[0], sides[1]


def kernel_pairs(a: Side, b: Side, kernels: list[str] | None) -> list[tuple[str, str]]:
    """(kernel of A, kernel of B) to compare: the kernels after ':' (a side
    without one takes the other's), else the kernels both sides have
    (those of kernels only, when given)."""
    if a.kernel or b.kernel:
        if kernels:
            raise CompareError("give DIR:KERNEL sides or --kernels, not both")
        ka, kb = a.kernel or b.kernel, b.kernel or a.kernel
        for side, k in ((a, ka), (b, kb)):
            if k not in side.kernels:
                raise CompareError(f"{side.label}: {side.rd.path} has no rows of kernel '{k}' "
                                   f"(named on the other side; it has "
                                   f"{' '.join(side.kernels) or 'none'})")
        return [(ka, kb)]
    if kernels:
        unknown = [k for k in kernels if k not in a.kernels and k not in b.kernels]
        if unknown:
            raise CompareError(f"--kernels: neither side has rows of kernel "
                               f"{' '.join(unknown)} (A: {' '.join(a.kernels)}; "
                               f"B: {' '.join(b.kernels)})")
    return [(k, k) for k in a.kernels
            if k in b.kernels and (not kernels or k in kernels)]


# ---- wall-clock measures: per-boot figures of a cell ----

@dataclass(frozen=True)
class WallMeasure:
    """A per-boot cell figure: fn(rows, kernel, vcpus) over the rows of tests
    (the first test's rows give the cell's vCPU counts)."""

    name: str
    tests: tuple[str, ...]
    unit: str
    fn: derive.CellFn


def _gp(load: str, spacing: str, metric: str) -> derive.CellFn:
    return lambda rows, k, v: derive.gp_boots(rows, k, v, load=load, metric=metric,
                                              spacing=spacing)


def _memory(rate: int) -> derive.CellFn:
    return lambda rows, k, v: derive.memory_boots(rows, k, v, rate=rate)


def _latency(metric: str, reader_us: int) -> derive.CellFn:
    return lambda rows, k, v: derive.per_boot(derive.select(rows, "latency", metric, k, v,
                                                            reader_us=reader_us))


def _boost(metric: str) -> derive.CellFn:
    return lambda rows, k, v: derive.per_boot(derive.select(rows, "boost", metric, k, v))


def _urcu(flavour: str) -> derive.CellFn:
    return lambda rows, k, v: derive.urcu_boots(rows, flavour, v) if k == HOST_KERNEL else {}


def reader_lengths(rows: list[Row]) -> list[int]:
    """The reader_us values of latency rows (as latency.reader_lengths,
    without importing the plotting)."""
    return sorted({int(r.params["reader_us"]) for r in rows
                   if r.test == "latency" and r.params.get("reader_us", "").isdigit()})


def wall_measures(rows: list[Row]) -> list[WallMeasure]:
    """The headline measures, then every other per-boot figure the rows
    (both sides') have parameters for."""
    out = [WallMeasure(HEADLINE_NAMES.get(m.title, m.title), (m.test,), m.unit, m.fn)
           for m in MEASURES]
    out += [WallMeasure("read nest=2", ("read",), "ns",
                        lambda rs, k, v: derive.read_boots(rs, k, v, nest=2)),
            WallMeasure("read_mb nest=1", ("read_mb",), "ns",
                        lambda rs, k, v: derive.read_boots(rs, k, v, test="read_mb")),
            WallMeasure("read_mb − read", ("read_mb", "read"), "ns", derive.barrier_boots)]
    for spacing in derive.gp_spacings(rows):
        for load in derive.gp_loads(rows):
            if (spacing, load) == ("lone", "idle"):
                continue  # the headline's
            out += [WallMeasure(f"gp {spacing} {load}", ("gp",), "ns",
                                _gp(load, spacing, "latency_ns")),
                    WallMeasure(f"gp {spacing} {load} (ticks)", ("gp",), "ticks",
                                _gp(load, spacing, "latency_ticks"))]
    out += [WallMeasure(f"callrcu_memory bytes_mean rate={rate}", ("callrcu_memory",), "bytes",
                        _memory(rate)) for rate in derive.memory_rates(rows)[1:]]
    out += [WallMeasure(f"latency {name} reader_us={us}", ("latency",), "ns", _latency(metric, us))
            for us in reader_lengths(rows)
            for metric, name in (("wakeup_median_ns", "wakeup median"),
                                 ("wakeup_p99_ns", "wakeup p99"))]
    out += [WallMeasure(f"boost {metric}", ("boost",), unit, _boost(metric))
            for metric, unit in (("gp_median_ns", "ns"), ("outstanding_median", "count"))]
    out.append(WallMeasure("refscale", ("refscale",), "ns",
                           lambda rs, k, v: derive.refscale_boots(rs, k, v, v)))
    out += [WallMeasure(f"urcu {flavour}", ("urcu",), "ns", _urcu(flavour))
            for flavour in derive.urcu_flavours(rows)]
    return out


@dataclass(frozen=True)
class WallRow:
    """One measure of one cell on both sides."""

    kernel_a: str
    kernel_b: str
    vcpus: int
    measure: WallMeasure
    order: int                  # position of the measure, for ties
    a: Estimate
    b: Estimate
    ratio: Estimate | None      # B/A, None when A is not distinguishable from zero
    difference: Estimate        # B − A
    marks_a: str
    marks_b: str

    @property
    def changed(self) -> bool:
        if self.ratio is not None:
            return self.ratio.excludes(1.0)
        return self.difference.excludes(0.0)

    @property
    def effect(self) -> float:
        """|log B/A| (a change of sign: infinite)."""
        if self.ratio is None:
            return 0.0
        return math.inf if self.ratio.value <= 0 else abs(math.log(self.ratio.value))

    @property
    def relative(self) -> float:
        """|B − A| over the larger |median|: the order of the rows without a ratio."""
        scale = max(abs(self.a.value), abs(self.b.value))
        return abs(self.difference.value) / scale if scale > 0 else 0.0


def wall_row(a: Side, b: Side, ka: str, kb: str, v: int, m: WallMeasure, order: int,
             boots_a: derive.PerBoot, boots_b: derive.PerBoot) -> WallRow:
    ea, eb = median_ci(boots_a.values()), median_ci(boots_b.values())
    r = ratio_ci(boots_b.values(), boots_a.values())
    d = difference_ci(boots_b.values(), boots_a.values())
    return WallRow(ka, kb, v, m, order, ea, eb, r if ratio_meaningful(r, ea) else None, d,
                   tables.mark(a.rd, ka, v), tables.mark(b.rd, kb, v))


Cell = tuple[str, int, str]  # (kernels, vcpus, what): a cell only one side has


def kernels_text(ka: str, kb: str) -> str:
    return ka if ka == kb else f"{ka} → {kb}"


def wall_rows(a: Side, b: Side, pairs: list[tuple[str, str]]
              ) -> tuple[list[WallRow], list[Cell], list[Cell]]:
    """The rows both sides have, and the cells only A, only B has."""
    measures = wall_measures(a.all_rows() + (b.all_rows() if b.rd is not a.rd else []))
    rows, only_a, only_b = [], [], []
    for ka, kb in pairs:
        for i, m in enumerate(measures):
            ra, rb = a.rows(ka, m.tests), b.rows(kb, m.tests)
            va = derive.vcpus_of(ra, m.tests[0], ka)
            vb = derive.vcpus_of(rb, m.tests[0], kb)
            for v in sorted(set(va) | set(vb)):
                boots_a = m.fn(ra, ka, v) if v in va else {}
                boots_b = m.fn(rb, kb, v) if v in vb else {}
                if boots_a and boots_b:
                    rows.append(wall_row(a, b, ka, kb, v, m, i, boots_a, boots_b))
                elif boots_a or boots_b:
                    (only_a if boots_a else only_b).append((kernels_text(ka, kb), v, m.name))
    return rows, only_a, only_b


# ---- exact counts ----

@dataclass(frozen=True)
class CountRow:
    kernel_a: str
    kernel_b: str
    vcpus: int
    test: str
    params: str
    metric: str
    a: float
    b: float
    a_boots: int
    b_boots: int

    @property
    def difference(self) -> float:
        return self.b - self.a

    @property
    def relative(self) -> float:
        """|B − A| / |A| (A zero: infinite)."""
        return abs(self.difference) / abs(self.a) if self.a else math.inf

    @property
    def measure(self) -> str:
        return f"{self.test} {self.params or '-'} {self.metric}"


def count_keys(rows: list[Row]) -> dict[tuple[int, str, str], dict[str, str]]:
    """(vcpus, test, params text) -> the params matched, of count rows
    (the run-size params left out)."""
    out = {}
    for r in rows:
        want = {k: v for k, v in r.params.items() if k not in COUNT_SIZE_PARAMS}
        out[(r.vcpus, r.test, ";".join(f"{k}={v}" for k, v in want.items()))] = want
    return out


def count_cells(side: Side, kernel: str) -> dict[tuple[int, str, str, str], tuple[float, int]]:
    """(vcpus, test, params, metric) -> (median over boots, boots) of kernel's counts."""
    plugin = side.count_rows(kernel)
    out = {}
    for (v, test, text), want in count_keys(plugin).items():
        matching = [r for r in plugin if (r.vcpus, r.test) == (v, test)
                    and costmodel.matches(r.params, want)]
        for metric, value in costmodel.counts(matching, test, kernel, v, want).items():
            boots = len({r.repeat for r in matching if r.metric == metric})
            out[(v, test, text, metric)] = (value, boots)
    return out


def count_rows(a: Side, b: Side, pairs: list[tuple[str, str]]
               ) -> tuple[list[CountRow], list[Cell], list[Cell]]:
    """Every count both sides have (equal ones included), and those of one side."""
    rows, only_a, only_b = [], [], []
    for ka, kb in pairs:
        ca, cb = count_cells(a, ka), count_cells(b, kb)
        for key in sorted(set(ca) | set(cb)):
            v, test, params, metric = key
            if key in ca and key in cb:
                rows.append(CountRow(ka, kb, v, test, params, metric, ca[key][0], cb[key][0],
                                     ca[key][1], cb[key][1]))
            else:
                (only_a if key in ca else only_b).append(
                    (kernels_text(ka, kb), v, f"{test} {params} {metric}"))
    return rows, only_a, only_b


# ---- the diff ----

@dataclass
class Diff:
    a: Side
    b: Side
    pairs: list[tuple[str, str]]
    ratios: list[WallRow]       # sorted by effect
    differences: list[WallRow]  # no ratio: A not distinguishable from zero
    counts: list[CountRow]      # the differing counts, sorted
    equal_counts: int
    only_a: list[Cell]
    only_b: list[Cell]


def diff(a: Side, b: Side, kernels: list[str] | None) -> Diff:
    pairs = kernel_pairs(a, b, kernels)
    wall, wa, wb = wall_rows(a, b, pairs)
    counts, ca, cb = count_rows(a, b, pairs)
    if not wall and not counts:
        raise CompareError(f"A ({a.spec}) and B ({b.spec}) have no measure in common "
                           f"(A has kernels {' '.join(a.kernels) or 'none'}, B "
                           f"{' '.join(b.kernels) or 'none'})")
    rank = {k: i for i, k in enumerate(kernel_order())}

    def cell_key(r: WallRow | CountRow) -> tuple:
        return (rank.get(r.kernel_a, len(rank)), rank.get(r.kernel_b, len(rank)), r.vcpus)

    ratios = sorted((r for r in wall if r.ratio is not None),
                    key=lambda r: (-r.effect, *cell_key(r), r.order))
    differences = sorted((r for r in wall if r.ratio is None),
                         key=lambda r: (not r.changed, -r.relative, *cell_key(r), r.order))
    differing = sorted((r for r in counts if r.difference != 0),
                       key=lambda r: (-r.relative, *cell_key(r), r.test, r.params, r.metric))
    return Diff(a, b, pairs, ratios, differences, differing, len(counts) - len(differing),
                wa + ca, wb + cb)


# ---- header ----

def side_series(rd: ResultDir) -> tuple[str | None, int, str]:
    """(series key, patch count, how it is known): recorded in metadata.json,
    else the patches/series of the commit the sweep ran at (git), else None."""
    if rd.provenance is not None:
        p = rd.provenance
        return p.series_key, len(p.patches), "recorded"
    commit = provenance.measured_commit(rd)
    try:
        s = provenance.series.commit_series(commit.removesuffix("-dirty"))
    except provenance.series.SeriesError:
        return None, 0, "not recorded"
    return s.key, len(s.patches), (f"not recorded; commit {commit}'s patches/series, which "
                                   "kernels were booted is not known")


def sweep_text(rd: ResultDir) -> str:
    params = rd.metadata.get("parameters", {})
    params = params if isinstance(params, dict) else {}

    def words(key: str) -> str:
        value = params.get(key)
        if isinstance(value, list):
            return " ".join(str(x) for x in value) or "none"
        return "?" if value is None else str(value)
    return (f"profile {words('profile')}, repeats {words('repeats')}, vCPUs {words('vcpus')}, "
            f"tests {words('tests')}; host {rd.host_cpus or '?'} CPUs")


def side_lines(side: Side, series_of: dict[Path, tuple[str | None, int, str]]) -> list[str]:
    rd = side.rd
    key, n, how = series_of[rd.path]
    series_text = (f"{provenance.describe(key, n)}" + ("" if how == "recorded" else f" ({how})")
                   if key else "not recorded")
    what = f"kernel {side.kernel}" if side.kernel else "all kernels"
    lines = [f"- **{side.label}**: `{rd.path}` ({what}); commit {provenance.measured_commit(rd)}; "
             f"patch series {series_text}",
             f"  - sweep: {sweep_text(rd)}"]
    boot_args = rd.metadata.get("kernel_boot_args", {})
    shown = [side.kernel] if side.kernel else side.kernels
    if isinstance(boot_args, dict) and any(boot_args.get(k) for k in shown):
        lines.append("  - boot arguments: " + "; ".join(
            f"{k} `{boot_args.get(k) or '(none)'}`" for k in shown if k in boot_args))
    stale = rd.provenance.out_of_date if rd.provenance else []
    if stale:
        lines.append(f"  - kernels booted out of date (not built from that series): "
                     f"{', '.join(stale)}")
    return lines


def series_line(a: Side, b: Side, series_of: dict[Path, tuple[str | None, int, str]]) -> str:
    """Whether both sides' kernels come from the same patch series."""
    if a.rd is b.rd:
        return "- Both sides are the same sweep: the same patch series."
    (ka, na, _), (kb, nb, _) = series_of[a.rd.path], series_of[b.rd.path]
    if ka is None or kb is None:
        missing = " and ".join(s.label for s, k in ((a, ka), (b, kb)) if k is None)
        return (f"- Whether both sides were built from the same patch series is not known: "
                f"{missing} recorded none.")
    if ka == kb:
        return f"- Both sides were built from the same patch series, {ka}."
    text = (f"- **The sides were built from different patch series** "
            f"(A {provenance.describe(ka, na)}, B {provenance.describe(kb, nb)}): a difference "
            "below may come from the patches.")
    pa, pb = a.rd.provenance, b.rd.provenance
    if pa is not None and pb is not None:
        gone = [p for p in pa.patches if p not in pb.patches]
        new = [p for p in pb.patches if p not in pa.patches]
        parts = ([f"only in A: {', '.join(gone)}"] if gone else []) + \
                ([f"only in B: {', '.join(new)}"] if new else [])
        text += "  Patches " + ("; ".join(parts) if parts else
                                "the same files (their contents differ)") + "."
    return text


def header(d: Diff) -> list[str]:
    series_of = {d.a.rd.path: side_series(d.a.rd)}
    if d.b.rd.path not in series_of:
        series_of[d.b.rd.path] = side_series(d.b.rd)
    lines = ["# rcu-bench compare: B against A", ""]
    for side in (d.a, d.b):
        lines += side_lines(side, series_of)
    lines.append(series_line(d.a, d.b, series_of))
    changed = sum(r.changed for r in d.ratios + d.differences)
    total = len(d.ratios) + len(d.differences)
    lines.append(f"- {changed} of {total} wall-clock figures changed (95% interval of B/A "
                 f"excludes 1×, of B − A excludes 0); {len(d.counts)} of "
                 f"{len(d.counts) + d.equal_counts} exact counts differ.")
    return lines + [""]


# ---- tables ----

def changed_mark(r: WallRow) -> str:
    return "yes" if r.changed else units.NONE


def wall_table(d: Diff) -> list[str]:
    lines = ["## Wall clock: B/A", "",
             "Each side: median over its boots [95% bootstrap interval] (n = boots); B/A the "
             "ratio of the medians [95% interval, boots of each side resampled on their own].  "
             "Largest |log B/A| first; changed: the interval excludes 1×.  Marks: overcommitted "
             "(vCPUs >= the host's CPUs: guest times inflate), boots flagged for host load.  "
             "Guest times are TCG (emulation) times.", ""]
    if not d.ratios:
        return lines + ["(no wall-clock figure with a ratio on both sides)", ""]
    body = [[changed_mark(r), kernels_text(r.kernel_a, r.kernel_b), str(r.vcpus),
             r.measure.name, units.cell(r.a, r.measure.unit), units.cell(r.b, r.measure.unit),
             units.ratio(r.ratio), r.marks_a, r.marks_b] for r in d.ratios]
    return lines + tables.table(["changed", "kernel", "vCPUs", "measure", "A", "B", "B/A",
                                 "A marks", "B marks"], body)


def difference_table(d: Diff) -> list[str]:
    if not d.differences:
        return []
    lines = ["## Wall clock without a ratio: B − A", "",
             "A's median is not distinguishable from zero (its interval reaches zero), so B/A "
             "would mean nothing: the difference of the medians instead [95% interval, each "
             "side's boots resampled on their own].  Changed: the interval excludes 0; changed "
             "first, then largest |B − A| against the larger median.", ""]
    body = [[changed_mark(r), kernels_text(r.kernel_a, r.kernel_b), str(r.vcpus),
             r.measure.name, units.cell(r.a, r.measure.unit), units.cell(r.b, r.measure.unit),
             units.interval(r.difference, r.measure.unit), r.marks_a, r.marks_b]
            for r in d.differences]
    return lines + tables.table(["changed", "kernel", "vCPUs", "measure", "A", "B", "B − A",
                                 "A marks", "B marks"], body)


def exact(x: float) -> str:
    """A count as it is (no rounding: a difference of one instruction shows)."""
    text = str(int(x)) if x == int(x) and abs(x) < 1e18 else f"{x:.10g}"
    return text.replace("-", "−")


def signed(text: str) -> str:
    return text if text.startswith(("−", "0")) else f"+{text}"


def percent(r: CountRow) -> str:
    """B − A relative to A, in percent ('new' when A is zero)."""
    if r.a == 0:
        return "new"
    pct = 100 * r.difference / abs(r.a)
    return signed((units.sig(pct) if abs(pct) < 1e6 else f"{pct:.3g}").replace("-", "−") + "%")


def count_table(d: Diff) -> list[str]:
    total = len(d.counts) + d.equal_counts
    lines = ["## Exact counts (TCG plugin): B − A", ""]
    if not total:
        return lines + ["Neither side has counts of a common cell (plugin boots: tcg-plugin "
                        "rows).", ""]
    lines += [f"{len(d.counts)} of {total} counts differ, {d.equal_counts} are equal (the "
              "median over boots of each side).  Region counts (count_read, count_read_mb, "
              "count_callrcu, ...) are exact, so any difference there is a changed "
              "instruction path; count_gp rows are per grace period over windows whose "
              "ticks vary, so they move a little between sweeps without a code change "
              "(analysis/SCHEMA.md).  Largest |B − A| / |A| first.", ""]
    if not d.counts:
        return lines
    body = [[kernels_text(r.kernel_a, r.kernel_b), str(r.vcpus), r.test, r.params or units.NONE,
             r.metric, exact(r.a), exact(r.b), signed(exact(r.difference)), percent(r)]
            for r in d.counts]
    return lines + tables.table(["kernel", "vCPUs", "test", "params", "metric", "A", "B", "B − A",
                                 "relative"], body)


def one_sided(d: Diff) -> list[str]:
    lines = []
    for label, cells in (("A", d.only_a), ("B", d.only_b)):
        if not cells:
            continue
        shown = "; ".join(f"{k} {v} vCPU{'s' if v > 1 else ''} {what}"
                          for k, v, what in cells[:ONE_SIDED_SHOWN])
        more = f"; and {len(cells) - ONE_SIDED_SHOWN} more" if len(cells) > ONE_SIDED_SHOWN else ""
        lines.append(f"- only {label} has {len(cells)}: {shown}{more}.")
    for label, side, other in (("A", d.a, d.b), ("B", d.b, d.a)):
        if not side.kernel and not other.kernel:
            alone = [k for k in side.kernels if k not in other.kernels
                     and k not in {ka for ka, _ in d.pairs}]
            if alone:
                lines.append(f"- kernels only {label} has (not compared): {', '.join(alone)}.")
    return (["## Only on one side", ""] + lines + [""]) if lines else []


def markdown(d: Diff) -> str:
    parts = [header(d), wall_table(d), difference_table(d), count_table(d), one_sided(d)]
    return "\n".join(line for part in parts for line in part)


# ---- CSV ----

def num(x: float | None) -> str:
    return "" if x is None or not math.isfinite(x) else f"{x:.10g}"


def wall_csv(r: WallRow) -> dict[str, str]:
    rt = r.ratio
    return {"kind": "wall", "kernel_a": r.kernel_a, "kernel_b": r.kernel_b,
            "vcpus": str(r.vcpus), "measure": r.measure.name, "unit": r.measure.unit,
            "a_median": num(r.a.value), "a_low": num(r.a.low), "a_high": num(r.a.high),
            "a_boots": str(r.a.n), "b_median": num(r.b.value), "b_low": num(r.b.low),
            "b_high": num(r.b.high), "b_boots": str(r.b.n),
            "ratio": num(rt.value) if rt else "", "ratio_low": num(rt.low) if rt else "",
            "ratio_high": num(rt.high) if rt else "", "difference": num(r.difference.value),
            "changed": str(int(r.changed))}


def count_csv(r: CountRow) -> dict[str, str]:
    return {"kind": "count", "kernel_a": r.kernel_a, "kernel_b": r.kernel_b,
            "vcpus": str(r.vcpus), "measure": r.measure, "unit": "count",
            "a_median": num(r.a), "a_low": "", "a_high": "", "a_boots": str(r.a_boots),
            "b_median": num(r.b), "b_low": "", "b_high": "", "b_boots": str(r.b_boots),
            "ratio": num(r.b / r.a) if r.a > 0 else "", "ratio_low": "", "ratio_high": "",
            "difference": num(r.difference), "changed": str(int(r.difference != 0))}


def csv_rows(d: Diff) -> list[dict[str, str]]:
    return ([wall_csv(r) for r in d.ratios + d.differences] + [count_csv(r) for r in d.counts])


# ---- command line ----

def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="examples:\n" + "\n".join(
                                     line for line in __doc__.splitlines()
                                     if line.startswith(("    analysis/", "    make "))))
    ap.add_argument("a", metavar="A", help="results directory (reports/<stamp>), or DIR:KERNEL")
    ap.add_argument("b", metavar="B", help="results directory, or DIR:KERNEL")
    ap.add_argument("--kernels", nargs="+", metavar="KERNEL",
                    help="compare only these kernels on both sides (words or one quoted list)")
    ap.add_argument("--csv", type=Path, metavar="FILE", help="also write the rows as CSV")
    return ap.parse_args(argv)


def kernel_list(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    names = [k for v in values for k in v.replace(",", " ").split()]
    return names or None


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        a, b = load_sides(args.a, args.b)
        d = diff(a, b, kernel_list(args.kernels))
        text = markdown(d)
        if args.csv is not None:
            try:
                write_table(args.csv, CSV_COLUMNS, csv_rows(d))
            except OSError as err:
                raise CompareError(f"cannot write {args.csv}: {err.strerror or err}") from None
    except (CompareError, suiteconf.ConfError) as err:
        print(f"rcu-bench: error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
