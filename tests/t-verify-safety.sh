#!/bin/bash
# tier: host
# SPIN: the faithful preemptible RCU model passes the exhaustive safety
# search for 2 CPUs, one reader, GP_STAGES=2 (the article's value), and
# so does the model with RCU-sched folded in and readers handing their
# protection off to a preempt-disabled region and back (the held-count
# fix; a restricted configuration, about 30 s); each search really
# explored a state space (states stored, complete).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
command -v spin >/dev/null || { echo "spin not installed (make deps)"; exit 77; }

test_tmp
# The timeout catches a search that runs away, not a slow host: each search
# takes 30-60 s on an idle host, 109-151 s beside two 4-vCPU guests
# (2026-12-07), when 150 s cut the first one short.
export VERIFY_OUT=$tmp VERIFY_TIMEOUT=400
cfgs=(safe-2cpu-gp2 handoff-2cpu-gp2)
"$RB_TOP/verify/run.sh" "${cfgs[@]}" | tee "$tmp/table" || fail "an outcome differs from verify/configs"
for cfg in "${cfgs[@]}"; do
	row=$(awk -v n="$cfg" '$1 == n' "$tmp/table")
	read -r _ result _ states vec _ <<<"$row"
	[ "$result" = PASS ] || fail "$cfg: $result"
	awk -v s="$states" 'BEGIN { exit !(s + 0 > 100000) }' || fail "$cfg: only $states states"
	[ "$vec" -gt 0 ] || fail "$cfg: no state vector size"
	grep -q 'errors: 0' "$tmp/$cfg/pan.log" || fail "$cfg: pan did not report errors: 0"
	echo "ok: $cfg passes, $states states, $vec-byte state vector"
done
