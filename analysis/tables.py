"""The Markdown tables of report.md, built from derive (numbers) only."""

import derive
from derive import Stat
from results import ResultDir, Row

NONE = "–"


def num(x: float) -> str:
    """A number as the report prints it: 2 decimals below 1000, else integer."""
    return f"{x:.2f}" if abs(x) < 1000 else f"{x:.0f}"


def fmt(s: Stat | None) -> str:
    """mean ± stddev (n repeats), or a dash when there is no value."""
    if s is None:
        return NONE
    return f"{num(s.mean)} ± {num(s.std)}" if s.n > 1 else num(s.mean)


def table(header: list[str], body: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    return lines + ["| " + " | ".join(row) + " |" for row in body] + [""]


def section(title: str, intro: str, lines: list[str]) -> list[str]:
    return [f"## {title}", "", intro, ""] + (lines or ["(no data)", ""])


def failed_cells(rd: ResultDir) -> list[str]:
    body = [[r.kernel, str(r.vcpus), r.test, str(r.repeat), r.params_text or NONE,
             r.reason, f"{r.file}:{r.line}"] for r in rd.failed_rows]
    if not body:
        return ["## Failed cells", "", "None: every cell of the sweep succeeded.", ""]
    return section("Failed cells", f"{len(body)} cell(s) failed; their numbers are missing "
                   "below (a dash) or come from the other repeats.",
                   table(["kernel", "vCPUs", "test", "repeat", "params", "reason", "row"], body))


def summary(rows: list[Row], kernels: list[str], vcpus_list: list[int]) -> list[str]:
    body = [[s.kernel, str(s.vcpus), fmt(s.read_ns), fmt(s.callbacks_per_s), fmt(s.gp_median_ns)]
            for s in derive.summary(rows, kernels, vcpus_list)]
    return section("Summary", "Read-side cost with one reader per vCPU (nest=1), call_rcu() "
                   "callbacks invoked per second with one writer per vCPU, median "
                   "synchronize_rcu() latency at load=idle.  mean ± stddev over repeats.",
                   table(["kernel", "vCPUs", "read ns/pair", "callbacks/s", "median GP ns"], body))


def read_side(rows: list[Row], kernels: list[str]) -> list[str]:
    body = []
    for k in kernels:
        for v in derive.vcpus_of(rows, "read", k):
            body.append([k, str(v), fmt(derive.read_cost(rows, k, v, 1)),
                         fmt(derive.read_cost(rows, k, v, 2)),
                         fmt(derive.read_cost(rows, k, v, 1, test="read_mb"))])
    return section("Read side", "ns per rcu_read_lock()/rcu_read_unlock() pair, empty loop "
                   "subtracted, readers = vCPUs.  read_mb adds smp_mb() after lock and before "
                   "unlock: the per-section barriers of a non-amortised design.",
                   table(["kernel", "vCPUs", "nest=1", "nest=2", "read_mb nest=1"], body))


def savings(rows: list[Row]) -> list[str]:
    body = []
    for k in derive.stage_kernels(rows):
        for load in derive.gp_loads(rows, "gp_stages"):
            for s in derive.savings(rows, k, load):
                body.append([k, str(s.vcpus), load, fmt(s.saved_ns), fmt(s.waitmb_ns),
                             fmt(s.break_even)])
    return section("Amortised-barrier savings",
                   "saved = read_mb − read ns per read-side section (the barriers the design "
                   "does not execute); waitmb = the extra time per grace period its waitmb "
                   "stage costs instead; break-even = waitmb / saved, the read sections per "
                   "grace period above which amortising wins.  Stddevs propagated from repeats.",
                   table(["kernel", "vCPUs", "GP load", "saved ns/section", "waitmb ns/GP",
                          "break-even sections/GP"], body))


def gp_stages(rows: list[Row]) -> list[str]:
    body = []
    for k in derive.stage_kernels(rows):
        for v in derive.vcpus_of(rows, "gp_stages", k):
            for load in derive.gp_loads(rows, "gp_stages"):
                t = derive.gp_stage_times(rows, k, v, load)
                if t:
                    body.append([k, str(v), load] + [fmt(t.get(st)) for st in derive.GP_STAGES])
    return section("Grace-period stages", "Mean ns per grace period in each stage "
                   "(debugfs stats of the kernels exposing them).",
                   table(["kernel", "vCPUs", "load"] + [f"{s} ns" for s in derive.GP_STAGES], body))


def refscale(rows: list[Row]) -> list[str]:
    body = [[a.kernel, str(a.vcpus), str(a.readers), fmt(a.ours), fmt(a.refscale),
             f"{a.diff_pct:+.1f}%", "**> 10%**" if a.flagged else "ok"]
            for a in derive.refscale_agreement(rows)]
    return section("Agreement with refscale", "Our read cost per section including the loop "
                   "(ns_per_pair + baseline_ns, as refscale subtracts no empty loop) against "
                   f"refscale's, same kernel and readers; flagged beyond "
                   f"{derive.REFSCALE_TOLERANCE_PCT:g}%.",
                   table(["kernel", "vCPUs", "readers", "rcubench ns", "refscale ns",
                          "difference", "flag"], body))


def callrcu(rows: list[Row], kernels: list[str]) -> list[str]:
    body = []
    for k in kernels:
        for v in derive.vcpus_of(rows, "callrcu", k):
            cell = {m: derive.stat(derive.values(derive.select(rows, "callrcu", m, k, v, writers=v)))
                    for m in ("queued_per_s", "invoked_per_s", "peak_outstanding", "barrier_ns")}
            body.append([k, str(v)] + [fmt(s) for s in cell.values()])
    return section("call_rcu() throughput", "writers = vCPUs.",
                   table(["kernel", "vCPUs", "queued/s", "invoked/s", "peak outstanding",
                          "rcu_barrier ns"], body))


def gp_latency(rows: list[Row], kernels: list[str]) -> list[str]:
    body = []
    for k in kernels:
        for v in derive.vcpus_of(rows, "gp", k):
            for load in derive.gp_loads(rows):
                cell = [derive.stat(derive.values(derive.select(rows, "gp", m, k, v, load=load)))
                        for m in ("median_ns", "p90_ns", "p99_ns", "max_ns")]
                n = derive.gp_samples(rows, k, v, load).size
                if n:
                    body.append([k, str(v), load, str(n)] + [fmt(s) for s in cell])
    return section("Grace-period latency", "synchronize_rcu() latency: the module's per-repeat "
                   "summaries, mean ± stddev over repeats; samples = all repeats pooled.",
                   table(["kernel", "vCPUs", "load", "samples", "median ns", "p90 ns", "p99 ns",
                          "max ns"], body))


def urcu(rows: list[Row]) -> list[str]:
    used = derive.membarrier_used(rows)
    body = []
    for f in derive.urcu_flavours(rows):
        for n in derive.vcpus_of(rows, "urcu"):
            s = derive.urcu_cost(rows, f, n)
            if s:
                body.append([f"urcu-{f}", str(n), fmt(s), "/".join(sorted(used.get(f, set()))) or NONE])
    return section("Native liburcu anchor", "Userspace RCU on the host's real CPUs "
                   "(kernel=host, accel=native): urcu-mb executes the barriers per section, "
                   "urcu-memb amortises them with membarrier() (membarrier=0: the library "
                   "fell back to barriers), urcu-qsbr has none.  Real-hardware scale for the "
                   "TCG guest numbers above.",
                   table(["flavour", "reader threads", "ns/pair", "membarrier"], body))
