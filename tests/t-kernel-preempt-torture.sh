#!/bin/bash
# tier: guest
# The preempt kernel survives rcutorture at 2 vCPUs with CPU hotplug and
# the preemption torture (an RT spinner per CPU): rcutorture ends with
# SUCCESS, reports zero preemption stalls, and CPUs really went on and off;
# the priority booster (rcupreempt.boost_delay_ms) is what keeps the
# preempted readers moving, so it must have boosted some of them.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp

kernel=preempt
duration=${RB_PREEMPT_TORTURE_SECS:-60}
require_built "$kernel"

out=$tmp/torture
"$RB_TOP/workloads/torture.sh" --kernel "$kernel" --vcpus 2 --duration "$duration" \
	--onoff 3000 --args "preempt_torture=1" --out "$out" --quiet ||
	fail "torture run failed: $(cat "$out/summary.txt" 2>/dev/null || cat "$out/status")"
log=$out/results/torture.log
end=$(grep -m1 'End of test: SUCCESS' "$log") || fail "no SUCCESS end-of-test line"
echo "$end" | grep -q 'preempt_torture=1 preempt_stalls=0$' ||
	fail "end-of-test line lacks preempt_torture=1 preempt_stalls=0: $end"
# "onoff: 3/3:4/4 ..." = successful/attempted offlines : onlines.
onoff=$(grep -o 'onoff: [0-9]*/[0-9]*:[0-9]*/[0-9]*' "$log" | tail -1)
offlines=$(echo "$onoff" | sed 's/onoff: \([0-9]*\)\/.*/\1/')
[ "${offlines:-0}" -gt 0 ] || fail "no CPU went offline during the run ($onoff)"
grep -q 'Preemptible RCU implementation' "$out/results/dmesg.txt" 2>/dev/null ||
	grep -q 'Preemptible RCU implementation' "$out/console.log" || fail "not the preempt kernel"
st=$out/results/rcupreempt_stats.txt
[ -s "$st" ] || fail "no rcupreempt_stats from the guest"
boosts=$(stat_of "$st" boosts)
[ "$boosts" -gt 0 ] || fail "the booster never boosted a preempted reader"
# The booster runs one SCHED_FIFO priority above the readers it boosts:
# at the same priority a CPU-bound boosted reader kept it off a lone CPU.
bt=$out/results/booster.txt
[ -s "$bt" ] || fail "no booster.txt: no rcu_preempt_boost kthread in the guest"
[ "$(stat_of "$bt" booster_policy)" = 1 ] || fail "the booster is not SCHED_FIFO: $(cat "$bt")"
[ "$(stat_of "$bt" booster_rt_priority)" -eq $(($(stat_of "$bt" boost_prio) + 1)) ] ||
	fail "the booster does not run at boost_prio + 1: $(tr '\n' ' ' <"$bt")"
echo "ok: $(cat "$out/summary.txt"); $onoff; boosts $boosts; $(tr '\n' ' ' <"$bt")"
