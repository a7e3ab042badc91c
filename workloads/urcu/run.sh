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
[ -d "$dir" ] || die "$dir: not a directory"
need_tool gcc make pkg-config

columns=$(conf_get CSV_COLUMNS | tr ' ' ',')
csv=$dir/csv/results.csv
mkdir -p "$dir/csv"
if [ -f "$csv" ]; then
	[ "$(head -1 "$csv")" = "$columns" ] || die "$csv:1: header is not CSV_COLUMNS of suite.conf"
fi

bin_dir=$RB_CACHE/urcu
mkdir -p "$bin_dir"
make -s -C "$RB_TOP/workloads/urcu" OUT="$bin_dir" >&2 || die "urcu-bench does not build (liburcu-dev: make deps)"

commit=$(git -C "$RB_TOP" rev-parse --short HEAD)
git -C "$RB_TOP" diff --quiet HEAD 2>/dev/null || commit=$commit-dirty
# Earlier urcu rows: this run's repeats come after theirs.
first=0
if [ -f "$csv" ]; then
	first=$(awk -F, '$6 == "urcu" && $7 + 1 > n { n = $7 + 1 } END { print n + 0 }' "$csv")
fi

new=$(mktemp)
trap 'rm -f "$new"' EXIT
ncpus=$(nproc)
for ((rep = first; rep < first + repeats; rep++)); do
	for ((readers = 1; readers <= ncpus; readers++)); do
		note "urcu: repeat $rep, $readers reader(s)"
		"$bin_dir/urcu-bench" "$readers" "$loops" |
			awk -F, -v OFS=, -v pre="$(conf_get CSV_SCHEMA_VERSION),$commit,native,host,$readers" \
				-v rep="$rep" '{ t = $1; $1 = ""; print pre "," t "," rep $0 ",ok" }' >>"$new"
	done
done
{ if [ -f "$csv" ]; then cat "$csv"; else echo "$columns"; fi; cat "$new"; } | atomic_write "$csv"
note "urcu: $(wc -l <"$new") rows appended to $csv"
