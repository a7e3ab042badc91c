#!/bin/bash
# workloads/urcu/run.sh RESULTDIR [--repeats N] [--loops N]: build urcu-bench
# and append its native liburcu rows (kernel=host, accel=native,
# vcpus=readers, for readers 1..nproc) to RESULTDIR/csv/results.csv.
# The file is rewritten via a temporary and a rename, so an interruption
# leaves the old rows intact; repeat numbers continue after earlier urcu rows.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

usage() {
	echo "usage: workloads/urcu/run.sh RESULTDIR [--repeats N] [--loops N]"
}

dir='' repeats=1 loops=10000000
while [ $# -gt 0 ]; do
	case "$1" in
	--repeats) repeats=${2:-}; shift ;;
	--loops) loops=${2:-}; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) usage >&2; die "unknown option '$1'" ;;
	*) [ -z "$dir" ] || die "one RESULTDIR only, got '$dir' and '$1'"; dir=$1 ;;
	esac
	shift
done
[ -n "$dir" ] || { usage >&2; die "no RESULTDIR given"; }
case "$repeats$loops" in *[!0-9]*) die "--repeats and --loops take positive integers" ;; esac
[ "$repeats" -ge 1 ] || die "--repeats must be at least 1"
need_tool gcc make pkg-config
csv=$(results_csv "$dir")

bin_dir=$RB_CACHE/urcu
mkdir -p "$bin_dir"
make -s -C "$RB_TOP/workloads/urcu" OUT="$bin_dir" >&2 || die "urcu-bench does not build (liburcu-dev: make deps)"

commit=$(suite_commit)
# Earlier urcu rows: this run's repeats come after theirs.
first=$(next_repeat "$csv" urcu)

new=$(mktemp)
trap 'rm -f "$new"' EXIT
ncpus=$(nproc)
for ((rep = first; rep < first + repeats; rep++)); do
	for ((readers = 1; readers <= ncpus; readers++)); do
		note "urcu: repeat $rep, $readers reader(s)"
		"$bin_dir/urcu-bench" "$readers" "$loops" | host_rows "$readers" "$rep" "$commit" >>"$new"
	done
done
append_rows "$csv" "$new"
note "urcu: $(wc -l <"$new") rows appended to $csv"
