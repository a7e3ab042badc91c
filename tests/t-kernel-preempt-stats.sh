#!/bin/bash
# tier: guest
# After a short rcutorture run, /sys/kernel/debug/rcu/rcupreempt_stats of the
# preempt kernel shows completed grace periods, time spent in every stage of
# the state machine, and callbacks flowing; rcupreempt.gp_stages changes
# GP_STAGES in both the boot banner and the statistics.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp

kernel=preempt
require_built "$kernel"

for stages in 2 4; do
	out=$tmp/gp$stages
	"$RB_TOP/workloads/torture.sh" --kernel "$kernel" --vcpus 2 --duration 20 \
		--out "$out" --quiet --append "rcupreempt.gp_stages=$stages" ||
		fail "gp_stages=$stages: torture run failed: $(cat "$out/status")"
	grep -q "Preemptible RCU implementation (flip counters, GP_STAGES=$stages)" "$out/console.log" ||
		fail "gp_stages=$stages: banner does not say GP_STAGES=$stages"
	st=$out/results/rcupreempt_stats.txt
	[ -s "$st" ] || fail "gp_stages=$stages: no rcupreempt_stats from the guest"
	[ "$(stat_of "$st" gp_stages)" = "$stages" ] || fail "gp_stages=$stages: stats say $(stat_of "$st" gp_stages)"
	gps=$(stat_of "$st" gp_completed)
	[ "$gps" -gt 0 ] || fail "gp_stages=$stages: gp_completed is 0"
	[ "$(stat_of "$st" stages_completed)" -ge $((gps * stages)) ] ||
		fail "gp_stages=$stages: fewer stages than gp_completed * gp_stages"
	for s in idle waitack waitzero waitmb; do
		[ "$(stat_of "$st" "${s}_ns")" -gt 0 ] || fail "gp_stages=$stages: no time in $s"
		[ "$(stat_of "$st" "${s}_entries")" -gt 0 ] || fail "gp_stages=$stages: $s never entered"
	done
	queued=$(stat_of "$st" callbacks_queued)
	invoked=$(stat_of "$st" callbacks_invoked)
	[ "$invoked" -gt 0 ] && [ "$invoked" -le "$queued" ] ||
		fail "gp_stages=$stages: callbacks invoked $invoked, queued $queued"
	echo "ok: gp_stages=$stages: gp_completed $gps, waitzero $(stat_of "$st" waitzero_ns) ns, callbacks $invoked/$queued"
done
