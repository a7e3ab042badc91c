#!/bin/bash
# Under QEMU TCG the cost of a loop iteration depends on its exact
# instructions (a jle-ended loop measured twice a js-ended one), so our
# loop-inclusive read cost is comparable with refscale's only if our empty
# loop compiles to the instructions of refscale's ref_rcu_read_section()
# on a non-preemptible kernel.  Compares the two functions' instruction
# sequences (mnemonics, operand width aside) on each built Tree kernel.
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

kernel=tree
skip_unless_built "$kernel"
obj=$(kernel_obj $kernel)
make -s -C "$RB_TOP/bench-module" KDIR="$obj" OUT="$tmp/mod" >"$tmp/build.log" 2>&1 ||
	{ cat "$tmp/build.log"; fail "rcubench.ko does not build against $kernel"; }
ours=$(mnemonics "$tmp/mod/rcubench.ko" rb_empty_loop)
theirs=$(mnemonics "$obj/kernel/rcu/refscale.ko" ref_rcu_read_section)
[ -n "$theirs" ] || fail "no ref_rcu_read_section in $obj/kernel/rcu/refscale.ko"
[ -n "$ours" ] || fail "no rb_empty_loop in rcubench.ko"
[ "$ours" = "$theirs" ] || fail "rb_empty_loop is '$ours', refscale's loop is '$theirs'"
# On this non-preemptible kernel rcu_read_lock() is barrier(): the read loop is the empty loop.
read=$(mnemonics "$tmp/mod/rcubench.ko" rb_read_loop)
[ "$read" = "$ours" ] || fail "rb_read_loop on $kernel is '$read', not the empty loop '$ours'"
echo "ok: rb_empty_loop, rb_read_loop and refscale's loop on $kernel are all: $ours"
