#!/bin/bash
# parse-console.sh [--allow REGEX] CONSOLE: print the first sign of kernel
# trouble in a guest console log and exit 1, or print nothing and exit 0.
# The patterns follow rcutorture's parse-console.sh: stalls, BUG/WARNING,
# oopses, lockdep splats, and rcutorture's own failure lines.  KCSAN's
# data-race reports ("BUG: KCSAN: ...") are not trouble here: boot.sh
# hands them to kcsan-reports.py, which fails only those in RCU code.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

allow='^$'
if [ "${1:-}" = "--allow" ]; then
	allow=$2
	shift 2
fi
[ $# -eq 1 ] || die "usage: $0 [--allow REGEX] CONSOLE"
[ -r "$1" ] || die "no console log $1"

trouble='BUG:|WARNING:|Oops|Kernel panic|general protection fault'
trouble+='|detected stalls? on CPUs|self-detected stall|rcu_.*stall|RCU Stall'
trouble+='|possible recursive locking|possible circular locking|inconsistent lock state'
trouble+='|suspicious RCU usage|End of test: FAILURE|!!!'
hit=$(tr -d '\r' <"$1" | grep -E "$trouble" | grep -v 'BUG: KCSAN: ' | grep -Ev "$allow" | head -1) || true
if [ -n "$hit" ]; then
	echo "kernel-trouble: ${hit#\[*\] }"
	exit 1
fi
