#!/bin/bash
# tier: guest
# The rbcount plugin's cache-coherence model (coh=on, boot.sh
# RB_PLUGIN_COH=on; issue 20) in count boots of the preempt kernel:
#  - 1 vCPU: every window's transfers (read misses, invalidations) are
#    exactly 0: MSI moves a line between caches only when another cache
#    holds it, and one vCPU is one cache; yet the model saw the guest's
#    accesses, sized itself from the guest's RAM (GUEST_MEM_MB), learnt
#    the vCPU's per-CPU base, and found the kernel image at phys_base 0
#    (a kernel without CONFIG_RELOCATABLE runs where it was linked);
#  - coh=on changes no count: its count_read rows equal a coh=off boot's
#    (count_read is exact: t-count-kernels), less the transfers per pair
#    that only it has (0 at 1 vCPU);
#  - 2 vCPUs: both count_gp windows (the flip-counter grace-period machine
#    hands rcu_ctrlblk and each CPU's rcu_flip_flag/rcu_mb_flag between
#    the CPUs every stage) show transfers > 0, each row's transfers are
#    its read misses + invalidations, the hottest lines come in order, no
#    line more than its window, the hottest names a symbol, RCU's own state
#    is among the five, and a per-CPU variable is named percpu:<symbol>;
#    count_rows.py turns them into count_gp rows;
#  - 2 vCPUs, a known sharing pattern (rcubench count_share, each CPU's
#    accesses a region of its own): two CPUs handing one line back and
#    forth k times cost at least k transfers and at most 2k + 2 (each
#    hand-off is the writer's invalidation and the receiver's read miss;
#    each side's first read may miss once more on the line as it was
#    left); each CPU incrementing its own per-CPU counter, after a
#    warm-up, costs 0 transfers.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp preempt

# window_sums COUNTS: "seq first read_misses invalidations transfers rows"
# per window, over its func and addr rows (all of the window's code).
window_sums() {
	awk -F, '/^# rbcount 1: windows/ { getline; for (i = 1; i <= NF; i++) col[$i] = i; next }
		($1 == "func" || $1 == "addr") && ("transfers" in col) {
			s = $2; seen[s] = 1; n[s]++
			f[s] += $col["first_touches"]; r[s] += $col["read_misses"]
			v[s] += $col["invalidations"]; t[s] += $col["transfers"]
			if ($col["transfers"] != $col["read_misses"] + $col["invalidations"]) bad[s]++ }
		END { for (s in seen) print s, f[s], r[s], v[s], t[s], n[s], bad[s] + 0 }' "$1" | sort -n
}

# end_field COUNTS REGEX: what the end line's coherence account says (sed -E group 1).
end_field() {
	tail -1 "$1" | sed -nE "s/.*$2.*/\\1/p"
}

mem=$(conf_get GUEST_MEM_MB)
relocatable=$(grep -c '^CONFIG_RELOCATABLE=y' "$(kernel_obj "$kernel")/.config" || true)

# ---- 1 vCPU ----
RB_PLUGIN_COH=on count_boot "$kernel" 1 "count_read count_gp" "$tmp/one"
counts=$tmp/one/results/counts.csv
sums=$(window_sums "$counts")
[ -n "$sums" ] || fail "1 vCPU: no window rows with coherence columns in counts.csv"
while read -r seq first rm inv tr n bad; do
	[ "$tr" = 0 ] && [ "$rm" = 0 ] && [ "$inv" = 0 ] ||
		fail "1 vCPU: window $seq: $tr transfers ($rm read misses, $inv invalidations), expected 0"
	echo "ok: 1 vCPU: window $seq: 0 transfers over $n rows ($first first touches)"
done <<<"$sums"
[ "$(awk -F, '$1 == "count_gp" && $3 == "transfers"' "$tmp/one/rows.csv" | wc -l)" = 2 ] ||
	fail "1 vCPU: count_rows.py gave no transfers row per count_gp window"
awk -F, '$1 == "count_gp" && $3 == "transfers" && $4 != 0 { exit 1 }' "$tmp/one/rows.csv" ||
	fail "1 vCPU: count_rows.py's transfers rows are not 0"
[ "$(end_field "$counts" 'coherence: RAM ([0-9]+) MiB')" = "$mem" ] ||
	fail "1 vCPU: the model covers $(end_field "$counts" 'coherence: RAM ([0-9]+) MiB') MiB, the guest has $mem"
acc=$(end_field "$counts" ', accesses ([0-9]+),')
[ "${acc:-0}" -gt 0 ] || fail "1 vCPU: the model saw no access: $(tail -1 "$counts")"
[ "$(end_field "$counts" 'per-CPU bases ([0-9]+ of [0-9]+)')" = "1 of 1" ] ||
	fail "1 vCPU: the vCPU's per-CPU base was not learnt: $(tail -1 "$counts")"
if [ "$relocatable" = 0 ]; then
	[ "$(end_field "$counts" 'phys_base ([0-9a-f]+ \([0-9]+) image accesses')" = "0 (0" ] ||
		fail "1 vCPU: kernel image data not at phys_base 0: $(tail -1 "$counts")"
fi
echo "ok: 1 vCPU: $acc line accesses modelled, $mem MiB, phys_base $(end_field "$counts" 'phys_base ([0-9a-f]+|unknown)')"

# ---- coh=on changes no count ----
count_boot "$kernel" 1 "count_read" "$tmp/off"
grep '^count_read,' "$tmp/one/rows.csv" | grep -v ',transfers,' >"$tmp/on.csv" || true
grep '^count_read,' "$tmp/off/rows.csv" >"$tmp/off.csv" || true
[ -s "$tmp/on.csv" ] || fail "no count_read rows from the coh=on boot"
cmp -s "$tmp/on.csv" "$tmp/off.csv" ||
	fail "coh=on changed count_read: $(diff "$tmp/off.csv" "$tmp/on.csv" | head -4)"
echo "ok: coh=on and coh=off give identical count_read rows ($(wc -l <"$tmp/on.csv") rows)"
[ "$(grep -c '^count_read,.*,transfers,0,' "$tmp/one/rows.csv")" = 4 ] ||
	fail "1 vCPU: count_read's 4 configurations have no transfers row of 0: $(grep '^count_read,.*,transfers,' "$tmp/one/rows.csv")"
echo "ok: 1 vCPU: count_read: 0 transfers per pair in each of its 4 configurations"

# ---- 2 vCPUs ----
RB_PLUGIN_COH=on count_boot "$kernel" 2 "count_gp count_share" "$tmp/two"
counts=$tmp/two/results/counts.csv
sums=$(window_sums "$counts")
[ "$(echo "$sums" | wc -l)" = 2 ] || fail "2 vCPUs: expected the 2 count_gp windows, got: $sums"
[ "$(end_field "$counts" 'per-CPU bases ([0-9]+ of [0-9]+)')" = "2 of 2" ] ||
	fail "2 vCPUs: not every per-CPU base was learnt: $(tail -1 "$counts")"
percpu=0
while read -r seq first rm inv tr n bad; do
	[ "$bad" = 0 ] || fail "2 vCPUs: window $seq: $bad rows whose transfers are not read misses + invalidations"
	[ "$tr" -gt 0 ] || fail "2 vCPUs: window $seq: no transfer"
	lines=$(awk -F, -v s="$seq" '$1 == "line" && $2 == s' "$counts")
	[ -n "$lines" ] || fail "2 vCPUs: window $seq: no hot lines"
	echo "$lines" | awk -F, -v tot="$tr" 'NR > 1 && $9 > prev { exit 1 } $9 > tot { exit 1 } { prev = $9 }' ||
		fail "2 vCPUs: window $seq: hot lines out of order or above the window's $tr transfers: $lines"
	top=$(echo "$lines" | awk -F, '$4 == 1 { print $7 }')
	[ -n "$top" ] || fail "2 vCPUs: window $seq: the hottest line names no symbol: $lines"
	echo "$lines" | cut -d, -f7 | grep -Eq '^(percpu:)?rcu_' ||
		fail "2 vCPUs: window $seq: no RCU state among the hottest lines: $(echo "$lines" | cut -d, -f7,9 | tr '\n' ' ')"
	! echo "$lines" | cut -d, -f7 | grep -q '^percpu:.' || percpu=1
	echo "ok: 2 vCPUs: window $seq: $tr transfers ($rm read misses, $inv invalidations); hottest: $(echo "$lines" | cut -d, -f7,9 | tr '\n' ' ')"
done <<<"$sums"
[ $percpu = 1 ] || fail "2 vCPUs: no hot line named as a per-CPU variable"
rows=$tmp/two/rows.csv
for p in $(awk -F, '$1 == "count_gp" && $3 == "core_insns" { print $2 }' "$rows"); do
	awk -F, -v p="$p" '$1 == "count_gp" && $2 == p && $3 == "transfers" && $4 > 0 { ok = 1 } END { exit !ok }' "$rows" ||
		fail "2 vCPUs: count_gp $p: no transfers row > 0"
	[ "$(grep -c "^count_gp,$p;rank=[1-5];line=[^,]*,line_transfers," "$rows")" -ge 1 ] ||
		fail "2 vCPUs: count_gp $p: no line_transfers rows"
	echo "ok: 2 vCPUs: count_gp $p: $(count_of "$rows" count_gp "$p" transfers) transfers per GP per CPU," \
		"hottest $(grep "^count_gp,$p;rank=1;" "$rows" | cut -d, -f2 | sed 's/.*line=//')"
done

# ---- 2 vCPUs: a known sharing pattern (count_share) ----
loops=$(sed -n 's/^count_share,pattern=pingpong;loops=\([0-9]*\);run=full,handoffs,.*/\1/p' "$rows")
[ -n "$loops" ] || fail "count_share: no pingpong rows in $rows"
for run in half full; do
	p="pattern=pingpong;loops=$loops;run=$run"
	k=$(count_of "$rows" count_share "$p" handoffs)
	t=$(count_of "$rows" count_share "$p" transfers)
	[ "$k" -gt 0 ] || fail "count_share $p: no hand-off"
	[ "$t" -ge "$k" ] && [ "$t" -le $((2 * k + 2)) ] ||
		fail "count_share $p: $t transfers for $k hand-offs, outside [k, 2k + 2] = [$k, $((2 * k + 2))]"
	echo "ok: count_share $p: $k hand-offs, $t transfers ($(count_of "$rows" count_share "$p" read_misses) read misses," \
		"$(count_of "$rows" count_share "$p" invalidations) invalidations), within [k, 2k + 2]"
	p=${p/pingpong/percpu}
	n=$(count_of "$rows" count_share "$p" increments)
	[ "$n" -gt 0 ] || fail "count_share $p: no increment"
	[ "$(count_of "$rows" count_share "$p" transfers)" = 0 ] ||
		fail "count_share $p: $(count_of "$rows" count_share "$p" transfers) transfers for per-CPU increments, expected 0"
	echo "ok: count_share $p: $n per-CPU increments, 0 transfers ($(count_of "$rows" count_share "$p" first_touches) first touches)"
done
