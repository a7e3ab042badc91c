#!/bin/bash
# tier: guest
# rcubench.ko parameter validation, in a guest: every bad value makes insmod
# fail with a kernel message naming the parameter, leaves no module or
# results file behind, and a good load before and after still works.  On
# the host, bad sweep arguments are one-line errors that write nothing.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp classic
obj=$(kernel_obj $kernel)
make -s -C "$RB_TOP/bench-module" KDIR="$obj" OUT="$(dirname "$(bench_module_path $kernel)")" \
	>"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "rcubench.ko does not build"; }

# "name=value" cases; the guest has 2 CPUs.
bad="readers=0 readers=3 readers=-1 nest=0 nest=3 loops=0 loops=-5 loops=abc runs=0
test=bogus test=callrcu writers=0 writers=3 duration_ms=0 calls=0 max_backlog=0 samples=0 samples=-2
load=busy hold_us=-1 spacing=bogus rate=0
reader_us=0 reader_us=10001"
cat >"$tmp/job.sh" <<JOB
good() {
	insmod /modules/rcubench.ko test=read loops=10000 runs=1 || return 1
	cat /sys/kernel/debug/rcubench/results >>/results/good.csv
	rmmod rcubench
}
good || echo "first good load failed" >>/results/errors
for p in $(echo $bad); do
	dmesg -c >/dev/null
	if insmod /modules/rcubench.ko \$p 2>/dev/null; then rc=0; rmmod rcubench; else rc=\$?; fi
	name=\${p%%=*}
	hit=\$(dmesg | grep -c "rcubench: .*\$name" || true)
	left=\$(grep -c '^rcubench ' /proc/modules || true)
	[ -e /sys/kernel/debug/rcubench/results ] && files=1 || files=0
	echo "\$p rc=\$rc named=\$hit loaded=\$left results=\$files" >>/results/params.txt
done
good || echo "good load after the bad ones failed" >>/results/errors
JOB
"$RB_TOP/workloads/boot.sh" --quiet --kernel $kernel --vcpus 2 --job "$tmp/job.sh" \
	--out "$tmp/out" || fail "boot: $(cat "$tmp/out/status")"
res=$tmp/out/results
[ ! -s "$res/errors" ] || fail "$(cat "$res/errors")"
[ "$(grep -c ',ns_per_pair,' "$res/good.csv")" = 2 ] || fail "good loads gave no results: $(cat "$res/good.csv")"
n=0
for p in $bad; do
	line=$(grep "^$p " "$res/params.txt") || fail "no result for $p"
	case "$line" in
	*" rc=0 "*) fail "insmod rcubench $p succeeded" ;;
	*" named=0 "*) fail "insmod rcubench $p: no kernel message names '${p%%=*}'" ;;
	*" loaded=0 results=0") ;;
	*) fail "insmod rcubench $p left something behind: $line" ;;
	esac
	n=$((n + 1))
done
echo "ok: $n bad parameter values rejected in the guest, each named in dmesg"

expect_fail "unknown kernel" "$RB_TOP/workloads/bench.sh" --out "$tmp/s1" --kernels nosuch
expect_fail "vCPUs above the limit" "$RB_TOP/workloads/bench.sh" --out "$tmp/s2" --vcpus 99
expect_fail "zero repeats" "$RB_TOP/workloads/bench.sh" --out "$tmp/s3" --repeats 0
expect_fail "unknown test" "$RB_TOP/workloads/bench.sh" --out "$tmp/s4" --tests nosuch
expect_fail "resume of nothing" "$RB_TOP/workloads/bench.sh" --resume "$tmp/none"
for s in s1 s2 s3 s4; do
	[ ! -e "$tmp/$s" ] || fail "a rejected sweep wrote $tmp/$s"
done
echo "ok: bad sweep arguments rejected before anything is written"
