#!/bin/bash
# tier: long
# The lockdep kernel: preempt-debug (preempt + configs/debug.config) builds
# (the long tier's debug variant, see README), its .config has the
# checkers, a second build rebuilds nothing, and it survives a short
# rcutorture with CPU hotplug and the preemption torture with no lockdep,
# might_sleep or debug-objects splat (torture.sh fails a run on any console
# trouble).  rcupdate.rcu_self_test=1 queues call_rcu(), kfree_rcu() and
# call_srcu() callbacks before rcu_init() and checks at late_initcall that
# they were invoked.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp

kernel=preempt-debug
duration=${RB_DEBUG_TORTURE_SECS:-60}
kernel_fragments "$kernel" | grep -qx "$RB_TOP/configs/debug.config" ||
	fail "$kernel does not merge configs/debug.config"

"$RB_TOP/workloads/build-kernels.sh" "$kernel"
again=$("$RB_TOP/workloads/build-kernels.sh" "$kernel" 2>&1)
echo "$again" | grep -q "kernel $kernel up to date" || fail "second build rebuilt $kernel: $again"

cfg=$(kernel_obj "$kernel")/.config
"$RB_TOP/workloads/check-config.sh" "$kernel" "$cfg"
for s in PREEMPT_RCU PROVE_LOCKING PROVE_RCU DEBUG_LOCK_ALLOC PROVE_RAW_LOCK_NESTING \
	DEBUG_ATOMIC_SLEEP DEBUG_OBJECTS_RCU_HEAD RCU_STALL_COMMON TASKS_RCU; do
	grep -q "^CONFIG_$s=y" "$cfg" || fail "$kernel: CONFIG_$s is not set"
done
# The default kernel list must not have grown.
case " $(conf_get KERNELS) " in *"-debug "*) fail "a debug variant is in KERNELS" ;; esac

out=$tmp/torture
"$RB_TOP/workloads/torture.sh" --kernel "$kernel" --vcpus 2 --duration "$duration" \
	--onoff 3000 --args "$(conf_get TORTURE_ARGS) $(kernel_fact "$kernel" TORTURE_ARGS)" \
	--append "rcupdate.rcu_self_test=1" --out "$out" --quiet ||
	fail "torture run failed: $(cat "$out/summary.txt" 2>/dev/null || cat "$out/status")"
con=$out/console.log
grep -q 'Preemptible RCU implementation' "$con" || fail "not the preemptible RCU kernel"
grep -q 'Lock dependency validator' "$con" || fail "lockdep is not running"
! grep -q 'turning off the locking correctness validator' "$con" || fail "lockdep turned itself off"
# The early self tests: call_rcu(), call_srcu() queued before rcu_init().
grep -q 'Running RCU self tests' "$con" || fail "the RCU self tests did not run"
grep -q 'RCU test callback executed 2' "$con" || fail "the early callbacks were not all invoked"
onoff=$(grep -o 'onoff: [0-9]*/[0-9]*:[0-9]*/[0-9]*' "$out/results/torture.log" | tail -1)
offlines=$(echo "$onoff" | sed 's/onoff: \([0-9]*\)\/.*/\1/')
[ "${offlines:-0}" -gt 0 ] || fail "no CPU went offline during the run ($onoff)"
echo "ok: $(cat "$out/summary.txt"); $onoff"
