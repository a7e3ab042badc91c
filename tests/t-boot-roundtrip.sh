#!/bin/bash
# A guest job loads and unloads a trivial module with a random parameter;
# the value and the unload message come back to the host as result files.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp

kernel=tree
obj=$(kernel_obj $kernel)
cp -r "$RB_TOP/tests/modules/rb_hello" "$tmp/src"
make -s -C "$obj" M="$tmp/src" modules >"$tmp/build.log" 2>&1 ||
	{ cat "$tmp/build.log"; fail "rb_hello.ko does not build against $kernel"; }
answer=$((RANDOM + 1))
cat >"$tmp/job.sh" <<JOB
insmod /extra/rb_hello.ko answer=$answer
cat /sys/module/rb_hello/parameters/answer >/results/answer
rmmod rb_hello
grep -c rb_hello /proc/modules >/results/still-loaded || true
JOB
"$RB_TOP/workloads/boot.sh" --quiet --kernel $kernel --vcpus 2 --job "$tmp/job.sh" \
	--file "$tmp/src/rb_hello.ko" --out "$tmp/out" || fail "boot: $(cat "$tmp/out/status")"
[ "$(cat "$tmp/out/results/answer")" = "$answer" ] || fail "answer did not round-trip"
[ "$(cat "$tmp/out/results/still-loaded")" = 0 ] || fail "module still loaded after rmmod"
grep -q "rb_hello: loaded, answer=$answer" "$tmp/out/results/dmesg.txt" || fail "no load message"
grep -q 'rb_hello: unloaded' "$tmp/out/results/dmesg.txt" || fail "no unload message"
echo "ok: answer $answer round-tripped; module loaded and unloaded in the guest"
