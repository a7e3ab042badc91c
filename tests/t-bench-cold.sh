#!/bin/bash
# tier: guest
# `make bench` on a machine where only the kernels are built (as CI's cache
# has them): it must build rcubench.ko, the guest initramfs and the TCG
# plugin itself, then finish the quick sweep of the classic
# kernel at 1 vCPU with no failed cell.  The fresh cache shares the real
# cache's obj/, src/ and pristine/ (read only here: make bench builds only
# a kernel that has no bzImage) and lacks everything else.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp classic
cold=$tmp/cache
mkdir -p "$cold"
for d in obj src pristine; do
	ln -s "$(readlink -f "$RB_CACHE/$d")" "$cold/$d"
done
[ ! -f "$RB_CACHE/accel.verdict" ] || cp "$RB_CACHE/accel.verdict" "$cold/"
sweep=$tmp/sweep
start=$(date +%s)
RCU_BENCH_CACHE=$cold make -s -C "$RB_TOP" bench KERNELS=$kernel VCPUS=1 OUT="$sweep" >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; fail "make bench KERNELS=$kernel VCPUS=1 failed on a cold cache"; }
cat "$tmp/out"
echo "make bench on the cold cache took $(($(date +%s) - start)) s"
grep -q "kernel $kernel is built" "$tmp/out" || fail "make bench did not see the built kernel"
! grep -q "building kernel" "$tmp/out" || fail "make bench rebuilt a kernel that was built"
[ -f "$cold/bench/$kernel/rcubench.ko" ] || fail "make bench did not build rcubench.ko"
[ -f "$cold/initramfs/base.cpio" ] || fail "make bench did not build the initramfs"
[ -f "$RB_TOP/workloads/tcg-plugin/rbcount.so" ] || fail "make bench did not build the TCG plugin"
! grep -q '^failed cell' "$tmp/out" || fail "failed cells"
/usr/bin/python3 "$RB_TOP/tests/bench_csv_check.py" "$sweep" || fail "results.csv check failed"
repeats=$(conf_get BENCH_QUICK | tr ' ' '\n' | sed -n 's/^REPEATS=//p')
[ "$(tail -n +2 "$sweep/csv/boots.csv" | grep -c ",ok$")" = "$repeats" ] ||
	fail "boots.csv should record $repeats ok boots (BENCH_QUICK REPEATS)"
echo "ok: make bench built rcubench.ko and the initramfs, $repeats boots, 0 failed cells"
