#!/bin/bash
# tier: guest
# Real kernel paths (issue 23), counted by rbstat in plugin boots at 1 vCPU:
# on the path walk, read sections per stat() above zero on preempt (its
# __rcu_read_lock() entries) and, estimated from them, on classic-preempt
# (inline read side); and preempt's interrupt-flag instructions per stat()
# exceed classic-preempt's by 6 per outermost read section (preempt's read
# pair saves and restores the flags around each: pushf, cli, popf twice),
# within 10%: the path walk's sections are all outermost.  The report's
# "Real kernel paths" section reads the rows.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp
require_built preempt classic-preempt
mkdir -p "$tmp/r"
"$RB_TOP/workloads/paths.sh" "$tmp/r" --kernels "preempt classic-preempt" --vcpus 1 ||
	fail "workloads/paths.sh failed"
csv=$tmp/r/csv/results.csv
get() { # KERNEL METRIC: pathwalk's METRIC of KERNEL
	awk -F, -v k="$1" -v m="$2" '$4 == k && $6 == "paths" && $8 ~ /workload=pathwalk/ &&
		$9 == m { print $10; found = 1 } END { exit !found }' "$csv" ||
		fail "no pathwalk $2 row of $1"
}
sections=$(get preempt read_sections_per_op)
flags_p=$(get preempt irqflag_per_op)
flags_c=$(get classic-preempt irqflag_per_op)
awk -v s="$sections" 'BEGIN { exit !(s > 0.5) }' || fail "preempt: $sections read sections per stat()"
awk -v s="$sections" -v p="$flags_p" -v c="$flags_c" \
	'BEGIN { d = p - c; want = 6 * s; exit !(d >= 0.9 * want && d <= 1.1 * want) }' ||
	fail "irq-flag instructions per stat(): preempt $flags_p - classic-preempt $flags_c is not 6 x $sections sections"
echo "ok: pathwalk: $sections read sections per stat() on preempt; irq-flag instructions $flags_p against $flags_c on classic-preempt: 6 x $sections expected, $(awk -v p="$flags_p" -v c="$flags_c" 'BEGIN { print p - c }') found"
text=$(cd "$RB_TOP/analysis" && /usr/bin/python3 -c '
import sys, resultdir, realpaths, suiteconf
from pathlib import Path
rows = resultdir.load_csv(Path(sys.argv[1]), suiteconf.csv_columns(), suiteconf.kernels(),
                          suiteconf.schema_version())
class RD:
    ok_rows = [r for r in rows if r.ok]
print("\n".join(realpaths.report_section(RD, ["preempt", "classic-preempt"])))' "$csv") ||
	fail "realpaths.report_section failed"
# (constant columns such as vCPUs go above the table: match the row loosely)
grep -q '^| classic-preempt | .* est\. |' <<<"$text" ||
	fail "the report has no estimated row for classic-preempt: $text"
grep -q 'the read side is .* of the kernel.s instructions on preempt against' <<<"$text" ||
	fail "the report has no sentence: $text"
echo "ok: report: $(grep -m1 'pathwalk, 1 vCPU' <<<"$text")"
