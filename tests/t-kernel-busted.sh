#!/bin/bash
# tier: guest
# The negative control: rcutorture's torture_type=busted (call_rcu() that
# invokes the callback at once, synchronize_rcu() that waits for nothing)
# must end in FAILURE on every built kernel, and the harness must say so:
# torture.sh exits non-zero with result=FAILURE..., and torture-all.sh's
# table and matrix call the control's cell "failed" (that is checked on
# the summary of a real run, without booting again).  A harness that has
# never seen a failure has not shown that it can report one.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp

secs=${RB_BUSTED_SECS:-$(conf_get TORTURE_NEGATIVE_DURATION)}
[ "$(conf_get TORTURE_NEGATIVE)" = busted ] || fail "suite.conf TORTURE_NEGATIVE is not busted"
# shellcheck disable=SC2046 # one word per kernel
require_built $(test_kernels)
done_kernels=
for k in $(test_kernels); do
	out=$tmp/m/$k/busted
	if "$RB_TOP/workloads/torture.sh" --kernel "$k" --type busted --vcpus 2 --duration "$secs" \
		--out "$out" --quiet >/dev/null; then
		fail "$k: torture.sh reported success for torture_type=busted: $(cat "$out/summary.txt")"
	fi
	line=$(cat "$out/summary.txt" 2>/dev/null) || fail "$k: no summary line: $(cat "$out/status" 2>/dev/null)"
	case " $line " in
	*" type=busted "*" result=FAILURE"*) ;;
	*) fail "$k: the busted run did not end in FAILURE: $line" ;;
	esac
	grep -q 'busted-torture:.*End of test: FAILURE' "$out/results/torture.log" ||
		fail "$k: rcutorture printed no FAILURE verdict"
	# rcutorture found readers that saw freed data: the pipe is non-zero
	# beyond its first two stages ("Reader Pipe" and the !!! lines).
	grep -q '!!!' "$out/results/torture.log" || fail "$k: rcutorture flagged no reader error (!!!)"
	echo "ok: $k: $line"
	done_kernels="$done_kernels $k"
done

# make torture's table and matrix on these runs: the control failed, as it
# must, so the matrix passes; a control that succeeded would fail it.
table=$("$RB_TOP/workloads/torture-table.sh" --out "$tmp/m" --kernels "$done_kernels" --types "" \
	--negative busted) || fail "torture-table.sh rejects busted runs that failed: $table"
echo "$table"
for k in $done_kernels; do
	echo "$table" | grep -qE "^$k +failed *$" || fail "the matrix does not show $k's busted control as failed"
done
mkdir -p "$tmp/m/fake/busted"
sed 's/ result=[^ ]*/ result=SUCCESS/' "$tmp/m/${done_kernels##* }/busted/summary.txt" >"$tmp/m/fake/busted/summary.txt"
if table=$("$RB_TOP/workloads/torture-table.sh" --out "$tmp/m" --kernels "fake" --types "" --negative busted); then
	fail "torture-table.sh accepted a busted control that succeeded: $table"
fi
echo "$table" | grep -qE "^fake +NOT-FAILED *$" || fail "the matrix does not flag a busted control that succeeded"
echo "ok: torture-table.sh reports the controls as failed, and a succeeding control as NOT-FAILED"
