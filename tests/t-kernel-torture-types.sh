#!/bin/bash
# tier: guest
# Torture types other than rcu on the two seed implementations: a short
# srcu and a short tasks rcutorture run, with CPU hotplug, on classic
# (Classic RCU; classic-preempt runs the same code) and preempt
# (flip-counter preemptible RCU).  SRCU's grace periods rest on
# synchronize_rcu() and the implementation's callbacks, Tasks RCU's on
# its quiescent-state hooks (context switch, user-mode tick); each run
# must end with SUCCESS, a clean console, and grace periods (ver:) that
# kept coming.  make torture runs every type of TORTURE_TYPES, longer.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp

secs=${RB_TYPES_TORTURE_SECS:-25}
ran=0
for k in classic preempt; do
	if ! kernel_built "$k"; then
		echo "kernel $k not built"
		continue
	fi
	for t in srcu tasks; do
		case " $(conf_get TORTURE_TYPES) " in *" $t "*) ;; *) fail "$t is not in TORTURE_TYPES" ;; esac
		out=$tmp/$k-$t
		"$RB_TOP/workloads/torture.sh" --kernel "$k" --type "$t" --vcpus 2 --duration "$secs" \
			--onoff 3000 --args "$(conf_get TORTURE_ARGS)" --out "$out" --quiet >/dev/null ||
			fail "$k/$t: $(cat "$out/summary.txt" 2>/dev/null || cat "$out/status")"
		grep -q "$t-torture:.*End of test: SUCCESS" "$out/results/torture.log" ||
			fail "$k/$t: no SUCCESS verdict of the $t torture type"
		ver=$(tr ' ' '\n' <"$out/summary.txt" | sed -n 's/^gp_versions=//p')
		[ "${ver:-0}" -ge 10 ] || fail "$k/$t: only ${ver:-0} grace periods (ver:) in ${secs}s"
		echo "ok: $(cat "$out/summary.txt")"
		ran=$((ran + 1))
	done
done
[ $ran -gt 0 ] || exit 77
