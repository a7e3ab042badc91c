#!/bin/bash
# build-prefixes.sh: build one kernel at each prefix of patches/series, so
# that a patch which breaks an earlier step of the series (bisection) shows.
#
#   scripts/build-prefixes.sh [--debug] [--from K] [--out DIR]
#
# Prefix k is patches 1..k of the series on the pristine tree.  The kernel
# built at prefix k is the newest one the prefix can have: tree before
# Classic RCU (patch 1), classic once Classic RCU is in (patch 2),
# classic-preempt once it may run on preemptible kernels (3), preempt from
# the flip-counter implementation on (4+), classic-preempt again for a
# later patch of Classic RCU's code only; --debug builds the lockdep
# variant instead (tree stays tree: it has none).  A fragment symbol that a
# later patch introduces is reported, not fatal (olddefconfig drops it).
# Builds in $RB_CACHE/prefixes/ (its own source tree and object
# directories, incremental from one prefix to the next); the default
# cache's kernels are untouched.  Prints one line per prefix and a last
# line "prefixes: N built, F failed"; a failed build's log is kept.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

debug=0 from=1 out=$RB_CACHE/prefixes
while [ $# -gt 0 ]; do
	case "$1" in
	--debug) debug=1 ;;
	--from) from=$2; shift ;;
	--out) out=$2; shift ;;
	*) die "usage: $0 [--debug] [--from K] [--out DIR]" ;;
	esac
	shift
done
case "$from" in '' | *[!0-9]* | 0) die "--from takes a patch number >= 1, got '$from'" ;; esac
need_tool make gcc flex bison bc rsync patch
mapfile -t series < <(grep -v '^#' "$RB_TOP/patches/series")
[ ${#series[@]} -gt 0 ] || die "patches/series is empty"
pristine=$RB_CACHE/pristine/linux-source-6.1
[ -f "$pristine/Makefile" ] || die "no $pristine: run 'make kernels' once first"

# kernel_of K: the kernel built at prefix K (see above); a later patch
# that touches only Classic RCU's code builds classic-preempt, which
# compiles it, where preempt would not.
kernel_of() {
	local k
	case $1 in
	1) echo tree; return ;;
	2) k=classic ;;
	3) k=classic-preempt ;;
	*)
		k=preempt
		if grep -q '^+++ b/kernel/rcu/rcuclassic.c' "$RB_TOP/patches/${series[$1 - 1]}" &&
			! grep -q '^+++ b/kernel/rcu/rcupreempt.c' "$RB_TOP/patches/${series[$1 - 1]}"; then
			k=classic-preempt
		fi
		;;
	esac
	if [ $debug = 1 ]; then echo "$k-debug"; else echo "$k"; fi
}

mkdir -p "$out"
built=0 failed=0
for ((i = from; i <= ${#series[@]}; i++)); do
	k=$(kernel_of "$i")
	stage=$out/stage src=$out/src obj=$out/obj/$k
	rm -rf "$stage" && cp -a "$pristine/." "$stage/"
	for p in "${series[@]:0:i}"; do
		patch -d "$stage" -p1 --forward --batch --quiet <"$RB_TOP/patches/$p" >/dev/null ||
			die "prefix $i: ${p} does not apply"
	done
	mkdir -p "$src" "$obj"
	# Unchanged files keep their time stamps: each prefix builds incrementally.
	rsync -rlp --checksum --delete "$stage/" "$src/"
	rm -rf "$stage"
	start=$(date +%s)
	mapfile -t frags < <(kernel_fragments "$k")
	make -s -C "$src" O="$obj" tinyconfig >/dev/null
	(cd "$src" && KCONFIG_CONFIG="$obj/.config" scripts/kconfig/merge_config.sh -m -O "$obj" \
		"$obj/.config" "${frags[@]}") >"$obj/merge.log" 2>&1 || die "prefix $i: merge_config failed ($obj/merge.log)"
	make -s -C "$src" O="$obj" olddefconfig >/dev/null
	missing=$("$RB_TOP/workloads/check-config.sh" "$k" "$obj/.config" 2>&1 | grep -c 'CONFIG_' || true)
	log=$out/prefix-$i-$k.log
	if make -C "$src" O="$obj" -j"$(nproc)" bzImage modules >"$log" 2>&1; then
		built=$((built + 1))
		echo "prefix $i ($p): $k built in $(($(date +%s) - start)) s (fragment symbols not in .config: $missing)"
		rm -f "$log"
	else
		failed=$((failed + 1))
		echo "prefix $i ($p): $k FAILED after $(($(date +%s) - start)) s; log $log"
		grep -E 'error' "$log" | head -5 | sed 's/^/    /'
	fi
done
echo "prefixes: $built built, $failed failed"
[ $failed -eq 0 ]
