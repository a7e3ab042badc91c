# Guest job (busybox sh): the rcu-bench measurements for one (kernel, vCPUs)
# boot.  The host prepends BENCH_TESTS (names of suite.conf BENCH_TEST_*,
# each run by test_<name> below) and every other BENCH_* setting, from
# suite.conf's profiles (workloads/bench.sh; scripts/lib.sh bench_settings):
# the job has no defaults of its own, and passes rcubench.ko every
# parameter a test reads (bench-module/rcubench.c RB_TESTS).
#
# Writes to /results/:
#   bench.csv        rows "test,params,metric,value,unit,source" of the
#                    tests that succeeded (never a partial test)
#   cells.txt        one line per test: "<test> ok" or "<test> failed:<why>"
#   perf-<test>.txt  perf stat (software events, system-wide) of each test,
#                    when BENCH_PERF=1 (it costs about 0.7 s per test)
#   stats-<when>.txt the preemptible RCU debugfs stats around the gp test
#   count-labels.csv the count_* tests' region labels, for the host to join
#                    with the rbcount plugin's counts (plugin boots only)
# Console lines "rcu-bench-job: start <test>" let the host show progress.
missing=
for v in BENCH_TESTS BENCH_NESTS BENCH_RUNS BENCH_TARGET_MS BENCH_CALLRCU_MS BENCH_CALLRCU_CALLS \
	BENCH_MAX_BACKLOG BENCH_MEMORY_RATE BENCH_MEMORY_MS BENCH_GP_SAMPLES BENCH_GP_HOLD_US BENCH_WAIT_S BENCH_PERF BENCH_COUNT_LOOPS \
	BENCH_COUNT_GPS BENCH_LATENCY_US BENCH_LATENCY_SAMPLES BENCH_BOOST_SAMPLES BENCH_BOOST_HOG_MS; do
	eval "[ -n \"\${$v:-}\" ]" || missing="$missing $v"
done
if [ -n "$missing" ]; then
	echo "rcu-bench-job: no setting for$missing: the host passes them (scripts/lib.sh bench_settings)"
	exit 2
fi

MOD=/modules
NCPUS=$(nproc)
ROWS=/tmp/rows.csv
STATS_GLOB='/sys/kernel/debug/rcu/*_stats'

say() {
	echo "rcu-bench-job: $*"
}

# Readers for the read tests: one, and one per CPU.
reader_counts() {
	if [ "$NCPUS" -gt 1 ]; then echo "1 $NCPUS"; else echo 1; fi
}

# rcubench PARAMS...: one load of rcubench.ko; its rows go to $ROWS.
rcubench() {
	insmod "$MOD/rcubench.ko" "$@" || {
		echo "insmod rcubench $*: $(dmesg | sed -n 's/.*rcubench: //p' | tail -1)"
		return 1
	}
	cat /sys/kernel/debug/rcubench/results >>"$ROWS" || { rmmod rcubench; echo "no results file"; return 1; }
	# The count_* tests' region labels (see rcubench_count below).
	labels=/sys/kernel/debug/rcubench/count_labels
	[ ! -f $labels ] || cat $labels >>/results/count-labels.csv
	rmmod rcubench
}

# A system-wide perf stat runs in the background around each test.
perf_pid=
HAVE_PERF=0
if [ "$BENCH_PERF" != 1 ]; then
	:
elif perf stat -e task-clock -o /dev/null true >/dev/null 2>&1; then
	HAVE_PERF=1
else
	say "perf stat does not work here: no perf-*.txt"
fi

perf_start() {
	[ $HAVE_PERF = 1 ] || return 0
	perf stat -a -e task-clock,cpu-clock,context-switches,cpu-migrations,page-faults \
		-o "/results/perf-$1.txt" &
	perf_pid=$!
	sleep 0.5 # Let perf open its counters before the test starts.
}

perf_stop() {
	[ -n "$perf_pid" ] || return 0
	kill -INT "$perf_pid"
	wait "$perf_pid"
	perf_pid=
}

uptime_s() {
	cut -d' ' -f1 /proc/uptime
}

# wait_dmesg REGEX: wait up to BENCH_WAIT_S for a kernel message, looking
# every 0.1 s (refscale and rcuscale finish in well under a second).
wait_dmesg() {
	i=0
	while ! dmesg | grep -q "$1"; do
		i=$((i + 1))
		[ $i -le $((BENCH_WAIT_S * 10)) ] || { echo "timed out waiting for '$1' in dmesg"; return 1; }
		sleep 0.1
	done
}

# median: of the numbers on stdin, one per line.
median() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

test_read() {
	for r in $(reader_counts); do
		for n in $(echo "$BENCH_NESTS" | tr , " "); do
			rcubench test=read readers="$r" nest="$n" runs="$BENCH_RUNS" \
				target_ms="$BENCH_TARGET_MS" || return 1
		done
	done
}

test_read_mb() {
	for r in $(reader_counts); do
		rcubench test=read_mb readers="$r" nest=1 runs="$BENCH_RUNS" target_ms="$BENCH_TARGET_MS" ||
			return 1
	done
}

test_callrcu_cost() {
	rcubench test=callrcu_cost writers="$NCPUS" calls="$BENCH_CALLRCU_CALLS"
}

test_callrcu_capacity() {
	rcubench test=callrcu_capacity writers="$NCPUS" duration_ms="$BENCH_CALLRCU_MS" \
		max_backlog="$BENCH_MAX_BACKLOG"
}

# One writer at a fixed rate, whatever the vCPUs; its backlog limit is one
# second of calls, far above rate x any grace period.
test_callrcu_memory() {
	rcubench test=callrcu_memory writers=1 rate="$BENCH_MEMORY_RATE" duration_ms="$BENCH_MEMORY_MS" \
		max_backlog="$BENCH_MEMORY_RATE"
}

# stats_snapshot FILE: every "name value" line of the RCU debugfs stats.
stats_snapshot() {
	: >"$1"
	for f in $STATS_GLOB; do
		[ -f "$f" ] && cat "$f" >>"$1"
	done
}

# gp_stages_rows LOAD BEFORE AFTER SECONDS: per-GP stage means from the
# cumulative counters gp_completed, flips and <stage>_ns (total ns spent in
# each grace-period stage) of the preemptible implementation's stats.
gp_stages_rows() {
	awk -v load="$1" -v secs="$4" '
		FNR == NR { before[$1] = $2; next }
		{ after[$1] = $2 }
		function row(metric, value, unit) {
			printf "gp_stages,load=%s,%s,%s,%s,debugfs\n", load, metric, value, unit
		}
		END {
			if (!("gp_completed" in after)) exit
			gp = after["gp_completed"] - before["gp_completed"]
			row("gp_completed", sprintf("%.0f", gp), "count")
			if ("flips" in after)
				row("flips", sprintf("%.0f", after["flips"] - before["flips"]), "count")
			if (secs > 0)
				row("gp_per_s", sprintf("%.3f", gp / secs), "1/s")
			n = split("idle waitack waitzero waitmb", stage, " ")
			for (i = 1; i <= n; i++) {
				k = stage[i] "_ns"
				if ((k in after) && gp > 0)
					row(k, sprintf("%.0f", (after[k] - before[k]) / gp), "ns")
			}
		}' "$2" "$3"
}

# variant_rows LOAD: the preemptible kernel's design variants as it ran
# (rcupreempt.fast_advance, idle_skip: Y/N in sysfs, 1/0 here), for the
# analysis' prediction; nothing on a kernel without them.
variant_rows() {
	local v f
	for v in fast_advance idle_skip; do
		f=/sys/module/rcupreempt/parameters/$v
		[ -f "$f" ] || continue
		case "$(cat "$f")" in Y | 1) echo "gp_stages,load=$1,$v,1,count,sysfs" ;;
		*) echo "gp_stages,load=$1,$v,0,count,sysfs" ;; esac
	done
}

# Each load: lone grace periods, then back-to-back ones; the stage means
# cover both.  The preemptible kernel's configured stages per grace period
# (rcupreempt.gp_stages) go with them, for the analysis' prediction.
test_gp() {
	gp_stages=/sys/module/rcupreempt/parameters/gp_stages
	for load in idle readers; do
		stats_snapshot "/results/stats-before-$load.txt"
		t0=$(uptime_s)
		for spacing in lone back_to_back; do
			rcubench test=gp samples="$BENCH_GP_SAMPLES" load="$load" hold_us="$BENCH_GP_HOLD_US" \
				spacing="$spacing" || return 1
		done
		[ ! -f $gp_stages ] || echo "gp_stages,load=$load,stages,$(cat $gp_stages),count,sysfs" >>"$ROWS"
		variant_rows "$load" >>"$ROWS"
		t1=$(uptime_s)
		stats_snapshot "/results/stats-after-$load.txt"
		gp_stages_rows "$load" "/results/stats-before-$load.txt" \
			"/results/stats-after-$load.txt" "$(echo "$t0 $t1" | awk '{ print $2 - $1 }')" >>"$ROWS"
	done
	[ -s /results/stats-after-idle.txt ] || say "no $STATS_GLOB on this kernel: no gp_stages rows"
}

# boost_rows TEST PARAMS BEFORE AFTER: how often preemptible RCU boosted
# readers during one run of a test ("boosts" of rcupreempt_stats; no other
# kernel has it), as a row of TEST.
boost_rows() {
	awk -v t="$1" -v p="$2" 'FNR == NR { before[$1] = $2; next } { after[$1] = $2 }
		END { if ("boosts" in after)
			printf "%s,%s,boosts,%.0f,count,debugfs\n", t, p, after["boosts"] - before["boosts"] }' "$3" "$4"
}

# Wakeup latency of a SCHED_FIFO task behind readers of each length.
test_latency() {
	[ -f "$MOD/rcubench.ko" ] || { echo "no measurer: $MOD/rcubench.ko is not in this guest"; return 1; }
	for us in $(echo "$BENCH_LATENCY_US" | tr , " "); do
		stats_snapshot /tmp/lat-before.txt
		rcubench test=latency reader_us="$us" readers=1 samples="$BENCH_LATENCY_SAMPLES" || return 1
		stats_snapshot /tmp/lat-after.txt
		boost_rows latency_boost "reader_us=$us;readers=1;samples=$BENCH_LATENCY_SAMPLES" \
			/tmp/lat-before.txt /tmp/lat-after.txt >>"$ROWS"
	done
}

# A reader preempted inside its section by a SCHED_FIFO hog: the grace
# period and the callbacks outstanding, and how often the booster acted.
test_boost() {
	[ -f "$MOD/rcubench.ko" ] || { echo "no measurer: $MOD/rcubench.ko is not in this guest"; return 1; }
	stats_snapshot /tmp/boost-before.txt
	rcubench test=boost samples="$BENCH_BOOST_SAMPLES" hog_ms="$BENCH_BOOST_HOG_MS" || return 1
	stats_snapshot /tmp/boost-after.txt
	boost_rows boost_count "hog_ms=$BENCH_BOOST_HOG_MS;samples=$BENCH_BOOST_SAMPLES" \
		/tmp/boost-before.txt /tmp/boost-after.txt >>"$ROWS"
}

# The loop count our read test chose for readers=NCPUS nest=1, so that
# refscale times the same number of sections per run.
our_read_loops() {
	grep -m1 "^read,readers=$NCPUS;nest=1;loops=" /results/bench.csv 2>/dev/null |
		sed 's/^[^,]*,[^,]*loops=\([0-9]*\),.*/\1/'
}

torture_load() {
	grep -q '^torture ' /proc/modules || insmod "$MOD/torture.ko" || { echo "insmod torture"; return 1; }
}

# refscale prints its per-run table at the end of its test, not at insmod.
test_refscale() {
	loops=$(our_read_loops)
	params="readers=$NCPUS;nest=1;loops=${loops:-10000};runs=$BENCH_RUNS"
	torture_load || return 1
	insmod "$MOD/refscale.ko" scale_type=rcu nreaders="$NCPUS" loops="${loops:-10000}" \
		nruns="$BENCH_RUNS" holdoff=0 shutdown=0 verbose=0 || { echo "insmod refscale"; return 1; }
	wait_dmesg 'END OF TEST' || { rmmod refscale; return 1; }
	rmmod refscale
	# The table: "Runs<TAB>Time(ns)" then "<run><TAB><ns per loop>" lines.
	dmesg | sed 's/^\[[^]]*\] *//' | awk '/^Runs\tTime/ { on = 1; next }
		on && /^[0-9]+\t[0-9.]+$/ { print $2; next } on { on = 0 }' >/tmp/refscale.ns
	[ -s /tmp/refscale.ns ] || { echo "no refscale table in dmesg"; return 1; }
	echo "refscale,$params,ns_per_pair,$(median </tmp/refscale.ns),ns,refscale" >>"$ROWS"
}

# rcuscale prints the per-GP durations only when it is unloaded.
test_rcuscale() {
	params="nwriters=1;nreaders=0"
	torture_load || return 1
	insmod "$MOD/rcuscale.ko" scale_type=rcu nwriters=1 nreaders=0 holdoff=0 shutdown=0 ||
		{ echo "insmod rcuscale"; return 1; }
	wait_dmesg 'Test complete' || { rmmod rcuscale; return 1; }
	rmmod rcuscale
	dmesg | sed -n 's/.*writer-duration: *\([0-9]*\) \([0-9]*\).*/\1 \2/p' >/tmp/rcuscale.ns
	[ -s /tmp/rcuscale.ns ] || { echo "no rcuscale writer-duration lines in dmesg"; return 1; }
	awk -v p="$params" '{ printf "rcuscale,%s;sample=%d,gp_latency_ns,%s,ns,rcuscale\n", p, $1, $2; s += $2 }
		END { printf "rcuscale,%s,gp_latency_ns,%.0f,ns,rcuscale\n", p, s / NR }' \
		/tmp/rcuscale.ns >>"$ROWS"
}

# ---- count_*: only in boots with the rbcount plugin (workloads/tcg-plugin) ----
# The module marks regions; its labels say which region is which.  The
# counts themselves are written by the plugin on the host, so these tests
# add no rows here: the host turns counts + labels into rows.
rcubench_count() {
	rcubench "$@" || return 1
	grep -q ",${1#test=}," /results/count-labels.csv 2>/dev/null || { echo "no count labels for $2"; return 1; }
}

test_count_read() {
	rcubench_count test=count_read loops="$BENCH_COUNT_LOOPS"
}

test_count_read_mb() {
	rcubench_count test=count_read_mb loops="$BENCH_COUNT_LOOPS"
}

test_count_callrcu() {
	rcubench_count test=count_callrcu loops="$BENCH_COUNT_LOOPS"
}

test_count_gp() {
	for load in idle readers; do
		rcubench_count test=count_gp load="$load" samples="$BENCH_COUNT_GPS" \
			hold_us="$BENCH_GP_HOLD_US" || return 1
	done
}

# count_refscale: refscale's own loop, counted per call (one reader, one
# run: a warm-up call and a measured one) at loops/2 and loops.  The host
# gives the offsets of ref_rcu_read_section() in refscale.ko's .text and
# the address of the kernel's module list (no kallsyms in these kernels):
# BENCH_REFSCALE_RANGE="LO HI MODULES".
test_count_refscale() {
	set -- ${BENCH_REFSCALE_RANGE:-}
	[ $# = 3 ] || { echo "no BENCH_REFSCALE_RANGE"; return 1; }
	range_lo=$1 range_hi=$2 modules_list=$3
	for loops in $((BENCH_COUNT_LOOPS / 2)) $BENCH_COUNT_LOOPS; do
		torture_load || return 1
		ends=$(dmesg | grep -c 'END OF TEST' || true)
		insmod "$MOD/refscale.ko" scale_type=rcu nreaders=1 loops="$loops" nruns=1 holdoff=3 \
			shutdown=0 verbose=0 || { echo "insmod refscale"; return 1; }
		rcubench_count test=count_refscale modules_list="$modules_list" range_lo="$range_lo" \
			range_hi="$range_hi" loops="$loops" || { rmmod refscale; return 1; }
		i=0
		while [ "$(dmesg | grep -c 'END OF TEST')" -le "$ends" ]; do
			i=$((i + 1))
			[ $i -le "$BENCH_WAIT_S" ] || { rmmod refscale; echo "refscale did not finish"; return 1; }
			sleep 1
		done
		rmmod refscale
	done
}

# count_share: a known sharing pattern for the plugin's coherence model
# (boots with RB_PLUGIN_COH=on, 2 vCPUs or more): two CPUs hand a line
# back and forth, and each increments its own per-CPU counter.
test_count_share() {
	rcubench_count test=count_share loops="$BENCH_COUNT_LOOPS"
}

# count_migrate: read pairs whose reader stays on its CPU, and (with
# preemptible readers and 2 CPUs or more) read pairs whose reader moves to
# another CPU inside its section.
test_count_migrate() {
	rcubench_count test=count_migrate
}

say "tests '$BENCH_TESTS' on $NCPUS CPUs"
rc=0
for t in $BENCH_TESTS; do
	say "start $t"
	: >"$ROWS"
	perf_start "$t"
	start=$(uptime_s)
	if why=$("test_$t" 2>&1); then
		cat "$ROWS" >>/results/bench.csv
		echo "$t ok" >>/results/cells.txt
		say "done $t in $(echo "$start $(uptime_s)" | awk '{ print $2 - $1 }')s ($(wc -l <"$ROWS") rows)"
	else
		why=$(echo "$why" | tail -1 | tr ',' ';')
		echo "$t failed:${why:-error}" >>/results/cells.txt
		say "FAILED $t: $why"
		rc=1
	fi
	perf_stop
done
exit $rc
