#!/bin/bash
# torture-all.sh: the rcutorture matrix (make torture).  Every kernel of
# suite.conf TORTURE_KERNELS runs every torture type of TORTURE_TYPES, one
# guest per (kernel, type) cell, with CPU hotplug; then each kernel runs
# the negative control TORTURE_NEGATIVE (busted), which must end in
# FAILURE.  Kernels that are not built yet (the debug variants among them)
# are built first.  Ends with a results table, one row per cell, and a
# kernel x type matrix, both also in <out>/summary.txt.
#
#   KERNELS, TYPES, DURATION (seconds of the rcu type), SHORT_DURATION
#   (seconds of the other types), VCPUS override suite.conf's TORTURE_*
#   defaults; NEGATIVE=0 skips the negative control; STRESS=0 skips the
#   stress row (workloads/torture-stress.sh) that follows the matrix.  PARALLEL=N runs the
#   rows of up to N kernels at once (each row's cells one after another):
#   rcutorture is bounded by time, not by work, so a host with fewer CPUs
#   than the guests' vCPUs gives each run fewer grace periods, which each
#   cell's summary reports, but the matrix takes 1/N of the time.
#
# Exits 0 when every cell passed and every negative control failed.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

kernels=${KERNELS:-$(conf_get TORTURE_KERNELS)}
types=${TYPES:-$(conf_get TORTURE_TYPES)}
duration=${DURATION:-$(conf_get TORTURE_DURATION)}
short=${SHORT_DURATION:-$(conf_get TORTURE_DURATION_SHORT)}
vcpus=${VCPUS:-$(conf_get TORTURE_VCPUS)}
onoff=$(conf_get TORTURE_ONOFF_MS)
negative=$(conf_get TORTURE_NEGATIVE)
neg_duration=$(conf_get TORTURE_NEGATIVE_DURATION)
parallel=${PARALLEL:-1}
[ "${NEGATIVE:-1}" != 0 ] || negative=
case "$parallel" in '' | *[!0-9]* | 0) die "PARALLEL must be a whole number > 0, got '$parallel'" ;; esac
for k in $kernels; do check_kernel "$k"; done
check_vcpus "$vcpus"
for d in "$duration" "$short"; do
	case "$d" in '' | *[!0-9]* | 0) die "DURATION and SHORT_DURATION must be whole seconds > 0, got '$d'" ;; esac
done
for t in $types; do
	case "$t" in *[!a-z0-9-]*) die "TYPES: not a torture type: '$t'" ;; esac
done

# cell_duration TYPE: seconds of a run of TYPE.
cell_duration() {
	if [ "$1" = rcu ]; then echo "$duration"; else echo "$short"; fi
}
# cell_args KERNEL TYPE: rcutorture parameters of the cell.
cell_args() {
	[ "$2" != "$negative" ] || return 0
	local args
	args=$(conf_get TORTURE_ARGS)
	[ "$2" != rcu ] || args="$args $(kernel_fact "$1" TORTURE_ARGS)"
	echo "$args"
}

# shellcheck disable=SC2086 # one argument per kernel
"$RB_TOP/workloads/build-kernels.sh" $kernels

out=$RB_TOP/reports/torture-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
row=0
for t in $types; do row=$((row + $(cell_duration "$t"))); done
[ -z "$negative" ] || row=$((row + neg_duration))
nkernels=$(wc -w <<<"$kernels")
[ "$parallel" -le "$nkernels" ] || parallel=$nkernels
rounds=$(((nkernels + parallel - 1) / parallel))
total=$((rounds * row))
note "torture: kernels $kernels; types $types (rcu ${duration}s, others ${short}s)${negative:+; negative control $negative ${neg_duration}s}; $vcpus vCPUs, hotplug every ${onoff}ms; $parallel at once -> $out"
note "torture: about $((total / 60)) min, ends after $(date -d "+$total sec" +%T)"

# run_row KERNEL: every cell of KERNEL, one after another.  A cell's
# verdict is read back from its summary.txt by the table.
run_row() {
	local k=$1 t d o
	for t in $types $negative; do
		d=$(cell_duration "$t")
		o=$onoff
		if [ "$t" = "$negative" ]; then d=$neg_duration o=0; fi
		note "torture: $k $t started $(date +%T), ends about $(date -d "+$d sec" +%T)"
		"$RB_TOP/workloads/torture.sh" --kernel "$k" --type "$t" --vcpus "$vcpus" --duration "$d" \
			--onoff "$o" --args "$(cell_args "$k" "$t")" --out "$out/$k/$t" --quiet >/dev/null || true
	done
}

failed=0
for k in $kernels; do
	while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
	run_row "$k" &
done
wait
"$RB_TOP/workloads/torture-table.sh" --out "$out" --kernels "$kernels" --types "$types" \
	--negative "$negative" | tee "$out/summary.txt" || failed=1
# The stress row (suite.conf TORTURE_STRESS_*): one scenario many times.
if [ "${STRESS:-1}" != 0 ]; then
	echo
	"$RB_TOP/workloads/torture-stress.sh" --out "$out/stress" |
		tail -1 | tee -a "$out/summary.txt"
	[ "${PIPESTATUS[0]}" -eq 0 ] || failed=1
fi
exit $failed
