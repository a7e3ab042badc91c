#!/bin/bash
# tier: host
# SPIN: the fast configurations of the preemptible RCU model that must
# fail do fail, each with a counterexample trail (a violated assertion or
# a non-progress cycle) that replays, and verify/run.sh rejects bad input.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
command -v spin >/dev/null || { echo "spin not installed (make deps)"; exit 77; }

test_tmp
export VERIFY_OUT=$tmp VERIFY_TIMEOUT=300
expect_fail "unknown configuration" "$RB_TOP/verify/run.sh" no-such-config
expect_fail "unknown option" "$RB_TOP/verify/run.sh" --bogus

# the fast ones of verify/configs (seconds each): drop waitmb, drop
# waitack, GP_STAGES=1, Quick Quiz 7 at GP_STAGES=1 and (3 CPUs, about a
# minute) 2, a liveness mutation, the reader hand-off without the held
# count (the code before the fix)
muts=(mut-nowaitmb-gp2 mut-nowaitack-gp2 gp1-2cpu mut-qq7-2cpu-gp1 mut-qq7-3cpu-gp2 mut-live-noack mut-nohold-gp2)
"$RB_TOP/verify/run.sh" "${muts[@]}" | tee "$tmp/table" || fail "an outcome differs from verify/configs"
for m in "${muts[@]}"; do
	row=$(awk -v n="$m" '$1 == n' "$tmp/table")
	[ "$(echo "$row" | awk '{ print $2 }')" = FAIL ] || fail "$m: did not fail: $row"
	[ -s "$tmp/$m/rcupreempt.pml.trail" ] || fail "$m: no trail"
	grep -qE '^pan:1: (assertion violated|non-progress cycle)' "$tmp/$m/pan.log" ||
		fail "$m: pan found no assertion violation or non-progress cycle"
	[ -s "$tmp/$m/trail.txt" ] || fail "$m: trail does not replay"
	echo "ok: $m fails: $(grep -m1 '^pan:1:' "$tmp/$m/pan.log"), trail replayed"
done
