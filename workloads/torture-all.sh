#!/bin/bash
# torture-all.sh: rcutorture on every kernel (make torture), with CPU
# hotplug, one guest per kernel, and a summary table at the end.
#   KERNELS, DURATION (s), VCPUS override suite.conf's TORTURE_* defaults.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

kernels=${KERNELS:-$(conf_get KERNELS)}
duration=${DURATION:-$(conf_get TORTURE_DURATION)}
vcpus=${VCPUS:-$(conf_get TORTURE_VCPUS)}
onoff=$(conf_get TORTURE_ONOFF_MS)
for k in $kernels; do check_kernel "$k"; done
check_vcpus "$vcpus"
case "$duration" in '' | *[!0-9]*) die "DURATION must be whole seconds, got '$duration'" ;; esac

out=$RB_TOP/reports/torture-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
note "torture: kernels $kernels, ${duration}s each, $vcpus vCPUs, hotplug every ${onoff}ms -> $out"
failed=0
for k in $kernels; do
	note "torture: $k started $(date +%T), ends about $(date -d "+$duration sec" +%T)"
	workloads/torture.sh --kernel "$k" --vcpus "$vcpus" --duration "$duration" \
		--onoff "$onoff" --args "$(conf_get TORTURE_ARGS) $(conf_get "TORTURE_ARGS_$k")" --out "$out/$k" --quiet || failed=1
done
# field NAME: NAME=value from kernel $k's summary line.
field() { tr ' ' '\n' <"$out/$k/summary.txt" | sed -n "s/^$1=//p"; }
{
	cols="%-14s %-6s %-8s %-18s %-12s %-8s %-12s %-8s %-14s %-12s %s\n"
	# shellcheck disable=SC2059 # one format for the header and the rows
	printf "$cols" kernel vcpus seconds result gp_versions ver/s gp_completed gp/s hotplug barrier stalls
	for k in $kernels; do
		if [ ! -f "$out/$k/summary.txt" ]; then
			printf '%-14s %s\n' "$k" "no result (guest did not run)"
			continue
		fi
		# shellcheck disable=SC2059
		printf "$cols" "$k" "$(field vcpus)" "$(field duration)" "$(field result)" \
			"$(field gp_versions)" "$(field versions_per_s)" "$(field gp_completed)" \
			"$(field gp_per_s)" "$(field hotplug)" "$(field barrier)" "$(field stalls)"
	done
} | tee "$out/summary.txt"
exit $failed
