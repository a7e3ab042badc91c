#!/bin/bash
# A tiny `make bench` sweep (tree kernel, 1 and 2 vCPUs, every test, very
# short runs) produces a well-formed, sane results CSV, metadata, perf
# output and the refscale agreement table.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp tree
sweep=$tmp/sweep
BENCH_RUNS=3 BENCH_TARGET_MS=5 BENCH_CALLRCU_MS=200 BENCH_GP_SAMPLES=20 \
	"$RB_TOP/workloads/bench.sh" --kernels $kernel --vcpus "1 2" --out "$sweep" \
	>"$tmp/bench.out" 2>&1 || { cat "$tmp/bench.out"; fail "the sweep failed"; }
cat "$tmp/bench.out"
grep -q "test=gp elapsed .* remaining" "$tmp/bench.out" || fail "no per-test progress lines"

/usr/bin/python3 "$RB_TOP/tests/bench_csv_check.py" "$sweep" || fail "results.csv check failed"
grep -q '"complete": true' "$sweep/metadata.json" || fail "metadata.json does not say complete"
for v in 1 2; do
	for t in read read_mb callrcu gp refscale rcuscale; do
		[ -s "$sweep/perf/$kernel-$v-r1/perf-$t.txt" ] || fail "no perf output for $t at $v vCPUs"
	done
	grep -q "^$kernel,$v,1," "$sweep/csv/agreement.csv" || fail "no agreement row for $v vCPUs"
	for t in count_read count_read_mb count_callrcu count_gp; do
		awk -F, -v v=$v -v t=$t '$5 == v && $6 == t && $12 == "tcg-plugin" && $13 == "ok" { f = 1 }
			END { exit !f }' "$sweep/csv/results.csv" || fail "no $t rows from the plugin boot at $v vCPUs"
	done
done

# With two CPUs the two smp_mb() per section are real barriers: read_mb
# must cost more than the plain section.
cost() {
	awk -F, -v t="$1" '$5 == 2 && $6 == t && $8 ~ /^readers=2;nest=1;/ && $9 == "ns_per_pair" { print $10 }' \
		"$sweep/csv/results.csv"
}
read_ns=$(cost read) mb_ns=$(cost read_mb)
[ -n "$read_ns" ] && [ -n "$mb_ns" ] || fail "no readers=2 rows for read and read_mb"
awk -v a="$read_ns" -v b="$mb_ns" 'BEGIN { exit !(b > a) }' ||
	fail "read_mb ($mb_ns ns) not dearer than read ($read_ns ns) on 2 CPUs"
echo "ok: tiny sweep well formed; 2 CPUs: read $read_ns ns, read_mb $mb_ns ns per section"
