"""The Markdown tables of report.md, built from derive (numbers) only.

Every estimate is printed as median [95% bootstrap interval] unit (n boots);
every guest cell says whether it was overcommitted (vCPUs >= host CPUs:
shown, never used for a headline ratio) and which of its boots the boots
record flags for host load.  A column with the same value in every row is
said once above its table (table()).
"""

import derive
import units
from resultdir import ResultDir
from units import NONE


def constant_columns(header: list[str], body: list[list[str]]) -> list[int]:
    """The columns with one value in every row of two or more (all of them
    constant: none, the rows would vanish)."""
    if len(body) < 2:
        return []
    same = [i for i in range(len(header)) if len({row[i] for row in body}) == 1]
    return same if len(same) < len(header) else []


def table(header: list[str], body: list[list[str]]) -> list[str]:
    """A Markdown table; a column whose value is the same in every row is
    said once in a line above it instead of repeated in each row."""
    same = constant_columns(header, body)
    note = (["Same in every row: " + "; ".join(f"{header[i]}: {body[0][i]}" for i in same)
             + ".", ""] if same else [])
    keep = [i for i in range(len(header)) if i not in same]
    lines = ["| " + " | ".join(header[i] for i in keep) + " |", "|" + " --- |" * len(keep)]
    return note + lines + ["| " + " | ".join(row[i] for i in keep) + " |" for row in body] + [""]


def section(title: str, intro: str, lines: list[str]) -> list[str]:
    return [f"## {title}", "", intro, ""] + (lines or ["(no data)", ""])


def mark(rd: ResultDir, kernel: str, vcpus: int) -> str:
    """'overcommitted', 'flagged boots 2,3', both, or a dash."""
    notes = ["overcommitted"] if rd.overcommitted(kernel, vcpus) else []
    flagged = rd.flagged_repeats(kernel, vcpus)
    if flagged:
        notes.append("flagged boots " + ",".join(str(r) for r in flagged))
    return "; ".join(notes) or NONE


def failed_cells(rd: ResultDir) -> list[str]:
    body = [[r.kernel, str(r.vcpus), r.test, str(r.repeat), r.params_text or NONE,
             r.reason, f"{r.file}:{r.line}"] for r in rd.failed_rows]
    if not body:
        return ["## Failed cells", "", "None: every cell of the sweep succeeded.", ""]
    return section("Failed cells", f"{len(body)} cell(s) failed; their numbers are missing "
                   "below (a dash) or come from the other boots.",
                   table(["kernel", "vCPUs", "test", "repeat", "params", "reason", "row"], body))


def _cells(rd: ResultDir, test: str, kernels: list[str], columns: list) -> list[list[str]]:
    """One row per (kernel, vCPUs) of test: estimate cells of columns' (fn, unit)."""
    rows = rd.ok_rows
    return [[k, str(v)] + [units.cell(derive.cell_estimate(fn, rows, k, v), unit)
                           for fn, unit in columns] + [mark(rd, k, v)]
            for k in kernels for v in derive.vcpus_of(rows, test, k)]


def read_side(rd: ResultDir, kernels: list[str]) -> list[str]:
    columns = [(derive.read_boots, "ns"),
               (lambda rs, k, v: derive.read_boots(rs, k, v, nest=2), "ns"),
               (lambda rs, k, v: derive.read_boots(rs, k, v, test="read_mb"), "ns"),
               (derive.barrier_boots, "ns")]
    return section("Read side", "Wall-clock time per rcu_read_lock()/rcu_read_unlock() pair "
                   "under TCG, empty loop subtracted within each run, readers = vCPUs.  "
                   "read_mb adds smp_mb() after lock and before unlock (the per-section "
                   "barriers of a non-amortised design); read_mb − read is taken within each "
                   "boot, then the median over boots.  Negative values are reported as "
                   "measured.  At 1 vCPU TCG runs the vCPU non-parallel and emits no host "
                   "fence for smp_mb(): read_mb − read there is the emulation of two "
                   "instructions, not a barrier's cost (the counted balance below models "
                   "that); at more vCPUs than the host has CPUs it is overcommitted.",
                   table(["kernel", "vCPUs", "nest=1", "nest=2", "read_mb nest=1",
                          "read_mb − read", "cell"], _cells(rd, "read", kernels, columns)))


def gp_latency(rd: ResultDir, kernels: list[str]) -> list[str]:
    body = []
    for load in derive.gp_loads(rd.ok_rows):
        for sp in derive.gp_spacings(rd.ok_rows):
            columns = [(lambda rs, k, v, ld=load, s=sp: derive.gp_boots(rs, k, v, ld,
                                                                         spacing=s), "ns"),
                       (lambda rs, k, v, ld=load, s=sp: derive.gp_boots(
                           rs, k, v, ld, "latency_ticks", s), "ticks"),
                       (lambda rs, k, v, ld=load, s=sp: derive.per_boot(
                           r for r in derive.select(rs, "gp", "p90_ns", k, v, load=ld)
                           if derive.gp_spacing(r) == s), "ns")]
            body += [[row[0], row[1], load, sp.replace("_", " ")] + row[2:] for row in
                     _cells(rd, "gp", kernels, columns) if any(c != NONE for c in row[2:5])]
    return section("Grace-period latency", "synchronize_rcu() latency: each boot's median "
                   "over its samples, then the median over boots; p90 is the module's per-boot "
                   "90th percentile.  Spacing: *lone* after 40 idle ticks at a random phase "
                   "within a tick, *back to back* right after the previous returned, "
                   "*unspecified* (older sweeps) 1-2 ticks after the previous, a mixture.",
                   table(["kernel", "vCPUs", "load", "spacing", "median", "median ticks", "p90",
                          "cell"], body))


def capacity_bound(rd: ResultDir, kernel: str, vcpus: int) -> str:
    """'CPU', 'backlog (limit reached in n of m boots)', or a dash."""
    bound = derive.backlog_bound_boots(rd.ok_rows, kernel, vcpus)
    hit = sum(bound.values())
    if not bound:
        return NONE
    return "CPU" if not hit else f"**backlog** (limit reached in {hit:g} of {len(bound)} boots)"


def insns_cell(rd: ResultDir, kernel: str, vcpus: int) -> str:
    n = derive.insns_per_callback(rd.ok_rows, kernel, vcpus)
    return NONE if n is None else units.sig(n)


def callrcu(rd: ResultDir, kernels: list[str]) -> list[str]:
    cost = _cells(rd, "callrcu_cost", kernels, [(derive.callrcu_cost_boots, "ns")])
    cap_columns = [(derive.cpu_capacity_boots, "1/s"), (derive.backlog_rate_boots, "1/s")] + [
        (lambda rs, k, v, m=m: derive.capacity_boots(rs, k, v, m), u)
        for m, u in (("queued_per_s", "1/s"), ("limit_ratio", "ratio"),
                     ("backlog_end", "count"), ("drain_ns", "ns"))]
    cap = [row[:2] + [capacity_bound(rd, row[0], int(row[1]))] + row[2:-1]
           + [insns_cell(rd, row[0], int(row[1])), row[-1]]
           for row in _cells(rd, "callrcu_capacity", kernels, cap_columns)]
    return (section("call_rcu() cost", "CPU time per call_rcu() (preallocated heads, no "
                    "allocation), writers = vCPUs.",
                    table(["kernel", "vCPUs", "ns per call", "cell"], cost)) +
            section("call_rcu() capacity", "Callbacks invoked per second while writers post "
                    "as fast as they can, each with a bounded backlog of heads.  *CPU*-bound: "
                    "no writer ever found its backlog full (the profiles set the limit far "
                    "above rate × window), so the rate is what the CPU sustains.  "
                    "*backlog*-bound boots (a writer waited for a full backlog: older sweeps "
                    "with max_backlog=10000) give max_backlog / callback latency, a grace-"
                    "period latency restated, in their own column and never as a capacity.  "
                    "limit ratio = peak outstanding / max_backlog; a rate with a large backlog "
                    "at the end is a lower bound; drain = the rcu_barrier() that empties it; "
                    "insns per callback: the RCU core's instructions per callback invoked "
                    "(count_callrcu, exact).",
                    table(["kernel", "vCPUs", "bound by", "invoked/s (CPU-bound)",
                           "invoked/s (backlog-bound)", "queued/s", "limit ratio",
                           "backlog at end", "drain", "insns per callback", "cell"], cap)) +
            callrcu_memory(rd, kernels))


def callrcu_memory(rd: ResultDir, kernels: list[str]) -> list[str]:
    """Memory held by callbacks at each fixed call rate of the sweep."""
    body = []
    for rate in derive.memory_rates(rd.ok_rows):
        columns = [(lambda rs, k, v, m=m, r=rate: derive.memory_boots(rs, k, v, m, r), u)
                   for m, u in (("calls_per_s", "1/s"), ("cb_latency_mean_ns", "ns"),
                                ("outstanding_mean", "count"), ("outstanding_max", "count"),
                                ("bytes_mean", "bytes"), ("bytes_max", "bytes"))]
        body += [row[:2] + [units.value(rate, "1/s")] + row[2:]
                 for row in _cells(rd, "callrcu_memory", kernels, columns)]
    return section("Memory held by callbacks", "One writer calls call_rcu() at a fixed rate "
                   "(a batch per tick); outstanding = callbacks posted and not yet invoked: "
                   "mean over the window (Little's law: the callbacks' summed latency over "
                   "the window's length) and maximum; bytes = outstanding × the size of the "
                   "object each callback frees.  The price of a longer grace period: at "
                   "a fixed rate, memory held grows with the callback latency.",
                   table(["kernel", "vCPUs", "rate", "calls/s", "callback latency",
                          "outstanding (mean)", "outstanding (max)", "bytes (mean)",
                          "bytes (max)", "cell"], body))


def gp_stages(rd: ResultDir) -> list[str]:
    body = []
    for k in derive.stage_kernels(rd.ok_rows):
        for v in derive.vcpus_of(rd.ok_rows, "gp_stages", k):
            for load in derive.gp_loads(rd.ok_rows, "gp_stages"):
                t = derive.gp_stage_times(rd.ok_rows, k, v, load)
                if t:
                    body.append([k, str(v), load] + [units.cell(t.get(s), "ns")
                                                      for s in derive.GP_STAGES]
                                + [mark(rd, k, v)])
    return section("Grace-period stages", "Time per grace period in each stage (debugfs "
                   "stats of the kernels exposing them), median over boots.",
                   table(["kernel", "vCPUs", "load"] + list(derive.GP_STAGES) + ["cell"], body))


def agreement_flag(a: derive.Agreement) -> str:
    tol = f"{derive.REFSCALE_TOLERANCE_PCT:g}%"
    if a.resolved:
        return f"**beyond {tol}**"
    return f"beyond {tol}, interval reaches ±{tol}" if a.flagged else "ok"


def refscale(rd: ResultDir) -> list[str]:
    body = [[a.kernel, str(a.vcpus), str(a.readers), units.cell(a.ours, "ns"),
             units.cell(a.refscale, "ns"), units.ratio(a.ratio),
             agreement_flag(a)] for a in derive.refscale_agreement(rd.ok_rows)]
    return section("Agreement with refscale", "Our read cost per section including the loop "
                   "(ns_per_pair + baseline_ns of the same boot, as refscale subtracts no "
                   "empty loop) against refscale's, same kernel and readers; flagged when "
                   f"the ratio of medians is off 1 by more than "
                   f"{derive.REFSCALE_TOLERANCE_PCT:g}%, in bold when its whole interval "
                   "is.  Per boot: csv/agreement.csv.",
                   table(["kernel", "vCPUs", "readers", "rcubench", "refscale",
                          "ratio [95% CI]", "flag"], body))


def urcu(rd: ResultDir) -> list[str]:
    rows, used = rd.ok_rows, derive.membarrier_used(rd.ok_rows)
    body = []
    for f in derive.urcu_flavours(rows):
        for n in derive.vcpus_of(rows, "urcu"):
            e = derive.estimate(derive.urcu_boots(rows, f, n))
            if e:
                body.append([f"urcu-{f}", str(n), units.cell(e, "ns"),
                             "/".join(sorted(used.get(f, set()))) or NONE])
    return section("Native liburcu anchor", "Userspace RCU on the host's real CPUs "
                   "(kernel=host, accel=native): urcu-mb executes the barriers per section, "
                   "urcu-memb amortises them with membarrier() (membarrier=0: the library "
                   "fell back to barriers), urcu-qsbr has none.  Real-hardware scale for the "
                   "TCG guest numbers above.",
                   table(["flavour", "reader threads", "per pair", "membarrier"], body))
