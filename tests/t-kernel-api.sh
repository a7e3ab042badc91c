#!/bin/bash
# tier: guest
# shellcheck source-path=SCRIPTDIR/..
# The 6.1 RCU and SRCU API beyond the read side works on every kernel of
# the suite: tests/modules/rb_apitest (callbacks, rcu_barrier, expedited,
# multiple and polled grace periods, kvfree_rcu, the lockdep helpers,
# reader nesting, each grace-period primitive against rcu/sched/bh/irq and
# handoff (rcu_read_lock() to preempt_disable() and back) readers on
# another CPU, SRCU) is built against each built kernel and
# loaded in a 2-vCPU guest (preempt also booted with gp_stages=4, classic
# also with SRCU growing its tree under contention); every
# check must print "ok" and the module's last line must be "done $checks
# ok 0 failed".  The test skips (77) when no kernel is built and fails
# when only some are (tests/lib.sh require_built).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"
# shellcheck source=tests/lib.sh
. "$RB_TOP/tests/lib.sh"
test_tmp

# The number of checks rb_apitest.c runs: 14 single checks, 9 RCU
# grace-period primitives x 5 reader kinds (rcu, sched, bh, irq, handoff),
# 10 SRCU checks (3 of them grace periods against an SRCU reader).
checks=69

cat >"$tmp/job.sh" <<'JOB'
insmod /extra/rb_apitest.ko
echo $? >/results/insmod.rc
dmesg | grep 'rb_apitest: ' | sed 's/^\[[^]]*\] //' >/results/apitest.txt
rmmod rb_apitest
grep -c rb_apitest /proc/modules >/results/still-loaded || true
JOB

# check_kernel_api KERNEL [BOOT-ARGS]: boot KERNEL (with kernel command-line
# BOOT-ARGS) with rb_apitest; prints the module's lines, then "ok: ..." or
# "FAIL: ..." as its last line; returns 1 on failure.
check_kernel_api() {
	local kernel=$1 args=${2:-} k dir ko out res bad n done_line status state
	k=$kernel${args:+ ($args)}
	# kbuild's M= takes no spaces: the directory is named without them.
	dir=$tmp/$kernel${args:+-${args//[^A-Za-z0-9_.=]/_}}
	mkdir -p "$dir"
	ko=$(build_testmod "$kernel" "$dir/src" rb_apitest 2>&1) ||
		{ echo "FAIL: $k: $(echo "$ko" | tail -5 | tr '\n' ' ')"; return 1; }
	out=$dir/out
	"$RB_TOP/workloads/boot.sh" --quiet --kernel "$kernel" --vcpus 2 --job "$tmp/job.sh" \
		--file "$ko" --out "$out" ${args:+--append "$args"} 2>/dev/null || true
	status=$(cat "$out/status" 2>/dev/null || echo "no status")
	res=$out/results/apitest.txt
	[ -f "$res" ] || { echo "FAIL: $k: no results from the guest (boot: $status)"; return 1; }
	sed "s/^/  $k: /" "$res"
	if [ "$(cat "$out/results/insmod.rc")" != 0 ]; then
		echo "FAIL: $k: rb_apitest.ko did not load: $(grep -v ' ok' "$res" | head -3 | tr '\n' ' ')"
		return 1
	fi
	# A check line is "rb_apitest: <check> ok [(note)]" or "... FAIL: why".
	n=$(grep -cE '^rb_apitest: [a-z0-9_]+ (ok|FAIL)' "$res" || true)
	bad=$(grep -E '^rb_apitest: [a-z0-9_]+ FAIL' "$res" | sed 's/^rb_apitest: //') || true
	done_line=$(grep '^rb_apitest: done ' "$res" || true)
	if [ -n "$bad" ]; then
		echo "FAIL: $k: $(echo "$bad" | wc -l) checks failed: $(echo "$bad" | tr '\n' ';')"
		return 1
	fi
	if [ "$n" != "$checks" ] ||
		[ "$(grep -E '^rb_apitest: [a-z0-9_]+ (ok|FAIL)' "$res" | awk '{ print $2 }' | sort -u | wc -l)" != "$checks" ]; then
		echo "FAIL: $k: $n check lines, expected $checks distinct checks"
		return 1
	fi
	if [ "$done_line" != "rb_apitest: done $checks ok 0 failed" ]; then
		echo "FAIL: $k: last line '${done_line:-none}', expected 'rb_apitest: done $checks ok 0 failed'"
		return 1
	fi
	if [ "$status" != ok ]; then
		echo "FAIL: $k: all checks ok, but the boot failed: $status"
		return 1
	fi
	# Asked to grow at the first contended lock, SRCU must have left
	# SRCU_SIZE_SMALL (0) by the end of srcu_barrier's concurrent queueing.
	case "$args" in *srcutree.convert_to_big=16*)
		state=$(sed -n 's/^rb_apitest: srcu_barrier ok (.*srcu_size_state \([0-9]*\) of.*/\1/p' "$res")
		[ "${state:-0}" -gt 0 ] ||
			{ echo "FAIL: $k: SRCU did not start growing its tree (srcu_size_state ${state:-not printed})"; return 1; }
		;;
	esac
	[ "$(cat "$out/results/still-loaded")" = 0 ] ||
		{ echo "FAIL: $k: rb_apitest still loaded after unloading it in the guest"; return 1; }
	echo "ok: $k: $checks/$checks checks ok, boot and checks $(cat "$out/elapsed") s;" \
		"$(sed -n 's/^rb_apitest: start_poll ok (\(.*\))$/start_poll \1/p' "$res");" \
		"$(sed -n 's/^rb_apitest: unsigned long cookies needed a second grace period \([0-9]*\) times$/\1 second GPs for unsigned long cookies/p' "$res")"
}

# Every kernel as built; preempt also at four grace-period stages, where
# gp_stages + 1 polled cookies can be pending (NUM_ACTIVE_RCU_POLL_OLDSTATE);
# classic also with Tree SRCU growing its tree at the first contended lock,
# the transition that took an empty leaf's CPU -1 for a CPU (an oops in
# process_srcu()) while the seed RCUs sized SRCU's tree for NR_CPUS.
srcu_grow="srcutree.convert_to_big=16 srcutree.small_contention_lim=0"
runs=$(for k in $(test_kernels); do echo "$k"; done
	echo "preempt rcupreempt.gp_stages=4"
	echo "classic $srcu_grow")
# shellcheck disable=SC2046 # one word per kernel
require_built $(test_kernels)
built=0 failed=0 summary=()
while read -r k args; do
	built=$((built + 1))
	check_kernel_api "$k" "$args" >"$tmp/run$built.log" || failed=$((failed + 1))
	cat "$tmp/run$built.log"
	summary+=("$(tail -1 "$tmp/run$built.log")")
done <<<"$runs"
printf '%s\n' "${summary[@]}"
[ $failed -eq 0 ] || fail "$failed of $built kernels failed the RCU API checks"
