#!/bin/bash
# tier: guest
# RCU CPU stall warnings on the seed kernels (SEED = yes in their facts), at
# the default timeout: rcutorture's stall_cpu= spins with preemption
# disabled inside a reader on one CPU for longer than
# rcupdate.rcu_cpu_stall_timeout (21 s), and the kernel must print its
# stall warning (Classic RCU: the CPUs not yet through a quiescent state
# in the batch; preemptible RCU: the stuck grace-period stage with its
# per-CPU flags and counters) once, 21 to 36 s into the stall, then
# recover: rcutorture still ends with SUCCESS.  The timeout counts from
# the start of the grace period (Classic: the batch) that the stalled CPU
# holds up, which begins only when another CPU queues a callback; with the
# writer stuck behind the stalled CPU, some runs queued none for the whole
# stall and, rightly, warned of nothing.  n_barrier_cbs= keeps callbacks
# coming from every CPU, so a grace period is always waiting (warnings
# then came 21.1 s into the stall); the window still allows a late start.
# The stall lines are allowed on the console; any other trouble still
# fails the run.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp

stall=${RB_STALL_SECS:-40}
timeout=21
allow='rcu_torture_stall|detected stalls on CPUs|self-detected stall on CPU'

# secs LINE: the printk time stamp of a console line, in seconds.
secs() { sed -n 's/^\[ *\([0-9]*\.[0-9]*\)\].*/\1/p' <<<"$1"; }

seeds=$(for k in $(test_kernels); do [ "$(kernel_fact "$k" SEED)" != yes ] || echo "$k"; done)
# shellcheck disable=SC2086 # one word per kernel
require_built $seeds
for k in $seeds; do
	out=$tmp/$k
	"$RB_TOP/workloads/torture.sh" --kernel "$k" --vcpus 2 --duration $((stall + 6)) \
		--args "stall_cpu=$stall stall_cpu_holdoff=2 stall_no_softlockup=1 fwd_progress=0 n_barrier_cbs=4" \
		--append printk.time=1 --allow "$allow" --out "$out" --quiet >/dev/null ||
		fail "$k: the stall run failed: $(cat "$out/summary.txt" 2>/dev/null || cat "$out/status")"
	con=$(tr -d '\r' <"$out/console.log")
	start=$(grep -m1 'rcu_torture_stall start on CPU' <<<"$con") || fail "$k: the stall never started"
	cpu=$(sed -n 's/.*rcu_torture_stall start on CPU \([0-9]*\)\..*/\1/p' <<<"$start")
	case $(kernel_fact "$k" FAMILY) in
	rcupreempt) impl=rcu_preempt ;;
	classic) impl=rcu_classic ;;
	*) fail "$k: no stall-warning expectation for RCU family '$(kernel_fact "$k" FAMILY)'" ;;
	esac
	warn=$(grep -m1 -E "INFO: $impl (self-detected stall on CPU|detected stalls on CPUs)" <<<"$con") ||
		fail "$k: no $impl stall warning during a ${stall}s stall"
	n=$(grep -cE "INFO: $impl (self-detected stall|detected stalls)" <<<"$con")
	[ "$n" -eq 1 ] || fail "$k: $n stall warnings for one ${stall}s stall, expected 1"
	after=$(awk -v a="$(secs "$start")" -v b="$(secs "$warn")" 'BEGIN { printf "%.1f", b - a }')
	awk -v d="$after" -v t=$timeout 'BEGIN { exit !(d >= t - 0.5 && d <= t + 15) }' ||
		fail "$k: the stall warning came ${after}s into the stall, expected ${timeout}-$((timeout + 15))s"
	# What the warning says, per implementation.
	case $impl in
	rcu_classic)
		# The stalled CPU, with its flags: either it has seen the batch
		# (qs_pending 1, passed_quiesc 0) or not yet (quiescbatch behind).
		grep -qE "^\[[ 0-9.]*\] rcu: 	$cpu: quiescbatch -?[0-9]+ qs_pending [01] passed_quiesc [01] " <<<"$con" ||
			fail "$k: the warning does not show the stalled CPU $cpu's quiescent-state flags"
		;;
	rcu_preempt)
		grep -q 'rcu: 	stage of flip [0-9]* stuck in ' <<<"$con" ||
			fail "$k: the warning does not name the stuck stage"
		grep -q 'rcupreempt: cpu 1 flipctr' <<<"$con" ||
			fail "$k: the warning does not dump the per-CPU counters and flags"
		;;
	esac
	echo "ok: $k: $(sed 's/^\[[^]]*\] //' <<<"$warn") ${after}s into the stall; $(cat "$out/summary.txt")"
done
