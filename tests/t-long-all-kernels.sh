#!/bin/bash
# tier: long
# timeout: 9000
# The guest tier again, on every kernel of suite.conf KERNELS rather than
# the seed kernels of TEST_KERNELS that make test checks: the stock Tree
# RCU kernels get the same build, banner, config, count, API, busted and
# bench checks.  Warm, about 30 minutes; cold, two more kernel builds
# (about 8 minutes each).  Its tests' logs go to long-all-kernels/ beside
# this test's log.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"

logs=${TEST_LOGS:-$RB_CACHE/test-logs}/long-all-kernels
TEST_KERNELS=$(conf_get KERNELS) TEST_LOGS=$logs "$RB_TOP/tests/run.sh" --tier guest |
	tee "$logs.out" || true
tail -1 "$logs.out" | grep -qE '^[0-9]+ passed, 0 failed, 0 skipped$' ||
	fail "the guest tier on all of KERNELS did not pass with nothing skipped (logs in $logs)"
