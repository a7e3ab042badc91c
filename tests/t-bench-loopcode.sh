#!/bin/bash
# tier: guest
# Under QEMU TCG the cost of a loop iteration depends on its exact
# instructions (a jle-ended loop measured twice a js-ended one), so our
# loop-inclusive read cost is comparable with refscale's only if our loops
# compile to the instructions of refscale's ref_rcu_read_section().
# Compares the functions' instruction sequences (mnemonics, operand width
# aside) on each test kernel with an inline read side.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp
need_tool objdump

# mnemonics KO FUNCTION: the instruction mnemonics of FUNCTION in KO, one
# line (awk reads to the end: an early exit would be a SIGPIPE under pipefail).
mnemonics() {
	objdump -d --no-show-raw-insn "$1" |
		awk -v f="<$2>:" '$2 == f { on = 1; next } on && NF == 0 { on = 0 }
			on { sub(/^[^:]*:[ \t]*/, ""); split($0, w, /[ \t]+/); printf "%s ", w[1] }'
}

# build KERNEL: rcubench.ko against KERNEL in $tmp/KERNEL; its path.
build() {
	make -s -C "$RB_TOP/bench-module" KDIR="$(kernel_obj "$1")" OUT="$tmp/$1" >"$tmp/$1.log" 2>&1 ||
		{ cat "$tmp/$1.log"; fail "rcubench.ko does not build against $1"; }
	echo "$tmp/$1/rcubench.ko"
}

# same KERNEL OURS: our function OURS has the instructions of refscale's loop.
same() {
	local ours theirs
	theirs=$(mnemonics "$(kernel_obj "$1")/kernel/rcu/refscale.ko" ref_rcu_read_section)
	ours=$(mnemonics "$tmp/$1/rcubench.ko" "$2")
	[ -n "$theirs" ] || fail "$1: no ref_rcu_read_section in refscale.ko"
	[ -n "$ours" ] || fail "$1: no $2 in rcubench.ko"
	[ "$ours" = "$theirs" ] || fail "$1: $2 is '$ours', refscale's loop is '$theirs'"
	echo "ok: $1: $2 has the instructions of refscale's loop: $ours"
}

# Where rcu_read_lock() is barrier() (READ_SIDE = none in the kernel's
# facts: classic, tree) the empty loop and the read loop are refscale's
# loop; where it is a counter (classic-preempt: preempt_disable(), always
# inlined since patch 0003; tree-preempt: Tree's out-of-line counter) the
# read loop is.  Not compared: preempt (its irqflags read side is out of
# line in both).
checked=0
kernels=$(test_kernels)
require_built $kernels
for k in $kernels; do
	case $(kernel_fact "$k" READ_SIDE)/$(kernel_fact "$k" FAMILY) in
	none/*) build "$k" >/dev/null; same "$k" rb_empty_loop; same "$k" rb_read_loop ;;
	counter/*) build "$k" >/dev/null; same "$k" rb_read_loop ;;
	*) echo "not compared: $k"; continue ;;
	esac
	checked=$((checked + 1))
done
[ $checked -gt 0 ] || fail "no kernel of '$kernels' has a read side to compare"
