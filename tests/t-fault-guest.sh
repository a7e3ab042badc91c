#!/bin/bash
# tier: guest
# Fault injection: a guest that panics, one that hangs silently and one that
# goes quiet after an oops are detected within their budgets (the last as
# the oops), their console logs are kept, and the next
# guest still runs.  A job that fails and a kernel WARNING are caught too.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp classic
ko=$(build_testmod $kernel "$tmp/src")
job() {
	echo "insmod /extra/rb_testmod.ko $1" >"$tmp/job-$2.sh"
	echo "$tmp/job-$2.sh"
}
boot() {
	local name=$1
	shift
	if "$RB_TOP/workloads/boot.sh" --quiet --kernel $kernel --vcpus 1 --file "$ko" \
		--out "$tmp/$name" "$@"; then
		echo ok
	else
		cat "$tmp/$name/status"
	fi
}

start=$(date +%s)
st=$(boot panic --job "$(job fault=panic panic)" --timeout 120)
echo "panic guest: $st in $(($(date +%s) - start))s"
case "$st" in panic:*rb_testmod*) ;; *) fail "panic not detected: $st" ;; esac
grep -q 'rb_testmod: panic requested' "$tmp/panic/console.log" || fail "panic console log not kept"

start=$(date +%s)
st=$(boot hang --job "$(job fault=hang hang)" --timeout 120 --hang-timeout 15)
took=$(($(date +%s) - start))
echo "hang guest: $st in ${took}s"
case "$st" in hang:*) ;; *) fail "hang not detected: $st" ;; esac
[ "$took" -lt 60 ] || fail "hang took ${took}s to detect with a 15 s hang timeout"
grep -q 'fault=hang' "$tmp/hang/console.log" || fail "hang console log not kept"

# An oops in a worker that the loading task waits for: the kernel goes
# quiet, and the verdict names the oops, not only the hang.
st=$(boot oops --job "$(job fault=oops oops)" --timeout 120 --hang-timeout 15)
echo "oops guest: $st"
case "$st" in "oops: BUG: unable to handle page fault"*"(then hang: "*) ;;
*) fail "an oops followed by silence not reported as the oops: $st" ;; esac

st=$(boot budget --job "$(job 'answer=1; sleep 1000; echo' budget)" --timeout 20 --hang-timeout 300)
echo "over-budget guest: $st"
case "$st" in timeout:*) ;; *) fail "time budget not enforced: $st" ;; esac

st=$(boot badjob --job "$(job fault=bogus badjob)" --timeout 120)
echo "failing job: $st"
case "$st" in job-failed:*) ;; *) fail "failing job not reported: $st" ;; esac

echo 'echo "WARNING: CPU: 0 PID: 1 at fake/warn.c:1 (injected)" >/dev/kmsg' >"$tmp/job-warn.sh"
st=$(boot warn --job "$tmp/job-warn.sh" --timeout 120)
echo "kernel warning: $st"
case "$st" in kernel-trouble:*WARNING*) ;; *) fail "console WARNING not caught: $st" ;; esac

st=$(boot after --job "$(job answer=5 after)" --timeout 120)
echo "next guest: $st"
[ "$st" = ok ] || fail "guest after the faults did not run: $st"
