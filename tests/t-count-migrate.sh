#!/bin/bash
# tier: guest
# count_migrate (rcubench): a read pair whose reader moves to another CPU
# between rcu_read_lock() and rcu_read_unlock(), beside one that stays,
# counted with the coherence model at 2 vCPUs.  preempt (preemptible
# readers): the staying pair moves no cache line and counts what it counts
# again in every pair; the moved pair exists, costs more instructions (its
# unlock follows a preemption) and moves lines.  classic (readers disable
# preemption: a reader cannot move) has staying pairs only.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp preempt
require_built classic

RB_PLUGIN_COH=on RB_TCG_THREAD=single count_boot preempt 2 count_migrate "$tmp/preempt"
rows=$tmp/preempt/rows.csv
for m in 0 1; do
	[ "$(count_of "$rows" count_migrate "move=$m" pairs)" = 8 ] || fail "preempt move=$m: not 8 pairs"
done
[ "$(count_of "$rows" count_migrate move=0 transfers)" = 0 ] ||
	fail "preempt: a reader staying on its CPU moved $(count_of "$rows" count_migrate move=0 transfers) lines per pair"
stay=$(count_of "$rows" count_migrate move=0 insns)
moved=$(count_of "$rows" count_migrate move=1 insns)
tr=$(count_of "$rows" count_migrate move=1 transfers)
awk -v s="$stay" -v m="$moved" 'BEGIN { exit !(s > 0 && m > s) }' ||
	fail "preempt: a moved pair counts $moved instructions, a staying one $stay"
awk -v t="$tr" 'BEGIN { exit !(t > 0) }' || fail "preempt: a moved pair moved no line"
echo "ok: preempt, 2 vCPUs: staying pair $stay instructions, 0 transfers; moved pair $moved instructions," \
	"$(count_of "$rows" count_migrate move=1 locked) locked, $tr transfers" \
	"(the unlock's own $(count_of "$rows" count_migrate move=1 unlock_transfers))"

RB_PLUGIN_COH=on RB_TCG_THREAD=single count_boot classic 2 count_migrate "$tmp/classic"
rows=$tmp/classic/rows.csv
[ "$(count_of "$rows" count_migrate move=0 pairs)" = 8 ] || fail "classic: not 8 staying pairs"
! grep -q '^count_migrate,move=1,' "$rows" || fail "classic: a reader that disables preemption was moved"
grep -q 'count_migrate: 8 read pairs on CPU [0-9]*, none moving (readers are not preemptible)' \
	"$tmp/classic/console.log" || fail "classic: the module did not say why no reader moved"
echo "ok: classic, 2 vCPUs: $(count_of "$rows" count_migrate move=0 insns) instructions per staying pair, no moved pair"
