# Guest job: run rcutorture for TORTURE_DURATION seconds, then rmmod it so
# it prints its end-of-test verdict (it does so only at rmmod or shutdown).
# The host (workloads/torture.sh) prepends the settings below; defaults here.
: "${TORTURE_TYPE:=rcu}"
: "${TORTURE_DURATION:=60}"
: "${TORTURE_ONOFF_INTERVAL:=0}"
: "${TORTURE_ARGS:=}"

onoff=
if [ "$TORTURE_ONOFF_INTERVAL" != 0 ]; then
	onoff="onoff_interval=$TORTURE_ONOFF_INTERVAL onoff_holdoff=5"
fi
insmod /modules/torture.ko || exit 1
# shellcheck disable=SC2086 # the argument lists are meant to split
insmod /modules/rcutorture.ko torture_type="$TORTURE_TYPE" stat_interval=15 \
	$onoff $TORTURE_ARGS || exit 1
echo "torture: $TORTURE_TYPE for ${TORTURE_DURATION}s ($onoff $TORTURE_ARGS)"
sleep "$TORTURE_DURATION"
rmmod rcutorture
rmmod torture
dmesg | grep -E 'rcu-torture|torture' >/results/torture.log
grep -m1 'End of test' /results/torture.log >/results/verdict.txt || echo "no end-of-test line" >/results/verdict.txt
cat /results/verdict.txt
for f in /sys/kernel/debug/rcu/*_stats; do
	[ -f "$f" ] && cp "$f" "/results/${f##*/}.txt"
done
# The preemptible kernel's parameters as it runs (what a boot variant's
# arguments set, configs/<kernel>/boot): "name value" lines.
if [ -d /sys/module/rcupreempt/parameters ]; then
	for f in /sys/module/rcupreempt/parameters/*; do
		echo "${f##*/} $(cat "$f")"
	done >/results/rcupreempt_params.txt
fi
# The preemptible kernel's booster must run above the readers it boosts
# (patch 0008): its SCHED_FIFO priority beside rcupreempt.boost_prio.
for p in /proc/[0-9]*; do
	[ "$(cat "$p/comm" 2>/dev/null)" = rcu_preempt_boost ] || continue
	# shellcheck disable=SC2046 # /proc/PID/stat's fields; the comm has no spaces
	set -- $(cat "$p/stat")
	printf 'booster_rt_priority %s\nbooster_policy %s\n' "${40}" "${41}" >/results/booster.txt
	echo "boost_prio $(cat /sys/module/rcupreempt/parameters/boost_prio)" >>/results/booster.txt
done
grep -q 'End of test: SUCCESS' /results/verdict.txt
