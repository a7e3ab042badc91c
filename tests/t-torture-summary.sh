#!/bin/bash
# tier: host
# Then torture-stress.sh --summarize over fake runs: every run listed, a
# failed or stalled run, one whose forward-progress phase was too slow, or
# one without a summary fails it, and the longest CPU-online and -offline
# operations over all runs are reported.
# torture.sh's summary of a finished run (--summarize, no guest): the
# fields come from rcutorture's last stats line, the end-of-test verdict
# and, where the kernel has them (the seed kernels), debugfs stats; a run
# without debugfs stats (Tree) counts GPs from rcutorture's total-gps, a missing run is a
# clear error.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp

# fake_run DIR VERDICT: a finished 60 s run as boot.sh and the guest job leave it.
fake_run() {
	mkdir -p "$1/results"
	echo ok >"$1/status"
	echo "TORTURE_ONOFF_INTERVAL=3000" >"$1/job.sh"
	cat >"$1/results/torture.log" <<'LOG'
rcu-torture: rtc: 0 ver: 100 tfle: 0 rta: 101 onoff: 2/2:3/3 5,9:7,8 1:2 (HZ=1000) barrier: 40/40:0 read-exits: 4 preempt_stalls: 0 nocb-toggles: 0:0
rcu-torture: rtc: 0 ver: 240 tfle: 0 rta: 241 onoff: 4/5:6/6 5,9:7,8 1:2 (HZ=1000) barrier: 88/89:0 read-exits: 8 preempt_stalls: 0 nocb-toggles: 0:0
LOG
	echo "rcu-torture:--- End of test: $2: nreaders=1 preempt_stalls=0" >"$1/results/verdict.txt"
	# What the seed kernels print here (they do not export Tree's gp_seq).
	echo "rcu:  End-test grace-period state: g0 f0x0 total-gps=0" >"$1/results/dmesg.txt"
}

summarize() {
	"$RB_TOP/workloads/torture.sh" --summarize --kernel "$1" --vcpus 4 --duration 60 --out "$2"
}

fake_run "$tmp/old" SUCCESS
line=$(summarize tree "$tmp/old") || fail "a successful run without any GP count: exit $?"
case " $line " in *" gp_completed=na gp_per_s=na "*) ;; *) fail "no GP count is not na: $line" ;; esac

fake_run "$tmp/tree" SUCCESS
echo "rcu:  End-test grace-period state: g1035297 f0x2 total-gps=2580" >"$tmp/tree/results/dmesg.txt"
line=$(summarize tree "$tmp/tree") || fail "a successful run without debugfs stats: exit $?"
for want in result=SUCCESS gp_versions=240 versions_per_s=4.0 gp_completed=2580 gp_per_s=43.0 hotplug=4/5:6/6 \
	hotplug_max_ms=9,8 barrier=88/89:0 stalls=0 onoff=3000 kcsan_races_rcu=na kcsan_races_other=na; do
	case " $line " in *" $want "*) ;; *) fail "tree summary lacks $want: $line" ;; esac
done
[ "$(cat "$tmp/tree/summary.txt")" = "$line" ] || fail "summary.txt differs from the printed line"

fake_run "$tmp/preempt" FAILURE
printf 'gp_stages 2\ngp_completed 1234\n' >"$tmp/preempt/results/rcupreempt_stats.txt"
if summarize preempt "$tmp/preempt" >/dev/null; then fail "a FAILURE run exited 0"; fi
line=$(cat "$tmp/preempt/summary.txt")
for want in result=FAILURE gp_completed=1234 gp_per_s=20.6; do
	case " $line " in *" $want "*) ;; *) fail "preempt summary lacks $want: $line" ;; esac
done

# The forward-progress phases: the slowest one's writer updates per second
# (cver over Duration in jiffies at rcutorture's HZ); none gives na.
fake_run "$tmp/fwd" SUCCESS
printf '%s\n' 'rcu_torture_fwd_prog_nr: 0 Duration 10000 cver 50 gps 900' \
	'rcu_torture_fwd_prog_nr: 0 Duration 5000 cver 2 gps 80' >>"$tmp/fwd/results/torture.log"
line=$(summarize preempt "$tmp/fwd") || fail "a run with forward-progress phases: exit $?"
case " $line " in *" fwd_nr_versions_per_s=0.40 "*) ;; *) fail "slowest phase is not 0.40/s: $line" ;; esac
case " $(cat "$tmp/tree/summary.txt") " in *" fwd_nr_versions_per_s=na "*) ;;
*) fail "a run without forward-progress phases is not na: $(cat "$tmp/tree/summary.txt")" ;; esac

expect_fail "no earlier run" summarize tree "$tmp/none"
echo "ok: summaries of a Tree run (no debugfs stats), a FAILURE run with stats, and a missing run"

# The stress row's summary: three runs, the longest hotplug operations.
stress=$tmp/stress
for i in 1 2 3; do fake_run "$stress/vcpus-2/run-$i" SUCCESS; done
sed -i 's/5,9:7,8/5,1200:7,8/' "$stress/vcpus-2/run-2/results/torture.log"
sed -i 's/5,9:7,8/5,30:7,4100/' "$stress/vcpus-2/run-3/results/torture.log"
for i in 1 2 3; do summarize preempt "$stress/vcpus-2/run-$i" >/dev/null || fail "stress run $i: exit $?"; done
line=$("$RB_TOP/workloads/torture-stress.sh" --summarize "$stress" | tail -1) || fail "3 passing runs: exit $?"
[ "$line" = "stress: 3 runs, 0 failed; longest online 1200 ms, offline 4100 ms" ] || fail "stress totals: $line"
# A stalled run (rcutorture's preempt_stalls) fails the row.
sed -i 's/ stalls=0 / stalls=1 /' "$stress/vcpus-2/run-2/summary.txt"
if out=$("$RB_TOP/workloads/torture-stress.sh" --summarize "$stress"); then fail "a stalled run passed: $out"; fi
case "$out" in *"3 runs, 1 failed"*) ;; *) fail "stalled run not counted: $out" ;; esac
# A run that left no summary counts as failed.
sed -i 's/ stalls=1 / stalls=0 /' "$stress/vcpus-2/run-2/summary.txt"
"$RB_TOP/workloads/torture-stress.sh" --summarize "$stress" >/dev/null || fail "the stall undone still fails"
# A forward-progress phase below suite.conf's minimum fails the row on one
# vCPU, and only there.
min=$(conf_get TORTURE_STRESS_MIN_FWD_VERSIONS_PER_S)
slow=$(awk -v m="$min" 'BEGIN { printf "%.2f", m / 2 }')
sed -i "s/ fwd_nr_versions_per_s=na / fwd_nr_versions_per_s=$slow /" "$stress/vcpus-2/run-3/summary.txt"
grep -q "vcpus=4 .*fwd_nr_versions_per_s=$slow" "$stress/vcpus-2/run-3/summary.txt" || fail "could not slow run 3"
"$RB_TOP/workloads/torture-stress.sh" --summarize "$stress" >/dev/null ||
	fail "a slow forward-progress phase on 4 vCPUs failed the row"
sed -i "s/ vcpus=4 / vcpus=1 /" "$stress/vcpus-2/run-3/summary.txt"
if out=$("$RB_TOP/workloads/torture-stress.sh" --summarize "$stress"); then
	fail "a run whose writer advanced at $slow/s (minimum $min) passed: $out"
fi
sed -i "s/ fwd_nr_versions_per_s=$slow / fwd_nr_versions_per_s=$min /" "$stress/vcpus-2/run-3/summary.txt"
"$RB_TOP/workloads/torture-stress.sh" --summarize "$stress" >/dev/null || fail "a run at the minimum rate failed"
mkdir -p "$stress/vcpus-4/run-1"
if out=$("$RB_TOP/workloads/torture-stress.sh" --summarize "$stress"); then fail "a run without summary passed"; fi
case "$out" in *"vcpus-4/run-1: no summary"*"4 runs, 1 failed"*) ;; *) fail "missing summary not counted: $out" ;; esac
expect_fail "no stress directory" "$RB_TOP/workloads/torture-stress.sh" --summarize "$tmp/nostress"
echo "ok: torture-stress summary"
