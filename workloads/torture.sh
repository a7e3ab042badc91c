#!/bin/bash
# torture.sh: run rcutorture on one kernel in a guest and summarise it.
#
#   workloads/torture.sh --kernel NAME --vcpus N --duration S --out DIR
#                        [--type TORTURE_TYPE] [--onoff MS] [--args "rcutorture params"]
#                        [boot.sh options]
#   workloads/torture.sh --summarize --kernel NAME --vcpus N --duration S --out DIR
#                        (summarise DIR of an earlier run again; boots nothing)
#
# --type is rcutorture's torture_type (default rcu: srcu, tasks, busted, ...).
# Prints one summary line and writes it to DIR/summary.txt:
#   kernel=.. type=.. vcpus=.. duration=.. result=SUCCESS|FAILURE|<..>(<boot failure>) gp_versions=.. stalls=..
#   fwd_nr_versions_per_s=.. (the slowest forward-progress phase, see below)
#   kcsan_races_rcu=.. kcsan_races_other=.. (distinct KCSAN data races, see below)
# and exits 0 only for SUCCESS with a clean console.  A run whose console
# shows trouble (a splat, a stall warning, rcutorture's failure lines) has
# result=<verdict>(kernel-trouble); one that timed out or hung,
# <verdict>(timeout) or <verdict>(hang).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

kernel= vcpus=2 duration=60 out= onoff=0 args= boot_opts=() summarize=0 type=rcu
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift ;;
	--type) type=$2; shift ;;
	--vcpus) vcpus=$2; shift ;;
	--duration) duration=$2; shift ;;
	--out) out=$2; shift ;;
	--onoff) onoff=$2; shift ;;
	--args) args=$2; shift ;;
	--summarize) summarize=1 ;;
	*) boot_opts+=("$1") ;;
	esac
	shift
done
[ -n "$kernel" ] && [ -n "$out" ] || die "usage: $0 --kernel NAME --vcpus N --duration S --out DIR [--onoff MS] [--args ...]"
case "$duration$onoff" in *[!0-9]*) die "--duration and --onoff take whole numbers" ;; esac
case "$type" in '' | *[!a-z0-9-]*) die "--type takes an rcutorture torture_type, got '$type'" ;; esac
[ "$duration" -gt 0 ] || die "--duration must be > 0"

mkdir -p "$out"
if [ $summarize = 0 ]; then
	{
		echo "TORTURE_TYPE=$type"
		echo "TORTURE_DURATION=$duration"
		echo "TORTURE_ONOFF_INTERVAL=$onoff"
		echo "TORTURE_ARGS='$args'"
		cat "$RB_TOP/workloads/guest/jobs/torture.sh"
	} >"$out/job.sh"
fi
# rcutorture prints a stats block every 15 s, so the hang timer stays short.
status=ok
if [ $summarize = 1 ]; then
	status=$(cat "$out/status" 2>/dev/null) || die "$out: no status of an earlier run"
	onoff=$(sed -n 's/^TORTURE_ONOFF_INTERVAL=//p' "$out/job.sh" 2>/dev/null || echo "$onoff")
	type=$(sed -n 's/^TORTURE_TYPE=//p' "$out/job.sh" 2>/dev/null || true)
	type=${type:-rcu}
else
	"$RB_TOP/workloads/boot.sh" --kernel "$kernel" --vcpus "$vcpus" --job "$out/job.sh" \
		--out "$out" --timeout $((duration + 240)) --hang-timeout 90 "${boot_opts[@]}" ||
		status=$(cat "$out/status" 2>/dev/null || echo "boot-error: see above")
fi

res=$out/results
verdict=$(cat "$res/verdict.txt" 2>/dev/null || true)
case "$verdict" in
*"End of test: SUCCESS"*) result=SUCCESS ;;
*"End of test: FAILURE"*) result=FAILURE ;;
*) result=none ;;
esac
[ "$status" = ok ] || result="${result}(${status%%:*})"
# last_stat NAME VALUE: VALUE (an extended regex) after "NAME: " (or "=")
# in the last line of torture.log that has it; empty when none.
last_stat() {
	grep -oiE "$1[=:] *$2" "$res/torture.log" 2>/dev/null | tail -1 | sed -E 's/^[^=:]*[=:] *//' || true
}
# "ver:" in rcutorture's stats is the number of updates, each after a GP.
gp_versions=$(last_stat ver '[0-9]+')
stalls=$(last_stat preempt_stalls '[0-9]+')
# The seed implementations count every grace period in debugfs; for Tree,
# rcutorture's cleanup prints "End-test grace-period state: ... total-gps=N"
# (it reads Tree's gp_seq, which the seed implementations do not export).
gp_completed=$(cat "$res"/*_stats.txt 2>/dev/null | sed -n 's/^gp_completed //p' | head -1 || true)
if [ -z "$gp_completed" ]; then
	gp_completed=$(grep -o 'total-gps=[1-9][0-9]*' "$res/dmesg.txt" 2>/dev/null | tail -1 | cut -d= -f2 || true)
fi
# "onoff: a/b:c/d": a of b offline attempts and c of d onlines succeeded.
hotplug=$(last_stat onoff '[0-9]+/[0-9]+:[0-9]+/[0-9]+')
# "onoff: ... min_on,max_on:min_off,max_off sum_on:sum_off": the longest
# CPU-online and CPU-offline operations (ms), "online,offline"; a slow
# hotplug (a CPU starved by real-time spinners, say) shows here.
hotplug_max=$(last_stat onoff '[0-9]+/[0-9]+:[0-9]+/[0-9]+ -?[0-9]+,[0-9]+:-?[0-9]+,[0-9]+' |
	sed -E 's/^[^ ]+ -?[0-9]+,([0-9]+):-?[0-9]+,([0-9]+)$/\1,\2/')
# "barrier: a/b:c": a of b rcu_barrier() tests passed, c failed (n_barrier_cbs).
barrier=$(last_stat barrier '[0-9]+/[0-9]+:[0-9]+')
# rcutorture's forward-progress test runs readers back to back and logs
# each phase as "rcu_torture_fwd_prog_nr: ID Duration D cver C gps G" (D
# in jiffies, C the writer's updates, each after a grace period): the
# slowest phase's updates per second, "na" without one.  A booster kept
# off its CPU by a boosted reader of that loop (issue 25) drops it below
# 1/s on one CPU.
hz=$(grep -oE '\(HZ=[0-9]+\)' "$res/torture.log" 2>/dev/null | tail -1 | tr -dc 0-9 || true)
fwd_nr=na
if [ -n "$hz" ]; then
	fwd_nr=$(grep -oE 'rcu_torture_fwd_prog_nr: [0-9]+ Duration [0-9]+ cver [0-9]+' "$res/torture.log" |
		awk -v hz="$hz" '$4 > 0 { r = $6 * hz / $4; if (n++ == 0 || r < min) min = r }
			END { if (n) printf "%.2f", min; else print "na" }' || true)
fi
# KCSAN (a -kcsan kernel): data-race reports in RCU code (they fail the
# boot: boot.sh) and elsewhere (listed in kcsan.txt, not failed); "na" on
# a kernel without KCSAN.  --summarize reads the reports again, with
# today's kcsan-reports.py.
kcsan_rcu=na kcsan_other=na
if grep -q '^CONFIG_KCSAN=y' "$(kernel_obj "$kernel")/.config" 2>/dev/null; then
	if [ $summarize = 1 ] && grep -q 'BUG: KCSAN: ' "$out/console.log" 2>/dev/null; then
		"$RB_TOP/workloads/kcsan-reports.py" "$out/console.log" --obj "$(kernel_obj "$kernel")" \
			--tsv "$out/kcsan.tsv" >"$out/kcsan.txt" 2>&1 || true
	fi
	kcsan_rcu=0 kcsan_other=0
	if [ -f "$out/kcsan.txt" ]; then
		tail -1 "$out/kcsan.txt" >"$out/kcsan.last"
		kcsan_rcu=$(summary_field "$out/kcsan.last" kcsan_races_rcu)
		kcsan_other=$(summary_field "$out/kcsan.last" kcsan_races_other)
		rm -f "$out/kcsan.last"
	fi
fi
per_s() { [ -n "$1" ] && awk -v n="$1" -v s="$duration" 'BEGIN { printf "%.1f", n / s }' || echo na; }
echo "kernel=$kernel type=$type vcpus=$vcpus duration=$duration onoff=$onoff result=$result" \
	"gp_versions=${gp_versions:-0} versions_per_s=$(per_s "${gp_versions:-}")" \
	"gp_completed=${gp_completed:-na} gp_per_s=$(per_s "$gp_completed")" \
	"hotplug=${hotplug:-na} hotplug_max_ms=${hotplug_max:-na} barrier=${barrier:-na} stalls=${stalls:-na}" \
	"fwd_nr_versions_per_s=${fwd_nr:-na} kcsan_races_rcu=${kcsan_rcu:-na} kcsan_races_other=${kcsan_other:-na}" |
	tee "$out/summary.txt"
[ "$result" = SUCCESS ]
