#!/usr/bin/python3
"""Turn the rbcount plugin's counts into rows of the results CSV.

Inputs, from one plugin boot (workloads/boot.sh --plugin): the plugin's
counts.csv (regions and windows) and the guest's count-labels.csv (what
each region and window of rcubench.ko was).  Output: rows in the guest's
format "test,params,metric,value,unit,source" (source tcg-plugin, unit
count), appended to the boot's results/bench.csv so that the sweep merges
them like any guest rows.  Vocabulary: analysis/SCHEMA.md.

Each count_read / count_read_mb / count_callrcu configuration is four
regions: the empty loop and the section loop, each with loops/2 and loops
iterations; (full - half) / (loops - loops/2) is the exact count per
iteration, and the per-pair figure is section minus empty loop.

count_gp and count_callrcu's callback part are windows: instructions of
every vCPU attributed to kernel functions; the RCU core's functions are
grouped by the table GROUPS below (one per RCU family).

A boot whose plugin had core= (boot.sh passes CORE and READ_SIDE below,
as core= and notcore=) has an "irqwork" section: per window and vCPU the
hard-interrupt episodes in which the RCU core ran with interrupts off
(before softirqs), their instructions and the largest; count_gp gets the
tick's interrupts-off work from them.

A boot with the plugin's coherence model (coh=on, boot.sh RB_PLUGIN_COH=on)
has the window rows' columns COH too (each vCPU's first touches, read
misses, invalidations and transfers, by the instruction's function) and
a "line" section (each window's hottest lines: symbol and transfers);
they add count_gp's coherence rows and count_callrcu's transfers_per_cb.
Without it (the default) the rows are what they were.
"""

import argparse
import csv
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Iterable, Optional

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import scenario  # noqa: E402  (the kernel facts: configs/<kernel>/facts)

SOURCE = "tcg-plugin"
# The marker protocol, shared by rcubench.ko and the plugin.
MARKER_H = Path(__file__).resolve().parent.parent.parent / "bench-module" / "rb_marker.h"


class CountError(Exception):
    """Inputs that do not fit together: the message names the problem."""


def marker_defines(path: Path = MARKER_H) -> dict[str, str]:
    """The #define NAME VALUE lines of rb_marker.h (continuations joined)."""
    text = path.read_text().replace("\\\n", " ")
    return {m[1]: m[2].strip() for m in re.finditer(r"^#define\s+(\w+)[ \t]+(.+)$", text, re.M)}


def marker_constants(path: Path = MARKER_H) -> tuple[list[str], int]:
    """The instruction classes (RB_CLASS_NAMES) and RB_RANGE_ID_BASE."""
    defines = marker_defines(path)
    try:
        classes = re.findall(r'"(\w+)"', defines["RB_CLASS_NAMES"])
        base = int(defines["RB_RANGE_ID_BASE"], 0)
    except (KeyError, ValueError) as e:
        raise CountError(f"{path}: no usable {e}") from e
    return classes, base


# The plugin's instruction classes, in counts.csv's column order; range
# regions (count_refscale): the plugin's id is RANGE_ID_BASE plus the
# range's generation 1, 2, ...
CLASSES, RANGE_ID_BASE = marker_constants()
IRQFLAG = ["cli", "sti", "pushf", "popf"]
GROUP_NAMES = ["tick", "gp_machine", "cb_advance", "cb_invoke", "softirq", "other"]

# Group of each RCU core function (regexes on the name without a .suffix).
# An RCU function that no pattern names is "other"; read-side functions
# are no part of the core.
GROUPS: dict[str, dict[str, str]] = {
    "classic": {
        "tick": r"rcu_sched_clock_irq|rcu_pending|rcu_qsctr_inc|rcu_tick_from_idle|rcu_check_callbacks",
        "gp_machine": r"rcu_start_batch|cpu_quiet|rcu_check_quiescent_state|(rcu_)?force_quiescent_state",
        "cb_advance": r"rcu_move_batch|rcu_advance_.*",
        "cb_invoke": r"rcu_do_batch|rcu_invoke_callback",
        "softirq": r"rcu_process_callbacks|__rcu_process_callbacks|rcu_softirq_qs",
    },
    "rcupreempt": {
        "tick": r"rcu_sched_clock_irq|rcu_check_callbacks|rcu_pending|rcu_check_mb|rcu_sched_qs"
                r"|rcu_tick_in_sched_qs|rcu_poll_gp_pending|rcu_boost_check",
        # rcu_try_flip() is noinline (patch 0004), its four state functions
        # inlined into it; rcu_try_flip_set_state() is the state change and
        # its debugfs statistics (0006).
        "gp_machine": r"rcu_try_flip.*",
        "cb_advance": r"__rcu_advance_callbacks",
        "cb_invoke": r"rcu_invoke_callback|rcu_do_batch",
        "softirq": r"rcu_process_callbacks|rcu_softirq_qs",
    },
    "tree": {
        "tick": r"rcu_sched_clock_irq|rcu_pending|rcu_flavor_sched_clock_irq|rcu_is_cpu_rrupt_from_idle"
                r"|rcu_qs|check_cpu_stall|rcu_stall_.*|rcu_preempt_need_deferred_qs",
        "gp_machine": r"rcu_gp_.*|rcu_start_this_gp|rcu_report_qs_.*|rcu_check_quiescent_state"
                      r"|_?_?note_gp_changes|force_qs_rnp|rcu_implicit_dynticks_qs"
                      r"|dyntick_save_progress_counter|rcu_future_gp_cleanup|rcu_seq_.*",
        "cb_advance": r"rcu_advance_cbs.*|rcu_accelerate_cbs.*|rcu_segcblist_(advance|accelerate"
                      r"|enqueue|entrain|merge|insert_pend_cbs|extract_pend_cbs|inc_len|add_len"
                      r"|n_segment_cbs|ready_cbs|pend_cbs|nextgp|first_.*)|rcu_cblist_enqueue",
        "cb_invoke": r"rcu_do_batch|rcu_cblist_dequeue|rcu_segcblist_(extract_done_cbs|insert_done_cbs"
                     r"|insert_count)|rcu_invoke_callback",
        "softirq": r"rcu_core|rcu_core_si|invoke_rcu_core|rcu_cpu_kthread.*|rcu_wake_cond|rcu_softirq_qs",
    },
}
# The coherence model's columns of window rows (coh=on), in their order;
# transfers = read_misses + invalidations (cache-to-cache traffic).
COH = ["first_touches", "read_misses", "invalidations", "transfers"]
READ_SIDE = r"__rcu_read_(un)?lock|rcu_read_unlock_special|rcu_preempted_reader_exit|.*srcu.*"
CORE = (r"rcu_.*|__rcu_.*|_?_?call_rcu|synchronize_rcu.*|wakeme_after_rcu|__wait_rcu_gp|wait_rcu_gp"
        r"|invoke_rcu_core|cpu_quiet|force_quiescent_state|_?_?note_gp_changes|force_qs_rnp"
        r"|dyntick_save_progress_counter")


def read_sections(path: Path) -> dict[str, list[dict[str, str]]]:
    """The plugin's CSV sections: rows by kind (region, func, addr, line)."""
    rows: dict[str, list[dict[str, str]]] = defaultdict(list)
    header: Optional[list[str]] = None
    text = path.read_text()
    if not text.rstrip().splitlines()[-1].startswith("# rbcount 1: end"):
        raise CountError(f"{path}: truncated (no end line)")
    for line in text.splitlines():
        if line.startswith("#"):
            header = None
            continue
        fields = line.split(",")
        if header is None:
            header = fields
            continue
        rows[fields[0]].append(dict(zip(header, fields)))
    return rows


def read_labels(path: Path) -> list[dict[str, str]]:
    names = ["id", "test", "params", "role", "iterations"]
    with open(path, newline="", encoding="utf-8") as f:
        return [dict(zip(names, r)) for r in csv.reader(f) if r]


def join(records: list[dict], labels: list[dict[str, str]], what: str) -> list[tuple[dict, dict]]:
    """Pair the records of each id with the labels of that id, in order."""
    pairs = []
    ids = {int(lab["id"]) for lab in labels} | {int(r["id"]) for r in records}
    for i in sorted(ids):
        recs = sorted((r for r in records if int(r["id"]) == i), key=lambda r: int(r["seq"]))
        labs = [lab for lab in labels if int(lab["id"]) == i]
        if len(recs) != len(labs):
            raise CountError(f"{what} id {i}: the plugin recorded {len(recs)}, the module labelled {len(labs)}")
        pairs += list(zip(recs, labs))
    return pairs


def number(v: float) -> str:
    """Exact counts print as integers, others with 3 decimals."""
    return str(int(round(v))) if abs(v - round(v)) < 1e-9 else f"{v:.3f}"


def row(test: str, params: str, metric: str, value: float) -> list[str]:
    return [test, params, metric, number(value), "count", SOURCE]


def per_iteration(runs: dict[str, tuple[dict, int]], kind: str) -> dict[str, float]:
    """Count per iteration of kind (base or section) from its half and full
    runs: every instruction class, and the coherence columns (COH) of a
    boot with the model."""
    (half, n_half), (full, n_full) = runs[kind + "_half"], runs[kind + "_full"]
    return {c: (int(full[c]) - int(half[c])) / (n_full - n_half)
            for c in CLASSES + [c for c in COH if c in full]}


def region_runs(regions: list[dict], labels: list[dict[str, str]]) -> dict[tuple[str, str], dict]:
    """(test, params) -> role -> (counts of the region bucket, iterations)."""
    mine = [r for r in regions if r["bucket"] == "region" and int(r["id"]) < RANGE_ID_BASE]
    runs: dict[tuple[str, str], dict] = defaultdict(dict)
    for rec, lab in join(mine, [lab for lab in labels if lab["role"] not in ("window", "range")],
                         "region"):
        runs[(lab["test"], lab["params"])][lab["role"]] = (rec, int(lab["iterations"]))
    return runs


def read_rows(test: str, params: str, runs: dict) -> list[list[str]]:
    base, section = per_iteration(runs, "base"), per_iteration(runs, "section")
    out = [row(test, params, c, section[c] - base[c]) for c in CLASSES]
    out.append(row(test, params, "irqflag", sum(section[c] - base[c] for c in IRQFLAG)))
    out += [row(test, params, "base_" + c, base[c]) for c in CLASSES]
    out.append(row(test, params, "base_irqflag", sum(base[c] for c in IRQFLAG)))
    if "transfers" in section:
        out.append(row(test, params, "transfers", section["transfers"] - base["transfers"]))
    return out


def callrcu_rows(params: str, runs: dict) -> list[list[str]]:
    base, section = per_iteration(runs, "base"), per_iteration(runs, "section")
    per_call = {c: section[c] - base[c] for c in CLASSES}
    return [row("count_callrcu", params, "insns_per_call", per_call["insns"]),
            row("count_callrcu", params, "locked_per_call", per_call["locked"]),
            row("count_callrcu", params, "fences_per_call", per_call["fences"]),
            row("count_callrcu", params, "irqflag_per_call", sum(per_call[c] for c in IRQFLAG))] + \
        ([row("count_callrcu", params, "transfers_per_call", per_call["transfers"])]
         if "transfers" in per_call else [])


# count_share's patterns: what one iteration of a side is.
SHARE_UNIT = {"pingpong": "handoffs", "percpu": "increments"}


def share_rows(runs: dict[tuple[str, str], dict]) -> list[list[str]]:
    """count_share (a boot with the coherence model): per pattern and run
    (half, full), both sides' regions summed: iterations (a hand-off or an
    increment of each side) and coherence events; pingpong also transfers
    per hand-off from the difference of its runs."""
    sides: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for (test, params), roles in runs.items():
        if test != "count_share":
            continue
        p = params_of(params)
        if "transfers" not in roles["full"][0]:
            raise CountError("count_share: counts without the coherence model (RB_PLUGIN_COH=on)")
        sides[(p["pattern"], p["loops"])].append(roles)
    out = []
    for (pattern, loops), both in sorted(sides.items()):
        if len(both) != 2:
            raise CountError(f"count_share {pattern}: {len(both)} sides counted, not 2")
        base = f"pattern={pattern};loops={loops}"
        total = {}
        for run in ("half", "full"):
            total[run] = {c: sum(int(s[run][0][c]) for s in both) for c in COH}
            total[run]["n"] = sum(s[run][1] for s in both)
            out.append(row("count_share", f"{base};run={run}", SHARE_UNIT[pattern], total[run]["n"]))
            out += [row("count_share", f"{base};run={run}", c, total[run][c]) for c in COH]
        if pattern == "pingpong":
            out.append(row("count_share", base, "transfers_per_handoff",
                           (total["full"]["transfers"] - total["half"]["transfers"])
                           / (total["full"]["n"] - total["half"]["n"])))
    return out


# count_migrate's regions: one operation each, an empty one per pair.
MIGRATE_ROLES = ("empty", "lock", "unlock")


def migrate_rows(regions: list[dict], labels: list[dict[str, str]]) -> list[list[str]]:
    """count_migrate: per read pair of each variant (move=0: the reader
    stays on its CPU; move=1: it moves to another between lock and
    unlock), lock + unlock minus two empty regions, the median over the
    variant's pairs (its first pairs find cold lines); every instruction
    class and, with the coherence model, its columns, and the unlock's own
    coherence columns (unlock_*)."""
    labs = [lab for lab in labels if lab["test"] == "count_migrate" and lab["role"] in MIGRATE_ROLES]
    ids = {int(lab["id"]) for lab in labs}
    recs = [r for r in regions if r["bucket"] == "region" and int(r["id"]) in ids]
    by: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for rec, lab in join(recs, labs, "count_migrate region"):
        by[lab["params"]][lab["role"]].append(rec)
    out = []
    for params, roles in sorted(by.items()):
        n = len(roles["lock"])
        if n == 0 or any(len(roles[r]) != n for r in MIGRATE_ROLES):
            raise CountError(f"count_migrate {params}: regions "
                             + ", ".join(f"{r} {len(roles[r])}" for r in MIGRATE_ROLES))
        coh = [c for c in COH if c in roles["lock"][0]]
        # Per pair: lock + unlock - 2 empty; the unlock alone: unlock - empty.
        pairs = [{c: int(lo[c]) + int(u[c]) - 2 * int(e[c]) for c in CLASSES + coh}
                 for e, lo, u in zip(roles["empty"], roles["lock"], roles["unlock"])]
        unlocks = [{c: int(u[c]) - int(e[c]) for c in coh}
                   for e, u in zip(roles["empty"], roles["unlock"])]
        out.append(row("count_migrate", params, "pairs", n))
        out += [row("count_migrate", params, c, statistics.median(p[c] for p in pairs))
                for c in CLASSES + coh]
        out.append(row("count_migrate", params, "irqflag",
                       statistics.median(sum(p[c] for c in IRQFLAG) for p in pairs)))
        out += [row("count_migrate", params, "unlock_" + c, statistics.median(u[c] for u in unlocks))
                for c in coh]
    return out


def range_rows(regions: list[dict], labels: list[dict[str, str]]) -> list[list[str]]:
    """count_refscale: per iteration of the counted function, from the calls
    of two ranges with different loops.  Of a range's calls the one with
    the fewest instructions counts: refscale's readers run preemptible, and
    a tick in a read section can make its rcu_read_unlock() take the
    special (deferred quiescent state) path once."""
    ranges = [lab for lab in labels if lab["role"] == "range"]
    calls = []
    for k, lab in enumerate(ranges, 1):
        recs = [r for r in regions if r["bucket"] == "region" and int(r["id"]) == RANGE_ID_BASE + k]
        if not recs:
            raise CountError(f"range {k} ({lab['params']}): no call counted")
        calls.append((min(recs, key=lambda r: int(r["insns"])), int(lab["iterations"]), lab))
    out = []
    for (half, n_half, _), (full, n_full, lab) in zip(calls[0::2], calls[1::2]):
        per = {c: (int(full[c]) - int(half[c])) / (n_full - n_half) for c in CLASSES}
        out += [row(lab["test"], lab["params"], c, per[c]) for c in CLASSES]
    return out


def base_name(func: str) -> str:
    return func.split(".")[0]


def group_of(func: str, family: str) -> Optional[str]:
    """The RCU core group of a function, None if it is no part of the core."""
    name = base_name(func)
    if re.fullmatch(READ_SIDE, name) or not re.fullmatch(CORE, name):
        return None
    for group, pattern in GROUPS[family].items():
        if re.fullmatch(pattern, name):
            return group
    return "other"


def window_totals(funcs: Iterable[dict[str, str]], family: str,
                  addrs: Iterable[dict[str, str]] = ()) -> dict[str, float]:
    """Totals of one window: the core's insns/fences/locked and insns per
    group; with the coherence columns (COH) also the core's events, its
    transfers per group, and the events of all the window's code (func
    rows and addr rows: module code) under their own names."""
    tot: dict[str, float] = defaultdict(float)
    for f in funcs:
        if "transfers" in f:
            for c in COH:
                tot[c] += int(f[c])
        g = group_of(f["func"], family)
        if g is None:
            continue
        tot["core_insns"] += int(f["insns"])
        tot["core_fences"] += int(f["fences"])
        tot["core_locked"] += int(f["locked"])
        tot["core_insns_" + g] += int(f["insns"])
        if "transfers" in f:
            for c in COH:
                tot["core_" + c] += int(f[c])
            tot["core_transfers_" + g] += int(f["transfers"])
    for a in addrs:
        if "transfers" in a:
            for c in COH:
                tot[c] += int(a[c])
    return tot


IRQWORK = ["irqoff_episodes_per_gp", "irqoff_core_insns_mean", "irqoff_core_insns_max"]


def irqwork_metrics(rows: list[dict[str, str]], per: int) -> dict[str, float]:
    """One window's interrupts-off RCU work (irqwork rows, one per vCPU):
    episodes with core work per grace period per CPU (per: gps x cpus),
    core instructions per such episode, and the largest episode of any
    vCPU; {} without rows (a plugin without core=)."""
    if not rows:
        return {}
    episodes = sum(int(r["episodes"]) for r in rows)
    insns = sum(int(r["insns"]) for r in rows)
    return {"irqoff_episodes_per_gp": episodes / per,
            "irqoff_core_insns_mean": insns / episodes if episodes else 0.0,
            "irqoff_core_insns_max": float(max(int(r["max"]) for r in rows))}


def line_name(line: dict[str, str]) -> str:
    """A hot line's name for params: symbol(+0xoffset), or phys:0xADDR
    when the plugin could not name it (heap, stacks)."""
    if not line["symbol"]:
        return f"phys:0x{line['line']}"
    off = int(line["offset"], 16)
    return line["symbol"] + (f"+0x{off:x}" if off else "")


def params_of(params: str) -> dict[str, str]:
    return dict(kv.split("=", 1) for kv in params.split(";") if kv)


# rcu_seq_ctr() keeps BITS_PER_LONG - RCU_SEQ_CTR_SHIFT bits (62 on
# x86_64).  rcubench.ko before the fix of its count_gp took the difference
# of two counters modulo 2^64, so a window across Tree RCU's early wrap
# (its counter starts 300 grace periods short of it) read near 2^64;
# modulo the counter's width that is the exact count.
KGPS_BITS = 62


def kernel_gps(kgps: int) -> int:
    """The kernel's grace-period count over a window, modulo the counter's width."""
    return kgps % (1 << KGPS_BITS)


def rows_by_seq(rows: Iterable[dict]) -> dict[str, list[dict]]:
    """Rows grouped by their window's seq."""
    out: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        out[r["seq"]].append(r)
    return out


def window_rows(funcs: list[dict], labels: list[dict[str, str]], family: str,
                addrs: Iterable[dict] = (), lines: Iterable[dict] = (),
                irqwork: Iterable[dict] = ()) -> list[list[str]]:
    windows = {}
    for f in funcs:
        windows.setdefault(f["seq"], {"seq": f["seq"], "id": f["id"]})
    coh = any("transfers" in f for f in funcs)
    by_seq = rows_by_seq(funcs)
    addrs_of = rows_by_seq(addrs)
    lines_of = rows_by_seq(lines)
    irqwork_of = rows_by_seq(irqwork)
    out = []
    for rec, lab in join(list(windows.values()), [lab for lab in labels if lab["role"] == "window"],
                         "window"):
        tot = window_totals(by_seq[rec["seq"]], family, addrs_of[rec["seq"]])
        p = params_of(lab["params"])
        if lab["test"] == "count_gp":
            # kgps (the kernel's own grace-period count) is a measurement,
            # not a parameter: a row of its own, and out of params.
            kgps = p.pop("kgps", None)
            params = ";".join(f"{k}={v}" for k, v in p.items())
            per = int(p["gps"]) * int(p["cpus"])
            metrics = ["core_insns", "core_fences", "core_locked"] + \
                      ["core_insns_" + g for g in GROUP_NAMES]
            out += [row("count_gp", params, m, tot[m] / per) for m in metrics]
            if kgps is not None:
                out.append(row("count_gp", params, "kernel_gps_per_sync",
                               kernel_gps(int(kgps)) / int(p["gps"])))
            out += [row("count_gp", params, m, v)
                    for m, v in irqwork_metrics(irqwork_of[rec["seq"]], per).items()]
            if coh:
                metrics = COH + ["core_" + c for c in COH] + \
                          ["core_transfers_" + g for g in GROUP_NAMES]
                out += [row("count_gp", params, m, tot[m] / per) for m in metrics]
                # Each hot line a row of its own, named in its params.
                for line in sorted(lines_of[rec["seq"]], key=lambda x: int(x["rank"])):
                    out.append(row("count_gp", f"{params};rank={line['rank']};line={line_name(line)}",
                                   "line_transfers", int(line["transfers"]) / per))
        elif lab["test"] == "count_callrcu":
            # Classic and preempt inline the invocation loop into their
            # softirq handler: per callback is invocation plus softirq.
            invoke = tot["core_insns_cb_invoke"] + tot["core_insns_softirq"]
            out.append(row("count_callrcu", lab["params"], "insns_per_cb",
                           invoke / int(lab["iterations"])))
            if coh:
                moved = tot["core_transfers_cb_invoke"] + tot["core_transfers_softirq"]
                out.append(row("count_callrcu", lab["params"], "transfers_per_cb",
                               moved / int(lab["iterations"])))
    return out


def rows_of(counts: Path, labels_path: Path, kernel: str) -> list[list[str]]:
    try:
        family = scenario.family(kernel)
    except scenario.ScenarioError as err:
        raise CountError(str(err)) from err
    if family not in GROUPS:
        raise CountError(f"kernel {kernel}: no GROUPS for RCU family {family}")
    sections = read_sections(counts)
    labels = read_labels(labels_path) if labels_path.exists() else []
    out = []
    regions = region_runs(sections["region"], labels)
    for (test, params), runs in regions.items():
        if test in ("count_read", "count_read_mb"):
            out += read_rows(test, params, runs)
        elif test == "count_callrcu":
            out += callrcu_rows(params, runs)
    out += share_rows(regions)
    out += migrate_rows(sections["region"], labels)
    out += range_rows(sections["region"], labels)
    return out + window_rows(sections["func"], labels, family, sections["addr"], sections["line"],
                             sections["irqwork"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--counts", type=Path, help="the plugin's counts.csv")
    ap.add_argument("--labels", type=Path, help="the guest's count-labels.csv")
    ap.add_argument("--kernel", help="kernel name (a scenario of configs/)")
    ap.add_argument("--append", type=Path, help="append the rows to this file (default: stdout)")
    ap.add_argument("--plugin-args", action="store_true",
                    help="print the plugin's core=...,notcore=... (the RCU core's functions, "
                         "less the read side's) and exit")
    args = ap.parse_args()
    if args.plugin_args:
        print(f"core={CORE},notcore={READ_SIDE}")
        return 0
    if not (args.counts and args.labels and args.kernel):
        ap.error("--counts, --labels and --kernel are required")
    try:
        rows = rows_of(args.counts, args.labels, args.kernel)
    except (CountError, OSError, KeyError, ValueError) as e:
        print(f"rcu-bench: error: counts: {e}", file=sys.stderr)
        return 1
    if args.append:
        with open(args.append, "a", newline="", encoding="utf-8") as f:
            csv.writer(f, lineterminator="\n").writerows(rows)
    else:
        csv.writer(sys.stdout, lineterminator="\n").writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
