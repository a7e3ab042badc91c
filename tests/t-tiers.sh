#!/bin/bash
# tier: host
# Test tiers (tests/run.sh): every tests/t-* is executable and names a valid
# tier; run.sh runs the host tier before the guest tier, each in name order,
# leaves the long tier out of the default run (make test) but runs it when
# asked (--tier long), and fails a test that names no tier.  The ordering
# is checked on a scratch tests directory of tiny tests (RB_TESTS_DIR).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp
run=$RB_TOP/tests/run.sh

# The real tests: each one listed once, with a tier.
for t in "$RB_TOP"/tests/t-*; do
	[ -x "$t" ] || fail "$(basename "$t") is not executable: run.sh would never run it"
done
listed=$("$run" --list --tier all) || fail "tests without a valid tier: $(echo "$listed" | grep '^none ' | cut -d' ' -f2 | tr '\n' ' ')"
files=("$RB_TOP"/tests/t-*)
[ "$(echo "$listed" | wc -l)" = ${#files[@]} ] ||
	fail "run.sh --list --tier all does not list every tests/t-*"
echo "$listed" | awk '{ n[$1]++ } END { for (t in n) printf "%s: %d tests\n", t, n[t] }' | sort
echo "$listed" | grep -qx 'host t-tiers.sh' || fail "t-tiers.sh is not in the host tier"

# A scratch tests directory: each test prints its name.
dir=$tmp/tests
mkdir -p "$dir"
mk() { # mk NAME TIER|'' [EXIT [BODY [TIMEOUT]]]
	{
		echo '#!/bin/bash'
		[ -z "$2" ] || echo "# tier: $2"
		[ -z "${5:-}" ] || echo "# timeout: $5"
		echo "echo ran $1; ${4:-}exit ${3:-0}"
	} >"$dir/$1"
	chmod +x "$dir/$1"
}
mk t-00-build guest
mk t-a-guest guest
mk t-b-host host
mk t-c-long long
mk t-d-host host 77
export RB_TESTS_DIR=$dir TEST_LOGS=$tmp/logs

want_list() { # want_list DESC EXPECTED ARGS...
	local desc=$1 want=$2 got
	shift 2
	got=$("$run" --list "$@" | tr '\n' ' ') || fail "$desc: run.sh --list failed"
	[ "$got" = "$want" ] || fail "$desc: got '$got', expected '$want'"
	echo "ok: $desc: $got"
}
want_list "default: host then guest, no long" \
	"host t-b-host host t-d-host guest t-00-build guest t-a-guest "
want_list "--tier long" "long t-c-long " --tier long
want_list "--tier all" "host t-b-host host t-d-host guest t-00-build guest t-a-guest long t-c-long " --tier all
want_list "a named test of the long tier" "long t-c-long " c-long
want_list "names within --tier host" "host t-b-host " --tier host b-host c-long
expect_fail "an unknown tier" "$run" --list --tier quick

out=$("$run") || fail "the default run of the scratch tests failed: $out"
echo "$out"
[ "$(echo "$out" | grep -E '^(--- tier|=== )' | tr '\n' ' ')" = \
	"--- tier host === t-b-host === t-d-host --- tier guest === t-00-build === t-a-guest " ] ||
	fail "the default run did not say its tiers or ran tests out of order"
[ "$(echo "$out" | tail -1)" = "3 passed, 0 failed, 1 skipped" ] || fail "wrong final line: $(echo "$out" | tail -1)"

# A test without a tier line fails the run, and is named.
mk t-e-untiered ''
if out=$("$run" --list); then fail "--list passed with an untiered test: $out"; fi
echo "$out" | grep -qx 'none t-e-untiered' || fail "--list does not name the untiered test: $out"
if out=$("$run"); then fail "a run with an untiered test passed: $out"; fi
echo "$out" | grep -q '^FAIL t-e-untiered' || fail "the untiered test is not reported: $out"
[ "$(echo "$out" | tail -1)" = "3 passed, 1 failed, 1 skipped" ] || fail "wrong final line: $(echo "$out" | tail -1)"
echo "ok: an untiered test fails the run"

# A test's own "# timeout:" line is its limit; the others get TEST_TIMEOUT.
rm "$dir/t-e-untiered"
mk t-f-slow host 0 'sleep 3; ' 1
mk t-g-patient host 0 'sleep 2; ' 5
out=$(TEST_TIMEOUT=600 "$run" --tier host f-slow g-patient) && fail "a test past its own timeout passed: $out"
echo "$out" | grep -q '^FAIL t-f-slow' || fail "t-f-slow (timeout 1 s, sleeps 3 s) did not fail: $out"
echo "$out" | grep -q '^PASS t-g-patient' || fail "t-g-patient (timeout 5 s, sleeps 2 s) did not pass: $out"
grep -q 'timed out after 1s' "$TEST_LOGS/t-f-slow.log" || fail "the log of t-f-slow does not say it timed out after 1s"
out=$(TEST_TIMEOUT=1 "$run" --tier host g-patient) || fail "TEST_TIMEOUT overrode a test's own timeout line: $out"
echo "ok: a test's '# timeout:' line sets its limit, TEST_TIMEOUT the others'"
