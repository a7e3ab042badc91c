#!/bin/bash
# Common shell helpers for rcu-bench scripts.  Source, do not execute.

RB_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RB_CACHE=${RCU_BENCH_CACHE:-$HOME/.cache/rcu-bench}
export RB_TOP RB_CACHE

die() {
	echo "rcu-bench: error: $*" >&2
	exit 1
}

note() {
	echo "rcu-bench: $*" >&2
}

# conf_get NAME: value of NAME in suite.conf (empty when absent).
conf_get() {
	awk -v k="$1" '
		/^[ \t]*#/ { next }
		{
			i = index($0, "=")
			if (!i) next
			name = substr($0, 1, i - 1); gsub(/[ \t]/, "", name)
			if (name != k) next
			v = substr($0, i + 1); sub(/^[ \t]+/, "", v); sub(/[ \t]+$/, "", v)
			print v; exit
		}' "$RB_TOP/suite.conf"
}

# check_kernel NAME: die unless NAME is in the kernel list.
check_kernel() {
	local k
	for k in $(conf_get KERNELS); do
		[ "$k" = "$1" ] && return 0
	done
	for k in $(conf_get KERNELS_PENDING); do
		[ "$k" = "$1" ] && die "kernel '$1' is not available yet: its patches have not landed"
	done
	die "unknown kernel '$1' (known: $(conf_get KERNELS))"
}

# check_vcpus N: die unless N is an integer in 1..VCPUS_MAX.
check_vcpus() {
	local max
	max=$(conf_get VCPUS_MAX)
	case "$1" in
	'' | *[!0-9]*) die "VCPUS must be a positive integer, got '$1'" ;;
	esac
	[ "$1" -ge 1 ] && [ "$1" -le "$max" ] ||
		die "VCPUS must be between 1 and $max, got '$1'"
}

# need_tool CMD...: die with a pointer to `make deps` if a tool is missing.
need_tool() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 ||
			die "missing tool '$t': run 'make deps' first"
	done
}

# Directory of the built kernel NAME (see workloads/build-kernels.sh).
kernel_obj() {
	echo "$RB_CACHE/obj/$1"
}

# atomic_write FILE: copy stdin to FILE via fsync'ed temporary and rename.
atomic_write() {
	local tmp="$1.tmp.$$"
	cat >"$tmp" && sync "$tmp" && mv -f "$tmp" "$1"
}

# The bzImage of the built kernel NAME.
kernel_bzimage() {
	echo "$(kernel_obj "$1")/arch/x86/boot/bzImage"
}

# Where bench-module/ puts rcubench.ko built against kernel NAME.
bench_module_path() {
	echo "$RB_CACHE/bench/$1/rcubench.ko"
}
