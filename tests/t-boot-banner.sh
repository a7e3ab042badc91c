#!/bin/bash
# tier: guest
# Each kernel boots at 2 vCPUs (the seed kernels, suite.conf SEED_KERNELS,
# at each count of VCPUS_FULL), prints the RCU banner suite.conf expects
# for it, sees that many CPUs, and runs on a real clocksource (not jiffies:
# refscale would read 0 ns).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp

seed=" $(conf_get SEED_KERNELS) "
for k in $(conf_get KERNELS); do
	counts=2
	case "$seed" in *" $k "*) counts=$(conf_get VCPUS_FULL) ;; esac
	want=$(conf_get "BANNER_$k")
	for n in $counts; do
		out=$tmp/$k-$n
		"$RB_TOP/workloads/boot.sh" --quiet --kernel "$k" --vcpus "$n" \
			--job "$RB_TOP/workloads/guest/jobs/banner.sh" --out "$out" ||
			fail "$k/$n: boot failed: $(cat "$out/status")"
		got=$(cat "$out/results/rcu-banner.txt")
		echo "$got" | grep -Eq "$want" || fail "$k/$n: banner '$got' does not match '$want'"
		cs=$(cat "$out/results/clocksource")
		case "$cs" in
		jiffies | refined-jiffies | '') fail "$k/$n: clocksource '$cs'" ;;
		esac
		[ "$(cat "$out/results/nproc")" = "$n" ] ||
			fail "$k/$n: guest saw $(cat "$out/results/nproc") CPUs"
		echo "ok: $k at $n vCPUs: '$got', clocksource $cs, $(cat "$out/elapsed")s"
	done
done
