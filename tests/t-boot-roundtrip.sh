#!/bin/bash
# tier: guest
# A guest job loads and unloads a trivial module with a random parameter;
# the value and the unload message come back to the host as result files.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp classic
ko=$(build_testmod $kernel "$tmp/src")
answer=$((RANDOM + 1))
cat >"$tmp/job.sh" <<JOB
insmod /extra/rb_testmod.ko answer=$answer
cat /sys/module/rb_testmod/parameters/answer >/results/answer
rmmod rb_testmod
grep -c rb_testmod /proc/modules >/results/still-loaded || true
JOB
"$RB_TOP/workloads/boot.sh" --quiet --kernel $kernel --vcpus 2 --job "$tmp/job.sh" \
	--file "$ko" --out "$tmp/out" || fail "boot: $(cat "$tmp/out/status")"
[ "$(cat "$tmp/out/results/answer")" = "$answer" ] || fail "answer did not round-trip"
[ "$(cat "$tmp/out/results/still-loaded")" = 0 ] || fail "module still loaded after rmmod"
grep -q "rb_testmod: loaded, answer=$answer" "$tmp/out/results/dmesg.txt" || fail "no load message"
grep -q 'rb_testmod: unloaded' "$tmp/out/results/dmesg.txt" || fail "no unload message"
echo "ok: answer $answer round-tripped; module loaded and unloaded in the guest"
