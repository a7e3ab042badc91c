#!/bin/bash
# torture-stress.sh: one rcutorture scenario rerun many times, failing on
# any run that fails (an rcutorture FAILURE, a preemption stall, a boot or
# console problem, on one vCPU a forward-progress phase in which the
# rcutorture writer advanced slower than TORTURE_STRESS_MIN_FWD_VERSIONS_PER_S).  The scenario is suite.conf's TORTURE_STRESS_*: issue
# 25's preempt_torture run with boosting after 1 ms and CPU hotplug every
# second, whose rare preemption stall a single 30-minute matrix row does
# not show.  Each run's summary gives its longest CPU-online and -offline
# operation, so that a slow-hotplug regression shows too.
#
#   workloads/torture-stress.sh [--out DIR]      run, then summarise
#   workloads/torture-stress.sh --summarize DIR  summarise an earlier DIR again
#
# STRESS_KERNEL, STRESS_VCPUS (a list), STRESS_RUNS (per vCPU count) and
# STRESS_DURATION (s per run)
# override the TORTURE_STRESS_* defaults.  Writes DIR/summary.txt: one line
# per run, then "stress: N runs, F failed; longest online A ms, offline B ms".
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

out= summarize=0
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift ;;
	--summarize) summarize=1 out=$2; shift ;;
	*) die "usage: $0 [--out DIR] | --summarize DIR" ;;
	esac
	shift
done

kernel=${STRESS_KERNEL:-$(conf_get TORTURE_STRESS_KERNEL)}
vcpus_list=${STRESS_VCPUS:-$(conf_get TORTURE_STRESS_VCPUS)}
runs=${STRESS_RUNS:-$(conf_get TORTURE_STRESS_RUNS)}
duration=${STRESS_DURATION:-$(conf_get TORTURE_STRESS_DURATION)}
onoff=$(conf_get TORTURE_STRESS_ONOFF_MS)
args=$(conf_get TORTURE_STRESS_ARGS)
boot_args=$(conf_get TORTURE_STRESS_BOOT_ARGS)
min_fwd=$(conf_get TORTURE_STRESS_MIN_FWD_VERSIONS_PER_S)
for n in "$runs" "$duration"; do
	case "$n" in '' | *[!0-9]* | 0) die "STRESS_RUNS and STRESS_DURATION must be whole numbers > 0, got '$n'" ;; esac
done

# fwd_ok VCPUS RATE: on one vCPU, the run's slowest forward-progress phase
# kept the writer going (suite.conf TORTURE_STRESS_MIN_FWD_VERSIONS_PER_S);
# a run without one ("na": too short for fwd_progress_holdoff) passes.  With
# more vCPUs and hotplug the unbound spinners double up on the CPU left
# online and starve the writer whatever the booster does, so the rate says
# nothing about it there.
fwd_ok() {
	[ "$1" != 1 ] || [ "${2:-na}" = na ] || awk -v r="$2" -v m="$min_fwd" 'BEGIN { exit !(r >= m) }'
}

# summary: one line per run found under $out, then the totals; exit 1 if
# any run failed or none was found.
summary() {
	local s n=0 bad=0 on=0 off=0 hp
	for s in "$out"/vcpus-*/run-*/summary.txt; do
		[ -f "$s" ] || continue
		n=$((n + 1))
		echo "${s#"$out"/}: $(cat "$s")"
		[ "$(summary_field "$s" result)" = SUCCESS ] && [ "$(summary_field "$s" stalls)" = 0 ] &&
			fwd_ok "$(summary_field "$s" vcpus)" "$(summary_field "$s" fwd_nr_versions_per_s)" ||
			bad=$((bad + 1))
		hp=$(summary_field "$s" hotplug_max_ms)
		case "$hp" in
		*,*) [ "${hp%,*}" -le "$on" ] || on=${hp%,*}
			[ "${hp#*,}" -le "$off" ] || off=${hp#*,} ;;
		esac
	done
	# A run that left no summary (killed host side) counts as failed.
	for s in "$out"/vcpus-*/run-*; do
		[ -d "$s" ] && [ ! -f "$s/summary.txt" ] && { echo "${s#"$out"/}: no summary"; bad=$((bad + 1)); n=$((n + 1)); }
	done
	echo "stress: $n runs, $bad failed; longest online $on ms, offline $off ms"
	[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
}

if [ $summarize = 1 ]; then
	[ -d "$out" ] || die "--summarize: no directory $out"
	summary | tee "$out/summary.txt"
	exit "${PIPESTATUS[0]}"
fi

check_kernel "$kernel"
for v in $vcpus_list; do check_vcpus "$v"; done
out=${out:-$RB_TOP/reports/torture-stress-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
"$RB_TOP/workloads/build-kernels.sh" "$kernel"
total=$(($(wc -w <<<"$vcpus_list") * runs * (duration + 20)))
note "stress: $kernel, vCPUs $vcpus_list, $runs runs of ${duration}s each ($args; $boot_args; hotplug every ${onoff}ms) -> $out"
note "stress: about $((total / 60)) min, ends after $(date -d "+$total sec" +%T)"
for v in $vcpus_list; do
	for i in $(seq 1 "$runs"); do
		d=$out/vcpus-$v/run-$i
		"$RB_TOP/workloads/torture.sh" --kernel "$kernel" --vcpus "$v" --duration "$duration" \
			--onoff "$onoff" --args "$args" --append "$boot_args" --out "$d" --quiet >/dev/null || true
		note "stress: vCPUs $v run $i/$runs: $(cat "$d/summary.txt" 2>/dev/null || echo 'no summary')"
	done
done
summary | tee "$out/summary.txt"
exit "${PIPESTATUS[0]}"
