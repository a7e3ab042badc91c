#!/bin/bash
# tier: guest
# Each kernel boots at 2 vCPUs (the seed kernels, SEED = yes in
# configs/<kernel>/facts, at each count of VCPUS_FULL), prints the RCU
# banner its facts expect (BANNER), sees that many CPUs, and runs on a real clocksource (not jiffies:
# refscale would read 0 ns).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp

for k in $(test_kernels); do
	counts=2
	[ "$(kernel_fact "$k" SEED)" != yes ] || counts=$(conf_get VCPUS_FULL)
	want=$(kernel_fact "$k" BANNER)
	[ -n "$want" ] || fail "$k: no BANNER in configs/$k/facts"
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
