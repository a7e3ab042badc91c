#!/bin/bash
# tier: host
# Native calibration (workloads/calibrate): the program builds and runs,
# run.sh appends calib rows in the vocabulary of analysis/SCHEMA.md with
# sane numbers (positive, quartiles around the median, mfence, the locked
# add and, on a host of 2 CPUs or more, a cache-line transfer between two
# CPUs (pingpong) dearer than an ALU op), published cli/sti rows are the table's cycles
# at the measured cycle time (alu's lower quartile), and analysis/costmodel.py
# reads the costs.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp
need_tool gcc make taskset /usr/bin/python3
run=$RB_TOP/workloads/calibrate/run.sh
ops="alu locked_add mfence pushf_pop push_popf gs_inc call_ret"

mkdir -p "$tmp/r"
printf 'op,cycles_low,cycles_high,table,url\ncli,2,5,test table,none\nsti,,,,none\n' >"$tmp/pub.csv"
"$run" "$tmp/r" --repeats 2 --runs 5 --target-ms 5 --published "$tmp/pub.csv" 2>"$tmp/err"
grep '^calibrate:' "$tmp/err" | head -6
grep -q 'sti: no published figure' "$tmp/err" || fail "no note for the op without published figures"
csv=$tmp/r/csv/results.csv
[ "$(head -1 "$csv")" = "$(conf_get CSV_COLUMNS | tr ' ' ',')" ] || fail "header is not CSV_COLUMNS"
rows=$(tail -n +2 "$csv" | wc -l)
# 7 measured ops and cli (and line_transfer with 2 CPUs), 3 metrics each, 2 repeats.
if [ "$(nproc)" -ge 2 ]; then
	ops="$ops line_transfer"
	want=$((9 * 3 * 2))
else
	want=$((8 * 3 * 2))
fi
[ "$rows" -eq $want ] || fail "expected $want rows, got $rows"

/usr/bin/python3 - "$csv" "$ops" <<'PY' || fail "calib rows out of the vocabulary or insane"
import csv, math, sys
sys.path.insert(0, "tests")
import bench_csv_check as chk
path, ops = sys.argv[1], sys.argv[2].split()
rows = list(csv.DictReader(open(path)))
problems = []
for r in rows:
    chk.check_row(r, chk.conf_get("CSV_SCHEMA_VERSION"), problems)
    if (r["accel"], r["kernel"], r["vcpus"], r["test"]) != ("native", "host", "1", "calib"):
        problems.append(f"not a host calib row: {r}")
val = {(r["repeat"], r["params"], r["metric"]): float(r["value"]) for r in rows}
for rep in ("0", "1"):
    med = {op: val[(rep, f"op={op}", "ns_per_op")] for op in ops}
    for op in ops:
        lo, hi = val[(rep, f"op={op}", "ns_per_op_low")], val[(rep, f"op={op}", "ns_per_op_high")]
        if not (0 < lo <= med[op] <= hi and math.isfinite(hi)):
            problems.append(f"repeat {rep} {op}: not 0 < {lo} <= {med[op]} <= {hi}")
    for dear in ("mfence", "locked_add") + (("line_transfer",) if "line_transfer" in ops else ()):
        if med[dear] <= med["alu"]:
            problems.append(f"repeat {rep}: {dear} {med[dear]} ns not above alu {med['alu']} ns")
    for metric, cycles in (("ns_per_op_low", 2), ("ns_per_op_high", 5)):
        want = cycles * val[(rep, "op=alu", "ns_per_op_low")]
        got = val[(rep, "op=cli", metric)]
        if abs(got - want) > 1e-3 * want:
            problems.append(f"repeat {rep} cli {metric}: {got}, want {cycles} cycles = {want}")
    print(f"repeat {rep}: " + ", ".join(f"{op} {med[op]:.3g} ns" for op in ops))
for p in problems:
    print("problem:", p)
sys.exit(1 if problems else 0)
PY

# The shipped published.csv and a second run: repeats continue, rows kept.
"$run" "$tmp/r" --repeats 1 --runs 3 --target-ms 2 2>/dev/null
[ "$(awk -F, 'NR > 1 && $7 == 2' "$csv" | wc -l)" -ge 21 ] || fail "second run is not repeat 2"
[ "$(tail -n +2 "$csv" | wc -l)" -ge $((rows + 21)) ] || fail "second run lost rows"

# The analysis reads the costs (ranges over the repeats).
/usr/bin/python3 - "$tmp/r" <<'PY' || fail "analysis/costmodel.py does not read the calib rows"
import sys
from pathlib import Path
sys.path.insert(0, "analysis")
import costmodel, resultdir
cost = costmodel.costs(resultdir.load_result_dir(Path(sys.argv[1])).ok_rows)
missing = {"alu", "locked_add", "mfence", "pushf_pop", "push_popf", "gs_inc", "call_ret", "cli",
           "sti"} - cost.keys()
assert not missing, f"no cost for {missing}"
assert all(0 < c.low <= c.high for c in cost.values()), cost
print("costs:", ", ".join(f"{op} [{c.low:.3g}, {c.high:.3g}]" for op, c in sorted(cost.items())))
PY

# Where the kernel refuses ARCH_SET_GS the increment is %fs-relative, and
# the rows say so.
RB_CALIB_NO_GS=1 "$RB_CACHE/calibrate/calibrate" 1 1 2>"$tmp/err-fs" >"$tmp/fs.csv"
grep -q 'ARCH_SET_GS' "$tmp/err-fs" || fail "the %fs fallback is not reported on stderr"
grep -q '^calib,op=gs_inc;segment=fs,ns_per_op,[0-9]' "$tmp/fs.csv" || fail "no segment=fs row"

expect_fail "pingpong on one CPU" "$RB_CACHE/calibrate/pingpong" 0 0
expect_fail "pingpong without CPUs" "$RB_CACHE/calibrate/pingpong"
expect_fail "run.sh without RESULTDIR" "$run"
expect_fail "run.sh on a missing dir" "$run" "$tmp/nonexistent"
expect_fail "run.sh with a bad --runs" "$run" "$tmp/r" --runs x
mkdir -p "$tmp/bad/csv" && echo "a,b" >"$tmp/bad/csv/results.csv"
expect_fail "run.sh on a results.csv with another header" "$run" "$tmp/bad"
echo "calibrate ok"
