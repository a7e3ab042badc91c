#!/bin/bash
# tests/run.sh [NAME...]: run the suite's tests (every executable
# tests/t-*; or those whose names contain one of NAME...), each with a time
# limit, its output in $TEST_LOGS/<test>.log.  A test passes with exit 0,
# is skipped with exit 77 (counted apart, never as a pass), fails otherwise.
# Ends with the line "N passed, N failed, N skipped".
set -uo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

TEST_TIMEOUT=${TEST_TIMEOUT:-1800}
TEST_LOGS=${TEST_LOGS:-$RB_CACHE/test-logs}
mkdir -p "$TEST_LOGS"

selected() {
	local pat
	[ $# -gt 1 ] || return 0
	for pat in "${@:2}"; do
		case "$1" in *"$pat"*) return 0 ;; esac
	done
	return 1
}

passed=0 failed=0 skipped=0 failures=()
for t in "$RB_TOP"/tests/t-*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	selected "$name" "$@" || continue
	log=$TEST_LOGS/$name.log
	start=$(date +%s)
	echo "=== $name"
	timeout "$TEST_TIMEOUT" "$t" >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	case $rc in
	0) passed=$((passed + 1)); echo "PASS $name (${secs}s)" ;;
	77) skipped=$((skipped + 1)); echo "SKIP $name (${secs}s): $(tail -1 "$log")" ;;
	*)
		failed=$((failed + 1)); failures+=("$name")
		[ $rc -ne 124 ] || echo "(timed out after ${TEST_TIMEOUT}s)" >>"$log"
		echo "FAIL $name (${secs}s, exit $rc); last lines of $log:"
		tail -15 "$log" | sed 's/^/    /'
		;;
	esac
done
[ ${#failures[@]} -eq 0 ] || echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ] && [ $((passed + skipped)) -gt 0 ]
