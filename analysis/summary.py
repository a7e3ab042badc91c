"""The summary of report.md, after the verdict table (verdict.py, which takes
its wall-clock figures from here): what each kernel of suite.conf
COMPARE_PAIRS costs against its base, as ratios of medians with 95%
intervals, each with one plain sentence generated from the data.

Only cells with fewer vCPUs than the host has CPUs feed a ratio; of those,
the largest vCPU count both kernels measured is the headline (the tables
below give every cell).

Besides the measures of measures.py, each pair's section has the lines of
  costmodel.headline(rd, kernel, base)    read-side instruction counts and
                                          modelled ns of kernel against base
  latency.headline(rd, kernel, base)      latency under long readers
  costmodel.break_even(rd, kernel, base)  the count-based amortised-barrier balance
                                          (flip-counter kernels only)
(Markdown lines, bullets "- **Title**: ..."), imported as any module: a
renamed function is an error, not a missing section.
"""

from dataclasses import dataclass

import costmodel
import derive
import latency
import units
from measures import MEASURES, Measure, ratio_meaningful
from resultdir import ResultDir
from stats import Estimate

MIN_BOOTS_NARROW = 5  # fewer boots per cell than this: say the intervals are wide


def usable_vcpus(rd: ResultDir, test: str, kernel: str, base: str) -> list[int]:
    """vCPU counts both kernels measured, not overcommitted."""
    rows = rd.ok_rows
    both = set(derive.vcpus_of(rows, test, kernel)) & set(derive.vcpus_of(rows, test, base))
    return sorted(v for v in both
                  if not rd.overcommitted(kernel, v) and not rd.overcommitted(base, v))


def verdict(e: Estimate, m: Measure, kernel: str, neutral: float) -> str:
    """'more expensive on preempt', or unresolved when the interval reaches neutral."""
    if not e.excludes(neutral):
        mark = f"{neutral:g}×" if neutral else "0"
        return f"a difference this sweep does not resolve (the interval includes {mark})"
    return f"{m.more if e.value > neutral else m.less} on {kernel}"


def comparison(m: Measure, r: Estimate | None, d: Estimate | None, b: Estimate,
               kernel: str, base: str) -> str | None:
    """'2.29× (95% CI ..., ), verdict' or, when base's figure reaches zero
    (a ratio would be meaningless), the difference with its interval."""
    if ratio_meaningful(r, b):
        return (f"{units.sig(r.value)}× (95% CI {units.sig(r.low)}–{units.sig(r.high)}×), "
                f"{verdict(r, m, kernel, 1.0)}")
    if d is None:
        return None
    return (f"{units.value(d.value, m.unit)} apart (95% CI {units.value(d.low, m.unit)} to "
            f"{units.value(d.high, m.unit)}; no ratio: {base}'s figure is not distinguishable "
            f"from zero), {verdict(d, m, kernel, 0.0)}")


@dataclass(frozen=True)
class Figures:
    """One measure of kernel against base in one cell: both medians over
    boots, their ratio and their difference (each with its interval)."""

    vcpus: int
    kernel: Estimate
    base: Estimate
    ratio: Estimate | None
    difference: Estimate | None


def figures(m: Measure, rd: ResultDir, kernel: str, base: str, vcpus: int) -> Figures | None:
    rows = rd.ok_rows
    a = derive.cell_estimate(m.fn, rows, kernel, vcpus)
    b = derive.cell_estimate(m.fn, rows, base, vcpus)
    if a is None or b is None:
        return None
    return Figures(vcpus, a, b, derive.ratio(m.fn, rows, kernel, base, vcpus),
                   derive.difference(m.fn, rows, kernel, base, vcpus))


def headline_figures(m: Measure, rd: ResultDir, kernel: str, base: str) -> Figures | None:
    """The measure at the summary's cell: the largest vCPU count both kernels
    measured below the host's CPUs (None when there is none)."""
    usable = usable_vcpus(rd, m.test, kernel, base)
    return figures(m, rd, kernel, base, usable[-1]) if usable else None


def sentence(m: Measure, f: Figures, kernel: str, base: str) -> str:
    """One sentence: both medians, their ratio (or difference) with its interval,
    the verdict."""
    a, b = f.kernel, f.base
    text = comparison(m, f.ratio, f.difference, b, kernel, base)
    plural = "s" if f.vcpus > 1 else ""
    return (f"At {f.vcpus} vCPU{plural}, {m.what} {units.value(a.value, m.unit)} on {kernel} "
            f"against {units.value(b.value, m.unit)} on {base} ({a.n} and {b.n} boots): "
            f"{text}.")


def measure_line(m: Measure, rd: ResultDir, kernel: str, base: str) -> str | None:
    """The summary bullet of one measure, None when neither kernel measured it."""
    if not (derive.vcpus_of(rd.ok_rows, m.test, kernel)
            and derive.vcpus_of(rd.ok_rows, m.test, base)):
        return None
    f = headline_figures(m, rd, kernel, base)
    text = sentence(m, f, kernel, base) if f else None
    if text is None:
        text = (f"no cell with fewer vCPUs than the host's {rd.host_cpus or '?'} CPUs has "
                "both kernels' figures: no ratio (see the tables).")
    return f"- **{m.title}**: {text}"


def barrier_line(rd: ResultDir, kernel: str) -> str | None:
    """What per-section smp_mb() would add on kernel, in TCG wall clock
    (read_mb − read, paired within each boot), for kernels whose readers
    rely on amortised barriers.  None at 1 vCPU: TCG then runs the vCPU
    non-parallel and emits no host fence for smp_mb(), so the difference is
    the emulation of two instructions, not a barrier's cost; the counted
    balance (costmodel.break_even) gives the barrier's modelled cost there."""
    if not costmodel.amortised(kernel):
        return None
    usable = [v for v in derive.vcpus_of(rd.ok_rows, "read_mb", kernel)
              if not rd.overcommitted(kernel, v) and v > 1]
    e = derive.cell_estimate(derive.barrier_boots, rd.ok_rows, kernel, usable[-1]) \
        if usable else None
    if e is None:
        return None
    sign = "adds" if e.value >= 0 else "changes the cost by"
    ci = f"{units.value(e.low, 'ns')} to {units.value(e.high, 'ns')}"
    meaning = ("the cost per section the amortised barriers avoid, under TCG"
               if e.excludes(0.0) else "not resolved from zero by this sweep")
    return (f"- **Amortised barriers, read side (TCG wall clock)**: at {usable[-1]} vCPUs, "
            f"smp_mb() after lock and before unlock {sign} {units.value(e.value, 'ns')} per "
            f"section on {kernel} (95% CI {ci}, {e.n} boots, read_mb − read within each "
            f"boot): {meaning}.")


def pair_section(rd: ResultDir, kernel: str, base: str) -> list[str]:
    lines = [f"### {kernel} against {base}", ""]
    lines += costmodel.headline(rd, kernel, base)
    lines += [line for m in MEASURES if (line := measure_line(m, rd, kernel, base))]
    lines += latency.headline(rd, kernel, base)
    barrier = barrier_line(rd, kernel)
    lines += [barrier] if barrier else []
    lines += costmodel.break_even(rd, kernel, base)
    return lines + [""]


def present_pairs(rd: ResultDir, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    have = {r.kernel for r in rd.ok_rows}
    return [(k, b) for k, b in pairs if k in have and b in have]


def boots_per_cell(rd: ResultDir) -> int:
    """The fewest boots any guest (kernel, vcpus) cell had."""
    cells: dict[tuple[str, int], set[int]] = {}
    for r in rd.ok_rows:
        if r.accel != "native":
            cells.setdefault((r.kernel, r.vcpus), set()).add(r.repeat)
    return min((len(v) for v in cells.values()), default=0)


def caveats(rd: ResultDir) -> list[str]:
    lines = [f"Ratios are kernel/base of the medians over boots, with 95% percentile-bootstrap "
             f"intervals (boots of each kernel resampled independently); only cells with fewer "
             f"vCPUs than the host's {rd.host_cpus or '?'} CPUs count, the largest such vCPU "
             "count is shown.  Wall-clock figures are TCG (emulation) times: compare them as "
             "ratios."]
    flagged = sum(b.flagged for b in rd.boots.values())
    if flagged:
        lines.append(f"{flagged} of {len(rd.boots)} boots ran beside other host load "
                     "(boots.csv); the tables name them.")
    n = boots_per_cell(rd)
    if 0 < n < MIN_BOOTS_NARROW:
        lines.append(f"Only {n} boots per cell (quick profile): the intervals are wide; a "
                     "design decision wants the full profile.")
    return [" ".join(lines), ""]


def summary(rd: ResultDir, pairs: list[tuple[str, str]]) -> list[str]:
    """The report's first section."""
    present = present_pairs(rd, pairs)
    if not present:
        return ["## Summary", "", "No pair of suite.conf COMPARE_PAIRS has rows in this "
                "sweep.", ""]
    lines = ["## Summary", ""] + caveats(rd)
    for kernel, base in present:
        lines += pair_section(rd, kernel, base)
    return lines
