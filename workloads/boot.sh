#!/bin/bash
# boot.sh: boot one kernel of the suite in QEMU, run a job in it, collect
# its results.  See usage() below.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

usage() {
	cat <<USAGE
usage: workloads/boot.sh --kernel NAME --vcpus N --job SCRIPT --out DIR [options]

Boots kernel NAME (the scenario configs/NAME/) with N vCPUs under QEMU and runs
SCRIPT as /job.sh inside the guest (busybox sh; the kernel's modules and
rcubench.ko, when built at \$RB_CACHE/bench/NAME/rcubench.ko, are in
/modules/*.ko; the job writes result files to /results/).  The results return over the second
serial port into DIR/results/; DIR/console.log is the guest console.
DIR/status is "ok" or the failure reason; the exit code is 0 only for ok.

options:
  --timeout S        hard time budget for the whole boot (default BOOT_TIMEOUT)
  --hang-timeout S   kill the guest after S seconds without console output
                     (default HANG_TIMEOUT)
  --append ARGS      extra kernel command-line arguments (after the
                     scenario's own, configs/NAME/boot and its shared
                     fragments' .boot files)
  --mem MB           guest memory (default GUEST_MEM_MB)
  --bzimage PATH     boot this bzImage instead of the suite's build of NAME
  --modules DIR      take *.ko from DIR (searched recursively) instead
  --file PATH        also put PATH into the guest as /extra/<basename> (repeatable)
  --allow REGEX      console lines matching REGEX are not health failures
  --pin              pin vCPU n's QEMU thread to host CPU n mod (host CPUs);
                     DIR/pinned says 1 when every vCPU thread was pinned, else 0
  --quiet            do not copy the console to the terminal
  --interactive      the guest console is this terminal (make shell): QEMU
                     runs in the foreground, Ctrl-A x kills it; no hang
                     timer; DIR/console.log keeps what the console printed
  --plugin           count instructions with the rbcount TCG plugin
                     (workloads/tcg-plugin): counts in DIR/results/counts.csv;
                     a boot whose plugin QEMU refuses or that writes no
                     counts fails
USAGE
}

# plugin_qemu_args KERNEL ACCEL OUT: QEMU's arguments loading rbcount.so,
# built here, with the kernel's System.map; counts go to OUT/counts.csv.
# RB_PLUGIN_SO (another plugin: tests), RB_PLUGIN_MEM=off (no load/store
# counting: faster) and RB_PLUGIN_COH=on (the cache-coherence model: transfers
# between vCPUs' caches in windows, the hottest lines; slower) in the
# environment change them.
plugin_qemu_args() {
	local so=$RB_TOP/workloads/tcg-plugin/rbcount.so map core
	map=$(kernel_obj "$1")/System.map
	[ "$2" = tcg ] || die "--plugin needs TCG (accelerator here: $2)"
	[ -r "$map" ] || die "--plugin: no $map for kernel $1"
	make -s -C "$RB_TOP/workloads/tcg-plugin" >&2 || die "--plugin: rbcount.so does not build"
	# The RCU core's functions, whose interrupts-off work per episode the
	# plugin follows in windows (count_rows.py's CORE, less the read side).
	core=$(/usr/bin/python3 "$RB_TOP/workloads/tcg-plugin/count_rows.py" --plugin-args) ||
		die "--plugin: count_rows.py gives no core regex"
	echo "-plugin ${RB_PLUGIN_SO:-$so},out=$3/counts.csv,map=$map,mem=${RB_PLUGIN_MEM:-on},coh=${RB_PLUGIN_COH:-off},stat=$3/rbstat.in,$core -d plugin -D $3/plugin.log"
}

# rbstat_channel OUT: the plugin's channel to rbstat in the guest (a FIFO
# the plugin writes, QEMU's pipe chardev feeds to the guest's third serial
# port, ttyS2; what the guest writes there goes to a file); prints QEMU's
# arguments for it, which must follow the other -serial options.
rbstat_channel() {
	rm -f "$1/rbstat.in" "$1/rbstat.out"
	mkfifo "$1/rbstat.in" && : >"$1/rbstat.out" || die "--plugin: cannot make $1/rbstat.in"
	echo "-chardev pipe,id=rbstat,path=$1/rbstat -serial chardev:rbstat"
}

# kcsan_verdict VERDICT: the boot's verdict once KCSAN's data-race reports
# (a -kcsan kernel) are read: workloads/kcsan-reports.py places each in the
# RCU implementation or elsewhere and lists them in OUT/kcsan.txt (and
# kcsan.tsv); a report in RCU code fails a boot that was otherwise ok.
kcsan_verdict() {
	local kobj rc=0
	if ! grep -q 'BUG: KCSAN: ' "$out/console.log" 2>/dev/null; then
		echo "$1"
		return
	fi
	kobj=$(kernel_obj "$kernel")
	# --bzimage PATH: the build it came from (PATH is <obj>/arch/x86/boot/bzImage).
	[ "$bzimage" = "$(kernel_bzimage "$kernel")" ] || kobj=${bzimage%/arch/x86/boot/bzImage}
	"$RB_TOP/workloads/kcsan-reports.py" "$out/console.log" --obj "$kobj" --tsv "$out/kcsan.tsv" \
		>"$out/kcsan.txt" 2>&1 || rc=$?
	if [ "$1" != ok ] || [ $rc = 0 ]; then
		echo "$1"
	elif [ $rc = 1 ]; then
		echo "kcsan: data races in RCU code ($(tail -1 "$out/kcsan.txt")); first: $(head -1 "$out/kcsan.txt" | cut -f3)"
	else
		echo "kcsan: the reports could not be read: $(tail -1 "$out/kcsan.txt")"
	fi
}
# plugin_verdict OUT VERDICT: the boot's verdict once the plugin's counts are
# in OUT/results/counts.csv, or "plugin-failed: why" (QEMU refused the
# plugin, or the plugin wrote nothing).
plugin_verdict() {
	local why
	if [ -s "$1/counts.csv" ] && tail -1 "$1/counts.csv" | grep -q '^# rbcount 1: end'; then
		mv -f "$1/counts.csv" "$1/results/counts.csv"
		echo "$2"
		return 0
	fi
	why=$(cat "$1/qemu.log" "$1/plugin.log" 2>/dev/null | grep -m1 -iE 'plugin|rbcount' | tr -d '\r') || true
	echo "plugin-failed: the rbcount plugin wrote no counts (${why:-$2})"
}

kernel= vcpus= job= out= append= bzimage= moddir= allow= quiet=0 pin=0 plugin=0 hang_given=0 timeout_given=0
interactive=0
boot_args=("$@")
files=()
timeout_s=$(conf_get BOOT_TIMEOUT)
hang_s=$(conf_get HANG_TIMEOUT)
PLUGIN_HANG_TIMEOUT=$(conf_get PLUGIN_HANG_TIMEOUT)
mem=$(conf_get GUEST_MEM_MB)
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift ;;
	--vcpus) vcpus=$2; shift ;;
	--job) job=$2; shift ;;
	--out) out=$2; shift ;;
	--timeout) timeout_s=$2 timeout_given=1; shift ;;
	--hang-timeout) hang_s=$2 hang_given=1; shift ;;
	--append) append=$2; shift ;;
	--mem) mem=$2; shift ;;
	--bzimage) bzimage=$2; shift ;;
	--modules) moddir=$2; shift ;;
	--allow) allow=$2; shift ;;
	--file) files+=("$2"); shift ;;
	--quiet) quiet=1 ;;
	--pin) pin=1 ;;
	--plugin) plugin=1 ;;
	--interactive) interactive=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown option '$1'" ;;
	esac
	shift
done
[ -n "$kernel" ] && [ -n "$vcpus" ] && [ -n "$job" ] && [ -n "$out" ] ||
	{ usage >&2; die "--kernel, --vcpus, --job and --out are required"; }
check_kernel "$kernel"
append="$(kernel_boot_args "$kernel") $append"
check_vcpus "$vcpus"
[ -r "$job" ] || die "no such job script: $job"
for n in "$timeout_s" "$hang_s" "$mem"; do
	case "$n" in '' | *[!0-9]*) die "timeouts and --mem take whole numbers, got '$n'" ;; esac
done
need_tool qemu-system-x86_64 cpio base64
obj=$(kernel_obj "$kernel")
bzimage=${bzimage:-$(kernel_bzimage "$kernel")}
moddir=${moddir:-$obj}
[ -r "$bzimage" ] || die "kernel $kernel is not built ($bzimage): run 'make kernels'"
# RB_TCG_THREAD=single: one host thread runs every vCPU round-robin (make
# scale's count boots); multi (the default): a thread per vCPU.
tcg_thread=${RB_TCG_THREAD:-multi}
case "$tcg_thread" in single | multi) ;; *) die "RB_TCG_THREAD must be single or multi, got '$tcg_thread'" ;; esac

mkdir -p "$out"
rm -rf "$out/results" "$out/status" "$out/console.log" "$out/channel.txt" "$out/pinned" "$out/counts.csv"
mkdir -p "$out/results"

# Per-boot initramfs: shared base + this kernel's modules + the job.
base=$RB_CACHE/initramfs/base.cpio
mkdir -p "$RB_CACHE/initramfs"
"$RB_TOP/workloads/mkinitramfs.sh" "$base"
extra=$(mktemp -d)
trap 'rm -rf "$extra"' EXIT
mkdir -p "$extra/root/modules"
find "$moddir" -name '*.ko' -exec cp {} "$extra/root/modules/" \;
# rcubench.ko as built for this kernel by bench-module/ (if it is).
bench_ko=$(bench_module_path "$kernel")
[ ! -f "$bench_ko" ] || cp "$bench_ko" "$extra/root/modules/rcubench.ko"
cp "$job" "$extra/root/job.sh"
mkdir -p "$extra/root/extra"
for f in "${files[@]}"; do
	[ -r "$f" ] || die "no such file for the guest: $f"
	cp "$f" "$extra/root/extra/"
done
(cd "$extra/root" && find . | cpio -o -H newc --quiet) >"$extra/extra.cpio"
cat "$base" "$extra/extra.cpio" >"$out/initrd.cpio"

accel=$("$RB_TOP/workloads/accel.sh")
case "$accel" in
kvm) accel_args=(-accel kvm -cpu host) ;;
*) accel_args=(-accel "tcg,thread=$tcg_thread" -cpu max) ;;
esac
echo "$accel" >"$out/accel"
plugin_args=() stat_args=()
if [ $plugin = 1 ]; then
	# A plugin boot prints steadily; its rare hang (see README) should cost
	# less than a normal boot's hang timer.
	if [ $hang_given = 0 ]; then
		hang_s=$PLUGIN_HANG_TIMEOUT
		[ "${RB_PLUGIN_COH:-off}" != on ] || hang_s=$(conf_get PLUGIN_COH_HANG_TIMEOUT)
	fi
	# A count boot with the coherence model measures no time, and at 64
	# vCPUs beside another lane it can take more than BOOT_TIMEOUT to
	# finish while printing steadily; the hang timer still stops a stuck one.
	if [ $timeout_given = 0 ] && [ "${RB_PLUGIN_COH:-off}" = on ]; then
		timeout_s=$(conf_get PLUGIN_COH_BOOT_TIMEOUT)
	fi
	pargs=$(plugin_qemu_args "$kernel" "$accel" "$out") || exit 1
	read -ra plugin_args <<<"$pargs"
	sargs=$(rbstat_channel "$out") || exit 1
	read -ra stat_args <<<"$sargs"
	# rbstat (workloads/rbstat) counts only where the plugin listens.
	append="$append rb_plugin=1"
fi
note "boot $kernel, $vcpus vCPUs, accel $accel, job $(basename "$job") -> $out"
cmdline="console=ttyS0 panic=-1 no_timer_check rcu_bench_kernel=$kernel $append"

# interactive_boot: QEMU in the foreground with the console on this
# terminal (multiplexed: Ctrl-A x exits, Ctrl-C goes to the guest) and
# logged to console.log; the result channel as in a batch boot.
interactive_boot() {
	local start rc=0
	start=$(date +%s)
	qemu-system-x86_64 "${accel_args[@]}" "${plugin_args[@]}" -smp "$vcpus" -m "$mem" \
		-name "rcu-bench-$kernel,debug-threads=on" -display none -no-reboot -monitor none \
		-chardev "stdio,id=console,mux=on,signal=off,logfile=$out/console.log" \
		-serial chardev:console -serial "file:$out/channel.txt" "${stat_args[@]}" \
		-kernel "$bzimage" -initrd "$out/initrd.cpio" \
		-append "$cmdline" \
		2>"$out/qemu.log" || rc=$?
	rm -f "$out/initrd.cpio"
	echo $(($(date +%s) - start)) >"$out/elapsed"
	"$RB_TOP/workloads/unpack-channel.sh" "$out/channel.txt" "$out/results" || true
	if grep -q '^RB-DONE' "$out/channel.txt" 2>/dev/null; then
		verdict=ok
	else
		verdict="ended: QEMU exited (rc $rc) before the guest powered off"
	fi
	verdict=$(kcsan_verdict "$verdict")
	[ $plugin = 0 ] || verdict=$(plugin_verdict "$out" "$verdict")
	echo "$verdict" | atomic_write "$out/status"
	note "$kernel/$vcpus: session over after $(cat "$out/elapsed") s; console log $out/console.log; status: $verdict"
	[ "$verdict" = ok ]
}
if [ $interactive = 1 ]; then
	interactive_boot
	exit
fi

# debug-threads=on names the vCPU threads "CPU n/TCG", for --pin.
# no_timer_check: the IO-APIC timer check at boot counts timer interrupts
# over a short busy wait, which a TCG vCPU starved by a loaded host can
# miss ("IO-APIC + timer doesn't work!", a panic: one torture boot of 13
# beside a kernel build and another guest); the timer works regardless.
qemu-system-x86_64 "${accel_args[@]}" "${plugin_args[@]}" -smp "$vcpus" -m "$mem" -name "rcu-bench-$kernel,debug-threads=on" \
	-nographic -no-reboot -monitor none \
	-serial "file:$out/console.log" -serial "file:$out/channel.txt" "${stat_args[@]}" \
	-kernel "$bzimage" -initrd "$out/initrd.cpio" \
	-append "$cmdline" \
	</dev/null >"$out/qemu.log" 2>&1 &
qemu_pid=$!
trap 'kill $qemu_pid 2>/dev/null || true; rm -rf "$extra"' EXIT
[ $quiet -eq 1 ] || { tail -n +1 -F "$out/console.log" 2>/dev/null & tail_pid=$!; }

# pin_vcpus PID N: pin the N vCPU threads of QEMU PID (named "CPU n/TCG" or
# "CPU n/KVM") to host CPU n mod (host CPUs), so that the scheduler does not
# move them between CPUs during a timed run.  QEMU creates them at machine
# init: wait up to 5 s for all N.  Prints 1 when all were pinned, else 0.
pin_vcpus() {
	local pid=$1 n=$2 cpus tries=50 task comm pinned=0
	cpus=$(nproc)
	while [ $tries -gt 0 ] && kill -0 "$pid" 2>/dev/null; do
		[ "$(cat /proc/"$pid"/task/*/comm 2>/dev/null | grep -c '^CPU [0-9]*/')" -lt "$n" ] || break
		sleep 0.1
		tries=$((tries - 1))
	done
	for task in /proc/"$pid"/task/*; do
		comm=$(cat "$task/comm" 2>/dev/null) || continue
		case "$comm" in
		CPU\ [0-9]*/*)
			comm=${comm#CPU }
			taskset -p -c $((${comm%%/*} % cpus)) "${task##*/}" >/dev/null 2>&1 && pinned=$((pinned + 1))
			;;
		esac
	done
	[ $pinned -eq "$n" ] && echo 1 || echo 0
}
if [ $pin -eq 1 ] && [ "$accel" != kvm ] && [ "$tcg_thread" = single ]; then
	# One thread for every vCPU: nothing per vCPU to pin.
	echo 0 >"$out/pinned"
elif [ $pin -eq 1 ]; then
	pin_vcpus $qemu_pid "$vcpus" >"$out/pinned"
	[ "$(cat "$out/pinned")" = 1 ] || note "boot: could not pin the $vcpus vCPU threads of QEMU"
fi

# Watch the guest: a hard budget, and a hang timer reset by console output.
start=$(date +%s)
last_size=-1 last_change=$start verdict=
while kill -0 $qemu_pid 2>/dev/null; do
	sleep 0.2 # Short: a bench boot lasts seconds, and each one waits for this.
	now=$(date +%s)
	size=$(stat -c %s "$out/console.log" 2>/dev/null || echo 0)
	if [ "$size" != "$last_size" ]; then
		last_size=$size last_change=$now
	fi
	if [ $((now - start)) -ge "$timeout_s" ]; then
		verdict="timeout: no power-off within ${timeout_s}s"
	elif [ $((now - last_change)) -ge "$hang_s" ]; then
		verdict="hang: no console output for ${hang_s}s"
	fi
	if [ -n "$verdict" ]; then
		kill $qemu_pid 2>/dev/null || true
		break
	fi
done
wait $qemu_pid 2>/dev/null || true
[ -z "${tail_pid:-}" ] || { sleep 0.2; kill "$tail_pid" 2>/dev/null || true; }
rm -f "$out/initrd.cpio"
elapsed=$(($(date +%s) - start))

"$RB_TOP/workloads/unpack-channel.sh" "$out/channel.txt" "$out/results" || true
job_rc=$(sed -n 's/^RB-DONE rc=\([0-9]*\).*/\1/p' "$out/channel.txt" | tail -1 | tr -d '\r')
if [ -z "$verdict" ]; then
	if grep -q 'Kernel panic' "$out/console.log"; then
		verdict="panic: $(grep -m1 'Kernel panic' "$out/console.log" | tr -d '\r')"
	elif [ -z "$job_rc" ]; then
		verdict="no-result: guest stopped without finishing the job"
	elif [ "$job_rc" != 0 ]; then
		verdict="job-failed: rc=$job_rc"
	else
		verdict=$("$RB_TOP/workloads/parse-console.sh" ${allow:+--allow "$allow"} "$out/console.log") || true
		[ -n "$verdict" ] || verdict=ok
	fi
fi
# A guest whose kernel oopsed in a worker or a module may go quiet instead
# of panicking: a hang or time-out after an oops is the oops.
case "$verdict" in
hang:* | timeout:*)
	oops=$(grep -v 'BUG: KCSAN: ' "$out/console.log" |
		grep -m1 -E '(BUG: |Oops: |general protection fault|kernel BUG at)' |
		tr -d '\r' | sed 's/^\[[^]]*\] //') || true
	[ -z "$oops" ] || verdict="oops: $oops (then $verdict)"
	;;
esac
verdict=$(kcsan_verdict "$verdict")
[ $plugin = 0 ] || verdict=$(plugin_verdict "$out" "$verdict")
echo "$verdict" | atomic_write "$out/status"
echo "$elapsed" >"$out/elapsed"
banner=$(grep -m1 -E 'RCU implementation' "$out/console.log" | tr -d '\r' | sed 's/^\[[^]]*\] //') || true
note "$kernel/$vcpus: ${banner:-no RCU banner}; ${elapsed}s; status: $verdict"
# About one plugin boot in ten stops making progress (README): a plugin
# boot that hung is booted once more before it counts as failed.
if [ $plugin = 1 ] && [ "${RB_PLUGIN_RETRIED:-0}" = 0 ]; then
	case "$verdict" in
	hang:* | "plugin-failed: the rbcount plugin wrote no counts (hang:"*)
		note "$kernel/$vcpus: the plugin boot hung; booting it once more (console: console-hung.log)"
		mv -f "$out/console.log" "$out/console-hung.log"
		rm -rf "$extra"
		RB_PLUGIN_RETRIED=1 exec "$0" "${boot_args[@]}"
		;;
	esac
fi
case "$verdict" in plugin-failed:*) die "$kernel/$vcpus: ${verdict#plugin-failed: }" ;; esac
[ "$verdict" = ok ]
