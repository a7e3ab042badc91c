#!/bin/bash
# tier: guest
# rbstat (issue 23): in a guest booted with the rbcount plugin, rbstat's
# user-space instruction count of a loop of known instructions
# (workloads/rbstat/rbloop.S) grows by exactly (iterations added) x (the
# loop's instructions in its disassembly); its perf-stat CSV form; the
# exit status of the command.  The window counts everything the guest ran
# (rbstat's fork and wait, page faults: the plugin counts a block from its
# start, so a block that faults counts again from the faulting
# instruction), and that part can vary with where a tick lands (CI saw
# +2 once): it only adds, so each size runs three times and the minimum
# is compared.  Without the plugin it says so in one line
# and still runs the command.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp
need_tool gcc objdump
kernel=$(test_kernels | cut -d' ' -f1)
require_built "$kernel"

gcc -nostdlib -static -o "$tmp/rbloop" "$RB_TOP/workloads/rbstat/rbloop.S" ||
	fail "rbloop does not build"
per_iter=$(objdump -d "$tmp/rbloop" | sed -n '/<rbloop_body>:/,/<rbloop_end>:/p' |
	grep -cE '^ +[0-9a-f]+:')
[ "$per_iter" -gt 0 ] || fail "no rbloop_body in rbloop's disassembly"
echo "rbloop: $per_iter instructions per iteration (disassembly)"

cat >"$tmp/job.sh" <<'JOB'
for i in 1 2 3; do
	rbstat -x, /extra/rbloop 1000 >/results/a.out 2>/results/a$i.csv
	rbstat -x, /extra/rbloop 3000 >/results/b.out 2>/results/b$i.csv
done
cp /results/a1.csv /results/a.csv
rbstat /extra/rbloop 10 2>/results/layout.txt
rbstat false 2>/dev/null
echo "false-rc=$?" >/results/rc.txt
JOB
boot() { # OUT [--plugin]
	"$RB_TOP/workloads/boot.sh" --kernel "$kernel" --vcpus 1 --job "$tmp/job.sh" \
		--file "$tmp/rbloop" --out "$1" --quiet "${@:2}" >"$1.log" 2>&1 ||
		{ cat "$1.log"; fail "boot $1 failed: $(cat "$1/status" 2>/dev/null)"; }
}
boot "$tmp/plugin" --plugin
r=$tmp/plugin/results
field() { # FILE EVENT: the value of EVENT in perf stat -x, output
	awk -F, -v e="$2" '$3 == e { print $1; found = 1 } END { exit !found }' "$1" ||
		fail "no $2 in $1: $(cat "$1")"
}
least() { # PREFIX: the least instructions:u of PREFIX1..3.csv
	local i v m=
	for i in 1 2 3; do
		v=$(field "$r/$1$i.csv" instructions:u)
		[ -z "$m" ] || [ "$v" -lt "$m" ] && m=$v
	done
	echo "$m"
}
a=$(least a)
b=$(least b)
[ $((b - a)) -eq $((2000 * per_iter)) ] ||
	fail "instructions:u grew by $((b - a)) from 1000 to 3000 iterations, want $((2000 * per_iter))"
echo "ok: instructions:u $a -> $b: +$((b - a)) = 2000 x $per_iter exactly"
echo "   (runs: $(for f in "$r"/[ab][123].csv; do field "$f" instructions:u; done | tr '\n' ' '))"
k=$(field "$r/a.csv" instructions:k)
[ "$k" -gt 0 ] || fail "no kernel instructions counted"
for e in instructions rb:locked rb:irqflag rb:calls rb:loads rb:stores; do field "$r/a.csv" "$e" >/dev/null; done
[ "$(field "$r/a.csv" instructions)" -eq $(($(field "$r/a.csv" instructions:u) + k)) ] || fail "instructions != :u + :k"
grep -q "Performance counter stats for '/extra/rbloop 10'" "$r/layout.txt" &&
	grep -qE '^ +[0-9,]+ +instructions:u$' "$r/layout.txt" &&
	grep -q 'seconds time elapsed' "$r/layout.txt" ||
	fail "perf stat layout missing: $(cat "$r/layout.txt")"
grep -qx 'false-rc=1' "$r/rc.txt" || fail "rbstat false: $(cat "$r/rc.txt")"
echo "ok: perf stat layout and CSV form; kernel part $k instructions; exit status kept"

boot "$tmp/plain"
r=$tmp/plain/results
[ "$(grep -c 'no rbcount plugin' "$r/a.csv")" -eq 1 ] && [ "$(wc -l <"$r/a.csv")" -eq 1 ] ||
	fail "without the plugin: $(cat "$r/a.csv")"
grep -qx 'false-rc=1' "$r/rc.txt" || fail "rbstat false without the plugin: $(cat "$r/rc.txt")"
echo "ok: without the plugin, one line and the command still runs"
