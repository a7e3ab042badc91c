#!/bin/bash
# tier: guest
# Counts across vCPU counts (make scale counts 1 to 64 vCPUs; issue 20),
# checked against the preempt kernel's code at 4 and 16 vCPUs.
#
# The formula: the RCU core's locked instructions are its smp_mb()s (its
# spinlocks are out of line, in _raw_spin_*(), no part of the core).  Each
# stage of the flip-counter machine executes 4 of them once, on whichever
# CPU's tick runs rcu_try_flip(): the idle state's before the acknowledgment
# requests, waitack's, waitzero's and waitmb's; and 4 on every online CPU:
# two around its acknowledgment of the flip (__rcu_advance_callbacks()),
# one for the memory barrier the machine asks of it (rcu_check_mb()), one
# for its RCU-sched quiescent state (rcu_sched_qs(); an idle CPU's tick is
# one).  So over s stages per synchronize_rcu() (count_gp's
# kernel_gps_per_sync: the machine's completed stages), the core's locked
# instructions per grace period per CPU are
#
#     core_locked = s * (4 + 4 / n)
#
# e.g. 3 * (4 + 1) = 15 at n = 4 vCPUs for back-to-back calls (3 stages
# each).  A window that opens or closes inside a stage counts part of one
# more: the tolerance is one stage's work, (4n + 4) / (gps * n).
#
# At 16 vCPUs (single-threaded TCG, as make scale boots them) with the
# coherence model: every vCPU's per-CPU base learnt, the formula again,
# transfers and a named hottest line.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp preempt

# check_formula ROWS N: core_locked against s * (4 + 4/N), load=idle.
check_formula() {
	local rows=$1 n=$2 p locked s gps
	p=$(awk -F, '$1 == "count_gp" && $3 == "core_locked" && $2 ~ /^load=idle;/ { print $2; exit }' "$rows")
	[ -n "$p" ] || fail "$n vCPUs: no count_gp load=idle rows"
	locked=$(count_of "$rows" count_gp "$p" core_locked)
	s=$(count_of "$rows" count_gp "$p" kernel_gps_per_sync)
	gps=$(echo "$p" | sed -n 's/.*gps=\([0-9]*\).*/\1/p')
	awk -v l="$locked" -v s="$s" -v n="$n" -v g="$gps" 'BEGIN {
		want = s * (4 + 4 / n); tol = (4 * n + 4) / (g * n)
		d = l - want; if (d < 0) d = -d
		exit !(d <= tol + 1e-9) }' ||
		fail "$n vCPUs: core_locked $locked per GP per CPU, the formula s (4 + 4/n) gives $(awk -v s="$s" -v n="$n" 'BEGIN { print s * (4 + 4 / n) }') (s = $s stages a call)"
	echo "ok: $n vCPUs: core_locked $locked per GP per CPU = s (4 + 4/n) with s = $s stages a call ($p)"
}

RB_TCG_THREAD=single count_boot "$kernel" 4 "count_gp" "$tmp/four"
check_formula "$tmp/four/rows.csv" 4

RB_TCG_THREAD=single RB_PLUGIN_COH=on count_boot "$kernel" 16 "count_gp" "$tmp/sixteen"
rows=$tmp/sixteen/rows.csv
check_formula "$rows" 16
counts=$tmp/sixteen/results/counts.csv
tail -1 "$counts" | grep -q 'per-CPU bases 16 of 16' ||
	fail "16 vCPUs: not every per-CPU base was learnt: $(tail -1 "$counts")"
for p in $(awk -F, '$1 == "count_gp" && $3 == "core_insns" { print $2 }' "$rows"); do
	t=$(count_of "$rows" count_gp "$p" transfers)
	awk -v t="$t" 'BEGIN { exit !(t > 0) }' || fail "16 vCPUs: count_gp $p: no transfers"
	hot=$(grep "^count_gp,$p;rank=1;" "$rows" | cut -d, -f2 | sed 's/.*line=//')
	[ -n "$hot" ] || fail "16 vCPUs: count_gp $p: no hottest line"
	echo "ok: 16 vCPUs: count_gp $p: $(count_of "$rows" count_gp "$p" core_insns) core instructions," \
		"$t transfers per GP per CPU; hottest line $hot"
done
