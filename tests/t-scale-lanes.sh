#!/bin/bash
# tier: guest
# The scale run's count boots run side by side (suite.conf SCALE_LANES): two
# lanes of one count boot each, preempt at 1 and 2 vCPUs, each lane with its
# own progress, both cells' rows in the one results CSV (merged one at a
# time), the sweep complete.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp preempt

out=$tmp/scale
RB_SCALE_LANES=2 "$RB_TOP/workloads/bench.sh" --scale --kernels "$kernel" --vcpus "1 2" --repeats 1 \
	--tests count_gp --no-analysis --out "$out" >"$tmp/bench.log" 2>&1 ||
	fail "the two-lane scale run failed: $(tail -5 "$tmp/bench.log" | tr '\n' ' ')"
grep -q 'bench: 2 count boots at a time' "$tmp/bench.log" || fail "no lanes: $(grep 'bench:' "$tmp/bench.log" | head -3)"
for l in 1 2; do
	grep -q "^bench lane $l \[1/1\] kernel=$kernel" "$tmp/bench.log" ||
		fail "lane $l printed no progress of its own boot"
done
csv=$out/csv/results.csv
[ "$(grep -c '^schema_version,' "$csv")" = 1 ] || fail "results.csv has not one header"
for v in 1 2; do
	n=$(awk -F, -v k="$kernel" -v v="$v" '$4 == k && $5 == v && $6 == "count_gp" && $NF == "ok"' "$csv" | wc -l)
	[ "$n" -gt 0 ] || fail "no ok count_gp rows of $kernel at $v vCPUs in the merged CSV"
	echo "$v vCPUs: $n count_gp rows"
done
[ "$(/usr/bin/python3 "$RB_TOP/analysis/sweep.py" get --dir "$out" complete)" = True ] || fail "the sweep is not complete"
echo "ok: two lanes, both cells merged, sweep complete"
