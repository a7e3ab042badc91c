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
grep -q 'End of test: SUCCESS' /results/verdict.txt
