#!/bin/bash
# Each kernel boots at 2 vCPUs, prints the RCU banner suite.conf expects for
# it, and runs on a real clocksource (not jiffies: refscale would read 0 ns).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp

for k in $(conf_get KERNELS); do
	"$RB_TOP/workloads/boot.sh" --quiet --kernel "$k" --vcpus 2 \
		--job "$RB_TOP/workloads/guest/jobs/banner.sh" --out "$tmp/$k" ||
		fail "$k: boot failed: $(cat "$tmp/$k/status")"
	want=$(conf_get "BANNER_$k")
	got=$(cat "$tmp/$k/results/rcu-banner.txt")
	echo "$got" | grep -Eq "$want" || fail "$k: banner '$got' does not match '$want'"
	cs=$(cat "$tmp/$k/results/clocksource")
	case "$cs" in
	jiffies | refined-jiffies | '') fail "$k: clocksource '$cs'" ;;
	esac
	[ "$(cat "$tmp/$k/results/nproc")" = 2 ] || fail "$k: guest saw $(cat "$tmp/$k/results/nproc") CPUs"
	echo "ok: $k: '$got', clocksource $cs, $(cat "$tmp/$k/elapsed")s"
done
