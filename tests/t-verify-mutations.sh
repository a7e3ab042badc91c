#!/bin/bash
# SPIN: the mutations of the preemptible RCU model that must fail do fail,
# each with a counterexample trail ending in a violated assertion, and
# verify/run.sh rejects bad input.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
command -v spin >/dev/null || { echo "spin not installed (make deps)"; exit 77; }

test_tmp
export VERIFY_OUT=$tmp VERIFY_TIMEOUT=120
expect_fail "unknown configuration" "$RB_TOP/verify/run.sh" no-such-config
expect_fail "unknown option" "$RB_TOP/verify/run.sh" --bogus

# every fast mutation: the configs marked FAIL with a bitstate search
mapfile -t muts < <(grep -E '^mut-[^ ]+ +FAIL +bitstate' "$RB_TOP/verify/configs" | awk '{ print $1 }')
[ ${#muts[@]} -ge 2 ] || fail "fewer than 2 fast mutations in verify/configs"
"$RB_TOP/verify/run.sh" "${muts[@]}" | tee "$tmp/table" || fail "an outcome differs from verify/configs"
for m in "${muts[@]}"; do
	row=$(awk -v n="$m" '$1 == n' "$tmp/table")
	[ "$(echo "$row" | awk '{ print $2 }')" = FAIL ] || fail "$m: did not fail: $row"
	[ -s "$tmp/$m/rcupreempt.pml.trail" ] || fail "$m: no trail"
	grep -q 'assertion violated' "$tmp/$m/trail.txt" ||
		fail "$m: trail replay does not end in an assertion violation"
	echo "ok: $m fails: $(grep -m1 'assertion violated' "$tmp/$m/trail.txt")"
done
