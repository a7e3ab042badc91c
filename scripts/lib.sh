#!/bin/bash
# Common shell helpers for rcu-bench scripts.  Source, do not execute.

RB_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RB_CACHE=${RCU_BENCH_CACHE:-$HOME/.cache/rcu-bench}
export RB_TOP RB_CACHE
# The top-level Makefile hands its command-line variables to these scripts
# as options; left in MAKEFLAGS they would also reach every make the scripts
# run (make bench OUT=dir once built the plugin into dir, kbuild would see
# KERNELS= and VCPUS=).
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL

die() {
	echo "rcu-bench: error: $*" >&2
	exit 1
}

note() {
	echo "rcu-bench: $*" >&2
}

# summary_field FILE NAME: NAME=value from a torture summary line
# (workloads/torture.sh), empty when the line has no NAME.
summary_field() { tr ' ' '\n' <"$1" | sed -n "s/^$2=//p"; }

# conf_file_get FILE NAME: the value of NAME in FILE, a file of "NAME =
# value" lines (suite.conf, configs/<kernel>/facts); exits 1 when FILE does
# not set NAME.
conf_file_get() {
	awk -v k="$2" '
		/^[ \t]*#/ { next }
		{
			i = index($0, "=")
			if (!i) next
			name = substr($0, 1, i - 1); gsub(/[ \t]/, "", name)
			if (name != k) next
			v = substr($0, i + 1); sub(/^[ \t]+/, "", v); sub(/[ \t]+$/, "", v)
			print v; found = 1; exit
		}
		END { exit !found }' "$1"
}

# bench_tests KIND LIST: the names of the bench tests (suite.conf
# BENCH_TEST_*), in table order, whose kind is KIND (timed, count) and whose
# list is LIST (sweep, named); "any" matches every value.
bench_tests() {
	awk -v kind="$1" -v list="$2" '
		/^[ \t]*#/ { next }
		/^[ \t]*BENCH_TEST_[A-Za-z0-9_]+[ \t]*=/ {
			i = index($0, "=")
			name = substr($0, 1, i - 1); gsub(/[ \t]/, "", name); sub(/^BENCH_TEST_/, "", name)
			split(substr($0, i + 1), f, " ")
			if ((kind == "any" || f[1] == kind) && (list == "any" || f[3] == list))
				printf "%s%s", (n++ ? " " : ""), name
		}
		END { print "" }' "$RB_TOP/suite.conf"
}

# bench_settings PROFILE: the guest job's settings of a make bench profile
# (suite.conf BENCH_QUICK, BENCH_FULL) as K=V lines, REPEATS left out; a
# BENCH_* variable in the environment overrides its value.
bench_settings() {
	local kv name
	for kv in $(conf_get "BENCH_${1^^}"); do
		name=${kv%%=*}
		[ "$name" != REPEATS ] || continue
		echo "$name=${!name:-${kv#*=}}"
	done
}

# bench_repeats PROFILE: boots per (kernel, vCPUs) cell of a profile.
bench_repeats() {
	conf_get "BENCH_${1^^}" | tr ' ' '\n' | sed -n 's/^REPEATS=//p'
}

# conf_get NAME: value of NAME in suite.conf (empty when absent).
conf_get() {
	conf_file_get "$RB_TOP/suite.conf" "$1" || true
}

# The kernel scenarios (configs/README.md): configs/<kernel>/ holds all
# the suite knows of kernel <kernel>: facts (banner, RCU family, torture
# arguments, ...; "NAME = value" lines), config (its Kconfig fragment, with
# #CHECK# assertions) and boot (kernel arguments).  A scenario whose facts
# set BASE derives from that scenario: its fragments and boot arguments
# come first, then those of the shared fragments it names in FRAGMENTS
# (configs/<name>.config and configs/<name>.boot), then its own; it has the
# base's facts unless it sets them itself.

# scenarios: the name of every kernel scenario, one a line.
scenarios() {
	local f
	for f in "$RB_TOP"/configs/*/facts; do
		[ -f "$f" ] || continue
		f=${f%/facts}
		echo "${f##*/}"
	done | LC_ALL=C sort
}

# check_kernel NAME: die unless NAME is a kernel scenario (configs/NAME/).
check_kernel() {
	case "$1" in
	'' | */* | .*) ;;
	*) [ ! -f "$RB_TOP/configs/$1/facts" ] || return 0 ;;
	esac
	die "unknown kernel '$1' (known: $(scenarios | paste -sd ' '); a kernel is a directory configs/<kernel>/)"
}

# kernel_fact KERNEL FACT: FACT of kernel KERNEL, from configs/KERNEL/facts
# or else from the scenario it derives from (BASE, recursively); empty when
# none sets it.  BASE, FRAGMENTS and BUILD are a scenario's own, never
# inherited.
kernel_fact() {
	local k=$1
	while [ -n "$k" ]; do
		conf_file_get "$RB_TOP/configs/$k/facts" "$2" && return 0
		case "$2" in BASE | FRAGMENTS | BUILD) return 0 ;; esac
		k=$(conf_file_get "$RB_TOP/configs/$k/facts" BASE) || k=
	done
}

# kernel_fragments NAME: the config fragments of kernel NAME, in merge
# order, one path a line: configs/base.config, then those of its scenario.
kernel_fragments() {
	echo "$RB_TOP/configs/base.config"
	scenario_files "$1" config
}

# kernel_boot_args NAME: the kernel command-line arguments of kernel NAME,
# one line ('#' starts a comment line in a boot file).
kernel_boot_args() {
	local f
	scenario_files "$1" boot | while read -r f; do
		grep -v '^[[:space:]]*#' "$f" || true
	done | tr -s ' \t\n' '   ' | sed 's/^ //; s/ $//'
}

# scenario_files NAME KIND: the files of KIND (config or boot) that make
# kernel NAME, in order: its base's, configs/<f>.KIND of each shared
# fragment f of FRAGMENTS, configs/NAME/KIND; files that do not exist are
# left out (a boot file is optional, and so is a variant's config).
scenario_files() {
	local base f
	check_kernel "$1"
	base=$(kernel_fact "$1" BASE)
	[ -z "$base" ] || scenario_files "$base" "$2"
	for f in $(kernel_fact "$1" FRAGMENTS); do
		[ -f "$RB_TOP/configs/$f.config" ] || die "kernel $1: no shared fragment configs/$f.config"
		[ ! -f "$RB_TOP/configs/$f.$2" ] || echo "$RB_TOP/configs/$f.$2"
	done
	[ ! -f "$RB_TOP/configs/$1/$2" ] || echo "$RB_TOP/configs/$1/$2"
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

# series_key: the key of patches/series, which the patched source tree and
# (with each kernel's fragments) every obj/<kernel> are keyed by; computed by
# scripts/series.py, its one owner (analysis/sweep.py records the same value).
series_key() {
	/usr/bin/python3 "$RB_TOP/scripts/series.py" key
}

# kernel_key NAME: what workloads/build-kernels.sh keys obj/NAME by (and
# writes to obj/NAME/.rb-key once built): the series, NAME's config
# fragments and the build script itself (how a kernel is configured).
kernel_key() {
	local series
	series=$(series_key) || return 1
	{
		echo "$series"
		kernel_fragments "$1" | xargs cat
		sha256sum <"$RB_TOP/workloads/build-kernels.sh"
	} | sha256sum | cut -c1-16
}

# kernel_built_key NAME: the key obj/NAME was built with (empty when none).
kernel_built_key() {
	cat "$(kernel_obj "$1")/.rb-key" 2>/dev/null || true
}

# kernel_build NAME: the kernel whose build NAME boots: its BUILD (a boot
# variant: the same .config and bzImage, other boot arguments) or itself.
kernel_build() {
	local build
	build=$(kernel_fact "$1" BUILD)
	echo "${build:-$1}"
}

# Directory of the built kernel NAME (see workloads/build-kernels.sh); a
# boot variant's is its BUILD's.
kernel_obj() {
	echo "$RB_CACHE/obj/$(kernel_build "$1")"
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

# bench_module KERNEL: the path of rcubench.ko built against KERNEL, built
# first when it is missing (dies when it does not build).
bench_module() {
	local ko
	ko=$(bench_module_path "$1")
	if [ ! -f "$ko" ]; then
		note "rcubench.ko for $1"
		make -s -C "$RB_TOP/bench-module" KDIR="$(kernel_obj "$1")" OUT="$(dirname "$ko")" >&2 ||
			die "rcubench.ko does not build against $1"
	fi
	echo "$ko"
}

# refscale_range KERNEL: "LO HI MODULES", the offsets in refscale.ko's .text
# of ref_rcu_read_section() and past its end, and the address of the
# kernel's module list (System.map): what the guest job's count_refscale
# needs (BENCH_REFSCALE_RANGE), since the suite's kernels have no kallsyms.
refscale_range() {
	local ko sym modules
	ko=$(kernel_obj "$1")/kernel/rcu/refscale.ko
	sym=$(objdump -t "$ko" | awk '$NF == "ref_rcu_read_section" && $(NF - 2) == ".text" { print $1, $(NF - 1) }')
	[ -n "$sym" ] || die "$1: no ref_rcu_read_section in the .text of $ko"
	modules=$(awk '$3 == "modules" && $2 ~ /^[dD]$/ { print $1 }' "$(kernel_obj "$1")/System.map")
	[ -n "$modules" ] || die "$1: no module list in System.map"
	set -- $sym
	printf '0x%x 0x%x 0x%s\n' $((0x$1)) $((0x$1 + 0x$2)) "$modules"
}

# Native host rows (workloads/urcu/run.sh, workloads/calibrate/run.sh): the
# results CSV of RESULTDIR, the suite's commit, and appending rows.

# results_csv DIR: create DIR/csv, check an existing results.csv's header
# against suite.conf CSV_COLUMNS; prints the path of results.csv.
results_csv() {
	local csv=$1/csv/results.csv
	[ -d "$1" ] || die "$1: not a directory"
	mkdir -p "$1/csv"
	if [ -f "$csv" ]; then
		[ "$(head -1 "$csv")" = "$(conf_get CSV_COLUMNS | tr ' ' ',')" ] ||
			die "$csv:1: header is not CSV_COLUMNS of suite.conf"
	fi
	echo "$csv"
}

# suite_commit: the suite's short commit, -dirty when the tree has changes.
suite_commit() {
	local commit
	commit=$(git -C "$RB_TOP" rev-parse --short HEAD)
	git -C "$RB_TOP" diff --quiet HEAD 2>/dev/null || commit=$commit-dirty
	echo "$commit"
}

# next_repeat CSV TEST: the first repeat number after CSV's rows of TEST.
next_repeat() {
	[ -f "$1" ] || { echo 0; return; }
	awk -F, -v t="$2" '$6 == t && $7 + 1 > n { n = $7 + 1 } END { print n + 0 }' "$1"
}

# host_rows KERNEL_VCPUS REPEAT COMMIT: turn the guest format
# "test,params,metric,value,unit,source" on stdin into results.csv rows of
# the host (accel native, kernel host, vcpus KERNEL_VCPUS, status ok).
host_rows() {
	awk -F, -v OFS=, -v pre="$(conf_get CSV_SCHEMA_VERSION),$3,native,host,$1" \
		-v rep="$2" '{ t = $1; $1 = ""; print pre "," t "," rep $0 ",ok" }'
}

# append_rows CSV NEWROWS: CSV (its header first if it is new) plus the rows
# of the file NEWROWS, written via a temporary and a rename so that an
# interruption leaves the old rows intact.
append_rows() {
	{ if [ -f "$1" ]; then cat "$1"; else conf_get CSV_COLUMNS | tr ' ' ','; fi; cat "$2"; } |
		atomic_write "$1"
}
