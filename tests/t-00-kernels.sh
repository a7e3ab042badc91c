#!/bin/bash
# tier: guest
# Every kernel of the list builds from the one patched tree, and a second
# build rebuilds nothing.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"

"$RB_TOP/workloads/build-kernels.sh"
again=$("$RB_TOP/workloads/build-kernels.sh" 2>&1)
echo "$again"
for k in $(conf_get KERNELS); do
	echo "$again" | grep -q "kernel $k up to date" || fail "second build rebuilt $k"
	[ -f "$(kernel_bzimage "$k")" ] || fail "no bzImage for $k"
done
echo "$again" | grep -q 'building kernel' && fail "second build started a build"
echo "all kernels built; second build rebuilt nothing"
