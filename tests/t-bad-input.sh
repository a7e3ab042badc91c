#!/bin/bash
# tier: guest
# Bad input gets one clear error line and a non-zero exit, and loses nothing
# already built or written.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp
cd "$RB_TOP"
job=workloads/guest/jobs/banner.sh
bz=$(kernel_bzimage classic)
bz_before=$(stat -c %Y "$bz")

expect_fail "boot: unknown kernel" workloads/boot.sh --kernel nosuch --vcpus 2 --job $job --out "$tmp/o"
expect_fail "boot: VCPUS=0" workloads/boot.sh --kernel classic --vcpus 0 --job $job --out "$tmp/o"
expect_fail "boot: VCPUS=abc" workloads/boot.sh --kernel classic --vcpus abc --job $job --out "$tmp/o"
expect_fail "boot: VCPUS beyond VCPUS_MAX" workloads/boot.sh --kernel classic --vcpus 999 --job $job --out "$tmp/o"
expect_fail "boot: missing job" workloads/boot.sh --kernel classic --vcpus 2 --job /nonexistent --out "$tmp/o"
expect_fail "make boot: unknown kernel" make -s boot KERNEL=nosuch VCPUS=2
expect_fail "make boot: VCPUS=0" make -s boot KERNEL=classic VCPUS=0
expect_fail "make boot: VCPUS=x" make -s boot KERNEL=classic VCPUS=x
expect_fail "build: unknown kernel" workloads/build-kernels.sh nosuch

# Missing linux-source: a cache holding a build must keep it.
mkdir -p "$tmp/cache/obj/classic"
echo keep >"$tmp/cache/obj/classic/sentinel"
RCU_BENCH_CACHE=$tmp/cache RB_LINUX_SOURCE=/nonexistent/linux-source-6.1.tar.xz \
	expect_fail "build: missing linux-source" workloads/build-kernels.sh classic
[ "$(cat "$tmp/cache/obj/classic/sentinel")" = keep ] || fail "missing source deleted a build"

# A vCPU count above a kernel's CONFIG_NR_CPUS (a build from before
# base.config raised it): refused before a results directory exists; and
# --full with --scale; an RB_TCG_THREAD that is neither single nor multi.
mkdir -p "$tmp/nrcache/obj/classic"
echo CONFIG_NR_CPUS=2 >"$tmp/nrcache/obj/classic/.config"
RCU_BENCH_CACHE=$tmp/nrcache expect_fail "bench: vCPUs above CONFIG_NR_CPUS" \
	workloads/bench.sh --kernels classic --vcpus "1 4" --out "$tmp/nr" | grep -q "CONFIG_NR_CPUS=2" ||
	fail "the NR_CPUS error does not name the limit"
[ ! -e "$tmp/nr" ] || fail "a refused sweep left $tmp/nr"
expect_fail "bench: --full and --scale" workloads/bench.sh --full --scale --out "$tmp/fs"
RB_TCG_THREAD=both expect_fail "boot: RB_TCG_THREAD=both" \
	workloads/boot.sh --kernel classic --vcpus 1 --job $job --out "$tmp/o"

# Missing tool: a PATH with everything but QEMU.
mkdir -p "$tmp/bin"
for f in /usr/local/bin/* /usr/bin/* /bin/*; do
	ln -sf "$f" "$tmp/bin/" 2>/dev/null || true
done
rm -f "$tmp/bin/qemu-system-x86_64"
PATH=$tmp/bin expect_fail "boot: QEMU missing" workloads/boot.sh --kernel classic --vcpus 2 --job $job --out "$tmp/o" |
	tee /dev/stderr | grep -q "make deps" || fail "missing tool error does not point to make deps"

# make bench: an invalid seed; --resume of an empty directory and of a
# sweep from an older schema.  One error line each, nothing deleted.
for seed in abc -1 1.5 4294967296; do
	expect_fail "bench: --seed $seed" workloads/bench.sh --out "$tmp/seeded" --seed "$seed"
	expect_fail "make bench SEED=$seed" make -s bench SEED="$seed" OUT="$tmp/seeded"
done
[ ! -e "$tmp/seeded" ] || fail "a bench with an invalid seed wrote $tmp/seeded"
mkdir -p "$tmp/empty"
expect_fail "bench: resume of an empty directory" workloads/bench.sh --resume "$tmp/empty"
[ -d "$tmp/empty" ] && [ -z "$(ls -A "$tmp/empty")" ] || fail "resume of an empty directory changed it"
mkdir -p "$tmp/old/csv"
echo '{"schema_version": 1, "complete": false, "parameters": {}}' >"$tmp/old/metadata.json"
echo "schema_version,commit" >"$tmp/old/csv/results.csv"
(cd "$tmp/old" && find . -type f -exec sha256sum {} + | sort) >"$tmp/old.sums"
expect_fail "bench: resume of a schema-1 sweep" workloads/bench.sh --resume "$tmp/old"
(cd "$tmp/old" && find . -type f -exec sha256sum {} + | sort) | cmp -s - "$tmp/old.sums" ||
	fail "resume of an older-schema sweep changed its files"

[ "$(stat -c %Y "$bz")" = "$bz_before" ] || fail "bad input touched the built classic kernel"
echo "all bad inputs refused; builds intact"
