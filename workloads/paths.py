#!/usr/bin/python3
"""Real kernel paths: rbstat's counts of workloads/guest/jobs/paths.sh per
operation, as results rows (test paths, source rbstat; analysis/SCHEMA.md).

    workloads/paths.py rows RESULTS_DIR --kernel K --vcpus N --repeat R --commit C

RESULTS_DIR is a boot's results/ with paths-<workload>-<n>.csv, rbstat -x,
output (perf stat's CSV form: value,unit,event,...), two sizes per
workload.  Per operation = (count at the larger size - count at the
smaller) / (the difference of the sizes): the setup cancels.  An
operation is one stat() of a file 8 directories deep (pathwalk), one
round trip of perf bench sched pipe (pipe: two context switches), one
loop of perf bench sched messaging -p -g 1 (messaging: each of 20 senders
writes one message to each of 20 receivers, 400 messages over pipes: the
guest kernels have no sockets).
This module is the one reader of rbstat's CSV form.
"""

import argparse
import csv
import re
import sys
from pathlib import Path

# Workload -> what one operation is (the params' words).
WORKLOADS = {"pathwalk": "stat() of a file 8 directories deep",
             "pipe": "perf bench sched pipe round trip",
             "messaging": "perf bench sched messaging -p -g 1 loop (400 messages)"}
FILE = re.compile(r"paths-(?P<w>[a-z]+)-(?P<n>\d+)\.csv$")
SOURCE = "rbstat"
SECTION_ENTRY = "__rcu_read_lock"   # its entries: read sections, where it is a function


class PathsError(Exception):
    pass


def read_rbstat(path: Path) -> dict[str, float]:
    """event -> value of one rbstat -x, output."""
    events: dict[str, float] = {}
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if len(row) >= 3 and row[0].strip().isdigit():
                events[row[2]] = float(row[0])
    if "instructions" not in events:
        raise PathsError(f"{path}: no rbstat counts (was the guest booted with the plugin?)")
    return events


def runs(results: Path) -> dict[str, dict[int, dict[str, float]]]:
    """workload -> size -> events."""
    out: dict[str, dict[int, dict[str, float]]] = {}
    for p in sorted(results.glob("paths-*.csv")):
        m = FILE.search(p.name)
        if m and m["w"] in WORKLOADS:
            out.setdefault(m["w"], {})[int(m["n"])] = read_rbstat(p)
    return out


def per_op(sizes: dict[int, dict[str, float]]) -> tuple[int, dict[str, float]]:
    """(operations between the two sizes, metric -> count per operation)."""
    if len(sizes) != 2:
        raise PathsError(f"want two sizes, got {sorted(sizes)}")
    lo, hi = sorted(sizes)
    a, b = sizes[lo], sizes[hi]
    ops = hi - lo

    def d(event: str) -> float:
        return (b.get(event, 0.0) - a.get(event, 0.0)) / ops
    named = sorted(e.split(":", 2)[2] for e in b if e.startswith("rb:entries:"))
    metrics = {"insns_per_op": d("instructions"), "user_insns_per_op": d("instructions:u"),
               "kernel_insns_per_op": d("instructions:k"), "locked_per_op": d("rb:locked"),
               "irqflag_per_op": d("rb:irqflag:k"), "calls_per_op": d("rb:calls"),
               "readside_insns_per_op": sum(d(f"instructions:k:{f}") for f in named)}
    if SECTION_ENTRY in named:
        metrics["read_sections_per_op"] = d(f"rb:entries:{SECTION_ENTRY}")
    return ops, metrics


def rows(results: Path, kernel: str, vcpus: int, repeat: int, commit: str,
         schema: int) -> list[list[str]]:
    found = runs(results)
    if not found:
        raise PathsError(f"{results}: no paths-*.csv")
    out = []
    for w in sorted(found):
        ops, metrics = per_op(found[w])
        for metric, value in metrics.items():
            out.append([str(schema), commit, "tcg", kernel, str(vcpus), "paths", str(repeat),
                        f"workload={w};ops={ops}", metric, f"{value:.6g}", "count", SOURCE, "ok"])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("rows", help="results rows of one boot's paths-*.csv on stdout")
    r.add_argument("results", type=Path)
    r.add_argument("--kernel", required=True)
    r.add_argument("--vcpus", type=int, required=True)
    r.add_argument("--repeat", type=int, required=True)
    r.add_argument("--commit", required=True)
    r.add_argument("--schema", type=int, required=True)
    args = ap.parse_args()
    try:
        out = rows(args.results, args.kernel, args.vcpus, args.repeat, args.commit, args.schema)
    except (PathsError, OSError) as e:
        print(f"rcu-bench: error: {e}", file=sys.stderr)
        return 2
    csv.writer(sys.stdout, lineterminator="\n").writerows(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
