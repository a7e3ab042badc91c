#!/bin/bash
# tier: host
# The rbcount plugin's cache-coherence model (workloads/tcg-plugin/
# coherence.h, issue 20) on synthetic access sequences with hand-computed
# answers (tests/coherence_test.c): first touches, hits, fills, read misses
# and invalidations step by step; a line handed back and forth k times
# costs k - 1 transfers; per-CPU lines none; a new epoch starts it cold;
# and count_rows.py's count_share
# rows on hand-computed region counts.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp
need_tool gcc
gcc -O2 -Wall -Wextra -Werror -I"$RB_TOP/workloads/tcg-plugin" -o "$tmp/coherence_test" \
	"$RB_TOP/tests/coherence_test.c" || fail "tests/coherence_test.c does not build"
"$tmp/coherence_test" || fail "the coherence model gave a wrong answer (above)"

# count_rows.py's count_share rows from region rows with the coherence
# columns (hand-computed: 2 sides, loops 100; pingpong half 25+26
# transfers over 100 hand-offs, full 50+51 over 200: (101 - 51) / 100 =
# 0.5 per hand-off; percpu none), and a clear error without them.
/usr/bin/python3 - "$RB_TOP/workloads/tcg-plugin" <<'PY' || fail "count_rows.py misreads count_share's regions"
import sys
sys.path.insert(0, sys.argv[1])
import count_rows as counts
def rec(first, rm, inv):
    return {"first_touches": str(first), "read_misses": str(rm), "invalidations": str(inv),
            "transfers": str(rm + inv)}
runs = {}
for side, (h, f) in enumerate([((12, 13), (25, 25)), ((13, 13), (26, 25))]):
    runs[("count_share", f"pattern=pingpong;side={side};loops=100")] = {
        "half": (rec(1, *h), 50), "full": (rec(0, *f), 100)}
    runs[("count_share", f"pattern=percpu;side={side};loops=100")] = {
        "half": (rec(0, 0, 0), 50), "full": (rec(0, 0, 0), 100)}
got = {(r[1], r[2]): r[3] for r in counts.share_rows(runs)}
assert got[("pattern=pingpong;loops=100;run=half", "handoffs")] == "100", got
assert got[("pattern=pingpong;loops=100;run=half", "transfers")] == "51", got
assert got[("pattern=pingpong;loops=100;run=half", "first_touches")] == "2", got
assert got[("pattern=pingpong;loops=100;run=full", "transfers")] == "101", got
assert got[("pattern=pingpong;loops=100;run=full", "read_misses")] == "51", got
assert got[("pattern=pingpong;loops=100", "transfers_per_handoff")] == "0.500", got
assert got[("pattern=percpu;loops=100;run=full", "increments")] == "200", got
assert got[("pattern=percpu;loops=100;run=full", "transfers")] == "0", got
del runs[("count_share", "pattern=percpu;side=1;loops=100")]
try:
    counts.share_rows(runs)
    raise SystemExit("one side of percpu: no error")
except counts.CountError as e:
    assert "1 sides counted" in str(e), e
bare = {("count_share", "pattern=percpu;side=0;loops=100"): {"half": ({"insns": "1"}, 50),
                                                            "full": ({"insns": "2"}, 100)}}
try:
    counts.share_rows(bare)
    raise SystemExit("no coherence columns: no error")
except counts.CountError as e:
    assert "RB_PLUGIN_COH=on" in str(e), e
PY
echo "ok: count_rows.py sums count_share's two sides per run and derives transfers per hand-off"

# count_rows.py's count_migrate rows: per pair lock + unlock - 2 empty, the
# median over the pairs (hand-computed: 3 pairs of move=1 whose transfers
# are 9, 7 and 8 -> 8, insns 50 - 2*5 = 40 each; the unlock's own transfers
# 6, 5, 6 -> 6), and an error when a role's regions are missing.
/usr/bin/python3 - "$RB_TOP/workloads/tcg-plugin" <<'PY' || fail "count_rows.py misreads count_migrate's regions"
import sys
sys.path.insert(0, sys.argv[1])
import count_rows as counts
def reg(seq, rid, insns, tr):
    r = {c: "0" for c in counts.CLASSES}
    r.update(kind="region", seq=str(seq), vcpu="0", id=str(rid), bucket="region", irqs="0",
             insns=str(insns), first_touches="0", read_misses="0", invalidations=str(tr), transfers=str(tr))
    return r
regions, labels, seq = [], [], 0
for (lock_tr, unlock_tr) in [(3, 6), (2, 5), (2, 6)]:
    for rid, role, insns, tr in [(12, "empty", 5, 0), (10, "lock", 20, lock_tr), (11, "unlock", 30, unlock_tr)]:
        regions.append(reg(seq, rid, insns, tr))
        seq += 1
        labels.append({"id": str(rid), "test": "count_migrate", "params": "move=1", "role": role, "iterations": "1"})
got = {(r[1], r[2]): r[3] for r in counts.migrate_rows(regions, labels)}
assert got[("move=1", "pairs")] == "3", got
assert got[("move=1", "insns")] == "40", got
assert got[("move=1", "transfers")] == "8", got
assert got[("move=1", "invalidations")] == "8", got
assert got[("move=1", "unlock_transfers")] == "6", got
try:
    counts.migrate_rows(regions[:-1], labels)
    raise SystemExit("a missing unlock region: no error")
except counts.CountError as e:
    assert "count_migrate" in str(e), e
PY
echo "ok: count_rows.py: count_migrate per pair is lock + unlock - 2 empty, the median over the pairs"
