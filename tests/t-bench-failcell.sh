#!/bin/bash
# tier: guest
# A cell that fails in the guest (here: rcubench.ko refuses samples=0) is
# recorded as one failed:<reason> row, the other cells of the boot are
# kept, and the sweep exits non-zero listing the failed cell.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp classic
sweep=$tmp/sweep
if BENCH_RUNS=1 BENCH_TARGET_MS=5 BENCH_GP_SAMPLES=0 "$RB_TOP/workloads/bench.sh" --kernels $kernel \
	--vcpus 1 --repeats 1 --tests "gp read" --out "$sweep" --no-analysis >"$tmp/out" 2>&1; then
	cat "$tmp/out"
	fail "the sweep with a failing cell exited 0"
fi
cat "$tmp/out"
grep -q "^failed cell: kernel=$kernel vcpus=1 test=gp repeat=1: failed:insmod rcubench" "$tmp/out" ||
	fail "the failed gp cell is not listed with its reason"
csv=$sweep/csv/results.csv
[ "$(grep -c ",$kernel,1,gp,1,,cell,,,rcubench,failed:insmod rcubench" "$csv")" = 1 ] ||
	fail "no single failed row for the gp cell"
grep -q ",$kernel,1,read,1,readers=1;nest=1;.*,ns_per_pair,.*,ok$" "$csv" ||
	fail "the read cell after the failed one was not kept"
/usr/bin/python3 "$RB_TOP/tests/bench_csv_check.py" --allow-failed "$sweep" || fail "results.csv check failed"
echo "ok: failed cell recorded with its reason, the rest of the boot kept"
