#!/bin/bash
# tier: host
# workloads/kcsan-reports.py on consoles in KCSAN's report format
# (kernel/kcsan/report.c of 6.1): a report whose access is in a file of the
# series under kernel/rcu/ (here rcupreempt.c, and rcutorture.c through a
# module frame) is an RCU race and fails (exit 1), one elsewhere is
# listed and does not (exit 0); repeats of one race count as reports of
# one race; the table lists RCU races first; a missing console is a clear
# error (exit 2).  parse-console.sh leaves KCSAN's titles to it but still
# reports other trouble.  Frames are resolved with a function map here
# (boot.sh uses addr2line on the kernel's vmlinux).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp
need_tool /usr/bin/python3

printf '%s\t%s\n' rcu_try_flip_idle kernel/rcu/rcupreempt.c __rcu_read_lock kernel/rcu/rcupreempt.c \
	rcu_torture_reader kernel/rcu/rcutorture.c tick_sched_do_timer kernel/time/tick-sched.c \
	tick_nohz_next_event kernel/time/tick-sched.c >"$tmp/funcmap"

# report TITLE OP1 FRAMES1 OP2 FRAMES2: one report as KCSAN prints it.
report() {
	echo "[   12.345678] =================================================================="
	echo "[   12.345679] BUG: KCSAN: data-race in $1"
	echo "[   12.345680] "
	echo "[   12.345681] $2 to 0xffffffff82a1c040 of 4 bytes by task 57 on cpu 1:"
	for f in $3; do echo "[   12.345682]  $f"; done
	echo "[   12.345683] "
	echo "[   12.345684] $4 to 0xffffffff82a1c040 of 4 bytes by interrupt on cpu 0:"
	for f in $5; do echo "[   12.345685]  $f"; done
	echo "[   12.345686] "
	echo "[   12.345687] value changed: 0x00000001 -> 0x00000002"
	echo "[   12.345688] "
	echo "[   12.345689] Reported by Kernel Concurrency Sanitizer on:"
	echo "[   12.345690] CPU: 0 PID: 0 Comm: swapper/0 Not tainted 6.1.0 #1"
	echo "[   12.345691] =================================================================="
}
rcu_race() {
	report "__rcu_read_lock / rcu_try_flip_idle" read "__rcu_read_lock+0x2e/0x90 rcu_torture_reader+0x1a0/0x3c0~[rcutorture] kthread+0x1c7/0x210" \
		"write (marked)" "rcu_try_flip_idle+0x51/0xd0 rcu_check_callbacks+0x40/0x90 update_process_times+0x7a/0xb0"
}
other_race() {
	report "tick_nohz_next_event / tick_sched_do_timer" read "tick_nohz_next_event+0x2b/0x1f0 do_idle+0x1a/0x120" \
		write "tick_sched_do_timer+0x9a/0xb0 tick_sched_timer+0x2c/0x90"
}
{
	echo "[    0.000000] Linux version 6.1.0"
	other_race
	rcu_race
	echo "[   20.000000] rcu-torture: rtc: 0 ver: 100"
	other_race
} | sed 's/~/ /' >"$tmp/both.log"
{ other_race; other_race; } | sed 's/~/ /' >"$tmp/other.log"

run() { # CONSOLE TSV: kcsan-reports.py's output; its exit status in $rc
	rc=0
	"$RB_TOP/workloads/kcsan-reports.py" "$1" --funcmap "$tmp/funcmap" --tsv "$2" >"$2.out" 2>&1 || rc=$?
}
run "$tmp/both.log" "$tmp/both.tsv"
[ $rc = 1 ] || fail "a race in rcupreempt.c: exit $rc, want 1: $(cat "$tmp/both.tsv.out")"
last=$(tail -1 "$tmp/both.tsv.out")
[ "$last" = "kcsan_reports=3 kcsan_rcu=1 kcsan_other=2 kcsan_races_rcu=1 kcsan_races_other=1" ] ||
	fail "counts: $last"
[ "$(sed -n 2p "$tmp/both.tsv" | cut -f1-4)" = "$(printf 'rcu\t1\tdata-race\t__rcu_read_lock / rcu_try_flip_idle')" ] ||
	fail "the RCU race is not the table's first row: $(cat "$tmp/both.tsv")"
[ "$(sed -n 3p "$tmp/both.tsv" | cut -f1,2)" = "$(printf 'other\t2')" ] ||
	fail "the other race, twice, is not the second row: $(cat "$tmp/both.tsv")"
grep -q 'read 4B in __rcu_read_lock (kernel/rcu/rcupreempt.c)' "$tmp/both.tsv" ||
	fail "the access is not named with its file: $(cat "$tmp/both.tsv")"
grep -q 'write (marked) 4B in rcu_try_flip_idle' "$tmp/both.tsv" || fail "a marked access's operation is lost"
echo "ok: an RCU race fails and leads the table; a repeated other race is one race of 2 reports"

run "$tmp/other.log" "$tmp/other.tsv"
[ $rc = 0 ] || fail "races outside RCU only: exit $rc, want 0: $(cat "$tmp/other.tsv.out")"
grep -qx 'kcsan_reports=2 kcsan_rcu=0 kcsan_other=2 kcsan_races_rcu=0 kcsan_races_other=1' "$tmp/other.tsv.out" ||
	fail "counts: $(cat "$tmp/other.tsv.out")"
echo "ok: races outside the RCU implementation are listed and pass"

# The module frame: the reader side of a race in rcutorture's own code.
report "rcu_torture_reader / rcu_torture_reader" read "rcu_torture_reader+0x10/0x3c0~[rcutorture]" \
	write "rcu_torture_reader+0x20/0x3c0~[rcutorture]" | sed 's/~/ /' >"$tmp/mod.log"
run "$tmp/mod.log" "$tmp/mod.tsv"
[ $rc = 1 ] || fail "a race in rcutorture.c (a module frame): exit $rc, want 1"
echo "ok: a module frame in rcutorture.c counts as the series' code"

run "$tmp/missing.log" "$tmp/missing.tsv"
[ $rc = 2 ] && grep -q "no console log" "$tmp/missing.tsv.out" || fail "a missing console: exit $rc, $(cat "$tmp/missing.tsv.out")"
mkdir -p "$tmp/nopatches"
rc=0
"$RB_TOP/workloads/kcsan-reports.py" "$tmp/both.log" --funcmap "$tmp/funcmap" --patches "$tmp/nopatches" \
	>"$tmp/np.out" 2>&1 || rc=$?
[ $rc = 2 ] && grep -q "no kernel/rcu files" "$tmp/np.out" || fail "no series files: exit $rc, $(cat "$tmp/np.out")"
echo "ok: bad input is a clear error (exit 2)"

[ -z "$("$RB_TOP/workloads/parse-console.sh" "$tmp/both.log")" ] ||
	fail "parse-console.sh calls a KCSAN report trouble: $("$RB_TOP/workloads/parse-console.sh" "$tmp/both.log" || true)"
echo "[   30.000000] WARNING: CPU: 1 PID: 5 at kernel/rcu/rcupreempt.c:100 foo+0x1/0x2" >>"$tmp/both.log"
v=$("$RB_TOP/workloads/parse-console.sh" "$tmp/both.log" || true)
case "$v" in kernel-trouble:*WARNING*) ;; *) fail "a WARNING after KCSAN reports is not trouble: $v" ;; esac
echo "ok: parse-console.sh leaves KCSAN reports to kcsan-reports.py and still sees a WARNING"
