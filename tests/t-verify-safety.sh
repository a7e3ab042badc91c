#!/bin/bash
# tier: host
# SPIN: the faithful preemptible RCU model passes the exhaustive safety
# search for 2 CPUs, one reader, GP_STAGES=2 (the article's value), and
# the search really explored a state space (states stored, complete).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
command -v spin >/dev/null || { echo "spin not installed (make deps)"; exit 77; }

test_tmp
export VERIFY_OUT=$tmp VERIFY_TIMEOUT=150
cfg=safe-2cpu-gp2
"$RB_TOP/verify/run.sh" $cfg | tee "$tmp/table" || fail "$cfg: outcome differs from verify/configs"
row=$(awk -v n=$cfg '$1 == n' "$tmp/table")
read -r _ result _ states vec _ <<<"$row"
[ "$result" = PASS ] || fail "$cfg: $result"
awk -v s="$states" 'BEGIN { exit !(s + 0 > 100000) }' || fail "$cfg: only $states states"
[ "$vec" -gt 0 ] || fail "$cfg: no state vector size"
grep -q 'errors: 0' "$tmp/$cfg/pan.log" || fail "$cfg: pan did not report errors: 0"
echo "ok: $cfg passes, $states states, $vec-byte state vector"
