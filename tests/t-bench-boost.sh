#!/bin/bash
# tier: guest
# The boost test (rcubench test=boost) at 1 vCPU: a reader preempted
# inside its section by a CPU-bound SCHED_FIFO hog holds the grace period
# up on preempt for the booster's delay (rcupreempt.boost_delay_ms, 500 by
# default: at least that, less than the hog's BENCH_BOOST_HOG_MS), with
# one boost a sample at least; on its boot variant preempt-noboost
# (boost_delay_ms=0) for the whole hog (no boost); on classic-preempt,
# whose readers cannot be preempted, not at all (the hog runs after the
# section).  No cell may have run out of callback heads (pool_exhausted).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp

BOOST_DELAY_MS=500
build=preempt
variant=preempt-noboost
[ "$(kernel_fact $variant BUILD)" = $build ] || fail "$variant is not a boot variant of $build"
kernels="classic-preempt $build $variant"
# shellcheck disable=SC2086 # one word per kernel
require_built $kernels
hog_ms=$(bench_settings quick | sed -n 's/^BENCH_BOOST_HOG_MS=//p')
samples=$(bench_settings quick | sed -n 's/^BENCH_BOOST_SAMPLES=//p')
[ -n "$hog_ms" ] && [ -n "$samples" ] || fail "no BENCH_BOOST_HOG_MS or BENCH_BOOST_SAMPLES in the quick profile"
[ "$hog_ms" -gt $BOOST_DELAY_MS ] || fail "the quick profile's hog ($hog_ms ms) is not longer than the boost delay"

# cell_value KERNEL TEST METRIC: the value in the sweep's results.csv.
cell_value() {
	awk -F, -v k="$1" -v t="$2" -v m="$3" '$4 == k && $6 == t && $9 == m && $13 == "ok" { print $10 }' \
		"$tmp/sweep/csv/results.csv"
}

"$RB_TOP/workloads/bench.sh" --kernels "$kernels" --vcpus 1 --repeats 1 --tests boost \
	--out "$tmp/sweep" --no-analysis >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "the boost sweep failed"; }
/usr/bin/python3 "$RB_TOP/tests/bench_csv_check.py" "$tmp/sweep" || fail "results.csv check failed"
for k in $kernels; do
	for m in samples gp_median_ns gp_max_ns hog_delay_median_ns reader_section_median_ns \
		outstanding_median outstanding_max pool_exhausted; do
		[ -n "$(cell_value "$k" boost $m)" ] || fail "$k: no boost $m row"
	done
	[ "$(cell_value "$k" boost pool_exhausted)" = 0 ] || fail "$k: the poster ran out of callback heads"
	echo "ok: $k: grace period $(cell_value "$k" boost gp_median_ns) ns, read-side section" \
		"$(cell_value "$k" boost reader_section_median_ns) ns, $(cell_value "$k" boost outstanding_median)" \
		"callbacks outstanding, boosts $(cell_value "$k" boost_count boosts)"
done
ms() { echo $(($1 / 1000000)); }
gp=$(ms "$(cell_value $build boost gp_median_ns)")
[ "$gp" -ge $BOOST_DELAY_MS ] && [ "$gp" -lt "$hog_ms" ] ||
	fail "$build: grace period $gp ms behind a preempted reader, expected the boost delay: [$BOOST_DELAY_MS, $hog_ms) ms"
[ "$(cell_value $build boost_count boosts)" -ge "$samples" ] ||
	fail "$build: $(cell_value $build boost_count boosts) boosts in $samples samples"
gp=$(ms "$(cell_value $variant boost gp_median_ns)")
[ "$gp" -ge $((hog_ms * 9 / 10)) ] || fail "$variant: grace period $gp ms, expected the hog's $hog_ms ms"
[ "$(cell_value $variant boost_count boosts)" = 0 ] || fail "$variant: boosted with boost_delay_ms=0"
gp=$(ms "$(cell_value classic-preempt boost gp_median_ns)")
[ "$gp" -lt $BOOST_DELAY_MS ] || fail "classic-preempt: grace period $gp ms, but its reader cannot be preempted"
[ -z "$(cell_value classic-preempt boost_count boosts)" ] || fail "classic-preempt: a boost_count row (no booster there)"
echo "ok: boosting shortens the grace period behind a preempted reader from the hog's to the boost delay"
