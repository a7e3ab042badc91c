#!/bin/bash
# tier: guest
# A lone synchronize_rcu() on preempt at 1 vCPU (issue 21): the median of
# the gp test's spacing=lone samples (load=idle, in ticks) lies within
# +-1 tick of what the flip-counter design predicts for the boot's
# rcupreempt.gp_stages G (the gp_stages "stages" row, read from sysfs):
# 4 states per stage, one state per tick, G stages, plus the phase within
# the first tick: 4G + U(0,1], median 4G + 1/2 (analysis/gpdesign.py
# derives it from the code).  The back-to-back samples and their
# prediction, 4(G+1), are printed beside it.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp preempt

BENCH_GP_SAMPLES=20 "$RB_TOP/workloads/bench.sh" --kernels preempt --vcpus 1 --repeats 1 --tests gp \
	--out "$tmp/sweep" --no-analysis >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "the gp sweep failed"; }
/usr/bin/python3 "$RB_TOP/tests/bench_csv_check.py" "$tmp/sweep" || fail "results.csv check failed"
csv=$tmp/sweep/csv/results.csv

stages=$(awk -F, '$6 == "gp_stages" && $8 == "load=idle" && $9 == "stages" && $13 == "ok" { print $10 }' "$csv")
[ -n "$stages" ] || fail "no gp_stages stages row (rcupreempt.gp_stages from sysfs)"

# median_ticks SPACING: the median of the load=idle samples in ticks.
median_ticks() {
	awk -F, -v s="spacing=$1;" '$6 == "gp" && index($8, "load=idle;" s) == 1 && $8 ~ /;sample=/ &&
		$9 == "latency_ticks" && $13 == "ok" { print $10 }' "$csv" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

predict() {
	(cd "$RB_TOP/analysis" && /usr/bin/python3 -c "import gpdesign
print(gpdesign.prediction('rcupreempt', '$1', $stages).median)")
}

lone=$(median_ticks lone)
b2b=$(median_ticks back_to_back)
[ -n "$lone" ] && [ -n "$b2b" ] || fail "no lone or back-to-back gp samples"
want=$(predict lone)
echo "gp_stages $stages: lone median $lone ticks, predicted $want;" \
	"back to back median $b2b ticks, predicted $(predict back_to_back)"
awk -v m="$lone" -v w="$want" 'BEGIN { exit !(m >= w - 1 && m <= w + 1) }' ||
	fail "a lone synchronize_rcu() takes $lone ticks (median), the design predicts $want +- 1"
echo "ok: lone synchronize_rcu() within 1 tick of the prediction"
