#!/bin/bash
# tier: guest
# checkpatch --strict on every patch of the series and on the C sources of
# the repo (the bench module, the harness's test module): no errors.
# Warnings are listed in the log for review but do not fail the test.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"

checkpatch=$RB_CACHE/src/linux/scripts/checkpatch.pl
[ -x "$checkpatch" ] || fail "no $checkpatch: build the kernels first (make kernels)"
cd "$RB_CACHE/src/linux"
bad=0 n=0
check() {
	local out
	n=$((n + 1))
	# checkpatch exits non-zero on warnings too: judge by its ERROR lines.
	out=$("$checkpatch" --strict --no-summary --terse "$@" 2>&1) || true
	if ! echo "$out" | grep -q 'ERROR:'; then
		echo "ok: ${*: -1}"
		echo "$out" | grep 'WARNING:' | sed 's/^/  warning: /' || true
	else
		echo "$out" | grep -E '(ERROR|WARNING):' | head -10
		bad=1
	fi
}
for p in $(grep -v '^#' "$RB_TOP/patches/series"); do
	check "$RB_TOP/patches/$p"
done
while read -r f; do
	check --no-tree -f "$RB_TOP/$f"
done < <(git -C "$RB_TOP" ls-files '*.c' '*.h')
[ $n -gt 0 ] || fail "nothing was checked"
[ $bad -eq 0 ] || fail "checkpatch found problems"
