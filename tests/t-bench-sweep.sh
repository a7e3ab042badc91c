#!/bin/bash
# tier: guest
# A tiny `make bench` sweep (classic kernel, 1 and 2 vCPUs, every test, very
# short runs) produces a well-formed, sane results CSV, boots record,
# metadata, perf output and the refscale agreement table; its boots ran in
# the order its seed gives, with the vCPU threads pinned.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp classic
sweep=$tmp/sweep
seed=12345
BENCH_PERF=1 BENCH_RUNS=3 BENCH_TARGET_MS=5 BENCH_CALLRCU_MS=200 BENCH_GP_SAMPLES=20 \
	"$RB_TOP/workloads/bench.sh" --kernels $kernel --vcpus "1 2" --repeats 2 --seed $seed --out "$sweep" \
	>"$tmp/bench.out" 2>&1 || { cat "$tmp/bench.out"; fail "the sweep failed"; }
cat "$tmp/bench.out"
grep -q "test=gp elapsed .* remaining" "$tmp/bench.out" || fail "no per-test progress lines"

/usr/bin/python3 "$RB_TOP/tests/bench_csv_check.py" "$sweep" || fail "results.csv check failed"
grep -q '"complete": true' "$sweep/metadata.json" || fail "metadata.json does not say complete"
for v in 1 2; do
	for t in read read_mb callrcu_cost callrcu_capacity callrcu_memory gp refscale rcuscale; do
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
# cost TEST: its mean ns_per_pair over the repeats at 2 vCPUs, 2 readers.
cost() {
	awk -F, -v t="$1" '$5 == 2 && $6 == t && $8 ~ /^readers=2;nest=1;/ && $9 == "ns_per_pair" { s += $10; n++ }
		END { if (n) printf "%.3f\n", s / n }' "$sweep/csv/results.csv"
}
read_ns=$(cost read) mb_ns=$(cost read_mb)
[ -n "$read_ns" ] && [ -n "$mb_ns" ] || fail "no readers=2 rows for read and read_mb"
awk -v a="$read_ns" -v b="$mb_ns" 'BEGIN { exit !(b > a) }' ||
	fail "read_mb ($mb_ns ns) not dearer than read ($read_ns ns) on 2 CPUs"
echo "ok: tiny sweep well formed; 2 CPUs: read $read_ns ns, read_mb $mb_ns ns per section"

# The boots ran in the seed's order: boots.csv by start time lists the
# positions 1..N with the (kernel, vcpus, repeat) that `order` gives.
grep -q "\"seed\": $seed," "$sweep/metadata.json" || fail "metadata.json lacks the seed"
want=$(/usr/bin/python3 "$RB_TOP/analysis/boots.py" order --seed $seed --kernels $kernel \
	--vcpus "1 2" --repeats 2 | tr '\n' ' ')
got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ print $c["started_utc"], $c["order"], $c["kernel"], $c["vcpus"], $c["repeat"] }' "$sweep/csv/boots.csv" |
	sort -s -k1,1 -k2,2n | cut -d' ' -f2- | tr '\n' ' ')
[ "$got" = "$want" ] || fail "boots ran in the order '$got', the seed gives '$want'"
[ "$(awk -F, 'NR > 1 && $0 !~ /,ok$/' "$sweep/csv/boots.csv")" = "" ] || fail "a boot is not ok in boots.csv"
pinned=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "pinned") p = i; next } { s += $p } END { print s }' \
	"$sweep/csv/boots.csv")
[ "$pinned" = 4 ] || fail "only $pinned of 4 boots had their vCPU threads pinned"
echo "ok: 4 boots in the order of seed $seed ($want), all pinned"
