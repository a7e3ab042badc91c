"""The cost model: exact instruction counts (rbcount TCG plugin rows) x the
host's per-class costs (calib rows) -> modelled ns.

Inputs are results rows (resultdir.Row, or anything with the attributes
kernel, vcpus, test, params (dict), metric, value, status): count_read,
count_read_mb and count_gp from workloads/tcg-plugin/count_rows.py, and calib
from workloads/calibrate/run.sh (host costs per instruction class).

Modelled ns = sum over classes of count x cost, always a range [low, high]:
low with every class at its low cost, high at its high cost.  A native
calib op's range is [min of ns_per_op_low, max of ns_per_op_high] over its
repeats (the quartiles of each run); a published op's is the table's range.
The decomposition counts each instruction once:

  class            count     cost (calib op)        instructions the op covers
  locked           locked    locked_add             1
  fence            fences    mfence                 1
  cli, sti         cli, sti  cli, sti (published)   1
  flags save       pushf     pushf_pop              2 (pushf; pop %reg)
  flags restore    popf      push_popf              2 (push %reg; popf)
  per-CPU access   percpu    gs_inc                 1
  call             calls     call_ret               1 (+ the ret, below)
  return           rets      (inside call_ret)      1
  plain            the rest of insns: alu (a dependent add: 1 cycle)

Costs are serial (no overlap between instructions), so plain instructions
lean high; locked and fences dominate wherever they occur.  count_gp has
only insns, fences and locked: its other instructions are charged as plain.

The amortised-barrier balance, for the kernels whose readers rely on the
grace-period machine's barriers (the flip-counter design, FAMILY
rcupreempt: amortised()); the others' readers need no barrier in any
design, so a balance against them would mean nothing and is not drawn.
The per-section design spends read_mb - read per section (smp_mb() after
lock and before unlock: 2 locked on x86), counted and modelled: the
wall-clock read_mb - read is no barrier's cost where the summary could
use it (at 1 vCPU TCG is non-parallel and emits no host fence).  The
grace-period side is what the kernel's grace-period machine spends per
grace period per CPU (count_gp: core_insns_gp_machine, on preempt
rcu_try_flip(), noinline since patch 0004 with its four state functions
inlined into it, and rcu_try_flip_set_state(), the state change and the
statistics of 0006), with all the core's fences and locked instructions,
as the plugin does not split those by group: they are charged at their
cost and taken out of the machine's instructions, the rest of which are
plain, so none is counted twice; barriers outside the machine
(rcu_check_mb in the tick on preempt) make its plain part lean low by as
many instructions).  Break-even = grace-period side / per-section side,
in read sections per grace period per CPU, in barrier instructions and in
modelled ns: both are CPU costs.

The replay (workloads/replay, rows of test replay) checks the model: each
kernel's read pair, rewritten from its disassembly, run natively on the
host.  replay_section() puts per kernel the replayed ns/pair (cli/sti
excluded: they cannot run at CPL 3) beside the modelled range of the same
instructions, the modelled cli/sti share (from published.csv, whose family
may not be the host's: it says so), and published anchors.

Report entry points: count_section(rows), barrier_balance_section(rows),
replay_section(rows, host_cpu) (Markdown strings); report_section(rd,
kernels), replay_report(rd), headline(rd, kernel, base), break_even(rd,
kernel, base) (Markdown lines) for summary.py / report.py.
"""

import csv
import statistics
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional, Protocol

import suiteconf
import tables
import units

NA = "n/a"
READ_PARAMS = {"nest": "1", "irqs": "on"}
GP_LOADS = ("idle", "readers")
# Count metric -> (calib op or None: no own cost, instructions taken out of
# the plain class per count); "insns" is the total the plain class comes from.
READ_CLASSES = {"locked": ("locked_add", 1), "fences": ("mfence", 1), "cli": ("cli", 1),
                "sti": ("sti", 1), "pushf": ("pushf_pop", 2), "popf": ("push_popf", 2),
                "percpu": ("gs_inc", 1), "calls": ("call_ret", 1), "rets": (None, 1)}
GP_CLASSES = {"core_locked": ("locked_add", 1), "core_fences": ("mfence", 1)}
PLAIN_OP = "alu"
# The RCU family whose readers' correctness rests on the grace-period
# machine's barriers (per-CPU flip counters summed by waitzero).
AMORTISED_FAMILY = "rcupreempt"


class RowLike(Protocol):
    kernel: str
    vcpus: int
    test: str
    params: dict
    metric: str
    value: Optional[float]
    status: str


@dataclass(frozen=True)
class Range:
    low: float
    high: float

    def __add__(self, other: "Range") -> "Range":
        return Range(self.low + other.low, self.high + other.high)

    def scale(self, k: float) -> "Range":
        return Range(self.low * k, self.high * k)


@dataclass(frozen=True)
class Model:
    """A modelled cost, or None with the reason it cannot be given."""

    ns: Optional[Range]
    reason: str = ""


def ok_rows(rows: Iterable[RowLike]) -> list[RowLike]:
    return [r for r in rows if r.status == "ok" and r.value is not None]


def matches(params: dict, want: dict) -> bool:
    return all(params.get(k) == v for k, v in want.items())


def counts(rows: list[RowLike], test: str, kernel: str, vcpus: int,
           want: dict) -> dict[str, float]:
    """metric -> median over boots of test's rows in (kernel, vcpus) whose
    params match want (counts are exact: boots agree but for interrupts)."""
    values: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        if (r.test, r.kernel, r.vcpus) == (test, kernel, vcpus) and matches(r.params, want):
            values[r.metric].append(float(r.value))
    return {m: statistics.median(v) for m, v in values.items()}


def costs(rows: list[RowLike]) -> dict[str, Range]:
    """calib op -> cost range in ns over all its repeats."""
    low: dict[str, list[float]] = defaultdict(list)
    high: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        if r.test != "calib" or "op" not in r.params:
            continue
        op = r.params["op"]
        if r.metric in ("ns_per_op", "ns_per_op_low"):
            low[op].append(float(r.value))
        if r.metric in ("ns_per_op", "ns_per_op_high"):
            high[op].append(float(r.value))
    return {op: Range(min(low[op]), max(high[op])) for op in low if high.get(op)}


def model(count: dict[str, float], classes: dict[str, tuple[Optional[str], int]], total: str,
          cost: dict[str, Range]) -> Model:
    """Modelled ns of count: each class at its op's cost, the rest of total
    at the plain cost (see the table in the module's doc)."""
    if total not in count:
        return Model(None, f"no {total} count")
    ns, special = Range(0.0, 0.0), 0.0
    for metric, (op, width) in classes.items():
        n = count.get(metric)
        if n is None:
            return Model(None, f"no {metric} count")
        special += n * width
        if op is None or n == 0:
            continue
        if op not in cost:
            return Model(None, f"no calib cost for {op}")
        ns += cost[op].scale(n)
    plain = max(count[total] - special, 0.0)
    if plain and PLAIN_OP not in cost:
        return Model(None, f"no calib cost for {PLAIN_OP}")
    return Model(ns + cost[PLAIN_OP].scale(plain) if plain else ns)


def read_model(count: dict[str, float], cost: dict[str, Range]) -> Model:
    return model(count, READ_CLASSES, "insns", cost)


def gp_model(count: dict[str, float], cost: dict[str, Range], total: str = "core_insns") -> Model:
    return model(count, GP_CLASSES, total, cost)


# --- formatting -------------------------------------------------------------

def num(x: Optional[float]) -> str:
    """A count: whole numbers below 1000 as they are, else 3 significant digits."""
    if x is None:
        return NA
    return str(int(x)) if x == round(x) and abs(x) < 1000 else units.value(x, "count")


def ns_range(m: Model, label: str = " modelled") -> str:
    """'[1.23, 4.56] ns modelled', both ends in the high end's unit (label
    left out where a column says the figure is a model)."""
    if m.ns is None:
        return f"{NA} ({m.reason})"
    lo, hi = m.ns.low, m.ns.high
    text_hi = units.value(hi, "ns")
    unit = text_hi.partition(" ")[2]
    text_lo = units.value(lo, "ns", ref=hi).partition(" ")[0]
    return f"[{text_lo}, {text_hi.partition(' ')[0]}] {unit}{label}"


def ratio_range(a: Optional[Range], b: Optional[Range]) -> str:
    """a / b as a range: [a.low / b.high, a.high / b.low]."""
    if a is None or b is None or b.low <= 0:
        return NA
    return f"[{units.sig(a.low / b.high)}, {units.sig(a.high / b.low)}]"


def table(header: list[str], body: list[list[str]]) -> list[str]:
    """The report's table (constant columns said once above it), without
    the blank line after it."""
    return tables.table(header, body)[:-1]


def kernels_vcpus(rows: list[RowLike], tests: tuple[str, ...]) -> list[tuple[str, int]]:
    return sorted({(r.kernel, r.vcpus) for r in rows if r.test in tests})


def gp_count(rows: list[RowLike], kernel: str, vcpus: int) -> tuple[str, dict[str, float]]:
    """count_gp per CPU at the first load of GP_LOADS that has rows."""
    for load in GP_LOADS:
        c = counts(rows, "count_gp", kernel, vcpus, {"load": load})
        if c:
            return load, c
    return "", {}


# The calib ops that price instruction classes (the others, line_transfer,
# price cache-line transfers: no part of these models).
INSTRUCTION_OPS = {op for op, _ in (*READ_CLASSES.values(), *GP_CLASSES.values()) if op} | {PLAIN_OP}


def cost_note(cost: dict[str, Range]) -> str:
    cost = {op: c for op, c in cost.items() if op in INSTRUCTION_OPS}
    if not cost:
        return "No calib rows (workloads/calibrate/run.sh): modelled ns are n/a."
    parts = [f"{op} [{units.sig(c.low)}, {units.sig(c.high)}]" for op, c in sorted(cost.items())]
    return "Costs per instruction class (ns, calib rows of this directory): " + ", ".join(parts) + "."


# --- the count table ---------------------------------------------------------

def has_kernel_gps(rows: list[RowLike]) -> bool:
    """Sweeps before rcubench.ko read rcu_get_gp_seq() have no such rows."""
    return any(r.test == "count_gp" and r.metric == "kernel_gps_per_sync" for r in rows)


def count_rows(rows: list[RowLike], cost: dict[str, Range], kernel_gps: bool) -> list[list[str]]:
    """The count table's body; kernel_gps: with the kernel-GPs column."""
    body = []
    for kernel, vcpus in kernels_vcpus(rows, ("count_read", "count_gp")):
        read = counts(rows, "count_read", kernel, vcpus, READ_PARAMS)
        load, gp = gp_count(rows, kernel, vcpus)
        read_ns = ns_range(read_model(read, cost)) if read else f"{NA} (no count_read rows)"
        gp_ns = ns_range(gp_model(gp, cost)) if gp else f"{NA} (no count_gp rows)"
        body.append([kernel, str(vcpus)]
                    + [num(read.get(m)) for m in ("insns", "fences", "locked", "irqflag", "percpu")]
                    + [read_ns, load or NA]
                    + ([num(gp.get("kernel_gps_per_sync"))] if kernel_gps else [])
                    + [num(gp.get(m)) for m in ("core_insns", "core_fences", "core_locked")]
                    + [gp_ns])
    return body


def count_section(rows: Iterable[RowLike]) -> str:
    """The report's first table: counts per read pair and per grace period per CPU."""
    rows = ok_rows(rows)
    lines = ["## Executed instructions (exact counts, TCG plugin) and modelled cost", ""]
    cost = costs(rows)
    kernel_gps = has_kernel_gps(rows)
    body = count_rows(rows, cost, kernel_gps)
    if not body:
        return "\n".join(lines + ["No count_read / count_gp rows in this directory (plugin "
                                  "boots: workloads/boot.sh --plugin).", ""])
    lines += ["Per rcu_read_lock()/rcu_read_unlock() pair (nest 1, interrupts on, the empty "
              "loop subtracted) and per grace period per CPU (the RCU core's instructions on "
              "all CPUs over a synchronize_rcu(), divided by the CPUs"
              + ("; \"kernel GPs\" is how far the kernel's own grace-period counter moved per "
                 "synchronize_rcu(): Classic batches, flip-counter stages, Tree grace periods"
                 if kernel_gps else "")
              + ").  On x86 smp_mb() is a locked add, not a fence: barriers show as \"locked\".  "
              "Modelled ns = counts x this host's per-class costs: a model, not a measurement "
              "(analysis/costmodel.py gives the decomposition).", ""]
    lines += table(["kernel", "vCPUs", "insns/pair", "fences", "locked", "irqflag", "per-CPU",
                    "read pair, ns", "GP load"] + (["kernel GPs"] if kernel_gps else [])
                   + ["GP insns/CPU", "GP fences/CPU", "GP locked/CPU", "GP, ns/CPU"], body)
    return "\n".join(lines + ["", cost_note(cost), ""])


# --- the amortised-barrier balance --------------------------------------------

@dataclass(frozen=True)
class Balance:
    kernel: str
    vcpus: int
    load: str
    section_barriers: Optional[float]   # barriers read_mb adds per section
    section: Model                      # its modelled ns
    gp_barriers: Optional[float]        # fences + locked per GP per CPU
    gp_insns: Optional[float]           # gp_machine instructions per GP per CPU
    gp: Model                           # modelled ns of the grace-period side


def section_delta(rows: list[RowLike], kernel: str, vcpus: int) -> dict[str, float]:
    """count_read_mb - count_read per metric (same kernel, vCPUs, params)."""
    mb = counts(rows, "count_read_mb", kernel, vcpus, READ_PARAMS)
    plain = counts(rows, "count_read", kernel, vcpus, READ_PARAMS)
    return {m: mb[m] - plain[m] for m in mb if m in plain and not m.startswith("base_")}


def balance(rows: list[RowLike], kernel: str, vcpus: int, cost: dict[str, Range]) -> Balance:
    delta = section_delta(rows, kernel, vcpus)
    load, gp = gp_count(rows, kernel, vcpus)
    sec_barriers = (delta["locked"] + delta["fences"]) if {"locked", "fences"} <= delta.keys() else None
    sec = read_model(delta, cost) if delta else Model(None, "no count_read_mb and count_read rows")
    gp_barriers = (gp["core_locked"] + gp["core_fences"]) \
        if {"core_locked", "core_fences"} <= gp.keys() else None
    if not gp:
        gp_side = Model(None, "no count_gp rows")
    else:
        gp_side = gp_model(gp, cost, "core_insns_gp_machine")
    return Balance(kernel, vcpus, load, sec_barriers, sec, gp_barriers,
                   gp.get("core_insns_gp_machine"), gp_side)


def amortised(kernel: str) -> bool:
    """Whether KERNEL's readers need barriers that its grace-period machine
    amortises (configs/KERNEL/facts FAMILY); False for an unknown kernel."""
    return suiteconf.kernel_family(kernel) == AMORTISED_FAMILY


def balances(rows: list[RowLike]) -> list[Balance]:
    cost = costs(rows)
    return [balance(rows, k, v, cost)
            for k, v in kernels_vcpus(rows, ("count_read_mb", "count_gp")) if amortised(k)]


def even_counts(b: Balance) -> str:
    if b.gp_barriers is None or not b.section_barriers:
        return NA
    return units.sig(b.gp_barriers / b.section_barriers)


def balance_row(b: Balance) -> list[str]:
    return [b.kernel, str(b.vcpus), num(b.section_barriers), ns_range(b.section), b.load or NA,
            num(b.gp_insns), num(b.gp_barriers), ns_range(b.gp), even_counts(b),
            ratio_range(b.gp.ns, b.section.ns)]


def barrier_balance_section(rows: Iterable[RowLike]) -> str:
    """Per-section barriers against the grace-period side, on counts."""
    rows = ok_rows(rows)
    lines = ["## Amortised barriers: per-section barriers against the grace-period side "
             "(counts)", ""]
    found = balances(rows)
    if not found:
        return "\n".join(lines + ["No count_read_mb / count_gp rows of a kernel whose "
                                  f"readers rely on amortised barriers (family "
                                  f"{AMORTISED_FAMILY}) in this directory.", ""])
    lines += ["Only the flip-counter design (family rcupreempt) has readers that need "
              "barriers its grace-period machine amortises; the other kernels' readers need "
              "none in any design, so they have no row.  Per section: what smp_mb() after "
              "lock and before unlock adds (count_read_mb − count_read), counted and "
              "modelled.  Grace-period side: the grace-period machine's instructions "
              "(core_insns_gp_machine: rcu_try_flip(), out of line since patch 0004 with its "
              "states inlined, and rcu_try_flip_set_state()) and all the RCU core's "
              "fences and locked instructions, per grace period per CPU.  Break-even: read "
              "sections per grace period per CPU at which both designs spend the same "
              "(barrier instructions; modelled ns as a range).  Above it the per-grace-period "
              "design is cheaper.", ""]
    lines += table(["kernel", "vCPUs", "barriers/section", "section, ns", "GP load",
                    "GP machine insns/CPU", "GP barriers/CPU", "GP side, ns/CPU",
                    "break-even (barriers)", "break-even (modelled ns)"],
                   [balance_row(b) for b in found])
    return "\n".join(lines + [""])


# --- summary.py / report.py hooks ------------------------------------------------

def report_section(rd, kernels: list[str]) -> list[str]:
    rows = [r for r in ok_rows(rd.rows) if r.kernel in kernels or r.test == "calib"]
    return (count_section(rows) + "\n" + barrier_balance_section(rows)).splitlines() + [""]


def largest_vcpus(rd, rows: list[RowLike], test: str, *kernels: str) -> Optional[int]:
    """The largest vCPU count all kernels have test rows at, preferring cells
    below the host's CPU count (counts are exact, but the summary's figures
    come from cells that are not overcommitted wherever there are some)."""
    have = [{r.vcpus for r in rows if r.test == test and r.kernel == k} for k in kernels]
    common = set.intersection(*have) if have else set()
    calm = {v for v in common if not any(rd.overcommitted(k, v) for k in kernels)}
    return max(calm or common) if common else None


@dataclass(frozen=True)
class ReadPairs:
    """The counted read pair of kernel and base at the summary's vCPU count,
    with their modelled ns."""

    vcpus: int
    kernel: dict[str, float]
    base: dict[str, float]
    kernel_model: Model
    base_model: Model


def read_pairs(rd, kernel: str, base: str) -> Optional[ReadPairs]:
    """None when the two kernels have no count_read rows at a common vCPU count."""
    rows = ok_rows(rd.rows)
    vcpus = largest_vcpus(rd, rows, "count_read", kernel, base)
    if vcpus is None:
        return None
    cost = costs(rows)
    k, b = (counts(rows, "count_read", x, vcpus, READ_PARAMS) for x in (kernel, base))
    return ReadPairs(vcpus, k, b, read_model(k, cost), read_model(b, cost))


def headline(rd, kernel: str, base: str) -> list[str]:
    pairs = read_pairs(rd, kernel, base)
    if pairs is None:
        return ["- **Read side, counted**: no count_read rows for both kernels."]
    vcpus, k, b = pairs.vcpus, pairs.kernel, pairs.base
    return [f"- **Read side, counted**: at {vcpus} vCPU{'s' if vcpus > 1 else ''}, a read "
            f"pair executes {num(k.get('insns'))} instructions ({num(k.get('locked'))} locked, "
            f"{num(k.get('fences'))} fences, {num(k.get('irqflag'))} interrupt-flag) on {kernel} "
            f"against {num(b.get('insns'))} ({num(b.get('locked'))}, {num(b.get('fences'))}, "
            f"{num(b.get('irqflag'))}) on {base}: {ns_range(pairs.kernel_model)} against "
            f"{ns_range(pairs.base_model)}."]


def break_even(rd, kernel: str, base: str) -> list[str]:
    """The balance line of KERNEL's summary; none for a kernel whose readers
    need no barriers in any design."""
    if not amortised(kernel):
        return []
    rows = ok_rows(rd.rows)
    vcpus = largest_vcpus(rd, rows, "count_gp", kernel)
    if vcpus is None or largest_vcpus(rd, rows, "count_read_mb", kernel) is None:
        return [f"- **Amortised barriers, balance**: no count_gp / count_read_mb rows for "
                f"{kernel}."]
    b = balance(rows, kernel, vcpus, costs(rows))
    return [f"- **Amortised barriers, balance**: on {kernel} at {vcpus} vCPU"
            f"{'s' if vcpus > 1 else ''}, per-section smp_mb() adds {num(b.section_barriers)} "
            f"barriers ({ns_range(b.section)}) per section; the grace-period machine spends "
            f"{num(b.gp_barriers)} barriers ({ns_range(b.gp)}) per grace period per CPU: "
            f"break-even at {even_counts(b)} sections per grace period per CPU in barriers, "
            f"{ratio_range(b.gp.ns, b.section.ns)} in modelled ns."]


# --- the replay: the model against the read pair run natively -----------------------

REPLAY_TEST = "replay"
REPLAY_TIMES = ("ns_per_pair", "ns_per_pair_low", "ns_per_pair_high", "baseline_ns", "cycle_ns",
                "cycles_per_pair")
PUBLISHED_CSV = Path(__file__).resolve().parent.parent / "workloads" / "calibrate" / "published.csv"
# Published read-pair costs to put beside each kernel (shared/ANCHORS.md: the
# sources, and why the hardware and kernels differ from ours).
ANCHORS = {
    "tree-preempt": "preemptible Tree RCU: about 2.9 ns/pair on 1 CPU, 3.7-4.1 ns up to 192 "
                    "(refscale under kvm.sh, 2.1 GHz Xeon Platinum 8176; perfbook "
                    "defer/rcuusage.tex, CodeSamples/defer/data/rcuscale.hps.2020.05.28a/)",
    "tree": "non-preemptible Tree RCU: about 0.27 ns/pair, an artefact: no instructions "
            "(same perfbook data)",
    "classic-preempt": "Classic RCU on CONFIG_PREEMPT (2.6.23, debug build): 6.05 ns/pair on "
                       "1 CPU, 5.63 on 16 (3 GHz Intel, 2007; perfbook "
                       "CodeSamples/defer/data/OLD-3a20/)",
    "preempt": "none published for the 2007 flip-counter design (ANCHORS.md lists candidates)",
    "classic": "none (rcu_read_lock() is barrier(): no instructions)",
}
CLI_STI = ("cli", "sti")


@dataclass(frozen=True)
class Replay:
    """One kernel's replayed pair against its modelled cost."""

    kernel: str
    counts: dict[str, float]         # per-pair classes the replay executed
    ns: Optional[Range]              # replayed ns/pair: [Q1, Q3]
    median: Optional[float]
    guest_insns: Optional[float]     # count_read's insns, when the directory has them
    model: Model                     # all the pair's instructions, cli/sti included
    cli_sti: Model                   # the cli and sti part of it
    cycles: Optional[float] = None   # replayed cycles/pair (each run's own cycle time)
    cycle_ns: Optional[Range] = None  # the calib cycle time (alu) the model used
    empty_cycles: Optional[float] = None  # the empty loop's iteration: 1 on an idle core

    def replayed_ns(self) -> Optional[Range]:
        """The replay at the model's cycle time, [low, high] as the model's ends:
        the comparison does not depend on the clock speed of either run.  Without
        cycles (older rows), the replay's median ns at both ends."""
        if self.cycles is not None and self.cycle_ns is not None:
            return self.cycle_ns.scale(self.cycles)
        return Range(self.median, self.median) if self.median is not None else None


def replay_rows(rows: list[RowLike]) -> dict[str, dict[str, float]]:
    """kernel (params) -> metric -> median over repeats of test replay."""
    values: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r.test == REPLAY_TEST and "kernel" in r.params:
            values[r.params["kernel"]][r.metric].append(float(r.value))
    return {k: {m: statistics.median(v) for m, v in ms.items()} for k, ms in values.items()}


def guest_count(rows: list[RowLike], kernel: str) -> dict[str, float]:
    """count_read of kernel at its fewest vCPUs (exact: vCPUs do not change it)."""
    have = sorted({r.vcpus for r in rows if r.test == "count_read" and r.kernel == kernel})
    return counts(rows, "count_read", kernel, have[0], READ_PARAMS) if have else {}


def cli_sti_model(count: dict[str, float], cost: dict[str, Range]) -> Model:
    ns = Range(0.0, 0.0)
    for op in CLI_STI:
        n = count.get(op, 0.0)
        if n and op not in cost:
            return Model(None, f"no calib cost for {op}")
        if n:
            ns += cost[op].scale(n)
    return Model(ns)


def replays(rows: list[RowLike]) -> list[Replay]:
    """Every kernel with replay rows, and every kernel with count_read rows
    but none (not replayed: modelled from the guest's counts alone)."""
    cost = costs(rows)
    replayed = replay_rows(rows)
    counted = {r.kernel for r in rows if r.test == "count_read"}
    out = []
    for kernel in sorted(replayed.keys() | counted):
        guest = guest_count(rows, kernel)
        m = replayed.get(kernel, {})
        c = {k: v for k, v in m.items() if k not in REPLAY_TIMES} or guest
        ns = Range(m["ns_per_pair_low"], m["ns_per_pair_high"]) \
            if {"ns_per_pair_low", "ns_per_pair_high"} <= m.keys() else None
        out.append(Replay(kernel, c, ns, m.get("ns_per_pair"), guest.get("insns"),
                          read_model(c, cost), cli_sti_model(c, cost),
                          m.get("cycles_per_pair"), cost.get(PLAIN_OP),
                          m["baseline_ns"] / m["cycle_ns"] if m.get("cycle_ns") and
                          "baseline_ns" in m else None))
    return out


def published_cli_sti(path: Path = PUBLISHED_CSV) -> dict[str, dict[str, str]]:
    """op -> the published.csv row of cli and sti (table, url, family)."""
    try:
        lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    except OSError:
        return {}
    return {r["op"]: r for r in csv.DictReader(lines) if r.get("op") in CLI_STI}


def minus(a: Optional[Range], b: Optional[Range]) -> Optional[Range]:
    """a without its part b (the same instructions at the same ends)."""
    return Range(a.low - b.low, a.high - b.high) if a and b else None


def ns_text(r: Optional[Range], median: Optional[float] = None) -> str:
    if r is None:
        return NA
    mid = f"{units.sig(median)} " if median is not None else ""
    return f"{mid}[{units.sig(r.low)}, {units.sig(r.high)}]"


def share_text(part: Model, whole: Model) -> str:
    if part.ns is None:
        return f"{NA} ({part.reason})"
    if not part.ns.high:
        return "0"
    if whole.ns is None or not whole.ns.high:
        return ns_text(part.ns)
    return (f"{ns_text(part.ns)} ({units.sig(100 * part.ns.low / whole.ns.low)}-"
            f"{units.sig(100 * part.ns.high / whole.ns.high)} %)" if whole.ns.low else
            ns_text(part.ns))


def over_text(model: Optional[Range], replayed: Optional[Range]) -> str:
    """Modelled (excluding cli/sti) over replayed, end by end: how far the sum
    of serial costs overestimates."""
    if model is None or replayed is None or min(replayed.low, replayed.high) <= 0.05:
        return NA
    ends = sorted((model.low / replayed.low, model.high / replayed.high))
    return f"[{units.sig(ends[0])}, {units.sig(ends[1])}]"


def replay_row(r: Replay) -> list[str]:
    insns = num(r.counts.get("insns"))
    if r.ns is None:
        insns += " (guest)"
    elif r.guest_insns is not None:
        insns += " (guest: same)" if r.guest_insns == r.counts.get("insns") \
            else f" (guest: {num(r.guest_insns)}!)"
    rest = minus(r.model.ns, r.cli_sti.ns)
    replayed = ns_text(r.ns, r.median) if r.ns else f"{NA} (not replayed)"
    cycles = units.sig(r.cycles) if r.cycles is not None and r.cycles > 0.05 else \
        ("0" if r.cycles is not None else NA)
    if r.empty_cycles is not None:
        cycles += f" (empty loop {units.sig(r.empty_cycles, 2)})"
    at_model = NA
    if r.ns and r.cycles is not None:
        at_model = ns_text(r.replayed_ns()) if abs(r.cycles) > 0.05 else "0"
    return [r.kernel, insns, num(r.counts.get("cli", 0) + r.counts.get("sti", 0)),
            replayed, cycles, at_model,
            ns_text(r.model.ns) if r.model.ns else ns_range(r.model),
            share_text(r.cli_sti, r.model), ns_text(rest),
            over_text(rest, r.replayed_ns()) if r.ns else NA, ANCHORS.get(r.kernel, NA)]


def cli_sti_note(published: dict[str, dict[str, str]], host_cpu: str) -> str:
    """Where the cli/sti costs come from, and whether they fit this host."""
    if not published:
        return "cli/sti: no published.csv: their share is n/a."
    row = published.get("cli") or published.get("sti")
    family = (row or {}).get("family", "") or "an unnamed family"
    vendor = family.split()[0].lower() if family.split() else ""
    fits = bool(host_cpu) and vendor and vendor in host_cpu.lower()
    note = (f"cli/sti costs: {row.get('table', '?')} ({row.get('url', '?')}), figures for "
            f"{family}.")
    if not fits:
        note += (f"  **No published CLI/STI figure for this host's CPU ({host_cpu or 'unknown'}) "
                 "was found**: the cli/sti column is another family's figure at this host's "
                 "cycle time, shown apart so that the replay's comparison does not depend on it.")
    return note


def replay_section(rows: Iterable[RowLike], host_cpu: str = "",
                   published: Optional[dict[str, dict[str, str]]] = None) -> str:
    """Markdown: per kernel, the replayed ns/pair (native, cli/sti excluded)
    beside the modelled range, its cli/sti share, and published anchors."""
    rows = ok_rows(rows)
    lines = ["## The cost model against the read pair replayed natively", ""]
    found = replays(rows)
    if not any(r.ns for r in found):
        return "\n".join(lines + ["No replay rows in this directory "
                                  "(workloads/replay/run.sh RESULTDIR).", ""])
    lines += ["Each kernel's read-side instructions (rcubench.ko's rb_read_loop and the "
              "vmlinux functions it calls, from the kernels' disassembly) run natively in user "
              "space on this host (workloads/replay): the replayed read loop minus the "
              "replayed empty loop per iteration, median [quartiles] of runs; in cycles, "
              "each run's pair over a dependent add timed in the same run, so that a busy "
              "host or a clock change does not move it, and at the calib cycle time (alu "
              "[low, high]) the model uses: the ratio compares those.  The empty loop's "
              "iteration in cycles says how busy the core was: about 1 on an idle core (its "
              "4 instructions), more when another thread shares the core, which slows the "
              "pair too (the dependent add much less).  cli and sti "
              "fault at CPL 3: the replay runs a 1-byte nop in their place, so its ns exclude "
              "them; their modelled cost is the column beside it.  Modelled: the additive "
              "model (counts x this directory's calib costs, [low, high]) of the same "
              "instructions; \"excl. cli/sti\" takes their modelled cost out, and the last "
              "ratio is that over the replay: how much the sum of serial costs overestimates "
              "a pair whose instructions overlap.  A kernel with guest counts but no replay "
              "rows is modelled from its count_read (\"guest\").  Published figures are other "
              "hardware and kernels (shared/ANCHORS.md): scale, not a check.", ""]
    lines += table(["kernel", "insns/pair", "cli+sti/pair", "replayed ns/pair (native, "
                    "excl. cli/sti)", "replayed cycles/pair", "replayed at the model's cycle "
                    "time, ns", "modelled ns/pair", "of which cli/sti, ns (share)",
                    "modelled excl. cli/sti, ns", "modelled excl. / replayed",
                    "published anchor"], [replay_row(r) for r in found])
    pub = published_cli_sti() if published is None else published
    return "\n".join(lines + ["", cli_sti_note(pub, host_cpu), ""])


def replay_report(rd) -> list[str]:
    """report.py hook: replay_section of a results directory, with the host
    CPU its metadata names."""
    host = rd.metadata.get("host", {}) if isinstance(rd.metadata, dict) else {}
    cpu = host.get("cpu", "") if isinstance(host, dict) else ""
    return replay_section(rd.rows, cpu).splitlines()
