#!/bin/bash
# torture-table.sh: the results of a torture matrix (torture-all.sh), from
# the summary lines torture.sh left in DIR/<kernel>/<type>/summary.txt.
#
#   workloads/torture-table.sh --out DIR --kernels "K..." --types "T..." [--negative TYPE]
#
# Prints a table, one row per (kernel, type) cell, then a kernel x type
# matrix.  A cell of the types passes when its result is SUCCESS (with a
# clean console); the negative control TYPE (busted) must instead have
# failed, with rcutorture's FAILURE verdict.  A cell without a summary
# did not run and counts as a failure.  Exits 0 when every cell passed
# and every negative control failed, 1 otherwise.  kcsan:rcu/o: a KCSAN
# kernel's distinct data races in RCU code (which fail its cell) and
# elsewhere (listed in the cell's kcsan.txt); na/na on other kernels.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

out= kernels= types= negative=
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift ;;
	--kernels) kernels=$2; shift ;;
	--types) types=$2; shift ;;
	--negative) negative=$2; shift ;;
	*) die "usage: $0 --out DIR --kernels \"K...\" --types \"T...\" [--negative TYPE]" ;;
	esac
	shift
done
[ -d "$out" ] && [ -n "$kernels" ] || die "usage: $0 --out DIR --kernels \"K...\" --types \"T...\" [--negative TYPE]"

# verdict KERNEL TYPE: pass, FAIL, failed (the negative control failed, as
# it must), NOT-FAILED (it did not) or none (no result).
verdict() {
	local s=$out/$1/$2/summary.txt r
	[ -f "$s" ] || { echo none; return; }
	r=$(summary_field "$s" result)
	if [ -n "$negative" ] && [ "$2" = "$negative" ]; then
		case "$r" in FAILURE*) echo failed ;; *) echo NOT-FAILED ;; esac
	else
		case "$r" in SUCCESS) echo pass ;; *) echo FAIL ;; esac
	fi
}

bad=0
cols="%-22s %-14s %-6s %-8s %-24s %-12s %-8s %-12s %-8s %-14s %-13s %-12s %-7s %-11s %s\n"
# shellcheck disable=SC2059 # one format for the header and the rows
printf "$cols" kernel type vcpus seconds result gp_versions ver/s gp_completed gp/s hotplug hp_max_ms barrier stalls kcsan:rcu/o verdict
for k in $kernels; do
	for t in $types $negative; do
		s=$out/$k/$t/summary.txt
		v=$(verdict "$k" "$t")
		case $v in pass | failed) ;; *) bad=1 ;; esac
		if [ ! -f "$s" ]; then
			printf '%-22s %-14s %s\n' "$k" "$t" "no result (guest did not run)"
			continue
		fi
		# shellcheck disable=SC2059
		printf "$cols" "$k" "$t" "$(summary_field "$s" vcpus)" "$(summary_field "$s" duration)" "$(summary_field "$s" result)" \
			"$(summary_field "$s" gp_versions)" "$(summary_field "$s" versions_per_s)" "$(summary_field "$s" gp_completed)" \
			"$(summary_field "$s" gp_per_s)" "$(summary_field "$s" hotplug)" "$(summary_field "$s" hotplug_max_ms)" "$(summary_field "$s" barrier)" "$(summary_field "$s" stalls)" \
			"$(summary_field "$s" kcsan_races_rcu)/$(summary_field "$s" kcsan_races_other)" "$v"
	done
done
echo
printf '%-22s' matrix
for t in $types $negative; do printf ' %-13s' "$t"; done
echo
for k in $kernels; do
	printf '%-22s' "$k"
	for t in $types $negative; do printf ' %-13s' "$(verdict "$k" "$t")"; done
	echo
done
echo
if [ $bad -eq 0 ]; then
	echo "torture: every cell passed${negative:+, every $negative control failed as it must}"
else
	echo "torture: FAILED: a cell did not pass${negative:+ or a $negative control did not fail}"
fi
exit $bad
