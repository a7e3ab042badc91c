#!/bin/bash
# tests/run.sh [--tier "TIER..."] [--list] [NAME...]: run the suite's tests
# (every executable tests/t-*; or those whose names contain one of NAME...),
# each with a time limit, its output in $TEST_LOGS/<test>.log.  A test passes
# with exit 0, is skipped with exit 77 (counted apart, never as a pass),
# fails otherwise.  Ends with the line "N passed, N failed, N skipped".
#
# Each test names its tier in a "# tier: T" line near its top:
#   host   needs only the host's tools (make deps): seconds to minutes, no
#          kernel tree, no guest;
#   guest  builds kernels or needs them built, or boots guests;
#   long   needs much longer than CI gives a test (> ~10 min): run by hand.
# Tiers run in that order (so a broken analysis fails before any kernel
# build starts), each test in name order within its tier (t-00-kernels
# builds the kernels the rest of the guest tier uses).  By default (make
# test, what CI runs) the host and guest tiers; with NAME... and no --tier,
# the named tests of every tier.  A test without a valid tier line fails.
# A test may name its own time limit in a "# timeout: SECONDS" line (the
# kernel builds: five kernels from cold take 40 min on a 2-CPU host where
# fork+exec costs 6 ms); the others get TEST_TIMEOUT (default 1800 s).
# --list prints "tier name" of the tests that would run, in order, and runs
# none.  RB_TESTS_DIR (default tests/) is where the t-* files are looked for.
set -uo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

ALL_TIERS="host guest long"
DEFAULT_TIERS="host guest"
TESTS_DIR=${RB_TESTS_DIR:-$RB_TOP/tests}
TEST_TIMEOUT=${TEST_TIMEOUT:-1800}
TEST_LOGS=${TEST_LOGS:-$RB_CACHE/test-logs}

tiers='' list=0
while [ $# -gt 0 ]; do
	case "$1" in
	--tier) [ $# -ge 2 ] || die "--tier needs a list of tiers ($ALL_TIERS)"; tiers=$2; shift ;;
	--list) list=1 ;;
	-*) die "unknown option '$1' (usage: tests/run.sh [--tier \"TIER...\"] [--list] [NAME...])" ;;
	*) break ;;
	esac
	shift
done
if [ -z "$tiers" ]; then
	if [ $# -gt 0 ]; then tiers=$ALL_TIERS; else tiers=$DEFAULT_TIERS; fi
fi
[ "$tiers" != all ] || tiers=$ALL_TIERS
for tier in $tiers; do
	case " $ALL_TIERS " in *" $tier "*) ;; *) die "unknown tier '$tier' (known: $ALL_TIERS)" ;; esac
done

selected() {
	local pat
	[ $# -gt 1 ] || return 0
	for pat in "${@:2}"; do
		case "$1" in *"$pat"*) return 0 ;; esac
	done
	return 1
}

# header TEST NAME PATTERN: the value of TEST's first "# NAME: VALUE" line
# among its first 30 lines, when VALUE matches the sed PATTERN (else empty).
header() {
	head -30 "$1" | sed -n "s/^# $2: \\($3\\)[[:space:]]*\$/\\1/p" | head -1
}

# tier_of TEST: the tier its "# tier: T" line names (empty when it has no
# such line, or names no known tier).
tier_of() {
	local t
	t=$(header "$1" tier '[a-z]*')
	case " $ALL_TIERS " in *" $t "*) [ -n "$t" ] && echo "$t" ;; esac
}

# timeout_of TEST: its "# timeout: SECONDS" line, else TEST_TIMEOUT.
timeout_of() {
	local s
	s=$(header "$1" timeout '[0-9][0-9]*')
	echo "${s:-$TEST_TIMEOUT}"
}

# The selected tests and their tiers; the plan: "tier path" in run order.
declare -A tier_of_test=()
untiered=()
for t in "$TESTS_DIR"/t-*; do
	[ -x "$t" ] || continue
	selected "$(basename "$t")" "$@" || continue
	tier_of_test[$t]=$(tier_of "$t")
	[ -n "${tier_of_test[$t]}" ] || untiered+=("$t")
done
plan=()
for tier in $ALL_TIERS; do
	case " $tiers " in *" $tier "*) ;; *) continue ;; esac
	for t in "$TESTS_DIR"/t-*; do
		[ "${tier_of_test[$t]:-}" != "$tier" ] || plan+=("$tier $t")
	done
done

if [ $list = 1 ]; then
	for p in "${plan[@]}"; do echo "${p%% *} $(basename "${p#* }")"; done
	for t in "${untiered[@]}"; do echo "none $(basename "$t")"; done
	[ ${#untiered[@]} -eq 0 ]
	exit
fi

mkdir -p "$TEST_LOGS"
[ ${#plan[@]} -gt 0 ] || echo "no test of tier(s) $tiers${*:+ named $*}"
passed=0 failed=0 skipped=0 failures=()
for t in "${untiered[@]}"; do
	failed=$((failed + 1)) failures+=("$(basename "$t")")
	echo "FAIL $(basename "$t"): no '# tier: T' line with T one of: $ALL_TIERS"
done
current=
for p in "${plan[@]}"; do
	tier=${p%% *} t=${p#* }
	if [ "$tier" != "$current" ]; then
		current=$tier
		echo "--- tier $tier"
	fi
	name=$(basename "$t")
	log=$TEST_LOGS/$name.log
	start=$(date +%s)
	echo "=== $name"
	limit=$(timeout_of "$t")
	timeout "$limit" "$t" >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	case $rc in
	0) passed=$((passed + 1)); echo "PASS $name (${secs}s)" ;;
	77) skipped=$((skipped + 1)); echo "SKIP $name (${secs}s): $(tail -1 "$log")" ;;
	*)
		failed=$((failed + 1)); failures+=("$name")
		[ $rc -ne 124 ] || echo "(timed out after ${limit}s)" >>"$log"
		echo "FAIL $name (${secs}s, exit $rc); last lines of $log:"
		tail -15 "$log" | sed 's/^/    /'
		;;
	esac
done
[ ${#failures[@]} -eq 0 ] || echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ] && [ $((passed + skipped)) -gt 0 ]
