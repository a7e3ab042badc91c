#!/bin/bash
# tier: guest
# call_rcu() capacity is CPU-bound (issue 21): at 1 vCPU, on every
# kernel of test_kernels, the callrcu_capacity rows of the quick
# profile say that no writer ever found its backlog full (limit_reached 0)
# and that the peak backlog stayed below max_backlog (limit_ratio < 1); the
# callrcu_memory rows give a memory held within their own limit.  Negative
# control, on one kernel: with max_backlog=1000, far below rate x grace
# period, the same rows must say the limit was reached, so the check above
# can fail.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp

kernels=$(test_kernels)
# shellcheck disable=SC2086 # one word per kernel
require_built $kernels

# value DIR KERNEL TEST METRIC: the one ok row's value in DIR's results.csv.
value() {
	local v
	v=$(awk -F, -v k="$2" -v t="$3" -v m="$4" '$4 == k && $5 == 1 && $6 == t && $9 == m && $13 == "ok" { print $10 }' \
		"$1/csv/results.csv")
	[ "$(echo "$v" | grep -c .)" = 1 ] || fail "$2: expected one $3 $4 row, got '$v'"
	echo "$v"
}

"$RB_TOP/workloads/bench.sh" --kernels "$kernels" --vcpus 1 --repeats 1 \
	--tests "callrcu_capacity callrcu_memory" --out "$tmp/sweep" --no-analysis >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; fail "the capacity sweep failed"; }
/usr/bin/python3 "$RB_TOP/tests/bench_csv_check.py" "$tmp/sweep" || fail "results.csv check failed"
for k in $kernels; do
	reached=$(value "$tmp/sweep" "$k" callrcu_capacity limit_reached)
	ratio=$(value "$tmp/sweep" "$k" callrcu_capacity limit_ratio)
	peak=$(value "$tmp/sweep" "$k" callrcu_capacity peak_outstanding)
	rate=$(value "$tmp/sweep" "$k" callrcu_capacity invoked_per_s)
	[ "$reached" = 0 ] || fail "$k: callrcu_capacity reached its backlog limit (limit_reached $reached)"
	awk -v r="$ratio" 'BEGIN { exit !(r < 1) }' || fail "$k: peak backlog at ${ratio} of the limit"
	mreached=$(value "$tmp/sweep" "$k" callrcu_memory limit_reached)
	mean=$(value "$tmp/sweep" "$k" callrcu_memory outstanding_mean)
	bytes=$(value "$tmp/sweep" "$k" callrcu_memory bytes_mean)
	[ "$mreached" = 0 ] || fail "$k: callrcu_memory reached its backlog limit"
	awk -v m="$mean" 'BEGIN { exit !(m > 0) }' || fail "$k: no callbacks outstanding at a fixed rate"
	echo "ok: $k: $rate callbacks/s invoked, peak backlog $peak (limit ratio $ratio, not reached);" \
		"memory held: $mean callbacks, $bytes bytes on average"
done

k=${kernels%% *}
BENCH_MAX_BACKLOG=1000 "$RB_TOP/workloads/bench.sh" --kernels "$k" --vcpus 1 --repeats 1 \
	--tests callrcu_capacity --out "$tmp/small" --no-analysis >"$tmp/small.out" 2>&1 ||
	{ cat "$tmp/small.out"; fail "the max_backlog=1000 sweep failed"; }
reached=$(value "$tmp/small" "$k" callrcu_capacity limit_reached)
[ "$reached" = 1 ] || fail "$k: with max_backlog=1000 limit_reached is $reached, expected 1"
echo "ok: negative control: $k with max_backlog=1000 reaches the limit" \
	"(limit ratio $(value "$tmp/small" "$k" callrcu_capacity limit_ratio))"
