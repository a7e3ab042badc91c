#!/bin/bash
# workloads/calibrate/run.sh RESULTDIR [--repeats N] [--runs N] [--target-ms MS] [--cpu C]
#                             [--published FILE]:
# build calibrate and append its native per-instruction costs (test calib,
# kernel host, accel native, vcpus 1, source native-calib) and the published
# costs of published.csv (cli, sti in cycles, converted to ns with the
# measured cycle time: op alu's lower quartile; source published) to
# RESULTDIR/csv/results.csv; repeat numbers continue after earlier calib rows.
# The run is pinned to host CPU C (default: the last one) with taskset; one
# cache-line transfer (op line_transfer: pingpong.c) is timed between CPU C
# and CPU C-1.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

usage() {
	echo "usage: workloads/calibrate/run.sh RESULTDIR [--repeats N] [--runs N] [--target-ms MS] [--cpu C] [--published FILE]"
}

dir='' repeats=3 runs=11 target_ms=10 cpu=$(($(nproc) - 1))
published=$RB_TOP/workloads/calibrate/published.csv
while [ $# -gt 0 ]; do
	case "$1" in
	--repeats) repeats=${2:-}; shift ;;
	--runs) runs=${2:-}; shift ;;
	--target-ms) target_ms=${2:-}; shift ;;
	--cpu) cpu=${2:-}; shift ;;
	--published) published=${2:-}; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) usage >&2; die "unknown option '$1'" ;;
	*) [ -z "$dir" ] || die "one RESULTDIR only, got '$dir' and '$1'"; dir=$1 ;;
	esac
	shift
done
[ -n "$dir" ] || { usage >&2; die "no RESULTDIR given"; }
case "$repeats$runs$target_ms$cpu" in *[!0-9]*) die "--repeats, --runs, --target-ms and --cpu take integers" ;; esac
[ "$repeats" -ge 1 ] && [ "$runs" -ge 1 ] && [ "$target_ms" -ge 1 ] ||
	die "--repeats, --runs and --target-ms must be at least 1"
need_tool gcc make taskset
[ -f "$published" ] || die "$published: no such file"
csv=$(results_csv "$dir")

bin_dir=$RB_CACHE/calibrate
mkdir -p "$bin_dir"
make -s -C "$RB_TOP/workloads/calibrate" OUT="$bin_dir" >&2 || die "calibrate does not build"

# published_rows MEASURED: the rows of published.csv's filled-in ops, in
# ns at the cycle time of MEASURED's alu lower quartile (other load on the
# host only adds time, so the low quartile is the closer cycle time), once
# per repeat so that every repeat of calib is complete.
published_rows() {
	local cycle_ns
	cycle_ns=$(echo "$1" | awk -F, '$2 == "op=alu" && $3 == "ns_per_op_low" { print $4 }')
	[ -n "$cycle_ns" ] || die "calibrate wrote no alu row"
	grep -v '^#' "$published" | tail -n +2 | awk -F, -v OFS=, -v c="$cycle_ns" '
		$2 == "" || $3 == "" { print "rcu-bench: calib: " $1 ": no published figure in published.csv: no row" >"/dev/stderr"; next }
		{ lo = $2 * c; hi = $3 * c
		  print "calib", "op=" $1, "ns_per_op", (lo + hi) / 2, "ns", "published"
		  print "calib", "op=" $1, "ns_per_op_low", lo, "ns", "published"
		  print "calib", "op=" $1, "ns_per_op_high", hi, "ns", "published" }'
}

commit=$(suite_commit)
first=$(next_repeat "$csv" calib)
new=$(mktemp)
trap 'rm -f "$new"' EXIT
note "calib: pinned to CPU $cpu; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((rep = first; rep < first + repeats; rep++)); do
	note "calib: repeat $rep"
	measured=$(taskset -c "$cpu" "$bin_dir/calibrate" "$runs" "$target_ms")
	echo "$measured" | host_rows 1 "$rep" "$commit" >>"$new"
	published_rows "$measured" | host_rows 1 "$rep" "$commit" >>"$new"
	# One cache-line transfer between two host CPUs: the calibrated CPU
	# and the one before it (a 1-CPU host has none to measure).
	if [ "$cpu" -ge 1 ]; then
		"$bin_dir/pingpong" "$cpu" $((cpu - 1)) "$runs" "$target_ms" | host_rows 1 "$rep" "$commit" >>"$new"
	fi
done
note "calib: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
append_rows "$csv" "$new"
note "calib: $(wc -l <"$new") rows appended to $csv"
