#!/bin/bash
# The classic kernel (Classic RCU, patch 0002) survives a short rcutorture
# with CPU hotplug, and its /sys/kernel/debug/rcu/classic_stats shows grace
# periods completed and callbacks invoked (t-boot-banner boots it at 1, 2
# and 4 vCPUs).  Skips while classic is not built.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp

k=classic
case " $(conf_get KERNELS_PENDING) " in
*" $k "*)
	echo "skip: kernel $k is pending in suite.conf (KERNELS_PENDING), not in the suite's kernel list"
	exit 77
	;;
esac
skip_unless_built "$k"

line=$("$RB_TOP/workloads/torture.sh" --kernel "$k" --vcpus 2 --duration 60 \
	--onoff 1000 --out "$tmp/tt" 2>/dev/null | grep 'result=' | tail -1) ||
	fail "$k: torture.sh failed: $(tail -3 "$tmp/tt/console.log" 2>/dev/null)"
echo "$line"
case "$line" in
*result=SUCCESS*) ;;
*) fail "$k: rcutorture did not succeed: $line" ;;
esac

stats=$tmp/tt/results/classic_stats.txt
[ -s "$stats" ] || fail "$k: no classic_stats.txt in the torture results"
stat() { awk -v k="$1" '$1 == k { print $2 }' "$stats"; }
for name in gp_completed callbacks_queued callbacks_invoked qs_reported force_qs gp_time_ns; do
	[ -n "$(stat "$name")" ] || fail "$k: classic_stats has no $name line"
done
[ "$(stat gp_completed)" -gt 0 ] || fail "$k: gp_completed is $(stat gp_completed)"
[ "$(stat callbacks_invoked)" -gt 0 ] || fail "$k: callbacks_invoked is $(stat callbacks_invoked)"
echo "ok: $k classic_stats: gp_completed $(stat gp_completed), callbacks_invoked $(stat callbacks_invoked)"
