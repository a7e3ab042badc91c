#!/bin/bash
# tier: guest
# The wakeup measurer is not phase-locked to the readers (issue 21): on
# classic (CONFIG_PREEMPT_NONE: a reader ends only at its cond_resched())
# at 1 vCPU, behind readers of L = 10 ms the wakeup delays spread over
# [0, L], so their quartiles lie near L/4, L/2, 3L/4.
#
# Tolerance.  With expiries uniform in a reader's period, the delay is the
# rest of the reader plus the wakeup's own cost under TCG.  The sample
# p-quantile of n uniform draws on [0, L] has a standard deviation of about
# sqrt(p (1 - p) / n) L (433 us at p = 1/4, 500 us at 1/2 for n = 100); we
# allow 3 of them.  The wakeup's own cost is measured in the same boot: the
# median delay behind 10 us readers, F; each quartile must lie within
# 3 sd of p L + F.  A measurer that re-armed 1-2 ms after each wakeup (at
# a reader boundary) puts every delay 8-9 ms behind 10 ms readers and
# fails the first quartile by far more.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp classic

L_US=10000
SHORT_US=10

cell() {
	awk -F, -v p="reader_us=$1;" -v m="$2" \
		'$4 == "classic" && $6 == "latency" && index($8 ";", p) == 1 && $9 == m && $13 == "ok" { print $10 }' \
		"$tmp/sweep/csv/results.csv"
}

BENCH_LATENCY_US=$SHORT_US,$L_US "$RB_TOP/workloads/bench.sh" --kernels classic --vcpus 1 --repeats 1 \
	--tests latency --out "$tmp/sweep" --no-analysis >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; fail "the latency sweep failed"; }
/usr/bin/python3 "$RB_TOP/tests/bench_csv_check.py" "$tmp/sweep" || fail "results.csv check failed"
n=$(cell $L_US samples)
floor=$(cell $SHORT_US wakeup_median_ns)
[ -n "$n" ] && [ -n "$floor" ] || fail "no latency rows for reader_us=$L_US and $SHORT_US"
echo "samples $n; TCG wakeup cost F (median behind ${SHORT_US} us readers) $floor ns;" \
	"skipped slots $(cell $L_US skipped_slots)"
bad=0
for q in 25:wakeup_p25_ns 50:wakeup_median_ns 75:wakeup_p75_ns; do
	pct=${q%%:*} metric=${q#*:}
	v=$(cell $L_US "$metric")
	[ -n "$v" ] || fail "no $metric row for reader_us=$L_US"
	if awk -v v="$v" -v p="$pct" -v n="$n" -v L="$((L_US * 1000))" -v f="$floor" 'BEGIN {
		p /= 100; want = p * L + f; tol = 3 * sqrt(p * (1 - p) / n) * L
		printf "p%d: %.2f ms, expected %.2f ms +- %.2f ms", p * 100, v / 1e6, want / 1e6, tol / 1e6
		exit !(v >= want - tol && v <= want + tol) }'; then
		echo ": ok"
	else
		echo ": FAIL"
		bad=1
	fi
done
[ $bad = 0 ] || fail "the wakeup delays behind ${L_US} us readers do not spread over [0, L]"
echo "max $(cell $L_US wakeup_max_ns) ns (at most about L + F: $((L_US * 1000)) + $floor)"
