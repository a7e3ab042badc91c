#!/bin/bash
# tier: guest
# The Classic RCU kernels of test_kernels (FAMILY = classic in their facts:
# classic with patch 0002, classic-preempt with 0003) survive a short
# rcutorture with CPU hotplug, and their /sys/kernel/debug/rcu/
# classic_stats show grace periods completed and callbacks invoked
# (t-boot-banner boots them at 1, 2 and 4 vCPUs).  A kernel that is not
# built is left out; the test skips when none is built.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp

# torture_classic K: the short rcutorture and classic_stats checks on K.
torture_classic() {
	local k=$1 line stats name
	line=$("$RB_TOP/workloads/torture.sh" --kernel "$k" --vcpus 2 --duration 60 \
		--onoff 1000 --out "$tmp/tt-$k" 2>/dev/null | grep 'result=' | tail -1) ||
		fail "$k: torture.sh failed: $(tail -3 "$tmp/tt-$k/console.log" 2>/dev/null)"
	echo "$line"
	case "$line" in
	*result=SUCCESS*) ;;
	*) fail "$k: rcutorture did not succeed: $line" ;;
	esac

	stats=$tmp/tt-$k/results/classic_stats.txt
	[ -s "$stats" ] || fail "$k: no classic_stats.txt in the torture results"
	for name in gp_completed callbacks_queued callbacks_invoked qs_reported force_qs gp_time_ns; do
		[ -n "$(stat "$stats" "$name")" ] || fail "$k: classic_stats has no $name line"
	done
	[ "$(stat "$stats" gp_completed)" -gt 0 ] || fail "$k: gp_completed is $(stat "$stats" gp_completed)"
	[ "$(stat "$stats" callbacks_invoked)" -gt 0 ] ||
		fail "$k: callbacks_invoked is $(stat "$stats" callbacks_invoked)"
	echo "ok: $k classic_stats: gp_completed $(stat "$stats" gp_completed)," \
		"callbacks_invoked $(stat "$stats" callbacks_invoked)"
}

stat() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

# Classic RCU on both preemption models: classic (PREEMPT_NONE) and
# classic-preempt (PREEMPT, patch 0003).
classics=$(for k in $(test_kernels); do
	[ "$(kernel_fact "$k" FAMILY)" != classic ] || echo "$k"
done)
[ -n "$classics" ] || fail "no Classic RCU kernel (FAMILY = classic in configs/<kernel>/facts) in the test kernels"
# shellcheck disable=SC2086 # one word per kernel
require_built $classics
for k in $classics; do
	torture_classic "$k"
done
