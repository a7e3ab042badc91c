#!/bin/bash
# tier: guest
# make shell (issue 23): bad arguments get a clear error before anything
# boots; then a scripted session on a pseudo-terminal: boot, a command and
# its output, the kernel's RCU banner, perf stat with software events,
# poweroff, and QEMU gone within 60 s, the console log kept.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp
kernel=$(test_kernels | cut -d' ' -f1)
require_built "$kernel"

# refused ARGS... -- REGEX: make shell ARGS fails with REGEX in its output.
refused() {
	local args=() out
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	out=$(cd "$RB_TOP" && make -s shell "${args[@]}" </dev/null 2>&1) &&
		fail "make shell ${args[*]} succeeded"
	grep -qE "$2" <<<"$out" || fail "make shell ${args[*]}: no '$2' in: $out"
	echo "ok: make shell ${args[*]} -> $(grep -m1 -E "$2" <<<"$out")"
}
refused KERNEL=nosuch -- "unknown kernel 'nosuch'"
refused KERNEL="$kernel" VCPUS=0 -- "VCPUS must be between 1 and"
refused KERNEL="$kernel" VCPUS=999 -- "VCPUS must be between 1 and"
refused KERNEL="$kernel" VCPUS=1 -- "needs a terminal"

banner=$(kernel_fact "$kernel" BANNER)
start=$(date +%s)
"$RB_TOP/tests/pty_session.py" --timeout 180 --exit-within 60 \
	'expect:RB-SHELL-READY' 'expect:rcu-bench:/# ' \
	'send:echo rb-$((6*7))\n' 'expect:rb-42' \
	'send:dmesg | grep -m1 "RCU implementation"\n' "expect:$banner" \
	'send:perf stat -e task-clock,context-switches ls /modules\n' 'expect:context-switches' \
	'send:poweroff\n' -- "$RB_TOP/workloads/shell.sh" --kernel "$kernel" --vcpus 1 ||
	fail "the scripted shell session failed (transcript above)"
out=$RB_CACHE/shell/$kernel-1
[ "$(cat "$out/status")" = ok ] || fail "status: $(cat "$out/status")"
grep -q 'rb-42' "$out/console.log" || fail "console log $out/console.log lacks the session"
echo "ok: $kernel: boot, command, banner, perf stat, poweroff in $(($(date +%s) - start)) s; console log kept"
