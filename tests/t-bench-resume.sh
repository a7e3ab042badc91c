#!/bin/bash
# tier: guest
# An interrupted sweep resumes: kill `bench` (SIGTERM, as Ctrl-C would)
# while its second boot runs, check that only whole cells were recorded,
# resume, and check that the finished cells were not redone, that the
# resumed sweep kept its seed and its boots' order, and that no row is
# duplicated.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp classic
sweep=$tmp/sweep
csv=$sweep/csv/results.csv
seed=2024
export BENCH_RUNS=1 BENCH_TARGET_MS=5 BENCH_GP_SAMPLES=10
# The seed's order of the two boots: "position kernel vcpus repeat" lines.
order=$(/usr/bin/python3 "$RB_TOP/analysis/boots.py" order --seed $seed --kernels $kernel \
	--vcpus "1 2" --repeats 1)
first=$(echo "$order" | awk '$1 == 1 { print $3 }') second=$(echo "$order" | awk '$1 == 2 { print $3 }')
"$RB_TOP/workloads/bench.sh" --kernels $kernel --vcpus "1 2" --repeats 1 --seed $seed --tests "read gp" \
	--out "$sweep" --no-analysis >"$tmp/first.out" 2>&1 &
pid=$!
# Wait for the second boot's guest to be running its first test.
for _ in $(seq 240); do
	grep -qs '^rcu-bench-job: start' "$sweep/raw/$kernel-$second-r1/console.log" && break
	kill -0 $pid 2>/dev/null || { cat "$tmp/first.out"; fail "the sweep ended before it could be interrupted"; }
	sleep 0.5
done
kill -TERM $pid
rc=0
wait $pid || rc=$?
[ $rc -ne 0 ] || fail "the interrupted sweep exited 0"
sleep 2
! pgrep -f "qemu-system.*$sweep" >/dev/null || fail "a guest of the interrupted sweep is still running"

# cells: "kernel/vcpus/cell/status" of the CSV's rows, each row's test
# value mapped to its cell by suite.conf's table (analysis/suiteconf.py
# cell_of_test: gp's cell also carries gp_stages rows).
cell_map=$(/usr/bin/python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import suiteconf
for row, cell in suiteconf.cell_of_test().items(): print(row, cell)' "$RB_TOP/analysis")
cells() {
	tail -n +2 "$csv" | awk -F, -v map="$cell_map" '
		BEGIN { n = split(map, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], w, " "); cell[w[1]] = w[2] } }
		{ print $4 "/" $5 "/" ($6 in cell ? cell[$6] : $6) "/" $13 }' | sort -u | tr '\n' ' '
}
got=$(cells)
[ "$got" = "$kernel/$first/gp/ok $kernel/$first/read/ok " ] ||
	fail "after the interruption the CSV should hold exactly the $first-vCPU cells, has: $got"
grep -q '"complete": false' "$sweep/metadata.json" || fail "interrupted sweep marked complete"
before=$(grep ",$kernel,$first," "$csv")
stamp=$(stat -c %Y "$sweep/raw/$kernel-$first-r1/console.log")
echo "ok: interrupted sweep kept whole cells only: $got"

"$RB_TOP/workloads/bench.sh" --resume "$sweep" --no-analysis >"$tmp/resume.out" 2>&1 ||
	{ cat "$tmp/resume.out"; fail "the resumed sweep failed"; }
cat "$tmp/resume.out"
grep -q "seed $seed" "$tmp/resume.out" || fail "the resume does not say it keeps seed $seed"
! grep -q "vcpus=$first " "$tmp/resume.out" || fail "the resume redid $first-vCPU cells"
[ "$(stat -c %Y "$sweep/raw/$kernel-$first-r1/console.log")" = "$stamp" ] || fail "the $first-vCPU guest was booted again"
[ "$(grep ",$kernel,$first," "$csv")" = "$before" ] || fail "the $first-vCPU rows changed on resume"
got=$(cells)
[ "$got" = "$kernel/1/gp/ok $kernel/1/read/ok $kernel/2/gp/ok $kernel/2/read/ok " ] ||
	fail "after the resume the CSV should hold all four cells ok, has: $got"
# boots.csv: each boot once, at its position of the seed's order.
want=$(echo "$order" | awk '{ print $1, $2, $3, $4, s }' s=$seed | sort | tr '\n' ' ')
got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ print $c["order"], $c["kernel"], $c["vcpus"], $c["repeat"], $c["seed"] }' "$sweep/csv/boots.csv" | sort | tr '\n' ' ')
[ "$got" = "$want" ] || fail "boots.csv after the resume is '$got', expected '$want'"
/usr/bin/python3 "$RB_TOP/tests/bench_csv_check.py" "$sweep" || fail "results.csv check failed"
grep -q '"complete": true' "$sweep/metadata.json" || fail "resumed sweep not marked complete"
echo "ok: resume ran only the unfinished cells, kept seed $seed and the order; no duplicate rows"
