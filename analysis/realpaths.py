"""Real kernel paths (test paths, workloads/paths.sh): how much of a real
workload's kernel instructions the RCU read side is, per kernel.

Rows come per (kernel, vCPUs, workload) from plugin boots: counts per
operation (analysis/SCHEMA.md, test paths).  Where the read side is a
function (preempt: the flip counters' __rcu_read_lock(); tree-preempt),
its instructions and its entries (the read sections) are counted.  Where
it is inline (classic: nothing; classic-preempt: preempt_disable()), the
plugin cannot tell its instructions from the code around them; the
section estimates them as the sections counted on a kernel whose read
side is a function, on the same workload and vCPUs (the VFS, pipe and
scheduler code is the same source on every kernel), times this kernel's
counted read pair (count_read, exact): marked "est.".  Modelled ns per
operation = read sections x the modelled read pair (costmodel).

Entry point: report_section(rd, kernels) -> Markdown lines.
"""

import costmodel
import units
from resultdir import ResultDir, Row
from tables import section, table

TEST = "paths"
WORKLOADS = {"pathwalk": "one stat() of a file 8 directories deep (RCU-walk of the dentry cache)",
             "pipe": "one round trip of perf bench sched pipe",
             "messaging": "one loop of perf bench sched messaging -p -g 1 (400 messages)"}
METRICS = ("insns_per_op", "kernel_insns_per_op", "readside_insns_per_op",
           "read_sections_per_op", "irqflag_per_op", "locked_per_op")


def cells(rows: list[Row]) -> list[tuple[str, str, int]]:
    """(workload, kernel, vCPUs) with paths rows, in a stable order."""
    found = {(r.params.get("workload", ""), r.kernel, r.vcpus) for r in rows
             if r.ok and r.test == TEST}
    order = list(WORKLOADS)
    return sorted(found, key=lambda c: (order.index(c[0]) if c[0] in order else 99, c[1], c[2]))


def figures(rows: list[Row], workload: str, kernel: str, vcpus: int) -> dict[str, float]:
    """metric -> median over boots of the cell's paths rows."""
    return costmodel.counts(rows, TEST, kernel, vcpus, {"workload": workload})


def measured_sections(rows: list[Row], workload: str, vcpus: int) -> float | None:
    """Read sections per operation counted on some kernel of the cell (the
    largest count: nesting-free read sides agree)."""
    found = [figures(rows, workload, k, vcpus).get("read_sections_per_op")
             for (w, k, v) in cells(rows) if (w, v) == (workload, vcpus)]
    found = [x for x in found if x is not None]
    return max(found) if found else None


def pair(rows: list[Row], kernel: str, vcpus: int) -> dict[str, float]:
    """The kernel's counted read pair (count_read, nest 1), at vcpus or 1."""
    for v in (vcpus, 1):
        got = costmodel.counts(rows, "count_read", kernel, v, costmodel.READ_PARAMS)
        if got:
            return got
    return {}


def readside(rows: list[Row], workload: str, kernel: str, vcpus: int
             ) -> tuple[float | None, float | None, bool]:
    """(read-side instructions per op, sections per op, estimated?)."""
    f = figures(rows, workload, kernel, vcpus)
    if "read_sections_per_op" in f:
        return f.get("readside_insns_per_op"), f["read_sections_per_op"], False
    sections = measured_sections(rows, workload, vcpus)
    p = pair(rows, kernel, vcpus)
    if sections is None or "insns" not in p:
        return None, sections, True
    return sections * p["insns"], sections, True


def modelled_ns(rows: list[Row], kernel: str, vcpus: int, sections: float | None) -> str:
    p = pair(rows, kernel, vcpus)
    if sections is None or not p:
        return units.NONE
    m = costmodel.read_model(p, costmodel.costs(rows))
    if m.ns is None:
        return units.NONE
    return (f"[{units.value(m.ns.low * sections, 'ns')}, "
            f"{units.value(m.ns.high * sections, 'ns')}]")


def share(part: float | None, whole: float | None) -> str:
    if part is None or not whole:
        return units.NONE
    return f"{100 * part / whole:.2f}%"


def num(x: float | None, est: bool = False) -> str:
    if x is None:
        return units.NONE
    return units.sig(x) + (" est." if est else "")


def cell_row(rows: list[Row], workload: str, kernel: str, vcpus: int) -> list[str]:
    f = figures(rows, workload, kernel, vcpus)
    rs, sections, est = readside(rows, workload, kernel, vcpus)
    return [kernel, str(vcpus), num(f.get("insns_per_op")), num(f.get("kernel_insns_per_op")),
            num(rs, est), share(rs, f.get("kernel_insns_per_op")), num(sections, est),
            num(f.get("irqflag_per_op")), modelled_ns(rows, kernel, vcpus, sections)]


def sentence(rows: list[Row], workload: str, vcpus: int) -> str | None:
    """'the read side is X% of the kernel's instructions on preempt against
    Y% on classic-preempt', where both have the cell."""
    have = {k for (w, k, v) in cells(rows) if (w, v) == (workload, vcpus)}
    if not {"preempt", "classic-preempt"} <= have:
        return None
    parts = []
    for k in ("preempt", "classic-preempt"):
        rs, _, est = readside(rows, workload, k, vcpus)
        parts.append((share(rs, figures(rows, workload, k, vcpus).get("kernel_insns_per_op")),
                      est))
    (p, _), (c, cest) = parts
    return (f"- {workload}, {vcpus} vCPU{'s' if vcpus > 1 else ''}: the read side is {p} of "
            f"the kernel's instructions on preempt against {c}{' (est.)' if cest else ''} "
            "on classic-preempt.")


INTRO = ("Counts per operation from plugin boots (workloads/paths.sh; rbstat, all CPUs, "
         "everything the guest ran, so the tick's work is included; two sizes per boot, "
         "the difference per operation).  Read side: the instructions of the RCU read-side "
         "functions, and their entries as read sections, where rcu_read_lock() is a function; "
         "where it is inline (classic, classic-preempt) it is estimated (est.): the sections "
         "counted on a kernel with a function read side on the same workload and vCPUs times "
         "this kernel's counted read pair.  Modelled ns: sections × the modelled read pair "
         "(counts × this host's costs).  One boot per cell: the path walk repeats to about "
         "1% (its sections per stat() agree on every kernel); pipe and messaging depend on "
         "how the scheduler interleaves the tasks and on the tick's work during the run, so "
         "their per-operation differences are noisy (a negative count is that noise) and "
         "only their larger figures say something.  ")


def report_section(rd: ResultDir, kernels: list[str]) -> list[str]:
    # Only the rows this section reads: each figure below scans them again.
    rows = [r for r in rd.ok_rows if r.test in (TEST, "count_read", "calib")
            and (r.kernel in kernels or r.test == "calib")]
    found = cells(rows)
    if not found:
        return []
    said = [s for w in WORKLOADS for v in sorted({c[2] for c in found})
            if (s := sentence(rows, w, v))]
    lines = said + ([""] if said else [])
    for w in dict.fromkeys(c[0] for c in found):
        lines += [f"### {w}", ""]
        lines += table(["kernel", "vCPUs", "insns/op", "kernel insns/op", "read-side insns/op",
                        "read side / kernel", "read sections/op", "irq-flag insns/op",
                        "read side, modelled ns/op"],
                       [cell_row(rows, w, k, v) for (ww, k, v) in found if ww == w])
    return section("Real kernel paths",
                   INTRO + " ".join(f"*{w}*: {WORKLOADS[w]}." for w in WORKLOADS), lines)
