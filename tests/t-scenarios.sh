#!/bin/bash
# tier: host
# The kernel scenarios of configs/ (configs/README.md), on the host only:
# every scenario is well formed (a Kconfig fragment of its own or a BASE
# that is a scenario, shared FRAGMENTS that exist, the facts every kernel
# needs), every kernel suite.conf names is a scenario, every shared
# fragment is used, and the shell's and Python's readers of the facts
# (scripts/lib.sh kernel_fact, scripts/scenario.py) agree on every fact.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp

all=$(scenarios)
[ -n "$all" ] || fail "no scenario in configs/"
used=" base "
for k in $all; do
	# A BASE chain must end (the shell's reader would loop for ever).
	b=$k chain=
	while [ -n "$b" ]; do
		case " $chain " in *" $b "*) fail "$k: BASE loops through$chain" ;; esac
		chain="$chain $b"
		[ -f "$RB_TOP/configs/$b/facts" ] || fail "$k: BASE '$b' is not a scenario"
		b=$(kernel_fact "$b" BASE)
	done
	[ -n "$(kernel_fact "$k" BASE)" ] || [ -f "$RB_TOP/configs/$k/config" ] ||
		fail "$k: neither a config fragment nor a BASE"
	for f in $(kernel_fact "$k" FRAGMENTS); do
		[ -f "$RB_TOP/configs/$f.config" ] || fail "$k: FRAGMENTS names $f, no configs/$f.config"
		used="$used$f "
	done
	# A boot variant (BUILD) boots another scenario's build: it must
	# configure nothing of its own, so that one build is both.
	build=$(kernel_fact "$k" BUILD)
	if [ -n "$build" ]; then
		[ -f "$RB_TOP/configs/$build/facts" ] || fail "$k: BUILD '$build' is not a scenario"
		[ -z "$(kernel_fact "$build" BUILD)" ] || fail "$k: BUILD '$build' is a boot variant itself"
		[ ! -f "$RB_TOP/configs/$k/config" ] && [ -z "$(kernel_fact "$k" FRAGMENTS)" ] ||
			fail "$k: a boot variant of $build with a config fragment of its own"
		[ "$(kernel_fragments "$k")" = "$(kernel_fragments "$build")" ] ||
			fail "$k: its fragments are not its BUILD $build's"
		[ "$(kernel_boot_args "$k")" != "$(kernel_boot_args "$build")" ] ||
			fail "$k: boots $build's build with $build's own arguments: not a variant"
		[ "$(RB_CACHE=/c kernel_obj "$k")" = "/c/obj/$build" ] || fail "$k: kernel_obj is not $build's"
		echo "ok: $k boots $build's build with '$(kernel_boot_args "$k")'"
	fi
	for fact in BANNER FAMILY SEED READ_SIDE; do
		[ -n "$(kernel_fact "$k" $fact)" ] || fail "$k: no $fact in configs/$k/facts (or its BASE's)"
	done
	case "$(kernel_fact "$k" SEED)" in yes | no) ;; *) fail "$k: SEED is neither yes nor no" ;; esac
	echo "ok: $k: $(kernel_fragments "$k" | sed "s|^$RB_TOP/configs/||" | paste -sd ' ')" \
		"boot '$(kernel_boot_args "$k")' family $(kernel_fact "$k" FAMILY)"
done
for f in "$RB_TOP"/configs/*.config; do
	f=${f##*/}
	case "$used" in *" ${f%.config} "*) ;; *) fail "configs/$f: no scenario merges it" ;; esac
done

# Every kernel suite.conf names is a scenario.
for k in $(conf_get KERNELS) $(conf_get TEST_KERNELS) $(conf_get TORTURE_KERNELS) $(conf_get COMPARE_PAIRS | tr ':' ' '); do
	[ -f "$RB_TOP/configs/$k/facts" ] || fail "suite.conf names kernel $k: no configs/$k/facts"
done
echo "ok: suite.conf's KERNELS, TEST_KERNELS, TORTURE_KERNELS and COMPARE_PAIRS are scenarios"
# The guest tier checks a subset of what make bench measures.
for k in $(conf_get TEST_KERNELS); do
	case " $(conf_get KERNELS) " in *" $k "*) ;; *) fail "TEST_KERNELS names $k, which is not in KERNELS" ;; esac
done
echo "ok: TEST_KERNELS is part of KERNELS"
# A guest test that names a kernel (test_tmp K, --kernel K, --kernels K,
# kernels="K ...") must name one that the guest tier builds, else make test
# skips it: a kernel of TEST_KERNELS or a boot variant of one.
# tests_kernels_outside DIR: "test: kernel" for each such name outside them
# in DIR's guest-tier tests (nosuch is the bad-input tests' own).
tests_kernels_outside() {
	local t k known v
	known=" $(conf_get TEST_KERNELS) nosuch "
	for v in $(scenarios); do
		case "$known" in *" $(kernel_fact "$v" BUILD) "*) known="$known$v " ;; esac
	done
	for t in "$1"/t-*.sh; do
		grep -q '^# tier: guest$' "$t" || continue
		for k in $(grep -ohE '(test_tmp|--kernels?) [a-z][a-z-]*' "$t" | awk '{ print $2 }') \
			$(sed -n 's/^\(kernels\|build\|variant\)="\{0,1\}\([a-z][a-z -]*\)"\{0,1\}$/\2/p' "$t"); do
			case "$known" in *" $k "*) ;; *) echo "${t##*/}: $k" ;; esac
		done
	done
}
outside=$(tests_kernels_outside "$RB_TOP/tests")
[ -z "$outside" ] || fail "guest tests name kernels that make test does not build: $outside"
mkdir -p "$tmp/planted"
printf '#!/bin/bash\n# tier: guest\ntest_tmp tree\n' >"$tmp/planted/t-planted.sh"
printf '#!/bin/bash\n# tier: guest\nkernels="preempt tree-preempt"\nvariant=preempt-noboost\n' >"$tmp/planted/t-planted2.sh"
[ "$(tests_kernels_outside "$tmp/planted" | paste -sd ' ')" = "t-planted.sh: tree t-planted2.sh: tree-preempt" ] ||
	fail "planted guest tests booting tree and tree-preempt were not caught: $(tests_kernels_outside "$tmp/planted")"
echo "ok: the guest tests name only kernels of TEST_KERNELS or their boot variants (planted ones naming tree, tree-preempt are caught)"
expect_fail "an unknown kernel" "$RB_TOP/workloads/check-config.sh" no-such-kernel /dev/null

# The two readers agree on every fact any scenario sets, inherited ones too.
facts=$(cat "$RB_TOP"/configs/*/facts | sed -n 's/^\([A-Z_][A-Z_0-9]*\)[ \t]*=.*/\1/p' | sort -u)
[ "$("$RB_TOP/scripts/scenario.py")" = "$all" ] || fail "scenario.py lists other scenarios than lib.sh"
# One Python process for all of them: "KERNEL FACT=value" lines.
# shellcheck disable=SC2086 # one argument per fact name
/usr/bin/python3 - "$RB_TOP/scripts" $facts >"$tmp/py" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import scenario
for k in scenario.scenarios():
    for name in sys.argv[2:]:
        print(f"{k} {name}={scenario.fact(k, name) or ''}")
PY
for k in $all; do
	for fact in $facts; do
		echo "$k $fact=$(kernel_fact "$k" "$fact")"
	done
done >"$tmp/sh"
diff "$tmp/sh" "$tmp/py" >&2 || fail "lib.sh (<) and scenario.py (>) read the facts differently"
echo "ok: lib.sh and scenario.py agree on $(wc -l <"$tmp/sh") facts ($(wc -w <<<"$facts") names x $(wc -w <<<"$all") kernels)"
