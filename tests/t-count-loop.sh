#!/bin/bash
# tier: guest
# The rbcount plugin counts exactly what the disassembly says: on the
# classic kernel (rcu_read_lock() is barrier()), one iteration of
# rcubench.ko's empty loop, read loop and read_mb loop (nest 1 and 2)
# executes the instructions objdump shows in the loop's body, class by
# class, whether interrupts are on (ticks land in the loop and are kept
# apart) or off.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp classic
need_tool objdump

count_boot "$kernel" 1 "count_read count_read_mb" "$tmp/boot"
ko=$(bench_module_path "$kernel")
rows=$tmp/boot/rows.csv
loops=$(sed -n 's/.*;loops=\([0-9]*\),.*/\1/p' "$rows" | head -1)
irqs=$(awk -F, '$1 == "region" && $5 == "region" { n += $6 } END { print n + 0 }' "$tmp/boot/results/counts.csv")
echo "interrupts inside counted regions: $irqs"

# expect TEST NEST IRQS FUNCTION PREFIX ADD: the plugin's per-iteration
# counts (PREFIX base_: the empty loop; "": the pair, plus the empty loop
# when ADD) equal FUNCTION's loop body in the disassembly.
expect() {
	local test=$1 nest=$2 irqs=$3 func=$4 prefix=$5 add=$6 kv c want got base
	local params="readers=1;nest=$nest;irqs=$irqs;loops=$loops"
	for kv in $(tests/objdump_loop.py "$ko" "$func" 2>&1 || fail "objdump_loop.py $func"); do
		c=${kv%%=*} want=${kv#*=}
		got=$(count_of "$rows" "$test" "$params" "$prefix$c")
		if [ "$add" = 1 ]; then
			base=$(count_of "$rows" "$test" "$params" "base_$c")
			got=$((got + base))
		fi
		[ "$got" = "$want" ] || fail "$test $params: $func $c per iteration: plugin $got, disassembly $want"
	done
	echo "ok: $test $params: $func per iteration as disassembled ($(tests/objdump_loop.py "$ko" "$func"))"
}

cd "$RB_TOP"
for irqs in on off; do
	expect count_read 1 $irqs rb_empty_loop base_ 0
	expect count_read 1 $irqs rb_read_loop "" 1
	expect count_read 2 $irqs rb_read_loop_nest2 "" 1
	expect count_read_mb 1 $irqs rb_read_mb_loop "" 1
	expect count_read_mb 2 $irqs rb_read_mb_loop_nest2 "" 1
done

