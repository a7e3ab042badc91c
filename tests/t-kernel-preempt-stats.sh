#!/bin/bash
# tier: guest
# After a short rcutorture run, /sys/kernel/debug/rcu/rcupreempt_stats of the
# preempt kernel and of each of its boot variants (configs/<kernel>/facts
# BUILD = preempt: preempt-gp4, preempt-fast-advance, ...) shows completed
# grace periods, time spent in every stage of the state machine, and
# callbacks flowing; each variant's rcupreempt.* boot arguments reach the
# kernel (its /sys/module/rcupreempt/parameters), and GP_STAGES,
# fast_advance and idle_skip are what the banner and the statistics say.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp

build=preempt
require_built "$build"
variants=$(for k in $(scenarios); do [ "$(kernel_fact "$k" BUILD)" != "$build" ] || echo "$k"; done)
[ -n "$variants" ] || fail "no boot variant of $build in configs/ (BUILD = $build)"

# param_arg KERNEL NAME DEFAULT: the value KERNEL's boot arguments give
# rcupreempt.NAME, else DEFAULT.
param_arg() {
	local a v=$3
	for a in $(kernel_boot_args "$1"); do
		case "$a" in "rcupreempt.$2="*) v=${a#*=} ;; esac
	done
	echo "$v"
}
# bool01 VALUE: a bool parameter (Y/N, 1/0) as 1 or 0.
bool01() { case "$1" in Y | y | 1) echo 1 ;; *) echo 0 ;; esac; }

for k in $build $variants; do
	out=$tmp/$k
	"$RB_TOP/workloads/torture.sh" --kernel "$k" --vcpus 2 --duration 10 \
		--out "$out" --quiet || fail "$k: torture run failed: $(cat "$out/status")"
	stages=$(param_arg "$k" gp_stages 2)
	grep -q "Preemptible RCU implementation (flip counters, GP_STAGES=$stages)" "$out/console.log" ||
		fail "$k: banner does not say GP_STAGES=$stages"
	pf=$out/results/rcupreempt_params.txt
	[ -s "$pf" ] || fail "$k: no rcupreempt parameters from the guest"
	for a in $(kernel_boot_args "$k"); do
		case "$a" in rcupreempt.*=*) ;; *) continue ;; esac
		name=${a#rcupreempt.} want=${a#*=}
		name=${name%%=*}
		got=$(stat_of "$pf" "$name")
		[ "$got" = "$want" ] || [ "$(bool01 "$got")$(bool01 "$want")" = 11 ] ||
			fail "$k: boot argument $a, but the kernel has $name=$got"
	done
	st=$out/results/rcupreempt_stats.txt
	[ -s "$st" ] || fail "$k: no rcupreempt_stats from the guest"
	[ "$(stat_of "$st" gp_stages)" = "$stages" ] || fail "$k: stats say gp_stages $(stat_of "$st" gp_stages)"
	for v in fast_advance idle_skip; do
		want=$(bool01 "$(param_arg "$k" $v 0)")
		[ "$(stat_of "$st" $v)" = "$want" ] || fail "$k: stats say $v $(stat_of "$st" $v), boot arguments $want"
	done
	gps=$(stat_of "$st" gp_completed)
	[ "$gps" -gt 0 ] || fail "$k: gp_completed is 0"
	[ "$(stat_of "$st" stages_completed)" -ge $((gps * stages)) ] ||
		fail "$k: fewer stages than gp_completed * gp_stages"
	for s in idle waitack waitzero waitmb; do
		[ "$(stat_of "$st" "${s}_ns")" -gt 0 ] || fail "$k: no time in $s"
		[ "$(stat_of "$st" "${s}_entries")" -gt 0 ] || fail "$k: $s never entered"
	done
	queued=$(stat_of "$st" callbacks_queued)
	invoked=$(stat_of "$st" callbacks_invoked)
	[ "$invoked" -gt 0 ] && [ "$invoked" -le "$queued" ] ||
		fail "$k: callbacks invoked $invoked, queued $queued"
	echo "ok: $k ($(kernel_boot_args "$k")): gp_stages $stages, gp_completed $gps," \
		"waitzero $(stat_of "$st" waitzero_ns) ns, callbacks $invoked/$queued"
done
