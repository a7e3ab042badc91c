#!/bin/bash
# tier: guest
# Config assertions on each built .config: the fragments' symbols hold, the
# RCU implementation and preemption model match the kernel's name.  The
# debug variants (DEBUG_KERNELS) are checked too when they are built, as
# their base kernel plus lockdep and PROVE_RCU.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"

sym() { grep -E "^$1=" "$2" | cut -d= -f2 || echo n; }

debug_built=
for k in $(conf_get DEBUG_KERNELS); do
	[ ! -f "$(kernel_obj "$k")/.config" ] || debug_built="$debug_built $k"
done
for k in $(conf_get KERNELS) $debug_built; do
	cfg=$(kernel_obj "$k")/.config
	[ -f "$cfg" ] || fail "$k: no .config (build failed?)"
	"$RB_TOP/workloads/check-config.sh" "$k" "$cfg"
	[ "$(sym CONFIG_PREEMPT_DYNAMIC "$cfg")" = n ] || fail "$k: PREEMPT_DYNAMIC set"
	[ "$(sym CONFIG_HZ_PERIODIC "$cfg")" = y ] || fail "$k: not HZ_PERIODIC"
	case $k in
	*preempt*) want_preempt=y ;;
	*) want_preempt=n ;;
	esac
	[ "$(sym CONFIG_PREEMPT "$cfg")" = $want_preempt ] || fail "$k: CONFIG_PREEMPT != $want_preempt"
	if is_debug_kernel "$k"; then
		for s in PROVE_LOCKING PROVE_RCU DEBUG_ATOMIC_SLEEP DEBUG_OBJECTS_RCU_HEAD; do
			[ "$(sym CONFIG_$s "$cfg")" = y ] || fail "$k: CONFIG_$s is not set"
		done
	else
		[ "$(sym CONFIG_PROVE_LOCKING "$cfg")" = n ] || fail "$k: a bench kernel with lockdep"
	fi
	case $(kernel_base "$k") in
	classic | classic-preempt) impl=CLASSIC_RCU ;;
	preempt) impl=PREEMPT_RCU ;;
	tree | tree-preempt) impl=TREE_RCU ;;
	*) fail "$k: no RCU implementation expectation in this test" ;;
	esac
	for s in CLASSIC_RCU PREEMPT_RCU TREE_RCU TINY_RCU; do
		want=n
		[ $s != "$impl" ] || want=y
		got=$(sym CONFIG_$s "$cfg")
		[ "$got" = $want ] || fail "$k: CONFIG_$s=$got, expected $want"
	done
	echo "ok: $k: $impl, PREEMPT=$want_preempt, PREEMPT_DYNAMIC=n, HZ_PERIODIC"
done
