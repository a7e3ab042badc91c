#!/bin/bash
# workloads/paths.sh RESULTDIR [--kernels "K..."] [--vcpus "N..."]: real
# kernel paths (perf bench sched messaging and pipe, a path walk) counted
# by rbstat in plugin boots of each kernel at each vCPU count (default
# suite.conf PATHS_VCPUS), appended to RESULTDIR/csv/results.csv as rows of
# test paths (analysis/SCHEMA.md; workloads/paths.py computes them).  Each
# boot's console and results stay in $RB_CACHE/paths/<kernel>-<vcpus>.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

usage() {
	echo "usage: workloads/paths.sh RESULTDIR [--kernels \"K...\"] [--vcpus \"N...\"]"
}

dir='' kernels=$(conf_get KERNELS) vcpus_list=$(conf_get PATHS_VCPUS)
while [ $# -gt 0 ]; do
	case "$1" in
	--kernels) kernels=${2:-}; shift ;;
	--vcpus) vcpus_list=${2:-}; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) usage >&2; die "unknown option '$1'" ;;
	*) [ -z "$dir" ] || die "one RESULTDIR only, got '$dir' and '$1'"; dir=$1 ;;
	esac
	shift
done
[ -n "$dir" ] || { usage >&2; die "no RESULTDIR given"; }
for k in $kernels; do check_kernel "$k"; done
for v in $vcpus_list; do check_vcpus "$v"; done
csv=$(results_csv "$dir")
for k in $kernels; do
	[ -f "$(kernel_bzimage "$k")" ] || die "kernel $k is not built: make kernels KERNELS=$k"
done
commit=$(suite_commit)
schema=$(conf_get CSV_SCHEMA_VERSION)
rep=$(next_repeat "$csv" paths)
new=$(mktemp)
trap 'rm -f "$new"' EXIT
for k in $kernels; do
	for v in $vcpus_list; do
		out=$RB_CACHE/paths/$k-$v
		note "paths: $k at $v vCPUs (plugin boot) -> $out"
		"$RB_TOP/workloads/boot.sh" --kernel "$k" --vcpus "$v" --plugin --quiet \
			--job "$RB_TOP/workloads/guest/jobs/paths.sh" --out "$out" ||
			die "paths: $k/$v: the boot failed: $(cat "$out/status" 2>/dev/null)"
		/usr/bin/python3 "$RB_TOP/workloads/paths.py" rows "$out/results" --kernel "$k" \
			--vcpus "$v" --repeat "$rep" --commit "$commit" --schema "$schema" >>"$new" ||
			die "paths: $k/$v: no counts in $out/results"
	done
done
append_rows "$csv" "$new"
note "paths: $(wc -l <"$new") rows appended to $csv"
