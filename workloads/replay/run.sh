#!/bin/bash
# workloads/replay/run.sh RESULTDIR [--kernels "K..."] [--bundles DIR] [--runs N]
#                         [--target-ms MS] [--cpu C]:
# replay each kernel's read pair natively (workloads/replay/replay.py) and
# append the rows of test replay (kernel host, accel native, vcpus 1, params
# kernel=K, source native-replay) to RESULTDIR/csv/results.csv.
# A kernel's bundle (its disassembly) is extracted from its build in the
# cache (vmlinux, System.map and rcubench.ko, built against it if missing)
# into $RB_CACHE/replay/K.dis; with --bundles DIR, DIR/K.dis is used instead
# (workloads/replay/fixtures: the kernels the fixtures were taken from).
# RUNS runs (default 201) of at least MS ms (default 1): many short runs, so
# that a preemption on a shared host spoils a few runs, not the median.
# The runs are pinned to host CPU C (default: the last one) with taskset;
# repeat numbers continue after earlier replay rows.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

usage() {
	echo "usage: workloads/replay/run.sh RESULTDIR [--kernels \"K...\"] [--bundles DIR] [--runs N] [--target-ms MS] [--cpu C]"
}

dir='' kernels=$(conf_get KERNELS) bundles='' runs=201 target_ms=1 cpu=$(($(nproc) - 1))
while [ $# -gt 0 ]; do
	case "$1" in
	--kernels) kernels=${2:-}; shift ;;
	--bundles) bundles=${2:-}; shift ;;
	--runs) runs=${2:-}; shift ;;
	--target-ms) target_ms=${2:-}; shift ;;
	--cpu) cpu=${2:-}; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) usage >&2; die "unknown option '$1'" ;;
	*) [ -z "$dir" ] || die "one RESULTDIR only, got '$dir' and '$1'"; dir=$1 ;;
	esac
	shift
done
[ -n "$dir" ] || { usage >&2; die "no RESULTDIR given"; }
case "$runs$target_ms$cpu" in *[!0-9]*) die "--runs, --target-ms and --cpu take integers" ;; esac
[ "$runs" -ge 1 ] && [ "$target_ms" -ge 1 ] || die "--runs and --target-ms must be at least 1"
[ -z "$bundles" ] || [ -d "$bundles" ] || die "$bundles: not a directory"
need_tool gcc make objdump taskset /usr/bin/python3
csv=$(results_csv "$dir")

# bundle KERNEL: the path of KERNEL's bundle, extracted when needed.
bundle() {
	local k=$1 obj ko out
	if [ -n "$bundles" ]; then
		[ -f "$bundles/$k.dis" ] || die "$k: no bundle $bundles/$k.dis"
		echo "$bundles/$k.dis"
		return
	fi
	obj=$(kernel_obj "$k")
	[ -f "$obj/vmlinux" ] || die "$k: not built ($obj/vmlinux): make kernels, or --bundles DIR"
	ko=$(bench_module "$k")
	out=$RB_CACHE/replay/$k.dis
	mkdir -p "$(dirname "$out")"
	/usr/bin/python3 "$RB_TOP/workloads/replay/replay.py" extract --kernel "$k" --obj "$obj" \
		--ko "$ko" -o "$out" || die "$k: no bundle"
	echo "$out"
}

commit=$(suite_commit)
rep=$(next_repeat "$csv" replay)
new=$(mktemp)
work=$(mktemp -d)
trap 'rm -rf "$new" "$work"' EXIT
note "replay: pinned to CPU $cpu; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for k in $kernels; do
	check_kernel "$k"
	b=$(bundle "$k")
	note "replay: $k ($b)"
	taskset -c "$cpu" /usr/bin/python3 "$RB_TOP/workloads/replay/replay.py" run "$b" \
		--kernel "$k" --runs "$runs" --target-ms "$target_ms" --workdir "$work/$k" |
		host_rows 1 "$rep" "$commit" >>"$new" || die "$k: the replay failed"
done
note "replay: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
append_rows "$csv" "$new"
note "replay: $(wc -l <"$new") rows appended to $csv"
