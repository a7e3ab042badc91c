#!/bin/bash
# tier: host
# The rbcount plugin's cache-coherence model (workloads/tcg-plugin/
# coherence.h, issue 20) on synthetic access sequences with hand-computed
# answers (tests/coherence_test.c): first touches, hits, fills, read misses
# and invalidations step by step; a line handed back and forth k times
# costs k - 1 transfers; per-CPU lines none.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp
need_tool gcc
gcc -O2 -Wall -Wextra -Werror -I"$RB_TOP/workloads/tcg-plugin" -o "$tmp/coherence_test" \
	"$RB_TOP/tests/coherence_test.c" || fail "tests/coherence_test.c does not build"
"$tmp/coherence_test" || fail "the coherence model gave a wrong answer (above)"
