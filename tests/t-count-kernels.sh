#!/bin/bash
# tier: guest
# Instruction counts of the read side with the rbcount plugin, on every
# built kernel of the suite (2 vCPUs, interrupts on and off), by the
# READ_SIDE of its facts (configs/<kernel>/facts):
#  - two boots give identical count_read and count_read_mb rows (counts
#    are exact: ticks landing in a loop are kept out of its figure);
#  - none (classic, tree: rcu_read_lock() is barrier()): a read section
#    adds no instruction, and read_mb adds exactly the locked instructions
#    of the disassembly;
#  - irqflags (preempt): an outermost pair executes the pushf, cli and sti
#    that the disassembly of __rcu_read_lock() and of __rcu_read_unlock()
#    (its path up to its first call, the unlikely preempted-reader case;
#    the calls of the held-count path, rcu_read_hold() and
#    rcu_read_release_held(), which touch no interrupt flag, do not end it)
#    shows, no sti with interrupts off, and no fence or locked instruction;
#  - counter (classic-preempt, tree-preempt: a preemption or nesting
#    count): no fence or locked instruction per pair, read_mb adds the
#    disassembly's locked ones;
#  - COUNT_REFSCALE = yes (tree-preempt): our pair plus our empty loop's
#    iteration is exactly what one iteration of refscale's own loop
#    executes (counted per call of ref_rcu_read_section(), whose
#    instructions t-bench-loopcode checks are our read loop's).  (Its
#    __rcu_read_unlock() inlines the special case, irq disabling included,
#    after the fast path's branch to ret: the irqflags derivation "up to
#    the first call" does not apply.)
#  - count_gp (first boot): each synchronize_rcu() moved the kernel's own
#    grace-period counter (rcu_get_gp_seq()) at least once, and the RCU
#    core executed instructions in the window, some of them in interrupt
#    episodes with interrupts off (the plugin's irqwork: mean and largest
#    per episode, episodes per grace period);
#  - count_gp at 1 vCPU, on one seed kernel of each family: the interrupt episodes with
#    RCU work per back-to-back grace period are the ticks the design
#    predicts for one (analysis/gpdesign.py: Classic 3, flip counters
#    4(G+1) = 12), within half a tick: each tick runs the RCU core, and
#    nothing else does with interrupts off.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp
need_tool objdump
VCPUS=2

# irqflag_ops KERNEL CLASS: CLASS (pushf, cli, sti, popf) instructions in
# __rcu_read_lock plus __rcu_read_unlock up to its first call (other than
# the held-count path's).
irqflag_ops() {
	local obj map f lo hi total=0 n
	obj=$(kernel_obj "$1")
	map=$obj/System.map
	for f in __rcu_read_lock __rcu_read_unlock; do
		lo=$(awk -v f="$f" '$3 == f { print $1; exit }' "$map")
		[ -n "$lo" ] || fail "$1: no $f in System.map"
		hi=$(sort "$map" | awk -v lo="$lo" '$1 > lo && $2 ~ /^[tT]$/ { print $1; exit }')
		n=$(objdump -d --no-show-raw-insn --start-address=0x$lo --stop-address=0x$hi "$obj/vmlinux" |
			awk -v c="$2" '/^ *[0-9a-f]+:/ { sub(/^[^:]*:[ \t]*/, ""); split($0, w, /[ \t]+/)
				if (w[1] ~ /^call/ && $0 !~ /<rcu_read_(hold|release_held)>/) stop = 1; if (!stop && (w[1] == c || w[1] == c "q")) n++ }
				END { print n + 0 }')
		total=$((total + n))
	done
	echo "$total"
}

# check_zero_read ROWS: READ_SIDE = none expectations on kernel $k's rows.
check_zero_read() {
	local rows=$1 p
	for p in $(awk -F, '$1 == "count_read" { print $2 }' "$rows" | sort -u); do
		[ "$(count_of "$rows" count_read "$p" insns)" = 0 ] ||
			fail "$k: count_read $p adds $(count_of "$rows" count_read "$p" insns) instructions, expected 0"
		[ $(($(count_of "$rows" count_read_mb "$p" locked) - $(count_of "$rows" count_read "$p" locked))) = "$(mb_locked "$k")" ] ||
			fail "$k: read_mb adds $(count_of "$rows" count_read_mb "$p" locked) locked over read, disassembly $(mb_locked "$k")"
	done
	echo "ok: $k: a read section adds 0 instructions, read_mb exactly $(mb_locked "$k") locked ones"
}

# check_no_barrier_read ROWS: READ_SIDE = counter: no fence or locked
# instruction per pair, the disassembly's locked ones more with read_mb.
check_no_barrier_read() {
	local rows=$1 p c
	for p in $(awk -F, '$1 == "count_read" { print $2 }' "$rows" | sort -u); do
		for c in fences locked; do
			[ "$(count_of "$rows" count_read "$p" $c)" = 0 ] || fail "$k: count_read $p: $c per pair"
		done
		[ "$(count_of "$rows" count_read_mb "$p" locked)" = "$(mb_locked "$k")" ] ||
			fail "$k: read_mb $p: $(count_of "$rows" count_read_mb "$p" locked) locked per pair, disassembly $(mb_locked "$k")"
		echo "ok: $k: count_read $p: $(grep "^count_read,$p,\(insns\|pushf\|cli\|sti\),"  "$rows" |
			cut -d, -f3,4 | tr '\n' ' ')no fence or locked; read_mb $(mb_locked "$k") locked"
	done
}

# check_refscale ROWS: refscale's loop per iteration = our pair + our
# empty loop per iteration, class by class (loads and stores too).
check_refscale() {
	local rows=$1 p r c ours theirs
	p=$(cut -d, -f2 "$rows" | sort -u | grep '^readers=1;nest=1;irqs=on;')
	r=$(awk -F, '$1 == "count_refscale" { print $2; exit }' "$rows")
	[ -n "$r" ] || fail "$k: no count_refscale rows"
	for c in insns locked fences cli sti pushf popf percpu calls rets loads stores; do
		ours=$(($(count_of "$rows" count_read "$p" $c) + $(count_of "$rows" count_read "$p" base_$c)))
		theirs=$(count_of "$rows" count_refscale "$r" $c)
		[ "$ours" = "$theirs" ] || fail "$k: $c per iteration: our loop $ours, refscale's $theirs"
	done
	echo "ok: $k: refscale's loop executes per iteration what ours does ($(count_of "$rows" count_refscale "$r" insns) instructions)"
}

# check_preempt_read ROWS: READ_SIDE = irqflags expectations on kernel $k's rows.
check_preempt_read() {
	local rows=$1 nest irqs p c want got
	for nest in 1 2; do
		for irqs in on off; do
			p=$(cut -d, -f2 "$rows" | sort -u | grep "^readers=1;nest=$nest;irqs=$irqs;")
			for c in pushf cli sti popf; do
				want=$(irqflag_ops "$k" $c)
				[ $irqs = on ] || [ $c != sti ] || want=0
				got=$(count_of "$rows" count_read "$p" $c)
				[ "$got" = "$want" ] || fail "$k: count_read $p: $c $got per pair, disassembly $want"
			done
			for c in fences locked; do
				got=$(count_of "$rows" count_read "$p" $c)
				[ "$got" = 0 ] || fail "$k: count_read $p: $got $c per pair"
			done
			echo "ok: $k: count_read $p: $(grep "^count_read,$p,\(insns\|pushf\|cli\|sti\|popf\)," "$rows" |
				cut -d, -f3,4 | tr '\n' ' ')"
		done
	done
}

# mb_locked KERNEL: locked instructions the smp_mb()s add to rcubench.ko's
# read loop, from the disassembly of its read_mb and read loops.
mb_locked() {
	local ko mb rd
	ko=$(bench_module_path "$1")
	mb=$("$RB_TOP/tests/objdump_loop.py" "$ko" rb_read_mb_loop | sed -n 's/.*locked=\([0-9]*\).*/\1/p')
	rd=$("$RB_TOP/tests/objdump_loop.py" "$ko" rb_read_loop | sed -n 's/.*locked=\([0-9]*\).*/\1/p')
	[ -n "$mb" ] && [ -n "$rd" ] || fail "$1: no read loops in $ko"
	echo $((mb - rd))
}

# check_count_gp ROWS: the grace-period side counted something real, and
# the kernel's own count per synchronize_rcu() is a handful (Classic and
# Tree 1, the flip-counter design its stages), not a counter that wrapped.
check_count_gp() {
	local rows=$1 p kgps insns
	for p in $(awk -F, '$1 == "count_gp" { print $2 }' "$rows" | sort -u); do
		kgps=$(count_of "$rows" count_gp "$p" kernel_gps_per_sync)
		insns=$(count_of "$rows" count_gp "$p" core_insns)
		awk -v g="$kgps" -v i="$insns" 'BEGIN { exit !(g >= 1 && g <= 16 && i > 0) }' ||
			fail "$k: count_gp $p: $kgps kernel grace periods per synchronize_rcu(), $insns core instructions"
		eps=$(count_of "$rows" count_gp "$p" irqoff_episodes_per_gp)
		mean=$(count_of "$rows" count_gp "$p" irqoff_core_insns_mean)
		max=$(count_of "$rows" count_gp "$p" irqoff_core_insns_max)
		awk -v e="$eps" -v m="$mean" -v x="$max" 'BEGIN { exit !(e > 0 && m > 0 && x >= m) }' ||
			fail "$k: count_gp $p: interrupts-off work: $eps episodes per GP, mean $mean, max $max"
		echo "ok: $k: count_gp $p: $kgps kernel grace periods per synchronize_rcu(), $insns core instructions per GP per CPU;" \
			"interrupts off: $eps episodes per GP, $mean instructions each, at most $max"
	done
	[ -n "${p:-}" ] || fail "$k: no count_gp rows"
}

kernels=$(test_kernels)
# shellcheck disable=SC2086 # one word per kernel
require_built $kernels
declare -A uni_done=()
for k in $kernels; do
	extra=
	[ "$(kernel_fact "$k" COUNT_REFSCALE)" != yes ] || extra=count_refscale
	count_boot "$k" $VCPUS "count_read count_read_mb $extra count_gp" "$tmp/$k-1"
	count_boot "$k" $VCPUS "count_read count_read_mb $extra" "$tmp/$k-2"
	for i in 1 2; do
		grep -v '^count_gp,' "$tmp/$k-$i/rows.csv" >"$tmp/$k-$i/exact.csv" || true
	done
	cmp -s "$tmp/$k-1/exact.csv" "$tmp/$k-2/exact.csv" ||
		fail "$k: two boots counted differently: $(diff "$tmp/$k-1/exact.csv" "$tmp/$k-2/exact.csv" | head -4)"
	echo "ok: $k: two boots give identical counts ($(wc -l <"$tmp/$k-1/exact.csv") rows)"
	check_count_gp "$tmp/$k-1/rows.csv"
	case "$(kernel_fact "$k" READ_SIDE)" in
	none) check_zero_read "$tmp/$k-1/rows.csv" ;;
	irqflags) check_preempt_read "$tmp/$k-1/rows.csv" ;;
	counter) check_no_barrier_read "$tmp/$k-1/rows.csv" ;;
	*) fail "$k: READ_SIDE '$(kernel_fact "$k" READ_SIDE)' in configs/$k/facts is none of none, irqflags, counter" ;;
	esac
	[ -z "$extra" ] || check_refscale "$tmp/$k-1/rows.csv"
	# One kernel of each seed family (the prediction is the family's).
	family=$(kernel_fact "$k" FAMILY)
	[ "$(kernel_fact "$k" SEED)" = yes ] && [ -z "${uni_done[$family]:-}" ] || continue
	uni_done[$family]=$k
	count_boot "$k" 1 count_gp "$tmp/$k-uni"
	predicted=$(/usr/bin/python3 -c 'import sys; sys.path[:0] = [sys.argv[1] + "/analysis", sys.argv[1] + "/scripts"]
import gpdesign, scenario
p = gpdesign.prediction(scenario.family(sys.argv[2]), "back_to_back", 2)
print(p.median if p else "")' "$RB_TOP" "$k")
	[ -n "$predicted" ] || fail "$k: no back-to-back prediction for its family"
	for p in $(awk -F, '$1 == "count_gp" { print $2 }' "$tmp/$k-uni/rows.csv" | sort -u); do
		eps=$(count_of "$tmp/$k-uni/rows.csv" count_gp "$p" irqoff_episodes_per_gp)
		awk -v e="$eps" -v t="$predicted" 'BEGIN { exit !(e >= t - 0.5 && e <= t + 0.5) }' ||
			fail "$k: count_gp $p at 1 vCPU: $eps interrupt episodes with RCU work per grace period, the design predicts $predicted ticks"
		echo "ok: $k: count_gp $p at 1 vCPU: $eps interrupt episodes with RCU work per grace period, the design's $predicted ticks"
	done
done
