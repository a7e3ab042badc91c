"""The verdict table: report.md's first table, each compared pair of suite.conf
COMPARE_PAIRS (a column) on each headline figure (a row), with the kind of
each figure beside it: an exact count, a model, or TCG wall-clock time.

Every cell comes from the functions the summary's sentences use, at the
same cell (the largest vCPU count below the host's CPUs): costmodel.read_pairs,
summary.headline_figures, latency.headline_wakeups.  The rows are ROWS, one
line each: a new headline figure is one more VerdictRow, and a row whose
figure no pair has (an older sweep) is left out.
"""

from dataclasses import dataclass
from typing import Callable

import costmodel
import latency
import measures
import summary
import units
from measures import Measure, ratio_meaningful
from resultdir import ResultDir
from tables import table
from units import NONE

EXACT = "exact count"
MODEL = "model"
WALL = "TCG wall clock"
MAX_LINES = 15  # the table, header included: it must fit a first screen


@dataclass(frozen=True)
class Cell:
    """A figure of kernel against base, at the vCPU count it comes from."""

    text: str
    vcpus: int


CellFn = Callable[[ResultDir, str, str], "Cell | None"]  # (rd, kernel, base)


@dataclass(frozen=True)
class VerdictRow:
    label: str          # "{readers}": the longest readers' hold time (latency rows)
    kind: str
    cell: CellFn


def versus(kernel_text: str, base_text: str) -> str:
    """'10.5 vs 2.51 ticks': the unit once when both figures have the same."""
    k_num, _, k_unit = kernel_text.rpartition(" ")
    b_unit = base_text.rpartition(" ")[2]
    if k_num and base_text.count(" ") and k_unit == b_unit:
        return f"{k_num} vs {base_text}"
    return f"{kernel_text} vs {base_text}"


def read_count(metric: str) -> CellFn:
    """A count of the read pair (costmodel.headline's figures)."""
    def cell(rd: ResultDir, kernel: str, base: str) -> Cell | None:
        p = costmodel.read_pairs(rd, kernel, base)
        if p is None or metric not in p.kernel or metric not in p.base:
            return None
        return Cell(versus(costmodel.num(p.kernel[metric]), costmodel.num(p.base[metric])),
                    p.vcpus)
    return cell


def read_modelled(rd: ResultDir, kernel: str, base: str) -> Cell | None:
    """The read pair's modelled ns range on each kernel."""
    p = costmodel.read_pairs(rd, kernel, base)
    if p is None:
        return None
    return Cell(versus(costmodel.ns_range(p.kernel_model, ""),
                       costmodel.ns_range(p.base_model, "")), p.vcpus)


def measured(m: Measure) -> CellFn:
    """Both medians over boots and their ratio [95% CI] (the difference when
    base's figure is not distinguishable from zero), as the summary says them."""
    def cell(rd: ResultDir, kernel: str, base: str) -> Cell | None:
        f = summary.headline_figures(m, rd, kernel, base)
        if f is None:
            return None
        text = versus(units.value(f.kernel.value, m.unit), units.value(f.base.value, m.unit))
        if ratio_meaningful(f.ratio, f.base):
            text += f": {units.ratio(f.ratio)}"
        elif f.difference is not None:
            text += f": {units.interval(f.difference, m.unit)} apart"
        return Cell(text, f.vcpus)
    return cell


def wakeup(metric: str) -> CellFn:
    """A wakeup latency behind the longest readers on each kernel [95% CI]."""
    def cell(rd: ResultDir, kernel: str, base: str) -> Cell | None:
        w = latency.headline_wakeups(rd, kernel, base)
        if w is None:
            return None
        return Cell(versus(units.interval(w.figure[(kernel, metric)], "ns"),
                           units.interval(w.figure[(base, metric)], "ns")), w.vcpus)
    return cell


ROWS = (
    VerdictRow("read pair: instructions", EXACT, read_count("insns")),
    VerdictRow("read pair: interrupt-flag ops", EXACT, read_count("irqflag")),
    VerdictRow("read pair: ns", MODEL, read_modelled),
    VerdictRow("lone grace period (ticks)", WALL, measured(measures.GP_TICKS)),
    VerdictRow("call_rcu() cost", WALL, measured(measures.CALLRCU_COST)),
    VerdictRow("callback capacity (CPU-bound)", WALL, measured(measures.CAPACITY)),
    VerdictRow("memory held by callbacks", WALL, measured(measures.MEMORY)),
    VerdictRow("wakeup behind {readers} readers: median", WALL, wakeup("wakeup_median_ns")),
    VerdictRow("wakeup behind {readers} readers: worst", WALL, wakeup("wakeup_max_ns")),
)


def cells(rd: ResultDir, pairs: list[tuple[str, str]]) -> list[tuple[VerdictRow, list[Cell | None]]]:
    """Each row of ROWS that some pair has, with its cell per pair."""
    found = [(row, [row.cell(rd, k, b) for k, b in pairs]) for row in ROWS]
    return [(row, got) for row, got in found if any(got)]


def longest_readers(rd: ResultDir) -> str | None:
    lengths = latency.reader_lengths(rd.ok_rows)
    return units.value(lengths[-1] * 1e3, "ns") if lengths else None


def intro(rd: ResultDir, vcpus: set[int]) -> str:
    where = (f"at {min(vcpus)} vCPU{'s' if min(vcpus) > 1 else ''}, " if len(vcpus) == 1
             else "at the vCPU count each cell names, ")
    readers = longest_readers(rd)
    return ("Each column is a kernel against its base (kernel vs base), "
            f"{where}the largest vCPU count below the host's {rd.host_cpus or '?'} CPUs "
            "that both measured.  Kinds: exact count (rbcount TCG plugin); model (those "
            "counts × this host's per-instruction-class costs, a range); TCG wall clock "
            "(emulated time, medians over boots: the ratio kernel/base [95% CI], for "
            "wakeups each median [95% CI])."
            + (f"  Wakeup rows: a SCHED_FIFO task on the CPU of readers that hold "
               f"rcu_read_lock() for {readers} at a time." if readers else "")
            + "  The summary below says each in a sentence.")


def verdict(rd: ResultDir, pairs: list[tuple[str, str]]) -> list[str]:
    """The section: a table of at most MAX_LINES lines (ROWS x present pairs)."""
    present = summary.present_pairs(rd, pairs)
    found = cells(rd, present)
    if not found:
        return []
    vcpus = {c.vcpus for _, got in found for c in got if c}

    def text(c: Cell | None) -> str:
        if c is None:
            return NONE
        return c.text if len(vcpus) == 1 else f"{c.text} ({c.vcpus} vCPU{'s' if c.vcpus > 1 else ''})"
    readers = longest_readers(rd) or "?"
    body = [[row.label.format(readers=readers), row.kind] + [text(c) for c in got]
            for row, got in found]
    header = ["measure", "kind"] + [f"{k} vs {b}" for k, b in present]
    return ["## Verdict", "", intro(rd, vcpus), ""] + table(header, body)
