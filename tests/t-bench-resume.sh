#!/bin/bash
# An interrupted sweep resumes: kill `bench` (SIGTERM, as Ctrl-C would)
# while its second boot runs, check that only whole cells were recorded,
# resume, and check that the finished cells were not redone and that no
# row is duplicated.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp tree
sweep=$tmp/sweep
csv=$sweep/csv/results.csv
export BENCH_RUNS=1 BENCH_TARGET_MS=5 BENCH_GP_SAMPLES=10
"$RB_TOP/workloads/bench.sh" --kernels $kernel --vcpus "1 2" --tests "read gp" \
	--out "$sweep" --no-analysis >"$tmp/first.out" 2>&1 &
pid=$!
# Wait for the second boot's guest to be running its first test.
for _ in $(seq 120); do
	grep -qs '^rcu-bench-job: start' "$sweep/raw/$kernel-2-r1/console.log" && break
	kill -0 $pid 2>/dev/null || { cat "$tmp/first.out"; fail "the sweep ended before it could be interrupted"; }
	sleep 0.5
done
kill -TERM $pid
rc=0
wait $pid || rc=$?
[ $rc -ne 0 ] || fail "the interrupted sweep exited 0"
sleep 2
! pgrep -f "qemu-system.*$sweep" >/dev/null || fail "a guest of the interrupted sweep is still running"

cells() {
	tail -n +2 "$csv" | awk -F, '{ print $4 "/" $5 "/" $6 "/" $13 }' | sort -u | tr '\n' ' '
}
got=$(cells)
[ "$got" = "$kernel/1/gp/ok $kernel/1/read/ok " ] ||
	fail "after the interruption the CSV should hold exactly the 1-vCPU cells, has: $got"
grep -q '"complete": false' "$sweep/metadata.json" || fail "interrupted sweep marked complete"
before=$(grep ",$kernel,1," "$csv")
stamp=$(stat -c %Y "$sweep/raw/$kernel-1-r1/console.log")
echo "ok: interrupted sweep kept whole cells only: $got"

"$RB_TOP/workloads/bench.sh" --resume "$sweep" --no-analysis >"$tmp/resume.out" 2>&1 ||
	{ cat "$tmp/resume.out"; fail "the resumed sweep failed"; }
cat "$tmp/resume.out"
! grep -q 'vcpus=1 ' "$tmp/resume.out" || fail "the resume redid 1-vCPU cells"
[ "$(stat -c %Y "$sweep/raw/$kernel-1-r1/console.log")" = "$stamp" ] || fail "the 1-vCPU guest was booted again"
[ "$(grep ",$kernel,1," "$csv")" = "$before" ] || fail "the 1-vCPU rows changed on resume"
got=$(cells)
[ "$got" = "$kernel/1/gp/ok $kernel/1/read/ok $kernel/2/gp/ok $kernel/2/read/ok " ] ||
	fail "after the resume the CSV should hold all four cells ok, has: $got"
/usr/bin/python3 "$RB_TOP/tests/bench_csv_check.py" "$sweep" || fail "results.csv check failed"
grep -q '"complete": true' "$sweep/metadata.json" || fail "resumed sweep not marked complete"
echo "ok: resume ran only the unfinished cells; no duplicate rows"
