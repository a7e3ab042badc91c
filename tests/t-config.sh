#!/bin/bash
# Config assertions on each built .config: the fragments' symbols hold, the
# RCU implementation and preemption model match the kernel's name.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"

sym() { grep -E "^$1=" "$2" | cut -d= -f2 || echo n; }

for k in $(conf_get KERNELS); do
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
	case $k in
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
