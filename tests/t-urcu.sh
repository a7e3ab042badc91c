#!/bin/bash
# tier: host
# The native liburcu anchor: urcu-bench builds and runs, run.sh appends
# well-formed host rows (ns > 0 and finite for the barrier flavours, memb
# records membarrier=0|1) that the analysis accepts and reports.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp
need_tool gcc make pkg-config
pkg-config --exists liburcu-mb liburcu-memb liburcu-qsbr || { echo "liburcu-dev missing (make deps)"; exit 77; }

mkdir -p "$tmp/r"
"$RB_TOP/workloads/urcu/run.sh" "$tmp/r" --loops 1000000
csv=$tmp/r/csv/results.csv
[ "$(head -1 "$csv")" = "$(conf_get CSV_COLUMNS | tr ' ' ',')" ] || fail "header is not CSV_COLUMNS"
ncpus=$(nproc)
rows=$(tail -n +2 "$csv" | wc -l)
[ "$rows" -eq $((3 * ncpus)) ] || fail "expected $((3 * ncpus)) rows (3 flavours x $ncpus readers), got $rows"
awk -F, 'NR > 1 {
	if ($3 != "native" || $4 != "host" || $6 != "urcu" || $9 != "ns_per_pair" || $13 != "ok")
		{ print "bad row " NR ": " $0; bad = 1 }
	if ($8 !~ /readers=/ || $8 !~ ("readers=" $5 "($|;)")) { print "vcpus != readers at " NR; bad = 1 }
	if ($10 !~ /^[0-9]+(\.[0-9]+)?$/) { print "value not a finite number at " NR ": " $10; bad = 1 }
	# qsbr has no read-side instructions: 0 is its honest cost.  The others
	# execute barriers (mb) or at least counter updates (memb).
	if ($8 !~ /flavour=qsbr/ && $10 + 0 <= 0) { print "ns not > 0 at " NR ": " $0; bad = 1 }
	if ($8 ~ /flavour=memb/ && $8 !~ /membarrier=[01]/) { print "memb without membarrier= at " NR; bad = 1 }
} END { exit bad }' "$csv" || fail "malformed urcu rows"
grep -o 'flavour=memb;readers=1;membarrier=[01]' "$csv" | sed 's/^/memb: /'

# A second run continues the repeat numbers and keeps the first run's rows.
"$RB_TOP/workloads/urcu/run.sh" "$tmp/r" --loops 1000000
[ "$(tail -n +2 "$csv" | wc -l)" -eq $((6 * ncpus)) ] || fail "second run lost or duplicated rows"
r1=$(awk -F, 'NR > 1 && $7 == 1' "$csv" | wc -l)
[ "$r1" -eq $((3 * ncpus)) ] ||
	fail "second run did not continue the repeat numbers: $r1 rows of repeat 1, the first run wrote $((3 * ncpus))"

/usr/bin/python3 "$RB_TOP/analysis/report.py" "$tmp/r" --no-terminal-plot
grep -q '^| urcu-mb | 1 | ' "$tmp/r/report.md" || fail "report.md has no urcu-mb row"
[ -s "$tmp/r/plots/urcu_native.png" ] || fail "no urcu plot"
expect_fail "run.sh without RESULTDIR" "$RB_TOP/workloads/urcu/run.sh"
expect_fail "run.sh on a missing dir" "$RB_TOP/workloads/urcu/run.sh" "$tmp/nonexistent"
sed -n '/Native liburcu/,/^## Plots/p' "$tmp/r/report.md" | grep '^| urcu'
echo "urcu anchor ok"
