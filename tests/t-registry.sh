#!/bin/bash
# tier: host
# Host only: the bench tests are named the same everywhere.  suite.conf's
# table (BENCH_TEST_*) against rcubench.c's RB_TESTS (names and kinds), the
# guest job (a test_<name> for each, passing every parameter the module
# says the test reads), analysis/SCHEMA.md's vocabulary, the analysis'
# test -> cell mapping; the plugin's instruction classes
# against rb_marker.h (tests/registry_check.py).  Each kind of disagreement,
# made in a copy, must be caught.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp

/usr/bin/python3 "$RB_TOP/tests/registry_check.py" || fail "the bench tests disagree (above)"
echo "ok: one registry of bench tests: module, host table, guest job, SCHEMA.md, analysis agree"

# The guest job's default list comes from the host: no list of its own.
grep -q 'BENCH_TESTS:=' "$RB_TOP/workloads/guest/jobs/bench.sh" &&
	fail "the guest job has a default test list of its own"
[ "$(bench_tests any sweep)" != "" ] || fail "suite.conf: no bench test in the default sweep"

# mutant NAME FILE SED EXPECT: a copy of the checked files with SED applied
# to FILE must fail the check with a message matching EXPECT.
files="suite.conf bench-module/rcubench.c bench-module/rb_marker.h workloads/guest/jobs/bench.sh
workloads/tcg-plugin/rbcount.c analysis"
mutant() {
	local dir=$tmp/$1 out
	mkdir -p "$dir"
	(cd "$RB_TOP" && cp -r --parents $files "$dir/")
	sed -i "$3" "$dir/$2"
	cmp -s "$RB_TOP/$2" "$dir/$2" && fail "$1: the edit '$3' changed nothing in $2"
	if out=$(/usr/bin/python3 "$RB_TOP/tests/registry_check.py" --top "$dir" 2>&1); then
		fail "$1: not caught"
	fi
	echo "$out" | grep -q "^registry: .*$4" || fail "$1: caught, but not as '$4': $out"
	echo "ok: $1 caught: $(echo "$out" | grep -m1 "^registry: .*$4")"
}
mutant module-only bench-module/rcubench.c \
	's/^\(\tT(read,.*\)$/\1\t\\\n\tT(read_new,\t\tRB_TIMED, 2, 0, "loops")/' 'RB_TESTS has read_new'
mutant kind bench-module/rcubench.c 's/T(count_gp,\t\tRB_COUNTED/T(count_gp,\t\tRB_TIMED/' \
	'count_gp: timed in rcubench.c, count in suite.conf'
mutant host-only suite.conf '/^BENCH_TEST_gp =/a BENCH_TEST_gp_new = timed rcubench sweep gp_new' \
	'RB_TESTS has no gp_new'
mutant job-missing workloads/guest/jobs/bench.sh 's/^test_latency() {/latency_test() {/' 'no test_latency'
mutant job-param workloads/guest/jobs/bench.sh 's/ hold_us="$BENCH_GP_HOLD_US"//' 'does not pass hold_us='
mutant rows suite.conf 's/^\(BENCH_TEST_gp = .*\) gp_stages$/\1/' 'vocabulary has gp_stages'
mutant schema analysis/SCHEMA.md '/^| latency_boost |/d' 'latency_boost .* not in SCHEMA'
mutant classes workloads/tcg-plugin/rbcount.c 's/C_INSNS, C_LOCKED, C_FENCES/C_INSNS, C_FENCES, C_LOCKED/' \
	'enum rb_class'
