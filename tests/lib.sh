#!/bin/bash
# Helpers for tests/t-*: source after scripts/lib.sh.

# fail MSG: the test fails with MSG.
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# expect_fail DESC CMD...: CMD must exit non-zero with a one-line
# "rcu-bench: error:" message on stderr.
expect_fail() {
	local desc=$1 err
	shift
	if err=$("$@" 2>&1 >/dev/null); then
		fail "$desc: succeeded, expected an error"
	fi
	echo "$err" | grep -q '^rcu-bench: error: ' ||
		fail "$desc: no clear error message, got: $err"
	echo "ok: $desc -> $(echo "$err" | grep -m1 '^rcu-bench: error: ')"
}

# test_tmp [KERNEL]: set $tmp to a scratch directory removed when the test
# exits; with KERNEL, also set $kernel and skip the test unless it is built.
# (Call it directly, not in $(...): the trap belongs to this shell.)
test_tmp() {
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	if [ $# -gt 0 ]; then
		kernel=$1
		require_built "$kernel"
	fi
}

# build_testmod KERNEL DIR [MODULE]: build tests/modules/MODULE (default
# rb_testmod) against KERNEL's object dir in DIR; prints the path of the .ko.
build_testmod() {
	local mod=${3:-rb_testmod}
	cp -r "$RB_TOP/tests/modules/$mod" "$2"
	make -s -C "$(kernel_obj "$1")" M="$2" modules >"$2/build.log" 2>&1 ||
		{ cat "$2/build.log" >&2; fail "$mod.ko does not build against $1"; }
	echo "$2/$mod.ko"
}

# test_kernels: the kernels the guest tests build and check, in order:
# $TEST_KERNELS, else suite.conf TEST_KERNELS (the seed kernels; the long
# tier runs the guest tests again with all of KERNELS).
test_kernels() {
	local k ks=${TEST_KERNELS:-$(conf_get TEST_KERNELS)}
	[ -n "$ks" ] || fail "no test kernels: suite.conf TEST_KERNELS is empty"
	for k in $ks; do check_kernel "$k"; done
	echo $ks
}

# kernel_built KERNEL: true when KERNEL's bzImage is there.
kernel_built() {
	[ -f "$(kernel_bzimage "$1")" ]
}

# require_built KERNEL...: skip (exit 77) when none of them is built (a
# test run by name before 'make kernels'); fail when only some are, so that
# a pass never checks fewer kernels than the test names (in 'make test',
# t-00-kernels builds every kernel of test_kernels first).
require_built() {
	local k missing=() n=0
	for k; do
		if kernel_built "$k"; then n=$((n + 1)); else missing+=("$k"); fi
	done
	[ $n -gt 0 ] || { echo "no kernel of '$*' is built (make kernels)"; exit 77; }
	[ ${#missing[@]} -eq 0 ] ||
		fail "not built: ${missing[*]} (of $*): run 'make kernels'"
}


# stat_of FILE NAME: the value of NAME in a "name value" statistics file
# (rcupreempt_stats); fails the test if it is missing.
stat_of() {
	local v
	v=$(awk -v n="$2" '$1 == n { print $2 }' "$1")
	[ -n "$v" ] || fail "statistic $2 missing from $1"
	echo "$v"
}

# count_boot KERNEL VCPUS "TESTS" DIR: one boot of KERNEL with the rbcount
# plugin running the guest bench job's count TESTS with the quick profile's
# settings (its rcubench.ko built in $RB_CACHE/bench/KERNEL); the rows of
# workloads/tcg-plugin/count_rows.py go to DIR/rows.csv.
count_boot() {
	local k=$1 v=$2 tests=$3 dir=$4
	mkdir -p "$dir"
	make -s -C "$RB_TOP/bench-module" KDIR="$(kernel_obj "$k")" \
		OUT="$(dirname "$(bench_module_path "$k")")" >"$dir/module.log" 2>&1 ||
		{ cat "$dir/module.log"; fail "rcubench.ko does not build against $k"; }
	{
		echo "BENCH_TESTS='$tests'"
		bench_settings quick
		case " $tests " in *" count_refscale "*) echo "BENCH_REFSCALE_RANGE='$(refscale_range "$k")'" ;; esac
		cat "$RB_TOP/workloads/guest/jobs/bench.sh"
	} >"$dir/job.sh"
	"$RB_TOP/workloads/boot.sh" --kernel "$k" --vcpus "$v" --job "$dir/job.sh" --out "$dir" \
		--quiet --plugin || fail "$k/$v: count boot failed: $(cat "$dir/status" 2>/dev/null)"
	/usr/bin/python3 "$RB_TOP/workloads/tcg-plugin/count_rows.py" --kernel "$k" \
		--counts "$dir/results/counts.csv" --labels "$dir/results/count-labels.csv" >"$dir/rows.csv" ||
		fail "$k/$v: count_rows.py failed"
	[ -s "$dir/rows.csv" ] || fail "$k/$v: no count rows"
}

# count_of ROWS TEST PARAMS METRIC: the value of one count row.
count_of() {
	local v
	v=$(awk -F, -v t="$2" -v p="$3" -v m="$4" '$1 == t && $2 == p && $3 == m { print $4 }' "$1")
	[ -n "$v" ] || fail "no row $2,$3,$4 in $1"
	echo "$v"
}
